"""agent_core: the finished, tested pieces of the course, one module per lesson."""
