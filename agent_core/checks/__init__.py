"""Exercise checks: each lesson's checks say what is right, or exactly what is still wrong (every lesson).

A check never raises: it prints a verdict, so a notebook with an unsolved exercise still runs
to the end, and returns True or False so a test can assert on it.
"""

from __future__ import annotations

__all__ = ["verdict"]


def verdict(exercise: str, problems: list[str], success: str) -> bool:
    """print a pass line, or one line per problem; True when there are none"""
    if problems:
        print(f"✗ Exercise {exercise}: not yet.")
        for problem in problems:
            print(f"  - {problem}")
        return False
    print(f"✓ Exercise {exercise}: {success}")
    return True
