SELECT Name FROM singer WHERE Citizenship != 'French'
