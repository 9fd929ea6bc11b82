"""TinyProject: lesson 05's practice project in a dict, its tests run by real pytest."""

from agent_core.coding import tiny_project
from agent_core.coding.tiny_project import TinyProject


def test_tiny_project_tools_read_write_and_delete_in_memory():
    project = TinyProject()
    assert project.read_file("discount.py").startswith('"""Final prices at the checkout."""')
    assert project.read_file("nope.py") == (
        "ERROR: there is no file 'nope.py'. The files are: README.md, discount.py, pytest.ini, "
        "test_discount.py."
    )
    assert project.write_file("notes.txt", "a\nb") == "created notes.txt (2 lines)"
    assert project.write_file("notes.txt", "c") == "wrote notes.txt (1 lines)"
    assert project.delete_file("README.md") == "deleted README.md"
    assert project.delete_file("README.md").startswith("ERROR: there is no file 'README.md'")
    assert project.changed() == ["README.md", "notes.txt"]
    project.reset()
    assert project.changed() == [] and [t.__name__ for t in project.tools] == [
        "read_file",
        "write_file",
        "delete_file",
        "run_tests",
    ]


def test_tiny_project_runs_its_tests_with_pytest_and_shows_a_failed_assert():
    project = TinyProject()
    report = project.run_tests()
    assert report.startswith("exit code: 1\n")
    assert "test_discount.py::test_small_orders_pay_the_full_price PASSED\n" in report
    assert "test_discount.py::test_discount_starts_at_exactly_100 FAILED\n" in report
    assert "./test_discount.py:17: assert 100 == 90\n" in report
    assert report.rstrip("=").endswith(" 1 failed, 3 passed in ?.??s ")
    project.files["discount.py"] = project.files["discount.py"].replace("total > ", "total >= ")
    green = project.run_tests()
    assert green.startswith("exit code: 0\n") and " 4 passed in ?.??s " in green


def test_tiny_project_reports_broken_code_and_missing_tests():
    project = TinyProject()
    project.write_file("discount.py", "def final_price(:\n")
    report = project.run_tests()
    assert report.startswith("exit code: 2\n") and "SyntaxError" in report and " 1 error in ?.??s " in report
    assert "tiny-project-" not in report
    project.delete_file("test_discount.py")
    report = project.run_tests()
    assert report.startswith("exit code: 5\n") and " no tests ran in ?.??s " in report


def test_in_the_browser_the_tests_run_inside_the_kernel_with_the_same_report(monkeypatch):
    project = TinyProject()
    in_a_process = project.run_tests()
    monkeypatch.setattr(tiny_project, "IN_BROWSER", True)  # no subprocesses: pytest.main in this Python
    assert project.run_tests() == in_a_process
    project.files["discount.py"] = project.files["discount.py"].replace(
        "total > DISCOUNT", "total >= DISCOUNT"
    )
    fixed = project.run_tests()  # the changed file is imported afresh, never the copy of the last run
    assert fixed.startswith("exit code: 0\n") and "4 passed" in fixed


def test_the_same_files_run_pytest_once_and_a_change_runs_it_again(monkeypatch):
    runs = []
    real = tiny_project.run_sandboxed
    monkeypatch.setattr(tiny_project, "run_sandboxed", lambda *a, **k: runs.append(a) or real(*a, **k))
    project = TinyProject()
    project.write_file("notes.txt", "a note no other test writes\n")  # files no earlier test ran
    first = project.run_tests()
    assert first.startswith("exit code: 1\n") and len(runs) == 1
    assert project.run_tests() == first and len(runs) == 1  # remembered
    project.write_file("notes.txt", "changed\n")
    assert project.run_tests() == first and len(runs) == 2  # any changed file: pytest runs again
    project.files["discount.py"] = project.files["discount.py"].replace("total > ", "total >= ")
    assert project.run_tests().startswith("exit code: 0\n") and len(runs) == 3


def test_a_run_that_timed_out_is_not_remembered(monkeypatch):
    monkeypatch.setattr(tiny_project, "TEST_TIMEOUT", 0.5)
    project = TinyProject()
    project.write_file("test_slow.py", "import time\n\n\ndef test_slow():\n    time.sleep(60)\n")
    assert project.run_tests().startswith("timed out after 0.5s")
    monkeypatch.setattr(tiny_project, "TEST_TIMEOUT", 1.0)
    runs = []
    real = tiny_project.run_sandboxed
    monkeypatch.setattr(tiny_project, "run_sandboxed", lambda *a, **k: runs.append(a) or real(*a, **k))
    assert (
        project.run_tests().startswith("timed out after 1s") and len(runs) == 1
    )  # the same files: run again
