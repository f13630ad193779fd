"""nereid.store."""
