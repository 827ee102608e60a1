Sure:
```sql
SELECT name, age FROM singer ORDER BY age
```
