"""agent_core: the finished, tested pieces of the course, one module per lesson (see README.md here)."""

__all__: list[str] = []  # import from the modules: `from agent_core.loop import run_agent`
