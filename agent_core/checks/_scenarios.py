"""lesson 00: how every lesson's check judges: the learner's code beside the reference on many
scenarios, the smallest failure in plain words.

Adding a shape (a case the lesson names: a tool that raises, names sharing a prefix, 1 against true...):
1. Name it in the check's shapes dict, beside its generator (e.g. RUN_SHAPES in lesson04.py): the name
   as the lesson says it, and a predicate on one scenario.
2. Make the generator (or a fixed scenario) produce it; if the seeded scenarios still miss it, change the
   generator's odds or the seed, never the predicate.
3. tests/test_check_shapes.py then fails until a seeded scenario reaches it; add the wrong answer the
   shape catches to tests/test_checks_lessonNN.py with the problem it should name, and a right answer
   written differently that must still pass.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from .._i18n import _
from . import Verdict, verdict

__all__ = [
    "Dimension",
    "forms_of",
    "Failure",
    "scenarios",
    "first_failure",
    "judge_scenarios",
    "smaller_lists",
    "smaller_ints",
    "smaller_texts",
    "joined",
]

S = TypeVar("S")
T = TypeVar("T")

SHRINK = True
"""whether a failure is shrunk to its smallest scenario (tools/mutants.py only asks whether a check fails)"""

Judge = Callable[[Any], "str | None"]
"""runs the learner's code and the reference on one scenario: None when they agree, else what differs"""


@dataclass(frozen=True)
class Failure(Generic[S]):
    """the smallest scenario found on which the learner's code and the reference disagree"""

    scenario: S
    problem: str


@dataclass(frozen=True)
class Dimension(Generic[S]):
    """one way the exercise's words say an input varies: those words, quoted, and the forms it takes

    `words` is quoted from the exercise's own text (tests/test_input_space.py finds it there); `forms`
    names each form real code or a real model produces, with a predicate on one scenario. The seeded
    scenarios must reach every form, so the dimension is varied, never held still.
    """

    words: str
    forms: dict[str, Callable[[S], bool]]


def forms_of(shapes: dict[str, Callable[[S], bool]], *names: str) -> dict[str, Callable[[S], bool]]:
    """the named shapes of a check, as the forms of one dimension of its input space"""
    return {name: shapes[name] for name in names}


def scenarios(fixed: Sequence[S], generate: Callable[[random.Random], S], count: int, seed: int) -> list[S]:
    """the fixed, readable scenarios first, then `count` generated ones: the same on every run and machine"""
    rng = random.Random(seed)
    return [*fixed, *(generate(rng) for _ in range(count))]


def first_failure(
    cases: Sequence[S],
    judge: Callable[[S], str | None],
    shrink: Callable[[S], Iterator[S]] | None = None,
    budget: int = 400,
) -> Failure[S] | None:
    """the first scenario the judge finds fault with, shrunk while a smaller one still fails

    `shrink` yields only valid scenarios (each one a question the exercise can be asked), since an
    exception inside `judge` counts as the learner's code raising.
    """
    for scenario in cases:
        problem = _judged(judge, scenario)
        if problem is not None:
            return _shrunk(Failure(scenario, problem), judge, shrink, budget)
    return None


def judge_scenarios(
    exercise: str,
    cases: Sequence[S],
    judge: Callable[[S], str | None],
    describe: Callable[[S], str],
    success: str,
    shrink: Callable[[S], Iterator[S]] | None = None,
) -> Verdict:
    """print the verdict: solved, or the smallest failing scenario in plain words and what went wrong"""
    failure = first_failure(cases, judge, shrink)
    problems = (
        []
        if failure is None
        else [_("{scenario}: {problem}", scenario=describe(failure.scenario), problem=failure.problem)]
    )
    result = verdict(exercise, problems, success)
    result.scenarios = len(cases)
    return result


def joined(problems: Sequence[str]) -> str | None:
    """several problems of one scenario as one line, "first; then" (None when there are none)"""
    if not problems:
        return None
    line = problems[0]
    for problem in problems[1:]:
        line = _("{first}; {then}", first=line, then=problem)
    return line


def _judged(judge: Callable[[S], str | None], scenario: S) -> str | None:
    # a copy each time: the learner's code may change what it is given, and the next try needs the original
    try:
        return judge(copy.deepcopy(scenario))
    except Exception as error:  # the learner's code raised: that is the problem to report, not a crash
        return _("your code raised {error_type}: {error}", error_type=type(error).__name__, error=error)


def _shrunk(
    failure: Failure[S],
    judge: Callable[[S], str | None],
    shrink: Callable[[S], Iterator[S]] | None,
    budget: int,
) -> Failure[S]:
    # greedy: take the first smaller scenario that still fails, start again from it, stop at the budget
    if shrink is None or not SHRINK:
        return failure
    tries = 0
    improved = True
    while improved and tries < budget:
        improved = False
        for smaller in shrink(failure.scenario):
            tries += 1
            problem = _judged(judge, smaller)
            if problem is not None:
                failure, improved = Failure(smaller, problem), True
                break
            if tries >= budget:
                break
    return failure


def smaller_lists(items: Sequence[T]) -> Iterator[list[T]]:
    """shorter versions of a list: empty, each half, then without each item in turn"""
    count = len(items)
    if count == 0:
        return
    yield []
    if count > 2:
        yield list(items[: count // 2])
        yield list(items[count // 2 :])
    if count > 1:
        for index in range(count):
            yield [*items[:index], *items[index + 1 :]]


def smaller_ints(value: int, floor: int = 0) -> Iterator[int]:
    """numbers between floor and value, closest to floor first"""
    tried = set()
    for candidate in (floor, floor + (value - floor) // 2, value - 1):
        if floor <= candidate < value and candidate not in tried:
            tried.add(candidate)
            yield candidate


def smaller_texts(text: str) -> Iterator[str]:
    """shorter texts: empty, each half, then the text without its last character"""
    if not text:
        return
    yield ""
    if len(text) > 2:
        yield text[: len(text) // 2]
        yield text[len(text) // 2 :]
    if len(text) > 1:
        yield text[:-1]
