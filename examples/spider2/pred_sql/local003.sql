SELECT avg(Age) , min(Age) , max(Age) FROM singer WHERE Country = 'France'
