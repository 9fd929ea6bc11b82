"""MCP servers that lesson 09 connects to, runnable as scripts over stdio (lesson 09)."""

__all__: list[str] = []
