import inspect
import re
import shutil
import sys

import pytest

from agent_core import mock
from agent_core.coding import (
    ALL_TOOLS,
    CORE_TOOLS,
    WRITING_TOOLS,
    OutputCap,
    ToolLimits,
    Workspace,
    copy_project,
    diff,
    list_projects,
    project_files,
    snapshot,
)
from agent_core.coding._confinement import ProjectFolder
from agent_core.coding.agent import coding_registry
from agent_core.guardrails import Permissions
from agent_core.loop import run_agent
from agent_core.schema import Tool, tool_definition

CALLS = {  # one call of each tool
    "read_file": {"path": "discount.py"},
    "grep": {"pattern": "DISCOUNT"},
    "write_file": {"path": "notes.txt", "content": "x"},
    "run_command": {"command": "echo hi > hi.txt"},
    "list_dir": {},
    "edit_file": {
        "path": "discount.py",
        "old_text": "MEMBER_DISCOUNT = 0.10",
        "new_text": "MEMBER_DISCOUNT = 1",
    },
}


@pytest.fixture
def discount(tmp_path):
    return Workspace.from_project("discount", tmp_path)


@pytest.fixture
def users_api(tmp_path):
    return Workspace.from_project("users_api", tmp_path)


def tools_of(workspace):
    return {tool.__name__: tool for tool in workspace.tools(*ALL_TOOLS)}


# --- projects ------------------------------------------------------------------------------------


def test_list_projects_names_the_practice_projects():
    assert list_projects() == ["discount", "users_api"]


def test_copy_project_makes_fresh_independent_copies(request):
    first, second = copy_project("discount"), copy_project("discount")
    for copy in (first, second):
        request.addfinalizer(lambda folder=copy.parent: shutil.rmtree(folder))
    assert first != second and first.name == second.name == "discount"
    (first / "discount.py").write_text("changed")
    assert "final_price" in (second / "discount.py").read_text()
    assert snapshot(second) == project_files("discount")


def test_copy_project_into_a_given_folder(tmp_path):
    dest = copy_project("users_api", tmp_path)
    assert dest == tmp_path / "users_api"
    assert (dest / "app" / "roles.py").is_file()
    with pytest.raises(FileExistsError, match="already exists"):
        copy_project("users_api", tmp_path)


def test_copy_project_unknown_name_lists_the_choices():
    with pytest.raises(ValueError, match=r"no practice project named 'nope'.*discount"):
        copy_project("nope")


# --- the tools as functions ---------------------------------------------------------------------


def test_tools_are_tools_named_like_the_tools(discount):
    tools = discount.tools()
    assert [tool.__name__ for tool in tools] == list(CORE_TOOLS)
    assert [tool.name for tool in discount.tools(*ALL_TOOLS)] == list(ALL_TOOLS)
    for tool in tools:
        assert isinstance(tool, Tool)
        assert "self" not in inspect.signature(tool).parameters


def test_a_workspace_is_one_class_that_has_its_folder(discount):
    assert Workspace.__mro__ == (Workspace, object)  # its tools and its resolve() in one place
    assert isinstance(discount.folder, ProjectFolder) and discount.folder.root == discount.root
    assert {"read_file", "grep", "write_file", "run_command", "list_dir", "edit_file", "resolve"} <= set(
        vars(Workspace)
    )


def test_the_registry_waits_for_run_command_past_its_longest_timeout(discount):
    registry = coding_registry(discount, *ALL_TOOLS)
    assert registry.timeout_for("run_command") == discount.sandbox.max_timeout + 5
    assert {registry.timeout_for(name) for name in ALL_TOOLS if name != "run_command"} == {registry.timeout}


def test_read_only_permissions_refuse_exactly_the_tools_that_write(discount):
    calls = [mock.call(name, **arguments) for name, arguments in CALLS.items()]
    run = run_agent(
        mock.client(mock.Script(mock.calls(*calls), "Done.")),
        "look",
        coding_registry(discount, *ALL_TOOLS),
        guardrails=[Permissions(read_only=True)],  # the one WRITING_TOOLS is its default
    )
    refused = sorted(o.name for o in run.observations if o.error_type == "refused")
    assert (
        refused == sorted(set(WRITING_TOOLS) & set(ALL_TOOLS)) == ["edit_file", "run_command", "write_file"]
    )
    assert WRITING_TOOLS == Permissions().writing_tools and "delete_file" in WRITING_TOOLS  # lesson 05's
    assert discount.diff() == ""


def test_tools_rejects_an_unknown_name(discount):
    with pytest.raises(ValueError, match="unknown tool name.*'delete_repo'"):
        discount.tools("read_file", "delete_repo")


def test_every_tool_becomes_a_definition_with_every_argument_described(discount):
    for tool in discount.tools(*ALL_TOOLS):
        function = tool_definition(tool)["function"]
        assert function["name"] == tool.__name__
        assert len(function["description"]) > 40
        for name, schema in function["parameters"]["properties"].items():
            assert schema.get("description"), f"{tool.__name__}({name}) has no description"
    run = tool_definition(discount.tools("run_command")[0])["function"]["parameters"]
    assert run["required"] == ["command"]
    assert run["properties"]["timeout"]["default"] == 30


# --- read_file -----------------------------------------------------------------------------------


def test_read_file_shows_numbered_lines_under_a_header(discount):
    text = discount.read_file("discount.py")
    lines = text.splitlines()
    assert lines[0] == "discount.py (lines 1-12 of 12)"
    assert lines[1] == '   1 | """Final prices at the checkout."""'
    assert lines[10] == "  10 |     if is_member and total > DISCOUNT_FROM:"
    assert lines[12] == "  12 |     return total"
    assert discount.files_read == {"discount.py"}


def test_read_file_shows_a_range(discount):
    assert discount.read_file("discount.py", start_line=9, end_line=10).splitlines() == [
        "discount.py (lines 9-10 of 12)",
        '   9 |     # The shop promises members 10% off "from 100 euros": an order of exactly 100 counts.',
        "  10 |     if is_member and total > DISCOUNT_FROM:",
    ]
    assert discount.read_file("discount.py", start_line=12, end_line=500).startswith(
        "discount.py (lines 12-12 of 12)"
    )


@pytest.mark.parametrize(
    ("start", "end", "message"),
    [
        (0, None, "start_line must be 1 or more"),
        (13, None, "start_line 13 is past the end: discount.py has 12 lines"),
        (5, 2, r"end_line \(2\) is before start_line \(5\)"),
        ("3", None, "start_line must be a whole number like 10, got '3'"),
        (None, 2.5, "end_line must be a whole number"),
    ],
)
def test_read_file_bad_range_is_an_error_observation(discount, start, end, message):
    observation = discount.read_file("discount.py", start, end)
    assert observation.startswith("ERROR: ")
    assert re.search(message, observation)


def test_read_file_missing_file_suggests_the_closest_path(users_api):
    observation = users_api.read_file("app/role.py")
    assert observation.startswith("ERROR: 'app/role.py' does not exist. Did you mean 'app/roles.py'")
    assert "list_dir or grep" in observation


def test_read_file_on_a_folder_points_to_list_dir(users_api):
    assert users_api.read_file("app") == (
        "ERROR: 'app' is a folder, not a file; use list_dir('app') to see its files"
    )


def test_read_file_of_an_empty_file(discount):
    (discount.root / "empty.py").write_text("")
    assert discount.read_file("empty.py") == "empty.py (empty file, 0 lines)"


# --- grep ----------------------------------------------------------------------------------------


def test_grep_lists_matches_sorted_by_path_then_line(users_api):
    lines = users_api.grep("ROLES").splitlines()
    assert lines == [
        "3 matches for 'ROLES' in 1 file:",
        "app/roles.py:3: ROLES = [",
        'app/roles.py:10:     """A role name that is not in ROLES."""',
        "app/roles.py:15:     if role not in ROLES:",
    ]


def test_grep_a_broad_word_hits_many_files_including_the_wrong_one(users_api):
    observation = users_api.grep("role")
    files = {line.split(":")[0] for line in observation.splitlines()[1:]}
    assert {"app/users.py", "app/handlers.py", "app/roles.py", "app/permissions.py"} <= files
    paths = [line.split(":")[0] for line in observation.splitlines()[1:]]
    assert paths == sorted(paths)


def test_grep_file_glob_limits_the_files(users_api):
    observation = users_api.grep(r"def test_", file_glob="tests/*.py")
    assert observation.startswith("7 matches for 'def test_' in 2 files:")
    assert users_api.grep("role", file_glob="*.md").startswith("1 match for 'role' in 1 file:")
    assert users_api.grep("x", file_glob="*.rb") == "no matches: no file matches file_glob '*.rb'"


def test_grep_without_matches_says_how_many_files_it_searched(discount):
    assert discount.grep("no such thing") == "no matches for 'no such thing' in 4 files"


def test_grep_caps_the_matches_and_counts_the_rest(tmp_path):
    (tmp_path / "many.txt").write_text("hit\n" * 80)
    workspace = Workspace(tmp_path, limits=ToolLimits(max_matches=5))
    lines = workspace.grep("hit").splitlines()
    assert lines[0] == "80 matches for 'hit' in 1 file:"
    assert lines[1:6] == [f"many.txt:{n}: hit" for n in range(1, 6)]
    assert lines[6] == "[... 75 more matches not shown; use a more specific pattern or a file_glob]"


def test_grep_invalid_regex_names_the_problem(discount):
    observation = discount.grep("final_price(")
    assert observation.startswith("ERROR: invalid regular expression 'final_price(': missing ),")
    assert "backslash" in observation


def test_grep_skips_hidden_folders_and_binary_files(discount):
    (discount.root / ".git").mkdir()
    (discount.root / ".git" / "config").write_text("final_price\n")
    (discount.root / "logo.png").write_bytes(b"\x89PNG\0final_price")
    observation = discount.grep("final_price")
    assert ".git" not in observation
    assert "(skipped 1 file: binary, not UTF-8 or too large: logo.png)" in observation


def test_grep_cuts_very_long_lines(tmp_path):
    (tmp_path / "min.js").write_text("x" * 1000 + "\n")
    line = Workspace(tmp_path).grep("x").splitlines()[1]
    assert line == "min.js:1: " + "x" * 300 + " [... 700 characters cut]"


# --- write_file and edit_file --------------------------------------------------------------------


def test_write_file_creates_parent_folders_and_reports_the_size(discount):
    observation = discount.write_file("notes/today/plan.md", "one\ntwo\n")
    assert observation == "created notes/today/plan.md: 8 bytes, 2 lines"
    assert (discount.root / "notes" / "today" / "plan.md").read_text() == "one\ntwo\n"
    assert discount.files_written == {"notes/today/plan.md"}


def test_write_file_replaces_the_whole_file(discount):
    observation = discount.write_file("discount.py", "x = 1\n")
    assert observation == "wrote discount.py: 6 bytes, 1 line (replaced 418 bytes)"
    assert (discount.root / "discount.py").read_text() == "x = 1\n"


def test_write_file_keeps_the_content_byte_for_byte(discount):
    discount.write_file("crlf.txt", "a\r\nb")
    assert (discount.root / "crlf.txt").read_bytes() == b"a\r\nb"


def test_write_file_rejects_non_text_content(discount):
    assert (
        discount.write_file("a.py", None) == "ERROR: content must be a string (the whole file), not NoneType"
    )
    assert discount.write_file(".", "x") == "ERROR: '.' is a folder; give the path of a file inside it"


def test_edit_file_replaces_a_unique_snippet_and_keeps_the_rest(discount):
    observation = discount.edit_file("discount.py", "total > DISCOUNT_FROM", "total >= DISCOUNT_FROM")
    assert observation == "edited discount.py at line 10: replaced 1 line with 1 line"
    source = (discount.root / "discount.py").read_text()
    assert "if is_member and total >= DISCOUNT_FROM:" in source
    assert "an order of exactly 100 counts" in source  # the comment survives


def test_edit_file_needs_an_exact_unique_match(discount):
    missing = discount.edit_file("discount.py", "total>DISCOUNT_FROM", "x")
    assert missing.startswith("ERROR: old_text was not found in discount.py.")
    twice = discount.edit_file("discount.py", "DISCOUNT", "X")
    assert twice.startswith("ERROR: old_text appears 4 times in discount.py (lines 3, 4, 10, 11);")
    assert discount.edit_file("discount.py", "", "x").startswith("ERROR: old_text is empty")
    same = discount.edit_file("discount.py", "MEMBER_DISCOUNT = 0.10", "MEMBER_DISCOUNT = 0.10")
    assert same == "ERROR: old_text and new_text are the same; nothing would change"
    assert discount.diff() == ""


# --- list_dir ------------------------------------------------------------------------------------


def test_list_dir_lists_files_with_paths_from_the_root(users_api):
    assert users_api.list_dir("tests").splitlines() == [
        "2 files under tests/",
        "tests/test_permissions.py  (337 bytes)",
        "tests/test_users_api.py  (821 bytes)",
    ]
    whole = users_api.list_dir()
    assert whole.startswith("10 files under ./\nREADME.md  (296 bytes)\napp/__init__.py")


def test_list_dir_on_a_file_points_to_read_file(users_api):
    assert users_api.list_dir("README.md") == (
        "ERROR: 'README.md' is a file, not a folder; use read_file to read it"
    )


# --- run_command ---------------------------------------------------------------------------------


def test_discount_tests_have_exactly_one_failure(discount):
    observation = discount.run_command("python -m pytest -q")
    assert observation.startswith("exit code: 1\n")
    assert "FAILED test_discount.py::test_discount_starts_at_exactly_100 - assert 100 == 90" in observation
    assert "1 failed, 3 passed" in observation


def test_fixing_the_discount_boundary_turns_the_tests_green(discount):
    discount.edit_file("discount.py", "total > DISCOUNT_FROM", "total >= DISCOUNT_FROM")
    observation = discount.run_command("python -m pytest -q")
    assert observation.startswith("exit code: 0\n")
    assert "4 passed" in observation


def test_users_api_role_filter_test_fails_with_a_500(users_api):
    observation = users_api.run_command("python -m pytest -q")
    assert observation.startswith("exit code: 1\n")
    assert "FAILED tests/test_users_api.py::test_filter_users_by_role_editor" in observation
    assert "assert 500 == 200" in observation
    assert "1 failed, 6 passed" in observation


def test_users_api_missing_comma_slip_then_fix(users_api):
    users_api.edit_file("app/roles.py", '    "admin",\n', '    "admin",\n    "editor"\n')
    slipped = users_api.run_command("python -m pytest -q")
    assert "2 failed, 5 passed" in slipped  # "editor" "viewer" became "editorviewer"
    users_api.edit_file("app/roles.py", '"editor"\n', '"editor",\n')
    assert "7 passed" in users_api.run_command("python -m pytest -q")
    assert users_api.diff() == (
        "--- a/app/roles.py\n"
        "+++ b/app/roles.py\n"
        "@@ -2,6 +2,7 @@\n"
        " \n ROLES = [\n"
        '     "admin",\n'
        '+    "editor",\n'
        '     "viewer",\n'
        " ]\n \n"
    )


def test_run_command_reports_exit_code_and_combined_output_in_order(discount):
    observation = discount.run_command("echo out; echo err >&2; echo out again; exit 3")
    assert observation == "exit code: 3\nout\nerr\nout again\n"
    assert discount.run_command("true") == "exit code: 0\n(no output)"


def test_run_command_uses_this_python_and_the_workspace_as_home(discount):
    observation = discount.run_command('python -c "import sys; print(sys.executable)"; echo "$HOME"; pwd')
    assert observation == f"exit code: 0\n{sys.executable}\n.\n.\n"  # the workspace path reads "."


def test_run_command_reports_a_signal(discount):
    observation = discount.run_command("kill -TERM $$")
    assert observation == "exit code: -15 (killed by SIGTERM)\n(no output)"


@pytest.mark.parametrize("timeout", [0, -1, 121, "5", True, float("nan")])
def test_run_command_bad_timeout_is_an_error_observation(discount, timeout):
    observation = discount.run_command("true", timeout=timeout)
    assert observation.startswith("ERROR: timeout must be a number of seconds above 0 and at most 120")


def test_run_command_empty_command_is_an_error_observation(discount):
    assert discount.run_command("  ").startswith("ERROR: command must be a non-empty shell command")


# --- diff and the output cap ----------------------------------------------------------------------


def test_diff_shows_changed_added_and_deleted_files(tmp_path):
    before = tmp_path / "before"
    before.mkdir()
    (before / "keep.txt").write_text("same\n")
    (before / "gone.txt").write_text("bye\n")
    (before / "edit.txt").write_text("a\nb\n")
    after = tmp_path / "after"
    after.mkdir()
    (after / "keep.txt").write_text("same\n")
    (after / "edit.txt").write_text("a\nc")
    (after / "new.txt").write_text("hi\n")
    assert diff(before, after) == (
        "--- a/edit.txt\n+++ b/edit.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n"
        "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n"
    )
    assert diff(before, before) == ""


def test_workspace_diff_shows_a_deleted_comment(discount):
    source = (discount.root / "discount.py").read_text()
    without_comment = "\n".join(line for line in source.splitlines() if "# The shop" not in line)
    discount.write_file("discount.py", without_comment.replace(" > ", " >= ") + "\n")
    changes = discount.diff()
    assert (
        '-    # The shop promises members 10% off "from 100 euros": an order of exactly 100 counts.'
        in changes
    )
    assert "+    if is_member and total >= DISCOUNT_FROM:" in changes
    assert diff(project_files("discount"), discount.root) == changes


def test_output_cap_keeps_head_and_tail_with_a_marker():
    cap = OutputCap(10)
    for piece in ["abc", "defgh", "ijklmnop", "qrst"]:
        cap.add(piece)
    assert cap.text() == "abcde\n[... 10 characters cut ...]\npqrst"
    small = OutputCap(10)
    small.add("short")
    assert small.text() == "short" and small.chars_cut == 0
