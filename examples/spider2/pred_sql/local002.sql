SELECT Name, Country, Age FROM singer ORDER BY Age DESC
