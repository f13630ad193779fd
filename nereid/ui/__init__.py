"""nereid.ui."""
