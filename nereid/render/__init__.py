"""nereid.render."""
