"""The model name every lesson asks for when none is given, and the output cap of every call the library
makes (every lesson)."""

__all__ = ["DEFAULT_MODEL", "DEFAULT_MAX_TOKENS"]

DEFAULT_MODEL = "mock-model"

# The most tokens one reply may have when the caller sets no cap: local servers (llama.cpp, Ollama) set
# none, and a small model that rambles can write for minutes. Sent as max_tokens, which every
# OpenAI-compatible server reads (llama-cpp-python and Ollama ignore max_completion_tokens).
DEFAULT_MAX_TOKENS = 1024
