"""`python -m agent_core` runs the agent-core command (every lesson)."""

import sys

from .cli import run

__all__: list[str] = []

if __name__ == "__main__":
    sys.exit(run())
