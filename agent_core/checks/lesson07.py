"""Checks for lesson 07's exercises: a coding agent."""

from __future__ import annotations

import functools
import os
import random
import re
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .. import mock
from .._i18n import N_, _
from ..coding._observations import ReportCache
from ..coding.agent import ALL_TOOLS, SYSTEM, TASKS, Workspace, coding_tools, fresh_workspace
from ..coding.guards import citations, shown_lines
from ..coding.workspace import project_files, snapshot
from ..dispatch import Observation, ToolRegistry
from ..loop import AgentRun, Guardrail, run_agent
from ..mock.coding_policies import TEST_COMMAND, CommentDeleter
from ..schema import Tool
from . import Verdict, verdict
from ._scenarios import Dimension, judge_scenarios, scenarios, smaller_lists
from .lesson03 import is_failure, plain_str_problem

__all__ = [
    "CITING_SPACE",
    "read_scenarios",
    "READ_SHAPES",
    "READ_FILE_SPACE",
    "citing_scenarios",
    "CITING_SHAPES",
    "history_scenarios",
    "HISTORY_SHAPES",
    "TESTS_AFTER_CHANGE_SPACE",
    "check_read_file",
    "check_unread_citations",
    "check_tests_after_change",
]


def _raised(error: Exception, folder: Path | None = None) -> str:
    """the exception as the learner should read it, without the check's temporary folder"""
    text = str(error) if folder is None else str(error).replace(str(folder) + os.sep, "")
    return f"{type(error).__name__}: {text}"


# --- Exercise 7.1 ------------------------------------------------------------------------------

_SECRET = "the database password\n"
_NOT_TEXT = b"\x89PNG\r\n\x1a\n\xff\xfe\x00\x81"  # read_text() raises UnicodeDecodeError on it


def _escape_room(parent: Path) -> tuple[Path, dict[str, bool]]:
    """a project folder with ways out of it next to it; also which symlinks could be made"""
    root = parent / "project"
    (root / "app").mkdir(parents=True)
    (root / "app" / "roles.py").write_text('ROLES = ["admin", "viewer"]\n')
    (root / "main.py").write_text("print('hello')\n")
    (parent / "secret.txt").write_text(_SECRET)
    (parent / "project-private").mkdir()
    (parent / "project-private" / "key.txt").write_text(_SECRET)
    (root / "logo.png").write_bytes(_NOT_TEXT)
    made = {}
    for link, target, is_dir in (
        ("notes.txt", "../secret.txt", False),
        ("shared", "../project-private", True),
        ("latest.py", "main.py", False),  # links that stay inside: read them
        ("lib", "app", True),
    ):
        try:  # Windows allows symlinks only with developer mode or as administrator
            os.symlink(target, root / link, target_is_directory=is_dir)
            made[link] = True
        except OSError:
            made[link] = False
    return root, made


_SEGMENTS = [
    "app",
    "..",
    ".",
    "main.py",
    "roles.py",
    "données.py",
    "secret.txt",
    "project",
    "project-private",
    "key.txt",
    "notes.txt",
    "shared",
    "rules.py",
]


def _walk(rng: random.Random) -> str:
    """a relative path of 1 to 5 parts that may climb out, come back, or end on a folder or a missing file"""
    return "/".join(rng.choice(_SEGMENTS) for _ in range(rng.randint(1, 5)))


def _smaller_paths(path: str) -> Iterator[str]:
    parts = path.split("/")
    for fewer in smaller_lists(parts):
        if fewer and "" not in fewer[1:]:
            yield "/".join(fewer)


def _read_labels(parent: Path, made: dict[str, bool]) -> dict[str, str]:
    """the readable paths, each with what it tries"""
    labels = {
        "main.py": N_("a file at the project root"),
        "app/roles.py": N_("a file in a subfolder"),
        "app/../main.py": N_("a path whose '..' stays inside the project"),
        "../secret.txt": N_("'..' climbs out of the project"),
        "app/../../secret.txt": N_("a '..' in the middle climbs out of the project"),
        str(parent / "secret.txt"): N_("an absolute path"),
        "../project-private/key.txt": N_(
            "the folder next door, whose name starts like the project's "
            "(compare paths with Path.is_relative_to, not str.startswith)"
        ),
        "rules.py": N_("a file that does not exist"),
        "app/rules.py": N_("a file that does not exist, in a folder that does"),
        "app": N_("a folder"),
        "app/": N_("a folder, written with a slash"),
        "./app/roles.py": N_("a path that starts with './'"),
        "app//roles.py": N_("a path with a doubled '/'"),
        "read me.txt": N_("a file whose name has a space"),
    }
    if made["notes.txt"]:
        labels["notes.txt"] = N_("a symbolic link to a file outside (resolve the path first)")
    if made["shared"]:
        labels["shared/key.txt"] = N_(
            "a file inside a linked folder that points outside (resolve the whole path)"
        )
    if made.get("latest.py"):
        labels["latest.py"] = N_("a symbolic link to a file inside the project (it stays inside: read it)")
    if made.get("lib"):
        labels["lib/roles.py"] = N_("a file through a linked folder that stays inside the project (read it)")
    labels["logo.png"] = N_("a file that is not UTF-8 text (read_text raises UnicodeDecodeError)")
    return labels


_SOMEWHERE = Path("/check-7-1")  # where read_scenarios() puts the project when no check runs


def read_scenarios(parent: Path = _SOMEWHERE, made: dict[str, bool] | None = None) -> list[str]:
    """check 7.1's paths for a project at parent/project: the readable ones, then 150 generated"""
    root = parent / "project"

    def generate(rng: random.Random) -> str:
        path = _walk(rng)
        return str(rng.choice([root, parent]) / path) if rng.random() < 0.15 else path

    labels = _read_labels(parent, made or dict.fromkeys(("notes.txt", "shared", "latest.py", "lib"), True))
    return scenarios(list(labels), generate, count=150, seed=701)


def _inside_somewhere(path: str) -> bool:
    return Path(path).is_relative_to(_SOMEWHERE / "project")


def _climbs_out(path: str) -> bool:
    """does the path, read part by part, go above the project (before any link is followed)?"""
    parts = (
        Path(path).relative_to(_SOMEWHERE / "project").parts if _inside_somewhere(path) else path.split("/")
    )
    depth = 0
    for part in parts:
        depth += -1 if part == ".." else 0 if part in (".", "") else 1
        if depth < 0:
            return True
    return False


# the shapes lesson 07 names for read_file, each reached by read_scenarios() (tests/test_check_shapes.py)
READ_SHAPES: dict[str, Callable[[str], bool]] = {
    "a file inside": lambda p: p.split("/")[-1] in ("main.py", "roles.py") and ".." not in p,
    "a '..' that stays inside": lambda p: (
        ".." in p.split("/") and not p.startswith("/") and not _climbs_out(p)
    ),
    "a '..' that climbs out": lambda p: not p.startswith("/") and _climbs_out(p),
    "an absolute path outside": lambda p: p.startswith("/") and not _inside_somewhere(p),
    "an absolute path inside": lambda p: _inside_somewhere(p),
    "the folder next door, named like the project": lambda p: "project-private" in p,
    "a symbolic link to a file outside": lambda p: p.split("/")[-1] == "notes.txt",
    "a linked folder that points outside": lambda p: "shared" in p.split("/")[:-1],
    "a missing file": lambda p: p.split("/")[-1] == "rules.py",
    "a folder": lambda p: p.split("/")[-1] in ("app", "shared", "project"),
    "a non-ASCII name": lambda p: not p.isascii(),
    "a '.' part": lambda p: "." in p.split("/"),
    "a file that is not UTF-8 text": lambda p: p.split("/")[-1] == "logo.png",
}


def _last(*names: str) -> Callable[[str], bool]:
    return lambda p: p.split("/")[-1] in names


# what exercise 7.1's words say varies, each form reached by read_scenarios() (test_input_space.py)
READ_FILE_SPACE: dict[str, Dimension[str]] = {
    "a path inside": Dimension(
        "a path inside the project (`app/roles.py`, or `app/../main.py`, which stays inside)",
        {
            "a file at the root, no folder": lambda p: p == "main.py",
            "a file in a folder": lambda p: p == "app/roles.py",
            "a '..' that stays inside": READ_SHAPES["a '..' that stays inside"],
            "a './' at the start": lambda p: p.startswith("./"),
            "a doubled '/'": lambda p: "//" in p,
            "a name with a space": lambda p: " " in p,
            "a name beyond ASCII": READ_SHAPES["a non-ASCII name"],
        },
    ),
    "an absolute path": Dimension(
        "an absolute path",
        {
            "outside": READ_SHAPES["an absolute path outside"],
            "inside": READ_SHAPES["an absolute path inside"],
        },
    ),
    "leaving by '..'": Dimension(
        "any path that leaves the folder: by `..`",
        {
            "at the start": lambda p: p.startswith("../"),
            "in the middle": lambda p: not p.startswith(("../", "/")) and _climbs_out(p),
        },
    ),
    "a link": Dimension(
        "a linked file, or a linked folder on the way",
        {
            "a linked file": READ_SHAPES["a symbolic link to a file outside"],
            "a linked folder": READ_SHAPES["a linked folder that points outside"],
            "a linked file that stays inside": lambda p: p == "latest.py",
            "a linked folder that stays inside": lambda p: p == "lib/roles.py",
        },
    ),
    "the folder next door": Dimension(
        "a string prefix lets `../project-private/` through",
        {
            "by '..'": lambda p: "project-private" in p and not p.startswith("/"),
            "absolute": lambda p: "project-private" in p and p.startswith("/"),
        },
    ),
    "missing": Dimension(
        "a missing file or a folder",
        {
            "a missing file at the root": lambda p: p == "rules.py",
            "a missing file in a folder": lambda p: p == "app/rules.py",
            "a folder": _last("app", "shared"),
            "a folder written with a slash": lambda p: p.endswith("/"),
        },
    ),
    "never raises": Dimension(
        "never raises",
        {
            "a file that is not UTF-8 text": READ_SHAPES["a file that is not UTF-8 text"],
            "a file that is text": _last("main.py", "roles.py"),
        },
    ),
}


def check_read_file(make_read_file: Callable[[Any], Callable[[str], str]]) -> Verdict:
    """Exercise 7.1: read_file returns a project file's text, and never anything outside the project

    Scenarios: a project with ways out next to it (a secret file, a folder whose name starts like the
    project's, symbolic links to both when the system allows them, a file that is not UTF-8 text) and
    thirteen readable paths, then
    150 generated paths of 1 to 5 parts ('..', '.', folders, files inside and outside, a non-ASCII
    name, links, missing files), some absolute. The reference is where the path really leads. The
    folder `root` comes as a str, as a program names a folder (a command line, os.getcwd()), so a tool
    that never turns it into a Path fails here.
    """
    with tempfile.TemporaryDirectory(prefix="check-7-1-") as folder:
        parent = Path(folder).resolve()
        root, made = _escape_room(parent)
        (root / "app" / "données.py").write_text("NAME = 'é'\n", encoding="utf-8")
        (root / "read me.txt").write_text("Run main.py.\n", encoding="utf-8")

        def call(path: str) -> str:
            """read_file(path), as a message shows it: the same on every machine"""
            shown = path.replace(str(parent), "<absolute path>") if path.startswith(str(parent)) else path
            return f"read_file({shown!r})" if shown == path else f"read_file({shown})"

        def said(got: Any) -> str:
            """what read_file returned, without the check's temporary folder"""
            return repr(got).replace(str(parent) + os.sep, "").replace(repr(str(parent) + os.sep)[1:-1], "")

        try:
            read_file = make_read_file(str(root))  # a folder as a program names it: a str (or a Path)
        except Exception as error:  # the learner's code: report it, don't crash the notebook
            return verdict("7.1", [_("make_read_file(root) raised {error}", error=_raised(error))], "")
        labels = _read_labels(parent, made)

        def judge(path: str) -> str | None:
            try:
                got = read_file(path)
            except Exception as error:
                return _(
                    'it raised {error}: it must never raise; return failure("...") instead',
                    error=_raised(error, parent),
                )
            return _read_problem(root, path, got, said)

        def describe(path: str) -> str:
            return _(
                "{call} ({where})",
                call=call(path),
                where=_(labels[path]) if path in labels else _where(root, path),
            )

        return judge_scenarios(
            "7.1",
            read_scenarios(parent, made),
            judge,
            describe,
            _("read_file stays inside the project, and every failure is text."),
            # a smaller path that leads to the same kind of place: a leak stays a leak when shrunk
            lambda path: (p for p in _smaller_paths(path) if _kind(root, p) == _kind(root, path)),
        )


def _kind(root: Path, path: str) -> tuple[str, bool]:
    return _where(root, path), (root / path).resolve().is_file()


def _where(root: Path, path: str) -> str:
    """where a path leads, in words"""
    target = (root / path).resolve()
    if Path(path).is_absolute():
        return _("an absolute path")
    if not target.is_relative_to(root.resolve()):
        return _("a path that leads outside the project")
    if not target.exists():
        return _("a file that does not exist")
    return _("a folder") if target.is_dir() else _("a file inside the project")


_OUTSIDE = ("outside", "not inside", "leaves the project", "fuera", "no está dentro", "sale del proyecto")
_MISSING = (
    "not exist",
    "doesn't exist",
    "not found",
    "no such file",
    "no existe",
    "inexistente",
    "no se encontr",
    "no se ha encontrado",
)


def _says_outside(got: str) -> bool:
    """the refusal says the path is outside the project, in English or in Spanish ("fuera del
    proyecto", "sale del proyecto", "no está dentro"), as the exercise's **outside** means it"""
    return any(words in got.lower() for words in _OUTSIDE)


def _says_missing(got: str) -> bool:
    """the answer says the file does not exist, in English or in Spanish ("no existe", "no se
    encontró", "inexistente")"""
    return any(words in got.lower() for words in _MISSING)


def _decoded(data: bytes) -> set[str]:
    """the texts a read that never raises can make of bytes that are not UTF-8: replaced, dropped or
    escaped bytes, or another encoding; with newlines as read_text() and open() turn them"""
    texts = {
        data.decode("utf-8", errors=how)
        for how in ("replace", "ignore", "backslashreplace", "surrogateescape")
    }
    texts |= {data.decode(encoding, errors="replace") for encoding in ("latin-1", "cp1252")}
    return texts | {text.replace("\r\n", "\n").replace("\r", "\n") for text in texts}


def _read_problem(root: Path, path: str, got: Any, said: Callable[[Any], str]) -> str | None:
    target = (root / path).resolve()
    if not isinstance(got, str):
        return _("it should return text (a str), not {type}", type=type(got).__name__)
    if Path(path).is_absolute() or not target.is_relative_to(root.resolve()):
        if "database password" in got:
            return _("it read a file outside the project")
        if not is_failure(got) or not _says_outside(got):
            if _says_outside(got) and (plain := plain_str_problem(got, said(got))):
                return plain
            return _(
                'it should refuse with failure("...") saying the path is outside the project, not {got}',
                got=said(got),
            )
        if _says_missing(got):
            return _(
                "it said {got}, but that is not what is wrong: say only that the path is outside the "
                "project, so "
                "the model knows what to fix",
                got=said(got),
            )
        return None
    if target.is_file():
        try:
            expected = target.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:  # a file that cannot be read as text
            if is_failure(got) and not _says_outside(got) or got in _decoded(target.read_bytes()):
                return None  # refused as not text, or read with its bytes replaced: it never raised
            if not _says_outside(got) and (plain := plain_str_problem(got, said(got))):
                return plain
            return _(
                'read_text raises {error} on this file, so answer failure("...") saying it cannot be '
                "read as text "
                "(or decode it with errors='replace'), not {got}",
                error=type(error).__name__,
                got=said(got),
            )
        if got == expected:
            return None
        return _(
            "it should return the file's text {expected}, not {got}", expected=repr(expected), got=said(got)
        )
    if not is_failure(got) or not _says_missing(got):
        if _says_missing(got) and (plain := plain_str_problem(got, said(got))):
            return plain
        if target.is_dir():
            return _(
                'it should answer failure("...") saying it does not exist (a folder is no file to read: '
                "test is_file(), not exists()), not {got}",
                got=said(got),
            )
        return _('it should answer failure("...") saying it does not exist, not {got}', got=said(got))
    if _says_outside(got):
        return _(
            "it said {got}, but the path is inside the project: give each failure its own message, so the "
            "model knows what to fix",
            got=said(got),
        )
    return None


# --- Exercise 7.2 ------------------------------------------------------------------------------


# What run_command(TEST_COMMAND) answers in each fresh project, as a real run printed it: kept as text, since
# the exercise only reads observations and a sandboxed pytest run per check took a second.
_TEST_RUNS = {
    "discount": (
        "exit code: 1\n...F" + " " * 69 + "[100%]\n" + "=" * 35 + " FAILURES " + "=" * 35 + "\n"
        "_____________________ test_discount_starts_at_exactly_100 ______________________\n\n"
        "    def test_discount_starts_at_exactly_100():\n"
        ">       assert final_price(100, is_member=True) == 90\n"
        "E       assert 100 == 90\n"
        "E        +  where 100 = final_price(100, is_member=True)\n\n"
        "test_discount.py:17: AssertionError\n" + "=" * 27 + " short test summary info " + "=" * 28 + "\n"
        "FAILED test_discount.py::test_discount_starts_at_exactly_100 - assert 100 == 90\n"
        "1 failed, 3 passed in ?.??s\n"
    ),
    "users_api": (
        "exit code: 1\n......F" + " " * 66 + "[100%]\n" + "=" * 35 + " FAILURES " + "=" * 35 + "\n"
        "_______________________ test_filter_users_by_role_editor _______________________\n\n"
        "    def test_filter_users_by_role_editor():\n"
        '        status, body = handle("GET", "/users?role=editor")\n'
        ">       assert status == 200\n"
        "E       assert 500 == 200\n\n"
        "tests/test_users_api.py:31: AssertionError\n"
        + "=" * 27
        + " short test summary info "
        + "=" * 28
        + "\n"
        "FAILED tests/test_users_api.py::test_filter_users_by_role_editor - assert 500...\n"
        "1 failed, 6 passed in ?.??s\n"
    ),
}


def _test_run(project: str) -> Observation:
    """the pytest run of a fresh project, as the observation a run_command call leaves"""
    return Observation("call_0", "run_command", _TEST_RUNS[project], arguments={"command": TEST_COMMAND})


def _reads(workspace: Any, *reads: tuple[str, int | None, int | None]) -> list[Observation]:
    """read_file observations of (path, start_line, end_line), numbered after the test run; a path
    written "cat:PATH" is a run_command observation printing a notes file that holds such a view"""
    (read_file,) = coding_tools(workspace, "read_file")
    found = []
    for n, (path, start, end) in enumerate(reads, start=1):
        content = read_file(path.removeprefix(_CAT), start_line=start, end_line=end)
        if path.startswith(_CAT):  # the header, but not read_file's: nothing was shown by read_file
            found.append(Observation(f"call_{n}", "run_command", content, arguments={"command": _NOTES}))
            continue
        arguments = {"path": path, "start_line": start, "end_line": end}
        found.append(
            Observation(f"call_{n}", "read_file", content, content.startswith("ERROR"), arguments=arguments)
        )
    return found


_CAT = "cat:"
_NOTES = "cat notes/last_view.txt"


_EIGHT_LINES = (14, 2, 11, 7, 5, 13, 1, 9)

Read = tuple[str, "int | None", "int | None"]  # read_file(path, start_line, end_line)
Citing = tuple[str, str, tuple[Read, ...]]  # the project, the answer, what read_file showed before it


def _citing_case(rng: random.Random) -> Citing:
    """1 to 6 'line N of PATH' citations among words, after 0 to 3 reads of whole files or line ranges"""
    paths = ["discount.py", "test_discount.py", "rules.py"]
    cited = rng.sample(
        [(n, path) for n in range(1, 16) for path in paths[:2]] + [(2, "rules.py")], rng.randint(1, 6)
    )
    sentences = [
        rng.choice(
            [
                "See {} of {}.",
                "{} of {} is the bug.",
                "I changed {} of {}, été 🙂.",
                "Look at {} of {} first.",
            ]
        ).format(f"{rng.choice(['line', 'Line'])} {n}", path)
        for n, path in cited
    ]
    reads: list[Read] = []
    for _read in range(rng.randint(0, 3)):
        path = rng.choice(paths)
        if rng.random() < 0.4:
            reads.append((path, None, None))
        else:
            start = rng.randint(1, 12)
            reads.append((path, start, start + rng.randint(0, 6)))
    return "discount", " ".join(sentences), tuple(reads)


def _smaller_citing(case: Citing) -> Iterator[Citing]:
    project, answer, reads = case
    for fewer in smaller_lists(reads):
        yield project, answer, tuple(fewer)
    sentences = re.split(r"(?<=\.) ", answer)
    for fewer_sentences in smaller_lists(sentences):
        if fewer_sentences:
            yield project, " ".join(fewer_sentences), reads


def _describe_citing(case: Citing) -> str:
    _project, answer, reads = case
    shown = ", ".join(
        _(
            "{call} printing a view of {path} as read_file shows one",
            call=f"run_command({_NOTES!r})",
            path=path.removeprefix(_CAT),
        )
        if path.startswith(_CAT)
        else f"read_file({path!r})"
        if start is None
        else f"read_file({path!r}, {start}, {end})"
        for path, start, end in reads
    )
    if shown:
        return _("the answer {answer} after a test run, then {reads}", answer=repr(answer), reads=shown)
    return _("the answer {answer} after a test run only", answer=repr(answer))


def _unread(answer: str, observations: list[Observation]) -> list[str]:
    """the reference: each citation, as written, whose line no read_file showed"""
    shown = shown_lines(observations)
    unread = []
    for citation in citations(answer):
        seen = {n for path, lines in shown.items() if path == citation.path for n in lines}
        if any(n not in seen for n in citation.lines()):
            unread.append(citation.written)
    return unread


_CITING_FIXED: list[Citing] = [
    ("discount", "The bug is on line 8 of discount.py: it reads `if total > 100:`.", ()),
    (
        "discount",
        "Fixed. Line 10 of discount.py was `if is_member and total > DISCOUNT_FROM:`.",
        (("discount.py", None, None),),
    ),
    ("discount", "Line 10 of discount.py compares with >.", ()),
    ("discount", "See line 10 of discount.py.", (("discount.py", 1, 5),)),
    ("discount", "See line 10 of discount.py.", (("test_discount.py", None, None),)),
    (
        "discount",
        "Line 4 of discount.py sets the limit and line 10 of discount.py uses it.",
        (("discount.py", 1, 5),),
    ),
    (
        "discount",
        "Line 1 of discount.py, line 5 of discount.py and line 6 of discount.py.",
        (("discount.py", 1, 5),),
    ),
    (
        "discount",
        "First line 9 of discount.py, then line 12 of discount.py, then line 3 of discount.py.",
        (),
    ),
    # a set would keep eight in this order about once in 40,000 runs: the list's order is asked for
    ("discount", " ".join(f"Line {n} of discount.py." for n in _EIGHT_LINES), ()),
    ("users_api", "I added a role on line 5 of app/roles.py.", (("app/roles.py", 3, 7),)),
    # a path in a folder, cited and never read: a pattern without folders misses it
    (
        "users_api",
        "Line 5 of app/roles.py lists the roles; line 9 of app/handlers.py checks them.",
        (("app/roles.py", 3, 7),),
    ),
    ("discount", "Line 2 of rules.py is wrong.", (("rules.py", None, None),)),
    ("discount", "Line 10 of discount.py, and again line 10 of discount.py.", ()),
    ("discount", "See line 10 of discount.py.", ((_CAT + "discount.py", None, None),)),  # not read_file's
    ("discount", "Line 2 of café.py sets the price; line 3 of café.py rounds it.", (("café.py", 1, 2),)),
    # two files named roles.py in two folders: reading app/roles.py shows no line of lib/roles.py
    ("users_api", "Line 5 of lib/roles.py still lists the old roles.", (("app/roles.py", 3, 7),)),
]
_CAFE = "# café prices, in euros\nPRICE = 2.5\nROUNDED = round(PRICE)\n"  # a file named beyond ASCII
_LIB_ROLES = "".join(f"# the roles of version {n}\n" for n in range(1, 9))  # a second roles.py


def citing_scenarios() -> list[Citing]:
    """check 7.2's answers: the readable ones, then 80 generated (no workspace needed to list them)"""
    return scenarios(_CITING_FIXED, _citing_case, count=80, seed=702)


_CITED = re.compile(r"\b(line) (\d+) of ([\w./-]*\w)", re.IGNORECASE)


def _cited(case: Citing) -> list[tuple[str, int, str]]:
    """(the word as written, N, PATH) of each citation in the answer"""
    return [(m[1], int(m[2]), m[3]) for m in _CITED.finditer(case[1])]


def _read(test: Callable[[str, int | None, int | None], bool]) -> Callable[[Citing], bool]:
    return lambda case: any(test(*read) for read in case[2])


def _cited_at_an_end(case: Citing) -> str:
    """'first', 'last' or '' : a citation of a range's first or last line, as read_file showed it"""
    ends = set()
    for _citation, n, path in _cited(case):
        for read_path, start, end in case[2]:
            if read_path == path and start is not None and end is not None:
                ends |= {"first"} if n == start else set()
                ends |= {"last"} if n == end else set()
                ends |= {"just after"} if n == end + 1 else set()
    return " ".join(sorted(ends))


# the shapes lesson 07 names for cited lines, each reached by citing_scenarios() (tests/test_check_shapes.py)
CITING_SHAPES: dict[str, Callable[[Citing], bool]] = {
    "no citation read at all": lambda case: not case[2],
    "a whole file read": _read(lambda path, start, end: start is None),
    "a range of lines read": _read(lambda path, start, end: start is not None),
    "a read that failed (a file that does not exist)": _read(lambda path, start, end: path == "rules.py"),
    "'Line' with a capital": lambda case: any(word == "Line" for word, _, _ in _cited(case)),
    "'line' in lower case": lambda case: any(word == "line" for word, _, _ in _cited(case)),
    "several citations, not in line order": lambda case: (
        [n for _, n, _ in _cited(case)] != sorted(n for _, n, _ in _cited(case))
    ),
    "the same citation twice": lambda case: (
        len({(n, path) for _, n, path in _cited(case)}) < len(_cited(case))
    ),
    "a path in a folder (app/roles.py)": lambda case: any("/" in path for _, _, path in _cited(case)),
    "punctuation right after the path": lambda case: bool(re.search(r"\.py[.,:;]", case[1])),
    "a path inside another's name (test_discount.py holds discount.py)": lambda case: (
        any(path == "discount.py" for _, _, path in _cited(case))
        and any(
            path == "test_discount.py" for _, _, path in _cited(case) + [("", 0, p) for p, _, _ in case[2]]
        )
    ),
    "the first line of a range": lambda case: "first" in _cited_at_an_end(case),
    "the last line of a range": lambda case: "last" in _cited_at_an_end(case),
    "the line just after a range": lambda case: "just after" in _cited_at_an_end(case),
    "the same line number read in another file": lambda case: any(
        n in range(start or 1, (end or 99) + 1) and read_path != path
        for _, n, path in _cited(case)
        for read_path, start, end in case[2]
    ),
    "unicode among the words": lambda case: not case[1].isascii(),
    "a path beyond ASCII (café.py)": lambda case: any(not path.isascii() for _, _, path in _cited(case)),
    "a read_file header printed by another tool": _read(lambda path, start, end: path.startswith(_CAT)),
    "the same file name read in another folder (app/roles.py for lib/roles.py)": lambda case: any(
        read_path != path and read_path.rsplit("/", 1)[-1] == path.rsplit("/", 1)[-1]
        for _, _, path in _cited(case)
        for read_path, _, _ in case[2]
    ),
}


def _was_read(case: Citing, path: str, line: int) -> bool:
    """did a read_file of the case show this line of this path (a whole file shows every line)?"""
    return any(
        read == path and (start is None or end is None or start <= line <= end)
        for read, start, end in case[2]
    )


# what exercise 7.2's words say varies, each form reached by citing_scenarios() (test_input_space.py)
CITING_SPACE: dict[str, Dimension[Citing]] = {
    "as written": Dimension(
        "(any case, as written, in order;",
        {
            "'Line'": CITING_SHAPES["'Line' with a capital"],
            "'line'": CITING_SHAPES["'line' in lower case"],
            "not in line order": CITING_SHAPES["several citations, not in line order"],
            "the same citation twice": CITING_SHAPES["the same citation twice"],
            "unicode among the words": CITING_SHAPES["unicode among the words"],
        },
    ),
    "the path": Dimension(
        "a path such as `app/roles.py`, without the punctuation after it",
        {
            "in a folder": CITING_SHAPES["a path in a folder (app/roles.py)"],
            "in a folder, never read": lambda case: any(
                "/" in path and not _was_read(case, path, n) for _, n, path in _cited(case)
            ),
            "no folder": lambda case: any("/" not in path for _, _, path in _cited(case)),
            "punctuation after it": CITING_SHAPES["punctuation right after the path"],
            "inside another path's name": CITING_SHAPES[
                "a path inside another's name (test_discount.py holds discount.py)"
            ],
            "beyond ASCII": CITING_SHAPES["a path beyond ASCII (café.py)"],
            "the same file name in another folder": CITING_SHAPES[
                "the same file name read in another folder (app/roles.py for lib/roles.py)"
            ],
        },
    ),
    "what was shown": Dimension(
        "no successful `read_file` observation showed",
        {
            "nothing read": CITING_SHAPES["no citation read at all"],
            "a whole file": CITING_SHAPES["a whole file read"],
            "a range of lines": CITING_SHAPES["a range of lines read"],
            "a read that failed": CITING_SHAPES["a read that failed (a file that does not exist)"],
            "a header printed by another tool": CITING_SHAPES["a read_file header printed by another tool"],
        },
    ),
    "the range's ends": Dimension(
        "`PATH (lines FIRST-LAST of TOTAL)`",
        {
            "its first line": CITING_SHAPES["the first line of a range"],
            "its last line": CITING_SHAPES["the last line of a range"],
            "the line just after": CITING_SHAPES["the line just after a range"],
            "the same line in another file": CITING_SHAPES["the same line number read in another file"],
        },
    ),
}


def check_unread_citations(unread_citations: Callable[[str, list[Observation]], Any]) -> Verdict:
    """Exercise 7.2: the 'line N of PATH' citations of an answer that no read_file showed

    Scenarios: sixteen readable answers (one after a run_command that prints a view like read_file's,
    one citing café.py, a path beyond ASCII, one citing lib/roles.py after reading app/roles.py),
    then 80 generated: 1 to 6 citations of discount.py,
    test_discount.py or a file that does not exist, written 'line' or 'Line', among words and
    unicode, after a test run and 0 to 3 reads of whole files or line ranges (whose ends count).
    """
    with tempfile.TemporaryDirectory(prefix="check-7-2-") as parent:
        workspaces = {
            "discount": fresh_workspace("discount", parent),
            "users_api": fresh_workspace("users_api", parent),
        }
        (workspaces["discount"].root / "café.py").write_text(_CAFE, encoding="utf-8")
        (workspaces["users_api"].root / "lib").mkdir()
        (workspaces["users_api"].root / "lib" / "roles.py").write_text(_LIB_ROLES, encoding="utf-8")
        tests = {name: _test_run(name) for name in workspaces}

        def judge(case: Citing) -> str | None:
            project, answer, reads = case
            observations = [tests[project], *_reads(workspaces[project], *reads)]
            expected = _unread(answer, observations)
            found = unread_citations(answer, list(observations))
            if not isinstance(found, list):
                return _("unread_citations should return a list, not {type}", type=type(found).__name__)
            if found != expected:
                echoed = any(o.arguments == {"command": _NOTES} for o in observations)
                if echoed and not set(expected) <= set(found):
                    return _(
                        "it should return {expected}, not {found}: only a read_file observation shows lines "
                        "(check .name); run_command printed text that looks like a read_file header",
                        expected=expected,
                        found=found,
                    )
                return _("it should return {expected}, not {found}", expected=expected, found=found)
            return None

        return judge_scenarios(
            "7.2",
            citing_scenarios(),
            judge,
            _describe_citing,
            _("an answer that cites a line nobody read is caught."),
            _smaller_citing,
        )


# --- Exercise 7.3 ------------------------------------------------------------------------------


def _replies(*replies: Any) -> Callable[[dict[str, Any]], Any]:
    """a model that says these in order, then repeats the last one (if an answer is rejected)"""

    def policy(request: dict[str, Any]) -> Any:
        turn = sum(m["role"] == "assistant" for m in request["messages"])
        return replies[min(turn, len(replies) - 1)]

    return policy


# the real fix, so that a guard that also wants the tests to pass accepts the runs it should
_FIXED = project_files("discount")["discount.py"].decode().replace("total > DISCOUNT", "total >= DISCOUNT")
_WRITE = mock.call("write_file", path="discount.py", content=_FIXED)
_TESTS = mock.call("run_command", command=TEST_COMMAND)


def check_tests_after_change(guard_class: Callable[[], Guardrail]) -> Verdict:
    """Exercise 7.3: a guardrail that rejects "done" when no pytest run came after the last change

    Scenarios: thirteen real runs on the mock in a real workspace (seven whose "done" must be rejected,
    then six to accept; each runs real pytest where the model asks, once per state of the project
    it reaches), then 200 generated histories of 0 to 8 tool calls (reads, writes and edits that
    worked or failed, pytest started each way the exercise names, other commands, commands that name a
    test file or pytest without running it, arguments None) judged by the rule: a test run is a
    command whose program is pytest (`pytest ...`, `python -m pytest ...`).
    """
    must_reject = [
        (N_("the comment deleter (reads, writes, says done, never runs the tests)"), CommentDeleter()),
        (N_("a model that runs the tests, then writes, then says done"), _replies(_TESTS, _WRITE, "Done.")),
        (
            N_("a model that writes, runs `ls` (a command, not the tests), then says done"),
            _replies(_WRITE, mock.call("run_command", command="ls"), "Done."),
        ),
        (
            N_(
                "a model that writes, runs `cat test_discount.py` (reads the tests, does not run them), then "
                "says done"
            ),
            _replies(_WRITE, mock.call("run_command", command="cat test_discount.py"), "Done."),
        ),
        (
            N_(
                "a model that writes, runs `cat pytest.ini` (reads pytest's settings, runs no test), then "
                "says done"
            ),
            _replies(_WRITE, mock.call("run_command", command="cat pytest.ini"), "Done."),
        ),
        (
            N_("a model that writes, tests, writes again, then says done"),
            _replies(_WRITE, _TESTS, _WRITE, "Done."),
        ),
        (
            N_("a model that changes a file with edit_file, then says done"),
            _replies(
                mock.call("edit_file", path="discount.py", old_text="total >", new_text="total >="),
                "Done.",
            ),
        ),
    ]
    must_accept = [
        (
            N_("a model that only reads discount.py and answers (nothing changed, nothing to test)"),
            _replies(mock.call("read_file", path="discount.py"), "Nothing needs changing."),
        ),
        (N_("a model that writes, runs the tests, then answers"), _replies(_WRITE, _TESTS, "Done.")),
        (
            N_("a model that writes, runs the tests, reads a file, then answers"),
            _replies(_WRITE, _TESTS, mock.call("read_file", path="discount.py"), "Done."),
        ),
        (
            N_("a model whose only write was refused (ERROR: outside the workspace), then answers"),
            _replies(
                mock.call("write_file", path="../elsewhere.py", content="x = 1\n"), "I could not write."
            ),
        ),
        (
            N_(
                "a model that writes, runs `python -m pytest "
                "test_discount.py` (pytest, other words), then answers"
            ),
            _replies(_WRITE, mock.call("run_command", command="python -m pytest test_discount.py"), "Done."),
        ),
        (
            N_(
                "a model that writes, calls run_command with arguments that are not JSON (so the "
                "observation's arguments is None), runs the tests, then answers"
            ),
            _replies(_WRITE, mock.call("run_command", '{"command": '), _TESTS, "Done."),
        ),
    ]
    # real runs first (each costs pytest runs): the answers to reject, then those to accept
    fixed: list[Any] = [(*c, True) for c in must_reject] + [(*c, False) for c in must_accept]

    with tempfile.TemporaryDirectory(prefix="check-7-3-") as parent:

        def judge(case: Any) -> str | None:
            if _is_real(case):
                return _real_run_problem(guard_class, parent, *case)
            return _synthetic_problem(guard_class, case)

        return judge_scenarios(
            "7.3",
            [*fixed, *history_scenarios()],
            judge,
            lambda case: _(case[0]) if _is_real(case) else _describe_history(case),
            _("no more 'done' without a test run after the last change."),
            lambda case: iter(()) if _is_real(case) else (tuple(f) for f in smaller_lists(case)),
        )


def _is_real(case: Any) -> bool:
    """a real run is (label, policy, should_reject); a generated one is a tuple of steps"""
    return bool(case) and isinstance(case[0], str)


def _real_run_problem(
    guard_class: Callable[[], Guardrail], parent: str, label: str, policy: Any, should_reject: bool
) -> str | None:
    try:
        guard = _AnswersChecked(guard_class())
        workspace = fresh_workspace("discount", parent)
        tools = [
            _remembered(tool, workspace) if tool.name == "run_command" else tool
            for tool in coding_tools(workspace, *ALL_TOOLS)
        ]
        run = run_agent(
            mock.client(policy),
            TASKS["discount"],
            tools,
            system=SYSTEM,
            max_turns=6,
            guardrails=[guard],
        )
    except _NotText as not_text:  # named as what it is, before the loop trips over it
        return _feedback_problem(not_text.feedback, should_reject)
    except Exception as error:  # the learner's code: report it, don't crash the notebook
        if "NoneType" in str(error):
            return _(
                "your guardrail raised {error} (an observation's arguments is None when the model's "
                "arguments "
                "did not parse)",
                error=_raised(error),
            )
        return _("your guardrail raised {error}", error=_raised(error))
    feedback = [m["content"] for m in run.messages[2:] if m["role"] == "user"]
    return _feedback_problem(feedback[0] if feedback else None, should_reject)


class _NotText(Exception):
    """check_answer returned something other than text or None"""

    def __init__(self, feedback: Any) -> None:
        super().__init__(repr(feedback))
        self.feedback = feedback


class _AnswersChecked(Guardrail):
    """the learner's guardrail, each hook passed on; what check_answer returns must be text or None"""

    def __init__(self, inner: Guardrail) -> None:
        self.inner = inner

    def start(self, run: AgentRun) -> None:
        self.inner.start(run)

    def before_model(self, run: AgentRun) -> None:
        self.inner.before_model(run)

    def after_model(self, run: AgentRun, message: dict[str, Any], usage: Any) -> None:
        self.inner.after_model(run, message, usage)

    def before_tool(self, run: AgentRun, call: dict[str, Any]) -> str | None:
        return self.inner.before_tool(run, call)

    def after_tool(self, run: AgentRun, call: dict[str, Any], observation: Observation) -> None:
        self.inner.after_tool(run, call, observation)

    def check_answer(self, run: AgentRun, answer: str) -> str | None:
        feedback = self.inner.check_answer(run, answer)
        if feedback is not None and not isinstance(feedback, str):
            raise _NotText(feedback)
        return feedback


# What run_command printed in the real runs, by (command, every file of the workspace). The runs are
# the check's own scripted models, so the same command on the same files prints the same: pytest
# runs once per state of the project they reach (three) in a Python process, not once per call.
_COMMAND_OUTPUTS = ReportCache(kept=1_000)


def _remembered(run_command: Tool, workspace: Workspace) -> Tool:
    """run_command on this workspace, its output remembered by command and files"""

    @functools.wraps(run_command.function, updated=())  # its name, docstring and signature
    def remembered_run_command(*args: Any, **kwargs: Any) -> str:
        key = repr((args, sorted(kwargs.items()), sorted(snapshot(workspace.root).items())))
        return _COMMAND_OUTPUTS.report(key, lambda: (run_command(*args, **kwargs), True))

    return Tool(remembered_run_command)  # the sandbox bounds its time; no guard here asks what writes


def _feedback_problem(feedback: Any, should_reject: bool) -> str | None:
    if feedback is not None and not isinstance(feedback, str):
        return _(
            "check_answer returned {type} {feedback}: return the feedback as text (a str) to turn the answer "
            "back, or None to accept it",
            type=type(feedback).__name__,
            feedback=f"{feedback!r:.60}",
        )
    if should_reject and not feedback:
        return _(
            "it accepted the final answer: no pytest run came after the last change, so check_answer "
            "should return feedback"
        )
    if should_reject and not _asks_for_tests(str(feedback)):
        return _(
            "the feedback should tell the model to run the tests (it said {feedback})",
            feedback=repr(feedback),
        )
    if not should_reject and feedback:
        return _(
            "it rejected the answer, which it should accept (it said {feedback})", feedback=repr(feedback)
        )

    return None


def _asks_for_tests(feedback: str) -> bool:
    """feedback that names the tests, in English or in Spanish ("run the tests", "ejecuta las pruebas")"""
    return any(word in feedback.lower() for word in ("test", "prueba"))


Step = tuple[str, "str | None", bool]  # a tool's name, the command (run_command) or path, whether it failed
_STEPS: list[Step] = [
    ("read_file", "discount.py", False),
    ("read_file", "missing.py", True),
    ("grep", "total", False),
    ("write_file", "discount.py", False),
    ("write_file", "app/discount.py", False),  # a path with a folder
    ("write_file", "../elsewhere.py", True),
    ("edit_file", "discount.py", False),
    ("edit_file", "discount.py", True),
    ("run_command", "python -m pytest -q", False),
    ("run_command", "pytest test_discount.py", False),
    ("run_command", "ls", False),
    ("run_command", "python discount.py", False),
    ("run_command", None, True),  # arguments that did not parse
    ("run_command", None, False),  # arguments None on a call that did not fail (an Observation built by hand)
    ("run_command", "cat test_discount.py", False),  # holds "test", runs no test
    ("run_command", "cat pytest.ini", False),  # holds "pytest", runs no test
    ("run_command", "pip install pytest", False),  # names pytest, runs no test
    ("run_command", "pytest", False),
    # the same program started other ways: a virtualenv's python or pytest, python3, py.test, a folder
    ("run_command", ".venv/bin/python -m pytest -q", False),
    ("run_command", ".venv/bin/pytest", False),
    ("run_command", "python3 -m pytest", False),
    ("run_command", "py.test -q", False),
    ("run_command", "pytest -q tests/", False),
    ("run_command", "  python  -m pytest ", False),  # whitespace a model may leave
    ("run_command", "python -m pip install pytest", False),  # python runs pip, not pytest
]


def _tool_history(rng: random.Random) -> tuple[Step, ...]:
    """0 to 8 observations: reads, writes and edits that worked or failed, test runs, other commands"""
    return tuple(rng.choice(_STEPS) for _ in range(rng.choice([0, 1, 2, rng.randint(3, 8)])))


def _should_reject(history: tuple[Step, ...]) -> bool:
    """the rule of the exercise: a change that worked, and no pytest run after the last one"""
    last_change = last_test = -1
    for position, (name, what, failed) in enumerate(history):
        if name in ("write_file", "edit_file") and not failed:
            last_change = position
        if name == "run_command" and what is not None and _runs_pytest(what):
            last_test = position
    return last_change > last_test


def _runs_pytest(command: str) -> bool:
    """the rule's test run: a command whose program is pytest (`pytest ...`, `.venv/bin/pytest`, `py.test`,
    `python -m pytest ...`, `python3 -m pytest`, `.venv/bin/python -m pytest`); `cat pytest.ini` and
    `pip install pytest` only name it"""
    words = command.split()
    program = words[0].replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".exe") if words else ""
    return (
        program in ("pytest", "py.test")
        or bool(_PYTHON.fullmatch(program))
        and words[1:3] == ["-m", "pytest"]
    )


_PYTHON = re.compile(r"python(\d+(\.\d+)?)?")  # python, python3, python3.12


def history_scenarios() -> list[tuple[Step, ...]]:
    """check 7.3's generated histories (its twelve real runs come first, each with its label)"""
    # the first seed whose 200 reach every shape
    generated = scenarios([], _tool_history, count=200, seed=7031)
    # then each way of starting pytest as the only test run after a change, and a change followed by
    # arguments that are None on a call that did not fail
    write: Step = ("write_file", "discount.py", False)
    each_form: list[tuple[Step, ...]] = [
        (write, ("run_command", command, False)) for command in _TEST_COMMANDS
    ]
    each_form += [
        (write, ("run_command", None, False)),
        (write, ("run_command", None, False), ("run_command", "python -m pytest -q", False)),
    ]
    # and, last, another program's `-m pytest`: mypy type-checks pytest's module, it runs no test
    return [*generated, *each_form, (write, ("run_command", "mypy -m pytest", False))]


# every way of starting pytest that _STEPS holds, in its order
_TEST_COMMANDS = [what for name, what, _ in _STEPS if name == "run_command" and what and _runs_pytest(what)]


def _decides(*commands: str) -> Callable[[tuple[Step, ...]], bool]:
    """a history where one of these commands is the only test run after the last change"""

    def test(history: tuple[Step, ...]) -> bool:
        changes = [
            i
            for i, (name, _, failed) in enumerate(history)
            if name in ("write_file", "edit_file") and not failed
        ]
        if not changes:
            return False
        after = [
            what
            for name, what, _ in history[changes[-1] + 1 :]
            if name == "run_command" and what and _runs_pytest(what)
        ]
        return len(after) == 1 and after[0] in commands

    return test


def _has(*steps: Step) -> Callable[[tuple[Step, ...]], bool]:
    return lambda history: any(step in history for step in steps)


def _changed_then(history: tuple[Step, ...], test: Callable[[Step], bool]) -> bool:
    """a change that worked, then later a step that passes the test"""
    changes = [
        i for i, (name, _, failed) in enumerate(history) if name in ("write_file", "edit_file") and not failed
    ]
    return bool(changes) and any(test(step) for step in history[changes[0] + 1 :])


# the shapes lesson 07 names for "done" after a change, each reached by history_scenarios()
HISTORY_SHAPES: dict[str, Callable[[tuple[Step, ...]], bool]] = {
    "no tool call at all": lambda history: not history,
    "a write that worked": _has(("write_file", "discount.py", False)),
    "a write that was refused": _has(("write_file", "../elsewhere.py", True)),
    "an edit that worked": _has(("edit_file", "discount.py", False)),
    "an edit that failed": _has(("edit_file", "discount.py", True)),
    "pytest run as python -m pytest": _has(("run_command", "python -m pytest -q", False)),
    "pytest run as pytest": _has(
        ("run_command", "pytest test_discount.py", False), ("run_command", "pytest", False)
    ),
    "a command that runs no test (ls)": _has(
        ("run_command", "ls", False), ("run_command", "python discount.py", False)
    ),
    "a command holding 'test' that runs no test": _has(("run_command", "cat test_discount.py", False)),
    "a command holding 'pytest' that runs no test": _has(
        ("run_command", "cat pytest.ini", False), ("run_command", "pip install pytest", False)
    ),
    "arguments that did not parse": _has(("run_command", None, True)),
    "tests run before the change only": lambda history: (
        _should_reject(history)
        and any(
            name == "run_command" and what is not None and _runs_pytest(what) for name, what, _ in history
        )
    ),
    "a change, then tests, then a change": lambda history: (
        _should_reject(history)
        and _changed_then(
            history, lambda step: step[0] == "run_command" and step[1] is not None and _runs_pytest(step[1])
        )
    ),
    "a change, then 'pytest' named but not run": lambda history: (
        _should_reject(history)
        and _changed_then(history, lambda step: step[1] in ("cat pytest.ini", "pip install pytest"))
    ),
    "tests after the last change, then a read": lambda history: (
        not _should_reject(history) and _changed_then(history, lambda step: step[0] == "read_file")
    ),
}


def _ran(*commands: str) -> Callable[[tuple[Step, ...]], bool]:
    return _has(*(("run_command", command, False) for command in commands))


# what exercise 7.3's words say varies, each form reached by history_scenarios() (test_input_space.py)
TESTS_AFTER_CHANGE_SPACE: dict[str, Dimension[tuple[Step, ...]]] = {
    "the change": Dimension(
        "a file was changed (`write_file` or `edit_file`, not an error)",
        {
            "write_file that worked": _has(("write_file", "discount.py", False)),
            "write_file to a path with a folder": _has(("write_file", "app/discount.py", False)),
            "write_file refused": _has(("write_file", "../elsewhere.py", True)),
            "edit_file that worked": _has(("edit_file", "discount.py", False)),
            "edit_file that failed": _has(("edit_file", "discount.py", True)),
            "no change at all": lambda history: (
                not any(name in ("write_file", "edit_file") and not failed for name, _, failed in history)
            ),
        },
    ),
    "the test run": Dimension(
        "no `run_command` whose program is pytest (`pytest`, `py.test`, `python -m pytest`, "
        "`python3 -m pytest`, by any path",
        {
            "pytest": _decides("pytest", "pytest test_discount.py"),
            "pytest on a folder": _decides("pytest -q tests/"),
            "python -m pytest": _decides("python -m pytest -q"),
            "python3 -m pytest": _decides("python3 -m pytest"),
            "a virtualenv's python -m pytest": _decides(".venv/bin/python -m pytest -q"),
            "a virtualenv's pytest": _decides(".venv/bin/pytest"),
            "py.test": _decides("py.test -q"),
            "extra spaces in the command": _decides("  python  -m pytest "),
            "pytest named, another program run": _ran(
                "cat pytest.ini", "pip install pytest", "python -m pip install pytest", "mypy -m pytest"
            ),
            "'test' named, no test run": _ran("cat test_discount.py"),
            "another command": _ran("ls", "python discount.py"),
        },
    ),
    "the order": Dimension(
        "came **after** the last change",
        {
            "tests after the last change": lambda history: (
                not _should_reject(history) and _changed_then(history, lambda step: True)
            ),
            "tests before the change only": HISTORY_SHAPES["tests run before the change only"],
            "a change, tests, a change": HISTORY_SHAPES["a change, then tests, then a change"],
        },
    ),
    "the arguments": Dimension(
        "`.arguments` (a dict, or `None`)",
        {
            "a dict": lambda history: any(what is not None for _, what, _ in history),
            "None, on a call that failed": _has(("run_command", None, True)),
            "None, on a call that did not fail": _has(("run_command", None, False)),
        },
    ),
}


def _observation(number: int, step: Step) -> Observation:
    name, what, failed = step
    arguments: dict[str, Any] | None
    if name == "run_command":
        arguments = None if what is None else {"command": what}
    elif name == "grep":
        arguments = {"pattern": what}
    else:
        arguments = {"path": what}
    content = (
        "ERROR: it did not work" if failed else ("exit code: 0\n3 passed" if name == "run_command" else "ok")
    )
    return Observation(f"call_{number}", name, content, failed, arguments=arguments)


def _synthetic_problem(guard_class: Callable[[], Guardrail], history: tuple[Step, ...]) -> str | None:
    run = AgentRun(task=TASKS["discount"], messages=[], tools=ToolRegistry())
    run.observations = [_observation(n, step) for n, step in enumerate(history, start=1)]
    feedback = guard_class().check_answer(run, "Done.")
    return _feedback_problem(feedback, _should_reject(history))


def _describe_history(history: tuple[Step, ...]) -> str:
    said = []
    for name, what, failed in history:
        if what is not None:
            call = f"{name}({what!r})"
        elif failed:
            call = _("{name}(arguments that did not parse)", name=name)
        else:
            call = _("{name} whose observation's .arguments is None", name=name)
        said.append(_("{call}, which failed", call=call) if failed else call)
    return _("a run whose tool calls were {calls}, then 'Done.'", calls="; ".join(said) or _("none"))
