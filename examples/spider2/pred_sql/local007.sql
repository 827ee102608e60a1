SELECT count(*) FROM Pets WHERE weight > 10
