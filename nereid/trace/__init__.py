"""nereid.trace."""
