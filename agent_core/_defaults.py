"""The model name every lesson asks for when none is given: the mock's, and run_agent's default
(every lesson)."""

__all__ = ["DEFAULT_MODEL"]

DEFAULT_MODEL = "mock-model"
