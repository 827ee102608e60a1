SELECT max(Capacity) , avg(Capacity) FROM stadium
