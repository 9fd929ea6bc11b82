"""Lesson 05's exercise checks: they pass the solutions and say exactly what is wrong with the rest."""

from collections import Counter

import pytest
from hash_seeds import under_two_hash_seeds

from agent_core.checks.lesson05 import check_apply_for, check_ask_first, check_max_uses, check_tests_pass
from agent_core.coding.tiny_project import TinyProject
from agent_core.guardrails import Decision
from agent_core.loop import Guardrail, StopRun, run_agent


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


class ReturnsABool(MaxUses):
    """True for refuse, False for let it run: a bool where a str or None belongs"""

    def before_tool(self, run, call):
        return super().before_tool(run, call) is not None


class EmptyWhenAllowed(MaxUses):
    """'' to let the call run: an empty str still refuses"""

    def before_tool(self, run, call):
        return super().before_tool(run, call) or ""


class ReadsCallAsAnObject(MaxUses):
    """call.function.name, as on the SDK's objects: the guard is given a dict"""

    def before_tool(self, run, call):
        return f"no more {self.name}" if call.function.name == self.name else None


class NotAGuard:
    def __init__(self, name, limit):
        pass


class CountsEarlierReplies(MaxUses):
    """counts the calls of earlier replies in the history: parallel calls in one reply slip through"""

    def before_tool(self, run, call):
        if call["function"]["name"] != self.name:
            return None
        earlier = [
            c
            for m in run.messages[:-1]
            for c in m.get("tool_calls") or []
            if c["function"]["name"] == self.name
        ]
        return f"{self.name} may not run again" if len(earlier) >= self.limit else None


class CountsInItself(MaxUses):
    """counts in the guard, so a second run starts where the first stopped"""

    def before_tool(self, run, call):
        if call["function"]["name"] != self.name:
            return None
        self.used = getattr(self, "used", 0) + 1
        return f"{self.name} may not run again" if self.used > self.limit else None


class CountsBackwards(Guardrail):
    """right, written differently: what is left of the budget, from the tool messages that are not refusals"""

    def __init__(self, name, limit):
        self.limit, self.name = limit, name

    def before_tool(self, run, call):
        refused = [o for o in run.observations if (o.name, o.error_type) == (self.name, "refused")]
        left = self.limit - (len([o for o in run.observations if o.name == self.name]) - len(refused))
        if call["function"]["name"] == self.name and left <= 0:
            return f"No more {self.name}: its {self.limit} uses are spent."
        return None


class CountsRefusalsToo(MaxUses):
    """counts every observation of the tool, the calls another guard refused among them"""

    def before_tool(self, run, call):
        if call["function"]["name"] != self.name:
            return None
        used = sum(1 for o in run.observations if o.name == self.name)
        return f"{self.name} may not run again" if used >= self.limit else None


class CountsOnlySuccesses(MaxUses):
    """a run that failed is not counted: a failing tool runs for ever"""

    def before_tool(self, run, call):
        if call["function"]["name"] != self.name:
            return None
        used = sum(1 for o in run.observations if o.name == self.name and not o.is_error)
        return f"{self.name} may not run again" if used >= self.limit else None


class CapsByPrefix(MaxUses):
    """matches the tool by the start of its name: MaxUses('add', 1) caps add_note too"""

    def before_tool(self, run, call):
        if not call["function"]["name"].startswith(self.name):
            return None
        used = sum(1 for o in run.observations if o.name.startswith(self.name) and o.error_type != "refused")
        return f"{self.name} may not run again" if used >= self.limit else None


class CountsByExactName(Guardrail):
    """right, written differently: a Counter of the names that ran, keyed by the exact name"""

    def __init__(self, name, limit):
        self.name, self.limit = name, limit

    def before_tool(self, run, call):
        ran = Counter(o.name for o in run.observations if o.error_type != "refused")
        if call["function"]["name"] == self.name and ran[self.name] >= self.limit:
            return f"{self.name} has run {self.limit} times in this run: no more."
        return None


@pytest.mark.parametrize("right", [MaxUses, CountsBackwards, CountsByExactName])
def test_check_max_uses_passes_right_answers_written_differently(right, capsys):
    result = check_max_uses(right)
    assert result and result.scenarios == 19


def test_check_max_uses_passes_the_solution(capsys):
    assert check_max_uses(MaxUses)
    assert "✓ Exercise 5.1" in capsys.readouterr().out


@pytest.mark.parametrize(
    "attempt, problem",
    [
        (
            Stub,
            "MaxUses('add', 1) with a model that counts for ever with add and listens when refused: on call "
            "2 of the run (add, which had run 1 time) your guard let it run; the reference refused it: add "
            "may run 1 time in a run, then is refused",
        ),
        (
            CountsForEver,
            "the same guard used for a second run: on call 1 of the run (add, which had run 0 times) your "
            "guard refused it; the reference let it run: each run starts at 0 uses: count this run's uses "
            "from run.observations, not in the guard (in the second run)",
        ),
        (Stops, "the run ended with stop_reason 'max_uses'; the reference's ended with 'answered'"),
        (
            Vague,
            "MaxUses('add', 1) with a model that counts for ever with add and listens when refused: the "
            "refusal should name the tool ('add')",
        ),
        (
            SaysAdd,
            "MaxUses('divide', 1) with a model that divides for ever and listens when refused: the refusal "
            "should name the tool ('divide')",
        ),
        (
            LessonsNumbers,
            "MaxUses('divide', 1) with a model that divides for ever and listens when refused: on call 2 of "
            "the run (divide, which had run 1 time) your guard let it run; the reference refused it",
        ),
        (
            RefusesEverything,
            "MaxUses('divide', 1) with a model that counts for ever with add: on call 1 of the run (add, "
            "which had run 0 times) your guard refused it; the reference let it run: MaxUses('divide', 1) "
            "leaves every other tool alone",
        ),
        (
            RefusesAtOnce,
            "MaxUses('add', 1) with the calculator on '5 + 8/12': on call 2 of the run (add, which had run 0 "
            "times) your guard refused it; the reference let it run: add may run 1 time in a run",
        ),
        (
            CountsEarlierReplies,
            "(parallel calls in one reply): on call 2 of the run (add, which had run 1 time) your guard "
            "refused it; the reference let it run: add may run 2 times in a run, then is refused",
        ),
        (
            CountsInItself,
            "the same guard used for a second run: on call 1 of the run (add, which had run 0 times) your "
            "guard refused it; the reference let it run: each run starts at 0 uses",
        ),
        (
            CountsRefusalsToo,
            "MaxUses('add', 1) with a model that counts for ever with add, after another guard that refuses "
            "each tool's first call in a run: on call 2 of the run (add, which had run 0 times) your guard "
            "refused it; the reference let it run: 1 time it was called, another guard refused it: a refused "
            "call did not run, it is no use",
        ),
        (
            CountsOnlySuccesses,
            "MaxUses('add', 1) with a model that counts for ever with add, the tools failing on every other "
            "call: on call 2 of the run (add, which had run 1 time) your guard let it run; the reference "
            "refused it: 1 of its runs failed: a call that ran and failed is a use too",
        ),
        (
            CapsByPrefix,
            "MaxUses('add', 1) with a model that calls add and add_note for ever: on call 2 of the run "
            "(add_note, which had run 0 times) your guard refused it; the reference let it run: "
            "MaxUses('add', 1) leaves every other tool alone: 'add_note' is another tool than 'add', "
            "compare the whole name",
        ),
        (
            ReturnsABool,
            "on call 1 of the run (add, which had run 0 times) your before_tool returned False, a bool, "
            "not a str or None",
        ),
        (
            EmptyWhenAllowed,
            "on call 1 of the run (add, which had run 0 times) your before_tool returned '' (an empty str): "
            "any str, even an empty one, refuses the call",
        ),
        (
            ReadsCallAsAnObject,
            "on call 1 of the run (add, which had run 0 times) your before_tool raised AttributeError: "
            "'dict' object has no attribute 'function'",
        ),
        (NotAGuard, "MaxUses should be a subclass of Guardrail"),
        (lambda name: None, "MaxUses('add', 3) raised TypeError"),
    ],
)
def test_check_max_uses_explains_what_is_wrong(attempt, problem, capsys):
    assert not check_max_uses(attempt)
    out = capsys.readouterr().out
    assert "✗ Exercise 5.1: not yet." in out and problem in out


def names_only_the_first(project):
    """wrong: names the first changed test file; pytest's own lines name the others, the report does not"""

    def tests_pass():
        report = project.run_tests()
        changed = [path for path in project.changed() if path.startswith("test_")]
        if changed:
            return False, f"{changed[0]} was changed.\n{report}"
        return report.startswith("exit code: 0"), report

    return tests_pass


def puts_the_tests_back(project):
    """wrong: restores the test files itself; a guard that writes hides the change from the model"""

    def tests_pass():
        changed = [path for path in project.changed() if path.startswith("test_")]
        for path in changed:
            if path in project.original:
                project.files[path] = project.original[path]
        report = project.run_tests()
        if changed:
            return False, f"{', '.join(changed)} changed; put back.\n{report}"
        return report.startswith("exit code: 0"), report

    return tests_pass


def edits_named_by(is_test, ok=lambda report: report.startswith("exit code: 0")):
    """the solution, with its own idea of which changed paths are test files (and of a passing run)"""

    def make(project):
        def tests_pass():
            report = project.run_tests()
            edited = [path for path in project.changed() if is_test(path)]
            if edited:
                return False, f"Test files changed: {', '.join(edited)}. Put them back.\n{report}"
            return ok(report), report

        return tests_pass

    return make


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
    assert "✓ Exercise 5.4" in capsys.readouterr().out
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
            "with the failing test edited so that it passes, "
            "tests_pass() said ok=True; it should say ok=False",
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
            lambda project: (
                lambda: (  # names the test files it knows, by hand
                    project.run_tests().startswith("exit code: 0")
                    and not {"test_discount.py", "test_extra.py"} & set(project.changed()),
                    f"{sorted({'test_discount.py', 'test_extra.py'} & set(project.changed()))} changed.\n"
                    f"{project.run_tests()}",
                )
            ),
            "with the code fixed and test_rounding.py added, "
            "tests_pass() said ok=True; it should say ok=False",
        ),
        (
            edits_named_by(lambda path: path.startswith("test_"), ok=lambda report: "FAILED" not in report),
            "with discount.py fixed but no longer importing (a syntax error), tests_pass() said ok=True; it "
            "should say ok=False: the tests did not even run",
        ),
        (  # only Python test files: a test's data file is a test file too
            edits_named_by(lambda path: path.startswith("test_") and path.endswith(".py")),
            "with the code fixed and test_data.json changed, tests_pass() said ok=True; it should say "
            "ok=False: test_data.json changed, and any path starting with test_ is a test file, .py or not",
        ),
        (
            names_only_the_first,
            "with the failing test edited and test_extra.py added, ok is False but the report does not say "
            "that test_extra.py was changed",
        ),
        (
            puts_the_tests_back,
            "with the failing test edited so that it passes, tests_pass() changed the project's files "
            "(test_discount.py): a guard reads and decides",
        ),
        (lambda project: lambda: (False, ""), "the report is empty"),
        (lambda project: lambda: None, "should return a pair (ok, report)"),
        (lambda project: lambda answer: (True, ""), "tests_pass() raised TypeError"),
    ],
)
def test_check_tests_pass_explains_what_is_wrong(project, make_attempt, problem, capsys):
    assert not check_tests_pass(make_attempt(project), project)
    out = capsys.readouterr().out
    assert "✗ Exercise 5.4: not yet." in out and problem in out


@pytest.mark.parametrize(
    ("make_attempt", "problem"),
    [
        (  # any path holding 'test', latest_prices.md among them
            edits_named_by(lambda path: "test" in path),
            "with the code fixed, testing_utils.py added, tests_pass() said ok=False; it should say ok=True: "
            "testing_utils.py changed, but no test file did",
        ),
        (  # a name starting with 'test' without the underscore: a helper module is no test file
            edits_named_by(lambda path: path.startswith("test")),
            "testing_utils.py added, tests_pass() said ok=False; it should say ok=True",
        ),
        (  # any path holding 'test_' (not only at the start of the name)
            edits_named_by(lambda path: "test_" in path),
            "with the code fixed, latest_prices.md added, tests_pass() said ok=False; it should say ok=True: "
            "latest_prices.md changed, but no test file did",
        ),
        (  # any change but the code: notes and a README are no tests
            edits_named_by(lambda path: path != "discount.py"),
            "with the code fixed and README.md deleted, tests_pass() said ok=False; it should say ok=True",
        ),
        (  # test_ paths and any Python file but the code: a helper module is no test
            edits_named_by(
                lambda path: path.startswith("test_") or path.endswith(".py") and path != "discount.py"
            ),
            "with the code fixed, testing_utils.py added, tests_pass() said ok=False; it should say ok=True",
        ),
    ],
)
def test_check_tests_pass_finds_a_wrong_idea_of_a_test_file_on_generated_projects(
    project, make_attempt, problem, capsys
):
    result = check_tests_pass(make_attempt(project), project)
    assert not result and result.scenarios == 17
    assert problem in capsys.readouterr().out


def compares_with_the_original(project):
    """right, written differently: compares the files with project.original itself, names each change"""

    def tests_pass():
        report = project.run_tests()
        paths = set(project.files) | set(project.original)
        touched = sorted(
            p for p in paths if p.startswith("test_") and project.files.get(p) != project.original.get(p)
        )
        if touched:
            return False, "\n".join(f"{path} was modified or removed; restore it." for path in touched)
        return "exit code: 0" in report.splitlines()[0], report

    return tests_pass


def glob_and_two_reports(project):
    """right, written differently: fnmatch for the test files, the run first, the verdict after it"""
    import fnmatch

    def tests_pass():
        report = project.run_tests()
        changed = fnmatch.filter(project.changed(), "test_*")
        ok = report.startswith("exit code: 0") and not changed
        why = "" if not changed else f"Not done: you changed {' and '.join(changed)}.\n\n"
        return ok, why + report

    return tests_pass


def reports_only_the_verdict_lines(project):
    """right, written differently: the report keeps the exit code and the lines that say what failed"""

    def tests_pass():
        report = project.run_tests()
        changed = [p for p in project.changed() if p.startswith("test_")]
        if changed:
            return False, f"changed test files: {changed}"
        lines = [
            line for line in report.splitlines() if "exit code" in line or "FAILED" in line or "Error" in line
        ]
        return report.startswith("exit code: 0"), "\n".join(lines)

    return tests_pass


def says_it_in(words: str):
    """right, in other words: each changed test file named in a sentence of `words` ({} is the file)"""

    def make(project):
        def tests_pass():
            report = project.run_tests()
            changed = [path for path in project.changed() if path.startswith("test_")]
            if changed:
                return False, "\n".join(words.format(path) for path in changed) + "\n" + report
            return report.startswith("exit code: 0"), report

        return tests_pass

    return make


@pytest.mark.parametrize(
    "make_right",
    [
        compares_with_the_original,
        glob_and_two_reports,
        reports_only_the_verdict_lines,
        says_it_in("{} was rewritten: the tests are not the ones you were given."),
        says_it_in("{} no longer matches the original."),
        says_it_in("Die Testdatei {} wurde geändert."),
        says_it_in("Se reemplazó {}."),
    ],
)
def test_check_tests_pass_accepts_right_answers_written_differently(project, make_right, capsys):
    result = check_tests_pass(make_right(project), project)
    assert result and result.scenarios == 17
    assert "✓ Exercise 5.4" in capsys.readouterr().out


def test_check_tests_pass_gives_the_same_verdict_every_time(project, capsys):
    wrong = edits_named_by(lambda path: "test" in path)(project)
    first, second = check_tests_pass(wrong, project), check_tests_pass(wrong, project)
    out = capsys.readouterr().out.split("✗")
    assert first.scenarios == second.scenarios == 17 and out[1] == out[2]


def test_check_tests_pass_needs_the_project(capsys):
    assert not check_tests_pass(lambda: (True, ""), None)
    assert "pass the lesson's TinyProject" in capsys.readouterr().out


class AskFirst(Guardrail):
    """the solution: asks decide(call) before a listed tool runs; a denial goes back with its reason"""

    def __init__(self, decide, tools):
        self.decide, self.tools = decide, tools

    def before_tool(self, run, call):
        name = call["function"]["name"]
        if name not in self.tools:
            return None
        try:
            decision = self.decide(call)
        except Exception as error:
            return f"nobody could approve {name} ({error}): do not call it again"
        if decision.approved:
            return None
        return f"a person did not approve {name}: {decision.reason}"


class GivesDecideTheFunction(AskFirst):
    """hands decide the call's "function" part, not the call"""

    def before_tool(self, run, call):
        name = call["function"]["name"]
        if name not in self.tools:
            return None
        try:
            decision = self.decide(call["function"])
        except Exception as error:
            return f"nobody could approve {name} ({error}): do not call it again"
        return None if decision.approved else f"a person did not approve {name}: {decision.reason}"


class GuardsByPrefix(AskFirst):
    """a listed name guards every tool whose name starts with it"""

    def before_tool(self, run, call):
        name = call["function"]["name"]
        if not any(name.startswith(t) for t in self.tools):
            return None
        try:
            decision = self.decide(call)
        except Exception as error:
            return f"nobody could approve {name} ({error}): do not call it again"
        return None if decision.approved else f"a person did not approve {name}: {decision.reason}"


class LetsDecideRaise(AskFirst):
    """no try around decide: the tool does not run, but the exception crashes the whole run"""

    def before_tool(self, run, call):
        name = call["function"]["name"]
        if name not in self.tools:
            return None
        decision = self.decide(call)
        return None if decision.approved else f"a person did not approve {name}: {decision.reason}"


class CachesPerTool(AskFirst):
    """asks once per tool name, and reuses that answer for every later call of the tool"""

    def before_tool(self, run, call):
        name = call["function"]["name"]
        if name not in self.tools:
            return None
        self.cache = getattr(self, "cache", {})
        try:
            if name not in self.cache:
                self.cache[name] = self.decide(call)
        except Exception as error:
            return f"nobody could approve {name} ({error})"
        decision = self.cache[name]
        return None if decision.approved else f"a person did not approve {name}: {decision.reason}"


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


class FailsOpen(AskFirst):
    """the tempting 'robust' guard: when decide raises, it lets the call through"""

    def before_tool(self, run, call):
        if call["function"]["name"] not in self.tools:
            return None
        try:
            decision = self.decide(call)
        except Exception:
            return None
        return None if decision.approved else f"refused: {decision.reason}"


class AsksOnlyAboutTheFirst(AskFirst):
    """guards self.tools[0] only"""

    def before_tool(self, run, call):
        return super().before_tool(run, call) if call["function"]["name"] == list(self.tools)[0] else None


class DecidesOnce(AskFirst):
    """asks once, and reuses the first decision for every later call"""

    def before_tool(self, run, call):
        if call["function"]["name"] not in self.tools:
            return None
        try:
            if not hasattr(self, "decision"):
                self.decision = self.decide(call)
        except Exception as error:
            return f"nobody could approve it ({error})"
        return None if self.decision.approved else f"denied: {self.decision.reason}"


class AsksFirstWrittenDifferently(Guardrail):
    """right, written differently: a set of names, the denial built first"""

    def __init__(self, decide, tools):
        self.names, self.decide = set(tools), decide

    def before_tool(self, run, call):
        if call["function"]["name"] not in self.names:
            return None
        try:
            decision = self.decide(call)
            denial = f"Denied by a person - {decision.reason}"
        except Exception:
            decision, denial = None, "Denied: the person who approves could not be asked"
        return None if decision and decision.approved else denial


@pytest.mark.parametrize("right", [AskFirst, AsksFirstWrittenDifferently])
def test_check_ask_first_passes_right_answers_written_differently(right, capsys):
    result = check_ask_first(right)
    assert result and result.scenarios == 14


def test_check_ask_first_gives_the_same_verdict_every_time(capsys):
    check_ask_first(DecidesOnce)
    first = capsys.readouterr().out
    check_ask_first(DecidesOnce)
    assert capsys.readouterr().out == first


def test_check_ask_first_passes_the_solution(capsys):
    assert check_ask_first(AskFirst)
    assert "✓ Exercise 5.2" in capsys.readouterr().out


@pytest.mark.parametrize(
    "attempt, problem",
    [
        (
            FailsOpen,
            "decide answering raises (the person cannot be asked), every time: decide raised on "
            "send_application, and yours let send_application run",
        ),
        (
            LetsDecideRaise,
            "decide answering raises (the person cannot be asked), every time: decide raised an exception "
            "(the approval service is down), and it escaped run_agent: the whole run crashed",
        ),
        (
            CachesPerTool,
            "AskFirst(decide, ['send_application']) on the job-offer agent, decide answering no ('one "
            "application per company'), every time, the same guard then used for a second offer: decide was "
            "asked about ['send_application']; it should be asked about ['send_application', "
            "'send_application']",
        ),
        (AsksAfterwards, "yours let send_application run, though the person did not approve it"),
        (Stub2, "decide was asked about []; it should be asked about ['send_application']"),
        (
            GivesDecideTheFunction,
            "decide received {'name': 'send_application', 'arguments': ",
        ),
        (
            GivesDecideTheFunction,
            "which is not a tool call: pass it the whole call that before_tool received",
        ),
        (RefusesWithoutReason, "the refusal of send_application should carry the person's reason"),
        (StopsOnDenial, "the run ended with stop_reason 'denied'; the reference's with 'answered'"),
        (AsksAboutEverything, "decide was asked about ['analyse_offer', 'match_cv', 'draft_application'"),
        (
            AsksOnlyAboutTheFirst,
            "AskFirst(decide, ['match_cv', 'send_application']) on the job-offer agent, decide answering "
            "yes, every time: decide was asked about ['match_cv']",
        ),
        (
            DecidesOnce,
            "the same guard then used for a second offer: decide was asked about ['send_application']",
        ),
        (
            HardCodesSend,
            "decide was asked about ['send_application']; it should be asked about ['draft_application']",
        ),
        (RefusesAlways, "yours did not let send_application run, though the person approved it"),
        (
            RefusesWhenThereIsAReason,
            "decide answering yes, every time: yours did not let "
            "send_application run, though the person approved it",
        ),
        (
            ReturnsTheDecision,
            "your code raised AttributeError: 'Decision' object has no attribute 'startswith'",
        ),
        (
            HardCodesReason,
            "the refusal of draft_application should carry the person's reason ('drafts wait for Ana')",
        ),
        (NotAGuardEither, "AskFirst should be a subclass of Guardrail"),
        (lambda decide: None, "AskFirst(decide, tools) raised TypeError"),
        (
            GuardsByPrefix,
            "decide was asked about send_application, which is not in the list ['send'] ('send' only starts "
            "its name): compare the whole name",
        ),
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


# --- exercise 5.3: the job-offer agent put together ----------------------------------------------

CV = {"python", "sql", "aws", "airflow", "english"}


def job_tools(outbox):
    """the lesson's four job-offer tools, sending into `outbox`"""
    import json

    from agent_core.schema import tool

    @tool
    def analyse_offer(text: str) -> str:
        """Read a job offer and list its requirements: title, contact, must-haves, nice-to-haves."""
        lines = {
            k.strip().lower(): v.strip()
            for k, _, v in (line.partition(":") for line in text.splitlines())
            if v
        }
        if "must" not in lines or "contact" not in lines:
            raise ValueError("the offer needs a 'Must:' line and a 'Contact:' line; paste the whole offer")
        must, nice = (
            [i.strip().lower() for i in lines.get(k, "").split(",") if i.strip()] for k in ("must", "nice")
        )
        return json.dumps(
            {"title": lines.get("title", ""), "contact": lines["contact"], "must": must, "nice": nice}
        )

    @tool
    def match_cv(requirements: dict) -> str:
        """Compare an offer's requirements with the CV: which must-haves it shows, which are missing."""
        must = requirements.get("must", [])
        shown = [r for r in must if any(option.strip() in CV for option in r.split(" or "))]
        return json.dumps({"shown": shown, "missing": [r for r in must if r not in shown]})

    @tool
    def draft_application(requirements: dict, fit: dict) -> str:
        """Write a short application email for the offer, from what the CV shows. Nothing is sent."""
        body = f"Hello, I am applying for {requirements['title']}. My CV shows {', '.join(fit['shown'])}."
        return json.dumps({"subject": f"Application: {requirements['title']}", "body": body})

    @tool
    def send_application(to: str, subject: str, body: str) -> str:
        """Send the application email now, in the applicant's name. It cannot be taken back."""
        outbox.append(to)
        return f"Sent to {to}."

    return [analyse_offer, match_cv, draft_application, send_application]


OUTBOX = []
JOB_TOOLS = job_tools(OUTBOX)
SYSTEM = "You help a person apply for jobs. Apply only when every must-have is met; never invent one."


def apply_for(client, offer, decide):
    """the solution"""
    return run_agent(
        client,
        offer,
        JOB_TOOLS,
        system=SYSTEM,
        max_turns=6,
        guardrails=[AskFirst(decide, ["send_application"])],
    )


def apply_for_with_approval(client, offer, decide):
    """right, written differently: the library's Approval, the system prompt as a message, the chain's cap
    plus two"""
    from agent_core.guardrails import Approval

    messages = [
        {
            "role": "system",
            "content": "You are a careful job-application assistant: apply only if the CV meets the offer.",
        },
        {"role": "user", "content": offer},
    ]
    return run_agent(
        client,
        messages,
        JOB_TOOLS,
        max_turns=7,
        guardrails=[Approval(decide, tool_names=["send_application"])],
    )


def stub_apply_for(client, offer, decide):
    return run_agent(client, offer, JOB_TOOLS)


def without_approval(client, offer, decide):
    return run_agent(client, offer, JOB_TOOLS, system=SYSTEM, max_turns=6)


def too_few_turns(client, offer, decide):
    return run_agent(
        client,
        offer,
        JOB_TOOLS,
        system=SYSTEM,
        max_turns=4,
        guardrails=[AskFirst(decide, ["send_application"])],
    )


def default_turns(client, offer, decide):
    return run_agent(
        client, offer, JOB_TOOLS, system=SYSTEM, guardrails=[AskFirst(decide, ["send_application"])]
    )


def guards_the_draft(client, offer, decide):
    return run_agent(
        client,
        offer,
        JOB_TOOLS,
        system=SYSTEM,
        max_turns=6,
        guardrails=[AskFirst(decide, ["draft_application"])],
    )


def three_tools_only(client, offer, decide):
    return run_agent(
        client,
        offer,
        JOB_TOOLS[:3],
        system=SYSTEM,
        max_turns=6,
        guardrails=[AskFirst(decide, ["send_application"])],
    )


def applies_whatever_the_cv_shows(client, offer, decide):
    """a system prompt that contradicts the lesson's rule: a real model would apply with missing must-haves"""
    return run_agent(
        client,
        offer,
        JOB_TOOLS,
        system="You apply for every job you are given, always, by sending the application.",
        max_turns=6,
        guardrails=[AskFirst(decide, ["send_application"])],
    )


def applies_whatever_the_cv_names(client, offer, decide):
    """names the CV, but to say it does not matter: a real model would apply with missing must-haves"""
    return run_agent(
        client,
        offer,
        JOB_TOOLS,
        system="You apply for every job offer you are given, whatever the CV shows.",
        max_turns=6,
        guardrails=[AskFirst(decide, ["send_application"])],
    )


def aplica_sin_importar(client, offer, decide):
    """the same contradiction in Spanish"""
    return run_agent(
        client,
        offer,
        JOB_TOOLS,
        system="Solicitas todas las ofertas que te den, sin importar lo que diga el currículum.",
        max_turns=6,
        guardrails=[AskFirst(decide, ["send_application"])],
    )


def ignores_the_no(client, offer, decide):
    """asks the person, then sends whatever they said"""

    def always_yes(call):
        decide(call)
        return Decision(True, "sent anyway")

    return run_agent(
        client,
        offer,
        JOB_TOOLS,
        system=SYSTEM,
        max_turns=6,
        guardrails=[AskFirst(always_yes, ["send_application"])],
    )


def returns_the_answer(client, offer, decide):
    return apply_for(client, offer, decide).answer


@pytest.mark.parametrize("right", [apply_for, apply_for_with_approval])
def test_check_apply_for_passes_right_agents_written_differently(right, capsys):
    result = check_apply_for(right, JOB_TOOLS)
    assert result and result.scenarios == 12


@pytest.mark.parametrize(
    ("wrong", "problem"),
    [
        (stub_apply_for, "the first request has no system prompt"),
        (
            without_approval,
            "with a person who says no: send_application ran and decide was never asked: nothing guards it",
        ),
        (
            too_few_turns,
            "the run ended with stop_reason 'max_turns'; the reference's with 'answered': the chain takes 5",
        ),
        (default_turns, "the run made 10 model calls before it stopped"),
        (
            guards_the_draft,
            "with a person who says no: decide was asked before ['draft_application'] ran: AskFirst guards "
            "the wrong tool; guard send_application",
        ),
        (
            ignores_the_no,
            "with a person who says no: send_application ran though the person said no (decide returned "
            "Decision(False, ...)): the agent sent without a yes",
        ),
        (
            applies_whatever_the_cv_names,
            "the system prompt 'You apply for every job offer you are given, whatever the CV shows.' tells "
            "the agent to apply whatever the CV shows",
        ),
        (aplica_sin_importar, "tells the agent to apply whatever the CV shows"),
        (three_tools_only, "offer it the four tools of job_tools"),
        (returns_the_answer, "apply_for() should return the run"),
        (
            applies_whatever_the_cv_shows,
            "the system prompt 'You apply for every job you are given, always, by sending the application.' "
            "does not say when the agent applies",
        ),
    ],
)
def test_check_apply_for_explains_what_is_wrong(wrong, problem, capsys):
    assert not check_apply_for(wrong, JOB_TOOLS)
    out = capsys.readouterr().out
    assert "✗ Exercise 5.3: not yet." in out and problem in out


class CountsPerRunFromStart(Guardrail):
    """right, written differently: a counter reset in start(run) and raised in after_tool"""

    def __init__(self, name, limit):
        self.name, self.limit, self.ran = name, limit, 0

    def start(self, run):
        self.ran = 0

    def before_tool(self, run, call):
        if call["function"]["name"] == self.name and self.ran >= self.limit:
            return f"The {self.name} tool is used up for this task ({self.limit} runs); answer now."
        return None

    def after_tool(self, run, call, observation):
        if observation.name == self.name and observation.error_type != "refused":
            self.ran += 1


def test_check_max_uses_passes_another_right_answer_written_differently(capsys):
    result = check_max_uses(CountsPerRunFromStart)
    assert result and result.scenarios == 19, capsys.readouterr().out


def test_check_max_uses_gives_the_same_verdict_every_time(capsys):
    first, second = check_max_uses(CountsEarlierReplies), check_max_uses(CountsEarlierReplies)
    out = capsys.readouterr().out.split("✗")
    assert first.scenarios == second.scenarios == 19 and out[1] == out[2]


class AsksWithAMatch(Guardrail):
    """right, written differently: match on the name, the tools kept as a tuple, the reason up front"""

    def __init__(self, decide, tools):
        self.guarded = tuple(tools)
        self.decide = decide

    def before_tool(self, run, call):
        match call["function"]:
            case {"name": name} if name in self.guarded:
                try:
                    decision = self.decide(call)
                except Exception as error:  # nobody could say yes
                    return f"could not ask a person ({error}), so {name} was not run"
                if decision.approved:
                    return None
                return f"{decision.reason} (a person refused {name}; do not try again)"
            case _:
                return None


def test_check_ask_first_passes_another_right_answer_written_differently(capsys):
    result = check_ask_first(AsksWithAMatch)
    assert result and result.scenarios == 14, capsys.readouterr().out


def apply_for_with_its_own_registry(client, offer, decide):
    """right, written differently: a ToolRegistry of the tools, keyword arguments in another order,
    the tools' own names guarded through a set"""
    from agent_core.dispatch import ToolRegistry

    registry = ToolRegistry(JOB_TOOLS)
    guard = AskFirst(decide, {name for name in registry.names if name.startswith("send_")})
    return run_agent(
        client,
        offer,
        registry,
        guardrails=[guard],
        max_turns=5,  # exactly the chain: analyse, match, draft, send, answer
        system="Apply for jobs on the person's behalf, honestly: claim only what the CV shows.",
    )


def test_check_apply_for_passes_another_right_agent_written_differently(capsys):
    result = check_apply_for(apply_for_with_its_own_registry, JOB_TOOLS)
    assert result and result.scenarios == 12, capsys.readouterr().out


def test_check_apply_for_gives_the_same_verdict_every_time(capsys):
    first, second = check_apply_for(too_few_turns, JOB_TOOLS), check_apply_for(too_few_turns, JOB_TOOLS)
    out = capsys.readouterr().out.split("✗")
    assert first.scenarios == second.scenarios == 12 and out[1] == out[2]


def test_the_lesson_05_checks_give_the_same_verdicts_under_another_hash_seed():
    """each check but 5.4 (it runs pytest) on a wrong answer: the same words whatever a set's order"""
    outputs = under_two_hash_seeds(
        "test_checks_lesson05",
        "c.check_max_uses(t.CountsEarlierReplies); "
        "c.check_ask_first(t.FailsOpen); "
        "c.check_apply_for(t.too_few_turns, t.JOB_TOOLS)",
    )
    assert len(outputs) == 1 and outputs.pop().count("✗ Exercise 5.") == 3
