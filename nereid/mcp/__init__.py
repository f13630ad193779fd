"""nereid.mcp."""
