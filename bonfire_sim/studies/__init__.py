"""Studies that play their own games and store tidy tables: the ladder, the skill-depth
matrix and weight tuning (the report reads what they store)."""
