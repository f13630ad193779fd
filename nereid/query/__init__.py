"""nereid.query."""
