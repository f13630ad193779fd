"""nereid.model."""
