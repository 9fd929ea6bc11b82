"""The test suite's setup: a worker per core and one more; kernels that cannot take each other's sockets."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import nbval.kernel
import pytest
import xdist.plugin

from agent_core._i18n import MESSAGE_LOG
from tools import message_log
from tools.kernels import OwnSocketsKernelManager

# On Linux and macOS every kernel listens on Unix sockets of its own (tools/kernels.py), so kernels
# started side by side cannot take each other's ports. Windows has no ipc transport in every zmq
# build: there the kernels take turns to start, under a file lock.
LOCK = Path(tempfile.gettempdir()) / "agent-core-kernel-start.lock"

# The Spanish notebooks are the English ones with their text translated (tools/translate.py): nbval
# does not run them a second time, tests/test_translation.py proves their code and outputs are the same.
collect_ignore = ["lessons/es", "solutions/es"]


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`: one worker more than xdist would start (a worker per core)

    A notebook's worker spends part of its time waiting while no process of its own uses a core:
    for its kernel to start and stop (jupyter_client waits in steps of a fifth of a second), and
    for the commands, servers and time limits the lessons show. The extra worker runs in those gaps.
    """
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # a number set by hand: xdist's own hook reads it
    return xdist.plugin.pytest_xdist_auto_num_workers(config) + 1


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """on every core, the later lessons' notebooks start first (pyproject: --no-loadscope-reorder)

    pytest-xdist starts the files with the most tests first, as the longest to run. That holds for
    the test files, so they keep that order. A notebook's tests are its cells, and a lesson's cost
    is not in how many it has: the later lessons run agents, subprocesses and servers, the early
    ones a few model calls. So the notebooks take the same places among the files, ordered from
    the last lesson to the first, and the short early lessons fill the cores at the end. The browser
    tests and mypy go first of all.
    """
    if not hasattr(config, "workerinput"):
        return  # not an xdist worker (-n 0): pytest's own order
    files: dict[Path, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.path, []).append(item)
    order = sorted(files, key=lambda path: -len(files[path]))  # stable: ties keep pytest's order
    places = [i for i, path in enumerate(order) if path.suffix == ".ipynb"]
    notebooks = sorted((order[i] for i in places), key=lambda path: (-_lesson_number(path), str(path)))
    for place, path in zip(places, notebooks, strict=True):
        order[place] = path
    # a few files hold few tests but take long: they wait on a browser (Chromium, JupyterLite booting)
    # or run mypy over every package agent_core imports (its cache is cold in a fresh clone). Started
    # last, as their test count places them, they would run alone at the end while the cores idle
    order.sort(key=lambda path: path.name not in LONG_FEW_TEST_FILES)  # stable: the rest keep their order
    items[:] = [item for path in order for item in files[path]]


LONG_FEW_TEST_FILES = (
    "test_website_edition.py",
    "test_website_pages.py",
    "test_website.py",
    "test_lite.py",
    "test_types.py",
)


def _lesson_number(path: Path) -> int:
    """07 for lessons/07_coding_agent.ipynb; -1 for a notebook whose name has no number"""
    number = path.name[:2]
    return int(number) if number.isdigit() else -1


# Each English notebook's kernel logs the run-time messages every cell shows, with their Spanish
# (agent_core/_i18n.py), into a file of this worker's; after each cell, the pairs it logged must be
# those tools/notebooks.py run stored for it in locale/es/outputs/, from which tools/translate.py build
# makes the Spanish notebook's outputs (tools/message_log.py). With tests/test_translation.py (each
# Spanish notebook is the build of the stored English one), every Spanish output is what a run prints.
WORKER_LOG = Path(tempfile.gettempdir()) / f"agent-core-messages-{os.getpid()}.jsonl"


def _is_cell(item: pytest.Item) -> bool:
    return type(item).__name__ == "IPyNbCell"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    """a notebook's kernel starts with the message log set (and, on Windows, one kernel at a time)"""
    if not (_is_cell(item) and getattr(item.parent, "kernel", "") is None):
        return (yield)
    WORKER_LOG.unlink(missing_ok=True)
    item.parent.message_log_end = 0
    os.environ[MESSAGE_LOG] = str(WORKER_LOG)  # the kernel inherits it; no other test of this worker
    try:
        with _one_kernel_start_at_a_time():
            return (yield)
    finally:
        del os.environ[MESSAGE_LOG]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """a cell of an English notebook fails when it showed other messages than its stored Spanish has"""
    try:
        result = yield
    except BaseException:
        _logged_messages(item)  # read past what the failed cell logged
        raise
    problem = _logged_messages(item)
    if problem:
        pytest.fail(problem, pytrace=False)
    return result


def _logged_messages(item: pytest.Item) -> str:
    """what is wrong with the messages a notebook's cell just logged ("" when nothing is)"""
    if not _is_cell(item) or not hasattr(item.parent, "message_log_end"):
        return ""
    logged, item.parent.message_log_end = message_log.read_new(WORKER_LOG, item.parent.message_log_end)
    if message_log.sidecar(item.path) is None:
        return ""  # not a course notebook
    index = next(i for i, cell in enumerate(item.parent.nb.cells) if cell is item.cell)
    return message_log.problem(item.path, index, logged)


if os.name == "posix":
    nbval.kernel.KernelManager = OwnSocketsKernelManager  # nbval's start_new_kernel() makes its manager there

    def _one_kernel_start_at_a_time() -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()  # on Unix sockets of its own, a kernel starts beside the others
else:
    import msvcrt

    @contextlib.contextmanager
    def _one_kernel_start_at_a_time() -> Iterator[None]:
        """on Windows, one kernel starts at a time (a lock file shared by the xdist workers)"""
        with open(LOCK, "a+b") as lock:
            while True:
                try:
                    msvcrt.locking(lock.fileno(), msvcrt.LK_LOCK, 1)  # retries for 10 s, then raises
                    break
                except OSError:
                    continue
            try:
                yield
            finally:
                msvcrt.locking(lock.fileno(), msvcrt.LK_UNLCK, 1)
