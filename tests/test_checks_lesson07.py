"""Lesson 07's exercise checks: each accepts the solution and rejects a catalogue of tempting wrong
answers."""

import os
import re
from pathlib import Path

import pytest
from hash_seeds import under_two_hash_seeds

from agent_core.checks.lesson07 import check_read_file, check_tests_after_change, check_unread_citations
from agent_core.dispatch import failure
from agent_core.loop import Guardrail


def _symlinks_work(tmp_path):
    try:
        os.symlink("x", tmp_path / "probe")
    except OSError:
        return False
    return True


# --- Exercise 7.1: a confined read_file ----------------------------------------------------------


def make_read_file(root):
    """the solution of Exercise 7.1"""
    root = Path(root).resolve()

    def read_file(path: str) -> str:
        """Read a text file of the project; path is relative to the project root."""
        if Path(path).is_absolute():
            return failure(f"{path!r} is an absolute path, outside the project; give a relative path")
        file = (root / path).resolve()
        if not file.is_relative_to(root):
            return failure(f"{path!r} is outside the project")
        if not file.is_file():
            return failure(f"{path!r} does not exist or is not a file")
        try:
            return file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:  # not text, or not readable: still an answer
            return failure(f"{path!r} cannot be read as text ({type(error).__name__})")

    return read_file


def catches_only_missing(root):
    """guards the read against a missing file or a folder only: a file that is not text escapes"""
    root = Path(root).resolve()

    def read_file(path: str) -> str:
        if Path(path).is_absolute():
            return failure(f"{path!r} is an absolute path, outside the project")
        file = (root / path).resolve()
        if not file.is_relative_to(root):
            return failure(f"{path!r} is outside the project")
        try:
            return file.read_text(encoding="utf-8")
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return failure(f"{path!r} does not exist")

    return read_file


def reads_what_exists(root):
    """tests exists(), not is_file(): a folder gets past it, and read_text's error answers for it"""
    root = Path(root).resolve()

    def read_file(path: str) -> str:
        if Path(path).is_absolute():
            return failure(f"{path!r} is an absolute path, outside the project")
        file = (root / path).resolve()
        if not file.is_relative_to(root):
            return failure(f"{path!r} is outside the project")
        if not file.exists():
            return failure(f"{path!r} does not exist")
        try:
            return file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            return failure(f"{path!r} cannot be read ({type(error).__name__})")

    return read_file


def textual_check(root):
    """refuses '..' and '/' by looking at the text of the path"""
    root = Path(root)

    def read_file(path):
        if ".." in path or path.startswith("/") or Path(path).is_absolute():
            return failure("outside the project")
        try:
            return (root / path).read_text()
        except OSError:
            return failure("it does not exist")

    return read_file


def string_prefix(root):
    """resolves, then compares the strings: the folder next door passes"""
    root = str(Path(root).resolve())

    def read_file(path):
        file = (Path(root) / path).resolve()
        if not str(file).startswith(root):
            return failure("outside the project")
        try:
            return file.read_text()
        except OSError:
            return failure("it does not exist")

    return read_file


def normalised_only(root):
    """normpath, not resolve: symbolic links are not followed"""
    root = Path(root).resolve()

    def read_file(path):
        file = Path(os.path.normpath(root / path))
        if not file.is_relative_to(root):
            return failure("outside the project")
        try:
            return file.read_text()
        except OSError:
            return failure("it does not exist")

    return read_file


def last_part_not_a_link(root):
    """refuses a path that is itself a symlink, but not one that goes through a linked folder"""
    root = Path(root).resolve()

    def read_file(path):
        file = Path(os.path.normpath(root / path))
        if not file.is_relative_to(root) or file.is_symlink():
            return failure("outside the project")
        try:
            return file.read_text()
        except OSError:
            return failure("it does not exist")

    return read_file


def raises_on_missing(root):
    """confined, but a missing file is an exception"""
    root = Path(root).resolve()

    def read_file(path):
        file = (root / path).resolve()
        if not file.is_relative_to(root):
            return failure("outside the project")
        return file.read_text()

    return read_file


def one_message_for_all(root):
    """confined, but one catch-all error"""
    root = Path(root).resolve()

    def read_file(path):
        file = (root / path).resolve()
        if not file.is_relative_to(root) or not file.is_file():
            return failure("cannot read that file")
        return file.read_text()

    return read_file


def outside_or_missing(root):
    """confined, but one catch-all error that names both causes"""
    root = Path(root).resolve()

    def read_file(path):
        file = (root / path).resolve()
        if not file.is_relative_to(root) or not file.is_file():
            return failure(f"{path} is outside the project or does not exist")
        return file.read_text()

    return read_file


def naive(root):
    return lambda path: (Path(root) / path).read_text()


def make_read_file_checking_parents(root):
    """right, written differently: walks up from the resolved file to find the root, no is_relative_to"""
    root = os.path.realpath(root)

    def read_file(path):
        if os.path.isabs(path):
            return failure("absolute paths are outside the project")
        file = os.path.realpath(os.path.join(root, path))
        if os.path.commonpath([root, file]) != root:
            return failure(f"{path} leads outside the project")
        if os.path.isdir(file):
            return failure(f"{path} is a folder, not a file, so it does not exist as a file")
        try:
            with open(file, encoding="utf-8") as handle:
                return handle.read()
        except OSError:  # missing, or a file used as a folder on the way ('main.py/x')
            return failure(f"{path} does not exist")
        except ValueError:  # UnicodeDecodeError: bytes that are not UTF-8 text
            return failure(f"{path} is not a text file")

    return read_file


def replacing_bad_bytes(root):
    """right, written differently: a file that is not UTF-8 is read with its bad bytes replaced"""
    root = Path(root).resolve()

    def read_file(path):
        file = (root / path).resolve()
        if Path(path).is_absolute() or not file.is_relative_to(root):
            return failure(f"{path} is outside the project")
        if not file.is_file():
            return failure(f"{path} does not exist")
        return file.read_text(encoding="utf-8", errors="replace")

    return read_file


def in_spanish(root):
    """right, its errors in Spanish"""
    root = Path(root).resolve()

    def read_file(path):
        file = (root / path).resolve()
        if Path(path).is_absolute() or not file.is_relative_to(root):
            return failure(f"{path} está fuera del proyecto")
        if not file.is_file():
            return failure(f"{path} no existe o es una carpeta")
        try:
            return file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return failure(f"{path} no se puede leer como texto")

    return read_file


def in_other_spanish_words(root):
    """right, its errors in other Spanish words a reader takes the same way ("sale del proyecto",
    "no se encontró"), and the unreadable file in English words ("not found" is no such case)"""
    root = Path(root).resolve()

    def read_file(path):
        file = (root / path).resolve()
        if Path(path).is_absolute() or not file.is_relative_to(root):
            return failure(f"{path} sale del proyecto: no se permite")
        if not file.is_file():
            return failure(f"no se encontró el archivo {path}")
        return file.read_text(encoding="utf-8", errors="replace")

    return read_file


def spanish_catch_all(root):
    """confined, its one error in Spanish naming no cause"""
    root = Path(root).resolve()

    def read_file(path):
        file = (root / path).resolve()
        if Path(path).is_absolute() or not file.is_relative_to(root) or not file.is_file():
            return failure(f"no puedo leer {path}")
        return file.read_text(encoding="utf-8", errors="replace")

    return read_file


def bad_bytes_as_nothing(root):
    """never raises, but a file that is not UTF-8 reads as an empty text"""
    read = replacing_bad_bytes(root)

    def read_file(path):
        text = read(path)
        return "" if "\ufffd" in text else text

    return read_file


def hidden_paths_refused(root):
    """takes any path starting with '.' for a way out: './app/roles.py' is inside"""
    read = make_read_file(root)
    return lambda path: failure(f"{path} is outside the project") if path.startswith(".") else read(path)


def plain_str_errors(root):
    """the solution as lesson 03 never wrote it: each refusal a plain str starting with ERROR"""
    read = make_read_file(root)
    return lambda path: str(read(path))


def links_refused(root):
    """refuses every symbolic link, even one that stays inside the project"""
    root = Path(root).resolve()
    read = make_read_file(root)

    def read_file(path):
        here = root
        for part in Path(path).parts:
            here = here / part
            if here.is_symlink():
                return failure(f"{path} is a link: outside the project")
        return read(path)

    return read_file


@pytest.mark.parametrize(
    "right",
    [
        make_read_file,
        make_read_file_checking_parents,
        replacing_bad_bytes,
        in_spanish,
        in_other_spanish_words,
    ],
)
def test_read_file_accepts_right_answers_however_written(right, capsys):
    assert check_read_file(right)
    assert capsys.readouterr().out.startswith("✓ Exercise 7.1:")


def root_taken_as_a_path(root):
    """the solution without `root = Path(root).resolve()`: a folder named by a str breaks `root / path`"""

    def read_file(path: str) -> str:
        if Path(path).is_absolute():
            return failure(f"{path!r} is an absolute path, outside the project")
        file = (root / path).resolve()
        if not file.is_relative_to(root):
            return failure(f"{path!r} is outside the project")
        return file.read_text(encoding="utf-8") if file.is_file() else failure(f"{path!r} does not exist")

    return read_file


@pytest.mark.parametrize(
    "wrong, message",
    [
        (
            naive,
            "read_file('../secret.txt') ('..' climbs out of the project): it read a file outside the project",
        ),
        (string_prefix, "read_file('../project-private/key.txt') (the folder next door"),
        (
            textual_check,
            "read_file('app/../main.py') (a path whose '..' stays inside the project): it should return",
        ),
        (
            raises_on_missing,
            "read_file('rules.py') (a file that does not exist): it raised FileNotFoundError",
        ),
        (one_message_for_all, "saying the path is outside the project, not 'ERROR: cannot read that file'"),
        (
            plain_str_errors,
            "read_file('../secret.txt') ('..' climbs out of the project): it returned the plain str "
            '"ERROR: \'../secret.txt\' is outside the project": return failure("...") (from '
            "agent_core.dispatch) instead; a str is the tool's output whatever its first words",
        ),
        (links_refused, "read_file('latest.py') (a symbolic link to a file inside the project"),
        (outside_or_missing, "but that is not what is wrong: say only that the path is outside the project"),
        (lambda root: lambda path: None, "it should return text (a str), not NoneType"),
        (
            spanish_catch_all,
            "read_file('../secret.txt') ('..' climbs out of the project): it should refuse with "
            'failure("...") saying the path is outside the project, '
            "not 'ERROR: no puedo leer ../secret.txt'",
        ),
        (bad_bytes_as_nothing, "read_file('logo.png') (a file that is not UTF-8 text"),
        (
            hidden_paths_refused,
            "read_file('./app/roles.py') (a path that starts with './'): it should return",
        ),
        (
            reads_what_exists,
            "read_file('app') (a folder): it should answer failure(\"...\") saying it does not exist (a "
            "folder is no file to read: test is_file(), not exists()), not \"ERROR: 'app' cannot be read "
            '(IsADirectoryError)"',
        ),
        (
            catches_only_missing,
            "read_file('logo.png') (a file that is not UTF-8 text (read_text raises UnicodeDecodeError)): it "
            "raised UnicodeDecodeError: 'utf-8' codec can't decode byte 0x89 in position 0: invalid start "
            "byte: it must never raise",
        ),
        (root_taken_as_a_path, "it raised TypeError: unsupported operand type(s) for /: 'str' and 'str'"),
    ],
)
def test_read_file_rejects_wrong_answers(wrong, message, capsys):
    assert not check_read_file(wrong)
    out = capsys.readouterr().out
    assert out.startswith("✗ Exercise 7.1: not yet.")
    assert message in out


def test_read_file_rejects_paths_that_leave_through_a_symlink(tmp_path, capsys):
    if not _symlinks_work(tmp_path):
        pytest.skip("this machine cannot create symbolic links")
    assert not check_read_file(normalised_only)
    assert "read_file('notes.txt') (a symbolic link" in capsys.readouterr().out
    assert not check_read_file(last_part_not_a_link)
    out = capsys.readouterr().out
    assert (
        "read_file('shared/key.txt') (a file inside a linked folder" in out
        and "it read a file outside" in out
    )
    assert "notes.txt" not in out


def test_read_file_is_deterministic_and_counts_its_scenarios(capsys):
    first, second = check_read_file(outside_or_missing), check_read_file(outside_or_missing)
    out = capsys.readouterr().out.split("✗")
    assert first.scenarios == second.scenarios == 169 and out[1] == out[2]


def test_read_file_reports_a_factory_that_raises(capsys):
    def broken(root):
        raise TypeError("forgot root")

    assert not check_read_file(broken)
    assert "make_read_file(root) raised TypeError: forgot root" in capsys.readouterr().out


# --- Exercise 7.2: a line cited that was never read ----------------------------------------------

CITATION = re.compile(r"\bline (\d+) of ([\w./-]*\w)", re.IGNORECASE)
SHOWN = re.compile(r"^([\w./-]+) \(lines (\d+)-(\d+) of \d+\)")


def shown_lines(observations):
    shown = set()
    for observation in observations:
        header = SHOWN.match(observation.content)
        if observation.name == "read_file" and not observation.is_error and header:
            path, first, last = header[1], int(header[2]), int(header[3])
            shown |= {(path, n) for n in range(first, last + 1)}
    return shown


def unread_citations(answer, observations):
    """the solution of Exercise 7.2"""
    shown = shown_lines(observations)
    return [m[0] for m in CITATION.finditer(answer) if (m[2], int(m[1])) not in shown]


def any_tool_s_header(answer, observations):
    """a header counts whichever tool printed it: run_command's cat of a saved view too"""
    shown = set()
    for observation in observations:
        header = SHOWN.match(observation.content)
        if not observation.is_error and header:
            shown |= {(header[1], n) for n in range(int(header[2]), int(header[3]) + 1)}
    return [m[0] for m in CITATION.finditer(answer) if (m[2], int(m[1])) not in shown]


def file_was_read(answer, observations):
    """the file was read at all, whatever its lines"""
    read = {path for path, _ in shown_lines(observations)}
    return [m[0] for m in CITATION.finditer(answer) if m[2] not in read]


def path_mentioned_anywhere(answer, observations):
    """the file's name appears in some observation (test_discount.py contains discount.py)"""
    return [m[0] for m in CITATION.finditer(answer) if not any(m[2] in o.content for o in observations)]


def ascii_paths_only(answer, observations):
    """a path of ASCII letters only: 'line 3 of café.py' is read as 'line 3 of caf'"""
    shown = shown_lines(observations)
    cited = re.finditer(r"\bline (\d+) of ([A-Za-z0-9_./-]*[A-Za-z0-9_])", answer, re.IGNORECASE)
    return [m[0] for m in cited if (m[2], int(m[1])) not in shown]


def case_sensitive(answer, observations):
    return [m for m in unread_citations(answer, observations) if m.startswith("line")]


def first_citation_only(answer, observations):
    first = CITATION.search(answer)
    return unread_citations(first[0], observations) if first else []


def line_numbers_only(answer, observations):
    """any file's line N counts as line N of every file"""
    shown = {n for _, n in shown_lines(observations)}
    return [m[0] for m in CITATION.finditer(answer) if int(m[1]) not in shown]


def greedy_path(answer, observations):
    """a path up to the next space: 'discount.py:' is not 'discount.py'"""
    shown = shown_lines(observations)
    found = re.finditer(r"\bline (\d+) of (\S+)", answer, re.IGNORECASE)
    return [m[0] for m in found if (m[2], int(m[1])) not in shown]


def shown_lines_between(observations, first_offset, last_offset):
    """the lines of each read_file header, the range's ends moved by the offsets"""
    shown = set()
    for observation in observations:
        header = SHOWN.match(observation.content)
        if observation.name == "read_file" and not observation.is_error and header:
            first, last = int(header[2]) + first_offset, int(header[3]) + last_offset
            shown |= {(header[1], n) for n in range(first, last)}
    return shown


def last_line_not_shown(answer, observations):
    """range(first, last): the last line shown does not count"""
    shown = shown_lines_between(observations, 0, 0)
    return [m[0] for m in CITATION.finditer(answer) if (m[2], int(m[1])) not in shown]


def first_line_not_shown(answer, observations):
    """range(first + 1, last + 1): the first line shown does not count"""
    shown = shown_lines_between(observations, 1, 1)
    return [m[0] for m in CITATION.finditer(answer) if (m[2], int(m[1])) not in shown]


def unread_by_walking_the_words(answer, observations):
    """right, written differently: the lines shown kept per file as ranges, the citations found word by
    word"""
    ranges = {}
    for observation in observations:
        header = SHOWN.match(observation.content)
        if observation.name == "read_file" and not observation.is_error and header:
            ranges.setdefault(header[1], []).append(range(int(header[2]), int(header[3]) + 1))
    words = answer.split()
    unread = []
    for i in range(len(words) - 3):
        if words[i].lower() == "line" and words[i + 1].isdigit() and words[i + 2] == "of":
            path = words[i + 3].rstrip(".,:;")
            if not any(int(words[i + 1]) in shown for shown in ranges.get(path, [])):
                unread.append(f"{words[i]} {words[i + 1]} of {path}")
    return unread


@pytest.mark.parametrize("right", [unread_citations, unread_by_walking_the_words])
def test_unread_citations_accepts_right_answers_however_written(right, capsys):
    assert check_unread_citations(right)
    assert capsys.readouterr().out.startswith("✓ Exercise 7.2:")


def file_names_only(answer, observations):
    """a cited path matched by its file name only: reading app/roles.py counts for lib/roles.py"""
    shown = {(path.rsplit("/", 1)[-1], n) for path, n in shown_lines(observations)}
    return [m[0] for m in CITATION.finditer(answer) if (m[2].rsplit("/", 1)[-1], int(m[1])) not in shown]


@pytest.mark.parametrize(
    "wrong, message",
    [
        (
            file_names_only,
            "the answer 'Line 5 of lib/roles.py still lists the old roles.' after a test run, then "
            "read_file('app/roles.py', 3, 7): it should return ['Line 5 of lib/roles.py'], not []",
        ),
        (
            file_was_read,
            "after a test run, then read_file('discount.py', 1, 5): it should return ['line 10 of "
            "discount.py'], not []",
        ),
        (
            path_mentioned_anywhere,
            "after a test run only: it should return ['line 8 of discount.py'], not []",
        ),
        (case_sensitive, "it should return ['Line 10 of discount.py'], not []"),
        (
            ascii_paths_only,
            "the answer 'Line 2 of café.py sets the price; line 3 of café.py rounds it.' after a test run "
            "only: it should return ['Line 2 of café.py', 'line 3 of café.py'], not ['Line 2 of caf', "
            "'line 3 of caf']",
        ),
        (
            line_numbers_only,
            "then read_file('test_discount.py'): it should return ['line 10 of discount.py'], not []",
        ),
        (
            first_citation_only,
            "it should return ['Line 4 of discount.py', 'line "
            "10 of discount.py'], not ['Line 4 of discount.py']",
        ),
        (greedy_path, "it should return ['line 8 of discount.py'], not ['line 8 of discount.py:']"),
        (
            lambda answer, observations: sorted(set(unread_citations(answer, observations))),
            "it should return ['line 9 of discount.py', 'line 12 of discount.py', 'line 3 of discount.py'], "
            "not ['line 12 of discount.py', 'line 3 of discount.py', 'line 9 of discount.py']",
        ),
        (
            # which scenario fails first depends on the hash seed (a set's order): any of them will do
            lambda answer, observations: list(set(unread_citations(answer, observations))),
            "it should return ['",
        ),
        (
            last_line_not_shown,
            "then read_file('discount.py', 1, 5): it should return ['line 6 of discount.py'], "
            "not ['line 5 of discount.py', 'line 6 of discount.py']",
        ),
        (
            first_line_not_shown,
            "then read_file('discount.py', 1, 5): it should return ['line 6 of discount.py'], "
            "not ['Line 1 of discount.py', 'line 6 of discount.py']",
        ),
        (lambda answer, observations: ["line 8 of discount.py"], "not ['line 8 of discount.py']"),
        (lambda answer, observations: None, "should return a list, not NoneType"),
        (
            any_tool_s_header,
            "then run_command('cat notes/last_view.txt') printing a view of discount.py as read_file shows "
            "one: it should return ['line 10 of discount.py'], not []: only a read_file observation shows "
            "lines (check .name)",
        ),
    ],
)
def test_unread_citations_rejects_wrong_answers(wrong, message, capsys):
    assert not check_unread_citations(wrong)
    out = capsys.readouterr().out
    assert out.startswith("✗ Exercise 7.2: not yet.")
    assert message in out


@pytest.mark.parametrize("project", ["discount", "users_api"])
def test_the_check_s_test_runs_are_what_pytest_prints_in_a_fresh_project(project, tmp_path):
    from agent_core.checks.lesson07 import _TEST_RUNS
    from agent_core.coding.agent import coding_tools, fresh_workspace
    from agent_core.mock.coding_policies import TEST_COMMAND

    (run_command,) = coding_tools(fresh_workspace(project, tmp_path), "run_command")
    assert run_command(TEST_COMMAND) == _TEST_RUNS[project]


def test_unread_citations_is_deterministic_and_counts_its_scenarios(capsys):
    first, second = check_unread_citations(line_numbers_only), check_unread_citations(line_numbers_only)
    out = capsys.readouterr().out.split("✗")
    assert first.scenarios == second.scenarios == 96 and out[1] == out[2]


# --- Exercise 7.3: tests after the last change ---------------------------------------------------


def runs_pytest(command):
    """pytest is the program, by any path (`pytest`, `.venv/bin/pytest`, `py.test`), or Python runs it as a
    module (`python -m pytest`, `python3 -m pytest`); not `cat pytest.ini`"""
    words = command.split()
    program = Path(words[0]).name if words else ""
    return program in ("pytest", "py.test") or program.startswith("python") and words[1:3] == ["-m", "pytest"]


class TestsAfterLastChange(Guardrail):
    """the solution of Exercise 7.3"""

    __test__ = False

    def check_answer(self, run, answer):
        last_change = last_test_run = -1
        for position, observation in enumerate(run.observations):
            if observation.name in ("write_file", "edit_file") and not observation.is_error:
                last_change = position
            command = (observation.arguments or {}).get("command", "")
            if observation.name == "run_command" and runs_pytest(command):
                last_test_run = position
        if last_change > last_test_run:
            return "You changed files after the last test run: run the tests before you answer."
        return None


class TestsPassedAfterLastChange(TestsAfterLastChange):
    """stricter: the last test run after the change must also have passed"""

    def check_answer(self, run, answer):
        feedback = super().check_answer(run, answer)
        tests = [o for o in run.observations if runs_pytest((o.arguments or {}).get("command", ""))]
        if feedback is None and tests and "exit code: 0" not in tests[-1].content:
            return "The tests fail: fix the code and run the tests again."
        return feedback


class PytestAnywhere(Guardrail):
    """was there a pytest run at all? (order ignored)"""

    def check_answer(self, run, answer):
        changed = any(o.name in ("write_file", "edit_file") and not o.is_error for o in run.observations)
        tested = any(runs_pytest((o.arguments or {}).get("command", "")) for o in run.observations)
        return "Run the tests." if changed and not tested else None


class AnyCommandCounts(Guardrail):
    """any run_command after the change counts as a test run"""

    def check_answer(self, run, answer):
        last_change = last_command = -1
        for position, observation in enumerate(run.observations):
            if observation.name in ("write_file", "edit_file") and not observation.is_error:
                last_change = position
            if observation.name == "run_command":
                last_command = position
        return "Run the tests." if last_change > last_command else None


class FirstChangeOnly(Guardrail):
    """compares the first change with the last test run"""

    def check_answer(self, run, answer):
        names = [o.name for o in run.observations]
        first_change = min((names.index(n) for n in ("write_file", "edit_file") if n in names), default=-1)
        tests = [
            i for i, o in enumerate(run.observations) if runs_pytest((o.arguments or {}).get("command", ""))
        ]
        return "Run the tests." if first_change > max(tests, default=-1) else None


class WriteFileOnly(TestsAfterLastChange):
    """forgets edit_file"""

    def check_answer(self, run, answer):
        last_write = max(
            (i for i, o in enumerate(run.observations) if o.name == "write_file" and not o.is_error),
            default=-1,
        )
        tests = [
            i for i, o in enumerate(run.observations) if runs_pytest((o.arguments or {}).get("command", ""))
        ]
        return "Run the tests." if last_write > max(tests, default=-1) else None


class ErrorsCountAsChanges(Guardrail):
    """a refused write counts as a change"""

    def check_answer(self, run, answer):
        last_change = max(
            (i for i, o in enumerate(run.observations) if o.name in ("write_file", "edit_file")), default=-1
        )
        tests = [
            i for i, o in enumerate(run.observations) if runs_pytest((o.arguments or {}).get("command", ""))
        ]
        return "Run the tests." if last_change > max(tests, default=-1) else None


class LastMustBeTests(Guardrail):
    """the last observation must be a test run, whenever something was written"""

    def check_answer(self, run, answer):
        wrote = any(o.name in ("write_file", "edit_file") and not o.is_error for o in run.observations)
        last = run.observations[-1] if run.observations else None
        tested_last = last is not None and runs_pytest((last.arguments or {}).get("command", ""))
        return "Run the tests." if wrote and not tested_last else None


class ExactTestCommand(Guardrail):
    """only the very command the lesson showed counts as a test run"""

    def check_answer(self, run, answer):
        last_change = last_test_run = -1
        for position, observation in enumerate(run.observations):
            if observation.name in ("write_file", "edit_file") and not observation.is_error:
                last_change = position
            if (
                observation.name == "run_command"
                and (observation.arguments or {}).get("command") == "python -m pytest -q"
            ):
                last_test_run = position
        return "Run the tests." if last_change > last_test_run else None


class ArgumentsAlwaysThere(Guardrail):
    """reads observation.arguments as if it were always a dict"""

    def check_answer(self, run, answer):
        last_change = last_test_run = -1
        for position, observation in enumerate(run.observations):
            if observation.name in ("write_file", "edit_file") and not observation.is_error:
                last_change = position
            if observation.name == "run_command" and runs_pytest(observation.arguments.get("command", "")):
                last_test_run = position
        return "Run the tests." if last_change > last_test_run else None


class TestInTheCommand(Guardrail):
    """takes any command holding "test" for a test run: `cat test_discount.py` too"""

    def check_answer(self, run, answer):
        last_change = last_test_run = -1
        for position, observation in enumerate(run.observations):
            if observation.name in ("write_file", "edit_file") and not observation.is_error:
                last_change = position
            if observation.name == "run_command" and "test" in (observation.arguments or {}).get(
                "command", ""
            ):
                last_test_run = position
        return "Run the tests." if last_change > last_test_run else None


class PytestInTheCommand(Guardrail):
    """takes any command holding "pytest" for a test run: `cat pytest.ini` too (lesson 07's old answer)"""

    def check_answer(self, run, answer):
        last_change = last_test_run = -1
        for position, observation in enumerate(run.observations):
            if observation.name in ("write_file", "edit_file") and not observation.is_error:
                last_change = position
            if observation.name == "run_command" and "pytest" in (observation.arguments or {}).get(
                "command", ""
            ):
                last_test_run = position
        return "Run the tests." if last_change > last_test_run else None


class PytestAWordOfTheCommand(PytestInTheCommand):
    """pytest as a word of the command: `pip install pytest` runs no test"""

    def check_answer(self, run, answer):
        last_change = last_test_run = -1
        for position, observation in enumerate(run.observations):
            if observation.name in ("write_file", "edit_file") and not observation.is_error:
                last_change = position
            if "pytest" in (observation.arguments or {}).get("command", "").split():
                last_test_run = position
        return "Run the tests." if last_change > last_test_run else None


class _TestRunRule(Guardrail):
    """the solution with another reading of "a command whose program is pytest" (the subclass's)"""

    @staticmethod
    def is_test_run(command):
        raise NotImplementedError

    def check_answer(self, run, answer):
        last_change = last_test_run = -1
        for position, observation in enumerate(run.observations):
            if observation.name in ("write_file", "edit_file") and not observation.is_error:
                last_change = position
            command = (observation.arguments or {}).get("command", "")
            if observation.name == "run_command" and self.is_test_run(command):
                last_test_run = position
        return "Run the tests." if last_change > last_test_run else None


class PythonByItsNameOnly(_TestRunRule):
    """pytest by any path, but Python only as `python`: a virtualenv's python and python3 are missed"""

    @staticmethod
    def is_test_run(command):
        words = command.split()
        return (
            bool(words)
            and Path(words[0]).name in ("pytest", "py.test")
            or words[:3] == ["python", "-m", "pytest"]
        )


class LessonsOldRule(_TestRunRule):
    """the rule as the lesson first wrote it: `.venv/bin/pytest` and `py.test` are missed"""

    @staticmethod
    def is_test_run(command):
        words = command.split()
        return words[:1] == ["pytest"] or words[1:3] == ["-m", "pytest"]


class CommandStartsWith(_TestRunRule):
    """the command's text starts with pytest's: spaces a model leaves make it miss"""

    @staticmethod
    def is_test_run(command):
        return command.startswith(("pytest", "python -m pytest", "python3 -m pytest", ".venv/bin/"))


class PythonNamingPytest(_TestRunRule):
    """python with pytest among its words: `python -m pip install pytest` runs pip"""

    @staticmethod
    def is_test_run(command):
        words = command.split()
        program = Path(words[0]).name if words else ""
        return program in ("pytest", "py.test") or program.startswith("python") and "pytest" in words


class AnyProgramsDashMPytest(_TestRunRule):
    """any program followed by `-m pytest`: `mypy -m pytest` type-checks pytest's module, runs no test"""

    @staticmethod
    def is_test_run(command):
        words = command.split()
        return bool(words) and Path(words[0]).name in ("pytest", "py.test") or words[1:3] == ["-m", "pytest"]


class PythonNotPython3(_TestRunRule):
    """pytest by any path, and Python as `python` by any path: `python3 -m pytest` is missed"""

    @staticmethod
    def is_test_run(command):
        words = command.split()
        program = Path(words[0]).name if words else ""
        return program in ("pytest", "py.test") or program == "python" and words[1:3] == ["-m", "pytest"]


class ArgumentsThereWhenNoError(Guardrail):
    """skips the calls that failed, then reads .arguments as if a call that did not fail always had a dict"""

    def check_answer(self, run, answer):
        last_change = last_test_run = -1
        for position, observation in enumerate(run.observations):
            if observation.is_error:
                continue
            if observation.name in ("write_file", "edit_file"):
                last_change = position
            elif observation.name == "run_command" and runs_pytest(observation.arguments.get("command", "")):
                last_test_run = position
        return "Run the tests." if last_change > last_test_run else None


class AnswersWithABool(Guardrail):
    """True for "reject", as if check_answer were a test"""

    def check_answer(self, run, answer):
        return TestsAfterLastChange().check_answer(run, answer) is not None


class SpanishFeedback(TestsAfterLastChange):
    """right, in Spanish"""

    def check_answer(self, run, answer):
        if super().check_answer(run, answer):
            return "Has cambiado archivos después de la última ejecución: vuelve a ejecutar las pruebas."
        return None


class VagueSpanishFeedback(TestsAfterLastChange):
    def check_answer(self, run, answer):
        return "Todavía no has terminado." if super().check_answer(run, answer) else None


class VagueFeedback(TestsAfterLastChange):
    def check_answer(self, run, answer):
        return "No." if super().check_answer(run, answer) else None


class AcceptEverything(Guardrail):
    """the stub of Exercise 7.3"""


class Broken(Guardrail):
    def check_answer(self, run, answer):
        raise KeyError("observations")


def test_tests_after_change_accepts_the_solution(capsys):
    assert check_tests_after_change(TestsAfterLastChange)
    assert capsys.readouterr().out.startswith("✓ Exercise 7.3:")


def test_tests_after_change_judges_generated_histories_without_pytest(capsys):
    class OnlyTheCommonCases(TestsAfterLastChange):
        """right on every real run, wrong when a failed edit follows the last test run"""

        def check_answer(self, run, answer):
            names = [o.name for o in run.observations]
            if names[-2:] == ["run_command", "edit_file"] and run.observations[-1].is_error:
                return "Run the tests."
            return super().check_answer(run, answer)

    result = check_tests_after_change(OnlyTheCommonCases)
    out = capsys.readouterr().out
    assert not result and result.scenarios == 225
    assert (
        "a run whose tool calls were" in out and "edit_file('discount.py'), which failed, then 'Done.'" in out
    )


def test_tests_after_change_accepts_a_guard_that_also_wants_green_tests(capsys):
    assert check_tests_after_change(TestsPassedAfterLastChange)
    assert capsys.readouterr().out.startswith("✓ Exercise 7.3:")


@pytest.mark.parametrize(
    "wrong, message",
    [
        (
            PytestAnywhere,
            "a model that runs the tests, then writes, then says done: it accepted the final answer",
        ),
        (
            AnyCommandCounts,
            "a model that writes, runs `ls` (a command, not the "
            "tests), then says done: it accepted the final answer",
        ),
        (
            FirstChangeOnly,
            "a model that writes, tests, writes again, then says done: it accepted the final answer",
        ),
        (
            WriteFileOnly,
            "a model that changes a file with edit_file, then says done: it accepted the final answer",
        ),
        (
            ErrorsCountAsChanges,
            "a model whose only write was refused (ERROR: outside "
            "the workspace), then answers: it rejected the answer",
        ),
        (
            LastMustBeTests,
            "a model that writes, runs the tests, reads a file, then answers: it rejected the answer",
        ),
        (ExactTestCommand, "then answers: it rejected the answer"),
        (
            ArgumentsAlwaysThere,
            "your guardrail raised AttributeError: 'NoneType' object has no attribute 'get' "
            "(an observation's arguments is None when the model's arguments did not parse)",
        ),
        (
            TestInTheCommand,
            "a model that writes, runs `cat test_discount.py` (reads the tests, does not run them), then "
            "says done: it accepted the final answer",
        ),
        (
            PytestInTheCommand,
            "a model that writes, runs `cat pytest.ini` (reads pytest's settings, runs no test), then "
            "says done: it accepted the final answer",
        ),
        (PytestAWordOfTheCommand, "pip install pytest"),
        (VagueFeedback, "the feedback should tell the model to run the tests (it said 'No.')"),
        (
            VagueSpanishFeedback,
            "the feedback should tell the model to run the tests (it said 'Todavía no has terminado.')",
        ),
        (PythonByItsNameOnly, "'.venv/bin/python -m pytest -q'"),
        (LessonsOldRule, "run_command('.venv/bin/pytest'), then 'Done.': it rejected the answer"),
        (CommandStartsWith, "'  python  -m pytest '"),
        (PythonNamingPytest, "'python -m pip install pytest'"),
        (PythonNotPython3, "run_command('python3 -m pytest'), then 'Done.': it rejected the answer"),
        (
            ArgumentsThereWhenNoError,
            "run_command whose observation's .arguments is None, then 'Done.': your code raised "
            "AttributeError: 'NoneType' object has no attribute 'get'",
        ),
        (AnyProgramsDashMPytest, "run_command('mypy -m pytest'), then 'Done.': it accepted the final answer"),
        (
            AnswersWithABool,
            "the comment deleter (reads, writes, says done, never runs the tests): check_answer returned "
            "bool True: return the feedback as text (a str) to turn the answer back, or None to accept it",
        ),
        (
            AcceptEverything,
            "the comment deleter (reads, writes, says done, "
            "never runs the tests): it accepted the final answer",
        ),
        (Broken, "your guardrail raised KeyError"),
    ],
)
def test_tests_after_change_rejects_wrong_answers(wrong, message, capsys):
    assert not check_tests_after_change(wrong)
    out = capsys.readouterr().out
    assert out.startswith("✗ Exercise 7.3: not yet.")
    assert message in out


def make_read_file_by_parents(root):
    """right, written differently: the root among the resolved file's parents, errors as text"""
    root = Path(root).resolve()

    def read_file(path):
        target = Path(root, path).resolve()
        if Path(path).is_absolute() or (target != root and root not in target.parents):
            return failure(f"{path} points outside the project folder")
        if not target.is_file():
            return failure(f"{path} does not exist in the project, or is not a file")
        try:
            return target.read_text(encoding="utf-8")
        except Exception as error:
            return failure(f"{path} could not be read: {error}")

    return read_file


def test_read_file_accepts_another_right_answer_written_differently(capsys):
    result = check_read_file(make_read_file_by_parents)
    assert result and result.scenarios == 169, capsys.readouterr().out


def unread_by_searching_from_a_position(answer, observations):
    """right, written differently: the lines shown as one set per file, the answer searched position by
    position"""
    per_file = {}
    for path, number in shown_lines(observations):
        per_file.setdefault(path, set()).add(number)
    unread, position = [], 0
    while (found := CITATION.search(answer, position)) is not None:
        if int(found[1]) not in per_file.get(found[2], set()):
            unread.append(found.group(0))
        position = found.end()
    return unread


def cited_without_folders(answer, observations):
    """a pattern that reads a path as one name: 'app/roles.py' is never found"""
    shown = shown_lines(observations)
    return [
        m.group(0)
        for m in re.finditer(r"\b[Ll]ine (\d+) of (\w+\.py)", answer)
        if (m[2], int(m[1])) not in shown
    ]


def test_unread_citations_finds_a_path_in_a_folder(capsys):
    assert not check_unread_citations(cited_without_folders)
    out = capsys.readouterr().out
    assert "of app/roles.py lists the roles; line 9 of app/handlers.py" in out
    assert "'line 9 of app/handlers.py'], not []" in out


def test_unread_citations_accepts_another_right_answer_written_differently(capsys):
    result = check_unread_citations(unread_by_searching_from_a_position)
    assert result and result.scenarios == 96, capsys.readouterr().out


class TestsAfterChangeFromTheEnd(Guardrail):
    """right, written differently: walks the observations backwards; the first change or test run met
    decides; a test run is a command a regular expression reads as pytest's"""

    __test__ = False

    def check_answer(self, run, answer):
        for observation in reversed(run.observations):
            command = str((observation.arguments or {}).get("command"))
            if observation.name == "run_command" and re.match(
                r"\s*(\S*/)?(pytest|py\.test|python[\d.]*\s+-m\s+pytest)(\s|$)", command
            ):
                return None
            if observation.name in {"edit_file", "write_file"} and not observation.is_error:
                return "A file changed since the tests last ran. Run pytest, then answer."
        return None


@pytest.mark.parametrize("right", [TestsAfterChangeFromTheEnd, SpanishFeedback])
def test_tests_after_change_accepts_another_right_answer_written_differently(right, capsys):
    assert check_tests_after_change(right)
    assert capsys.readouterr().out.startswith("✓ Exercise 7.3:")


def test_tests_after_change_gives_the_same_verdict_every_time(capsys):
    first, second = check_tests_after_change(FirstChangeOnly), check_tests_after_change(FirstChangeOnly)
    out = capsys.readouterr().out.split("✗")
    assert first.scenarios == second.scenarios and out[1] == out[2]


def test_the_lesson_07_checks_give_the_same_verdicts_under_another_hash_seed():
    """each check but 7.3 (it runs pytest) on a wrong answer: the same words whatever a set's order"""
    outputs = under_two_hash_seeds(
        "test_checks_lesson07",
        "c.check_read_file(t.textual_check); c.check_unread_citations(t.file_was_read)",
    )
    assert len(outputs) == 1 and outputs.pop().count("✗ Exercise 7.") == 2
