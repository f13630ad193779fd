"""nereid.mermaid."""
