"""nereid.actors."""
