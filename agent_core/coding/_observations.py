"""lesson 07: the coding tools' answers read back: file listings, grep matches, pytest reports (and 05's)."""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Hashable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

__all__ = [
    "TEST_COMMAND",
    "steady_timings",
    "FileView",
    "read_view",
    "grep_matches",
    "Failure",
    "PytestReport",
    "pytest_report",
    "ReportCache",
]

TEST_COMMAND = "python -m pytest -q"

_DURATION = re.compile(r"\bin \d+(?:\.\d+)?s(?: \(\d+:\d\d:\d\d\))?")


def steady_timings(text: str) -> str:
    """replace pytest's run time ("4 passed in 0.04s") with "in ?.??s": same text on every run"""
    return _DURATION.sub("in ?.??s", text)


@dataclass(frozen=True)
class FileView:
    """what one read_file observation showed: the path and the numbered lines"""

    path: str
    lines: dict[int, str]
    total: int

    @property
    def whole(self) -> bool:
        return len(self.lines) == self.total

    def text(self) -> str:
        """the file's text, rebuilt from the numbered lines (ending with a newline)"""
        return "".join(self.lines[n] + "\n" for n in sorted(self.lines))


_READ_HEADER = re.compile(r"^(?P<path>\S+) \(lines (?P<first>\d+)-(?P<last>\d+) of (?P<total>\d+)\)$")
_NUMBERED = re.compile(r"^ *(?P<n>\d+) \| ?(?P<text>.*)$")


def read_view(observation: str) -> FileView | None:
    """parse read_file's answer ("path (lines 1-12 of 12)" then " 1 | text" lines); None if not one"""
    header, _, body = observation.partition("\n")
    found = _READ_HEADER.match(header)
    if not found:
        return None
    lines = {}
    for line in body.split("\n"):
        numbered = _NUMBERED.match(line)
        if numbered:
            lines[int(numbered["n"])] = numbered["text"]
    return FileView(found["path"], lines, int(found["total"]))


_GREP_LINE = re.compile(r"^(?P<path>[^\s:]+):(?P<n>\d+): (?P<text>.*)$")
_GREP_COUNT = re.compile(r"^([\d,]+) match(?:es)? for ")


def grep_matches(observation: str) -> tuple[int, list[tuple[str, int, str]]]:
    """parse grep's answer: (total matches, [(path, line number, text), ...] as shown)"""
    first = observation.split("\n", 1)[0]
    count = _GREP_COUNT.match(first)
    total = int(count[1].replace(",", "")) if count else 0
    shown = [
        (m["path"], int(m["n"]), m["text"]) for m in map(_GREP_LINE.match, observation.split("\n")[1:]) if m
    ]
    return total, shown


@dataclass(frozen=True)
class Failure:
    """one failing test, as pytest's short summary names it"""

    path: str
    test: str
    reason: str


@dataclass(frozen=True)
class PytestReport:
    """what a pytest run said: exit code, counts, failures, and the failing lines it showed"""

    exit_code: int | None
    passed: int
    failed: int
    failures: tuple[Failure, ...]
    failing_lines: tuple[str, ...]  # the source lines pytest marks with ">"
    locations: tuple[tuple[str, int], ...]  # (path, line) where each failure was raised

    @property
    def green(self) -> bool:
        return self.exit_code == 0

    def counts(self) -> str:
        parts = [f"{self.failed} failed"] if self.failed else []
        return ", ".join([*parts, f"{self.passed} passed"])


_FAILED = re.compile(r"^FAILED (?P<path>[^:\s]+)::(?P<test>\S+)(?: - (?P<reason>.*))?$")
_LOCATION = re.compile(r"^(?P<path>[\w./-]+\.py):(?P<n>\d+): \w+")


def pytest_report(observation: str) -> PytestReport | None:
    """parse run_command's answer for a pytest run; None if it is not one"""
    status, _, output = observation.partition("\n")
    if not status.startswith("exit code: ") or not re.search(r"\d+ (passed|failed)", output):
        return None
    exit_code = int(status.removeprefix("exit code: ").split()[0])
    number = {
        word: int(found[1]) if (found := re.search(rf"(\d+) {word}", output)) else 0
        for word in ("passed", "failed")
    }
    lines = output.split("\n")
    return PytestReport(
        exit_code=exit_code,
        passed=number["passed"],
        failed=number["failed"],
        failures=tuple(
            Failure(m["path"], m["test"], m["reason"] or "") for m in map(_FAILED.match, lines) if m
        ),
        failing_lines=tuple(line[1:].strip() for line in lines if line.startswith(">")),
        locations=tuple((m["path"], int(m["n"])) for m in map(_LOCATION.match, lines) if m),
    )


class ReportCache:
    """pytest's reports, each run once per key that decides it (the files it ran on, the command)

    The tests see their files and a clean environment, nothing else, so the same key gives the same
    report: a guard or a grader that asks again after a reply that changed nothing does not wait for
    pytest a second time. A run that did not finish (timed out, killed) is not remembered: that can
    depend on how busy the machine was. Past `kept` reports, the oldest is forgotten.
    """

    def __init__(self, kept: int = 64) -> None:
        self.kept = kept
        self.reports: dict[Hashable, str] = {}  # oldest first
        self._lock = threading.Lock()  # for report_all's threads

    def report(self, key: Hashable, run: Callable[[], tuple[str, bool]]) -> str:
        """the report remembered for key, or run() -> (report, finished) once"""
        with self._lock:
            if key in self.reports:
                return self.reports[key]
        report, finished = run()
        if finished:
            with self._lock:
                self.reports[key] = report
                while len(self.reports) > self.kept:
                    del self.reports[next(iter(self.reports))]
        return report

    def report_all(self, runs: Mapping[Hashable, Callable[[], tuple[str, bool]]]) -> None:
        """learn the reports of the runs not remembered yet, side by side: one thread per core, each
        waiting on its own pytest process (for a check that knows every project it will ask about)"""
        with self._lock:
            missing = [(key, run) for key, run in runs.items() if key not in self.reports]
        if len(missing) < 2:
            return  # nothing to gain: report() runs it when asked
        with ThreadPoolExecutor(max_workers=min(len(missing), os.cpu_count() or 1)) as pool:
            list(pool.map(lambda item: self.report(*item), missing))
