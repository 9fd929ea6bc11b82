"""Exercise checks: each lesson's checks say what is right, or exactly what is still wrong (every lesson)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._i18n import _

if TYPE_CHECKING:
    import openai

    from ..trace import Trace

__all__ = ["Verdict", "verdict"]


class Verdict:
    """the outcome of a check: truthy when solved; shows nothing more in a notebook"""

    def __init__(self, exercise: str, problems: list[str], scenarios: int = 0):
        self.exercise = exercise
        self.problems = problems
        self.scenarios = scenarios  # how many scenarios the check ran (0: it has no scenarios)

    def __bool__(self) -> bool:
        return not self.problems

    def __repr__(self) -> str:
        return f"Verdict({self.exercise!r}, solved={not self.problems})"

    def _ipython_display_(self) -> None:
        """the verdict was already printed; don't echo the object as the cell's value"""


def verdict(exercise: str, problems: list[str], success: str) -> Verdict:
    """print a pass line, or one line per problem (the heading line in the learner's language, _i18n)"""
    if problems:
        print(_("✗ Exercise {exercise}: not yet.", exercise=exercise))
        for problem in problems:
            print(f"  - {problem}")
    else:
        print(_("✓ Exercise {exercise}: {success}", exercise=exercise, success=success))
    return Verdict(exercise, problems)


def _trace_of(client: openai.OpenAI) -> Trace:
    """the Trace a check's client records into: the checks make theirs with mock.client()"""
    from ..mock import MockClient  # only here: a verdict alone needs no mock

    if not isinstance(client, MockClient):
        raise TypeError(f"a check's client comes from mock.client(), not {type(client).__name__}")
    return client.trace
