DROP TABLE IF EXISTS qeval_e2e_sales;
CREATE TABLE qeval_e2e_sales (id int PRIMARY KEY, region text NOT NULL, amount numeric(8,2) NOT NULL, sold date NOT NULL);
INSERT INTO qeval_e2e_sales VALUES (1, 'north', 10.50, '2025-01-03'), (2, 'south', 4.00, '2025-01-04'), (3, 'north', 1.50, '2025-02-01'), (4, 'east', 7.25, '2025-02-11');
