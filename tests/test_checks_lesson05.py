"""Lesson 05's exercise checks: they pass the solutions and say exactly what is wrong with the rest."""

import pytest

from agent_core.checks.lesson05 import check_ask_first, check_max_uses, check_tests_pass
from agent_core.coding.tiny_project import TinyProject
from agent_core.guardrails import Decision
from agent_core.loop import Guardrail, StopRun


class MaxUses(Guardrail):
    """the solution: counts this run's uses from run.observations"""

    def __init__(self, name, limit):
        self.name, self.limit = name, limit

    def before_tool(self, run, call):
        if call["function"]["name"] != self.name:
            return None
        used = sum(o.name == self.name and o.error_type != "refused" for o in run.observations)
        if used >= self.limit:
            return f"{self.name} may run {self.limit} times in a run, and it has. Answer with what you have."
        return None


class Stub(Guardrail):
    def __init__(self, name, limit):
        self.name, self.limit = name, limit

    def before_tool(self, run, call):
        return None


class CountsForEver(MaxUses):
    """keeps its count from one run to the next"""

    def __init__(self, name, limit):
        super().__init__(name, limit)
        self.used = 0

    def before_tool(self, run, call):
        if call["function"]["name"] != self.name:
            return None
        self.used += 1
        return "no more add" if self.used > self.limit else None


class Stops(MaxUses):
    def before_tool(self, run, call):
        if super().before_tool(run, call):
            raise StopRun("max_uses", "stop")
        return None


class Vague(MaxUses):
    def before_tool(self, run, call):
        return "not allowed" if super().before_tool(run, call) else None


class SaysAdd(MaxUses):
    """names the lesson's tool, whatever tool it guards"""

    def before_tool(self, run, call):
        return "You may not call add any more." if super().before_tool(run, call) else None


class LessonsNumbers(MaxUses):
    """the lesson's add and 3, written in"""

    def before_tool(self, run, call):
        if call["function"]["name"] != "add":
            return None
        used = sum(o.name == "add" and o.error_type != "refused" for o in run.observations)
        return "add may run 3 times in a run, and it has." if used >= 3 else None


class RefusesEverything(MaxUses):
    def before_tool(self, run, call):
        if call["function"]["name"] != self.name and self.name == "divide":
            return "no"
        return super().before_tool(run, call)


class RefusesAtOnce(MaxUses):
    def before_tool(self, run, call):
        if self.limit == 1 and call["function"]["name"] == self.name:
            return f"no {self.name}"
        return super().before_tool(run, call)


class NotAGuard:
    def __init__(self, name, limit):
        pass


def test_check_max_uses_passes_the_solution(capsys):
    assert check_max_uses(MaxUses)
    assert "✓ Exercise 5.1" in capsys.readouterr().out


@pytest.mark.parametrize(
    "attempt, problem",
    [
        (
            Stub,
            "with MaxUses('add', 3), add ran 10 times before the run ended; it should run 3 times",
        ),
        (
            CountsForEver,
            "the same MaxUses let add run 0 times instead of 3: count the uses in the current run",
        ),
        (Stops, "the run ended with stop_reason 'max_uses': don't raise StopRun"),
        (Vague, "the refusal should name the tool ('add')"),
        (SaysAdd, "with MaxUses('divide', 2), the refusal says 'ERROR: You may not call add any more.'"),
        (LessonsNumbers, "use self.name and self.limit, not the lesson's 'add' and 3"),
        (RefusesEverything, "MaxUses('divide', 1) refused a call of add"),
        (RefusesAtOnce, "MaxUses('add', 1) got in the way of '5 + 8/12'"),
        (NotAGuard, "MaxUses should be a subclass of Guardrail"),
        (lambda name: None, "MaxUses('add', 3) raised TypeError"),
    ],
)
def test_check_max_uses_explains_what_is_wrong(attempt, problem, capsys):
    assert not check_max_uses(attempt)
    out = capsys.readouterr().out
    assert "✗ Exercise 5.1: not yet." in out and problem in out


@pytest.fixture(scope="module")
def project():
    return TinyProject()


def test_check_tests_pass_passes_the_solution_and_leaves_the_project_as_it_was(project, capsys):
    def tests_pass():
        report = project.run_tests()
        edited = [p for p in project.changed() if p.startswith("test_")]
        if edited:
            return False, f"test files were changed: {', '.join(edited)}. Put them back.\n{report}"
        return report.startswith("exit code: 0"), report

    project.write_file("scratch.txt", "x")
    assert check_tests_pass(tests_pass, project)
    assert "✓ Exercise 5.3" in capsys.readouterr().out
    assert project.changed() == []


@pytest.mark.parametrize(
    "make_attempt, problem",
    [
        (
            lambda project: (
                lambda: (
                    project.run_tests().startswith("exit code: 0") and not project.changed(),
                    project.run_tests(),
                )
            ),
            "ok is False but the report does not say that test_discount.py was changed",
        ),
        (
            lambda project: (
                lambda: (
                    project.run_tests().startswith("exit code: 0") and not project.changed(),
                    "Not done: test_discount.py was changed, or a test fails.",
                )
            ),
            "with the original code (one test fails), the report does not show the test run",
        ),
        (
            lambda project: lambda: (project.run_tests().startswith("exit code: 0"), project.run_tests()),
            "with the failing test edited so that it passes, tests_pass() said ok=True; it should say ok=False",
        ),
        (
            lambda project: lambda: (True, ""),
            "with the original code (one test fails), tests_pass() said ok=True",
        ),
        (
            lambda project: lambda: (False, "no"),
            "with the code fixed, the tests untouched, tests_pass() said ok=False",
        ),
        (
            lambda project: lambda: (  # names the test files it knows, by hand
                project.run_tests().startswith("exit code: 0")
                and not {"test_discount.py", "test_extra.py"} & set(project.changed()),
                f"test_discount.py was changed.\n{project.run_tests()}",
            ),
            "with the code fixed and test_rounding.py added, tests_pass() said ok=True; it should say ok=False",
        ),
        (lambda project: lambda: (False, ""), "the report is empty"),
        (lambda project: lambda: None, "should return a pair (ok, report)"),
        (lambda project: lambda answer: (True, ""), "tests_pass() raised TypeError"),
    ],
)
def test_check_tests_pass_explains_what_is_wrong(project, make_attempt, problem, capsys):
    assert not check_tests_pass(make_attempt(project), project)
    out = capsys.readouterr().out
    assert "✗ Exercise 5.3: not yet." in out and problem in out


def test_check_tests_pass_needs_the_project(capsys):
    assert not check_tests_pass(lambda: (True, ""), None)
    assert "pass the lesson's TinyProject" in capsys.readouterr().out


class AskFirst(Guardrail):
    """the solution: asks decide(call) before a listed tool runs; a denial goes back with its reason"""

    def __init__(self, decide, tools):
        self.decide, self.tools = decide, tools

    def before_tool(self, run, call):
        if call["function"]["name"] not in self.tools:
            return None
        decision = self.decide(call)
        if decision.approved:
            return None
        return f"a person did not approve {call['function']['name']}: {decision.reason}"


class AsksAfterwards(AskFirst):
    """the most tempting: asks once the tool has already run"""

    def before_tool(self, run, call):
        return None

    def after_tool(self, run, call, observation):
        super().before_tool(run, call)


class Stub2(AskFirst):
    def before_tool(self, run, call):
        return None


class RefusesWithoutReason(AskFirst):
    def before_tool(self, run, call):
        return "not allowed" if super().before_tool(run, call) else None


class StopsOnDenial(AskFirst):
    def before_tool(self, run, call):
        if super().before_tool(run, call):
            raise StopRun("denied", "a person said no")
        return None


class AsksAboutEverything(AskFirst):
    def before_tool(self, run, call):
        decision = self.decide(call)
        if call["function"]["name"] in self.tools and not decision.approved:
            return f"refused: {decision.reason}"
        return None


class HardCodesSend(AskFirst):
    def before_tool(self, run, call):
        if call["function"]["name"] != "send_application":
            return None
        decision = self.decide(call)
        return None if decision.approved else f"refused: {decision.reason}"


class RefusesAlways(AskFirst):
    def before_tool(self, run, call):
        if call["function"]["name"] in self.tools:
            return f"refused: {self.decide(call).reason}"
        return None


class RefusesWhenThereIsAReason(AskFirst):
    """takes any reason for a no, though an approval may carry one too"""

    def before_tool(self, run, call):
        if call["function"]["name"] in self.tools:
            decision = self.decide(call)
            if decision.reason:
                return f"refused: {decision.reason}"
        return None


class ReturnsTheDecision(AskFirst):
    def before_tool(self, run, call):
        if call["function"]["name"] in self.tools:
            decision = self.decide(call)
            return None if decision.approved else decision
        return None


class HardCodesReason(AskFirst):
    def before_tool(self, run, call):
        if super().before_tool(run, call):
            return "refused: a person reviews every application"
        return None


class NotAGuardEither:
    def __init__(self, decide, tools):
        pass


def test_check_ask_first_passes_the_solution(capsys):
    assert check_ask_first(AskFirst)
    assert "✓ Exercise 5.2" in capsys.readouterr().out


@pytest.mark.parametrize(
    "attempt, problem",
    [
        (AsksAfterwards, "the person said no, and the application was sent anyway"),
        (Stub2, "decide was never asked: before a call of a tool in self.tools runs"),
        (RefusesWithoutReason, "the refusal should carry the person's reason"),
        (StopsOnDenial, "after a denial the run ended with stop_reason 'denied'"),
        (AsksAboutEverything, "decide was asked about ['analyse_offer', 'match_cv', 'draft_application'"),
        (HardCodesSend, "with tools=['draft_application'], the draft was not stopped"),
        (RefusesAlways, "but send_application did not run: return None when decision.approved is true"),
        (
            RefusesWhenThereIsAReason,
            "the person approved, with the reason 'the person read the draft: send it', but "
            "send_application did not run",
        ),
        (ReturnsTheDecision, "before_tool returns None to let the call run, or a str"),
        (
            HardCodesReason,
            "with another person's reason ('drafts wait for Ana'), the refusal did not carry it",
        ),
        (NotAGuardEither, "AskFirst should be a subclass of Guardrail"),
        (lambda decide: None, "AskFirst(decide, tools) raised TypeError"),
    ],
)
def test_check_ask_first_explains_what_is_wrong(attempt, problem, capsys):
    assert not check_ask_first(attempt)
    out = capsys.readouterr().out
    assert "✗ Exercise 5.2: not yet." in out and problem in out


def test_check_ask_first_gives_decide_a_decision_to_read():
    seen = []

    class Records(AskFirst):
        def before_tool(self, run, call):
            if call["function"]["name"] in self.tools:
                seen.append(self.decide(call))
            return super().before_tool(run, call)

    check_ask_first(Records)
    assert seen and all(isinstance(d, Decision) for d in seen)
