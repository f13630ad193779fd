"""nereid.ops."""
