"""MCP servers that lesson 10 connects to, runnable as scripts over stdio (lesson 10)."""

__all__: list[str] = []
