"""Benchmark: a room of thirty opening lesson 00 at the same moment, from the room server, on 127.0.0.1.

    python benchmarks/bench_room.py            # needs build/lite (python tools/lite.py build)

Starts `python tools/lite.py serve` on 127.0.0.1 and a free port, then thirty synthetic learners, all
at once, each fetching lesson 00's requests (benchmarks/room_requests.txt: what Chromium sent the room
server through lesson 00's last cell, recorded by `python tools/lite.py size --record`) in their order,
six at a time on six kept-alive connections as a browser does, accepting gzip. Prints the failed
requests (target: 0), the slowest request, and the time until all thirty had everything. Loopback only;
each request gives up after 60 s and the whole run after 10 minutes.
"""

from __future__ import annotations

import http.client
import queue
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import lite  # noqa: E402  # tools/ holds scripts, not a package

LEARNERS = 30
CONNECTIONS = 6  # what a browser opens to one host over HTTP/1.1
REQUEST_TIMEOUT = 60  # seconds
DEADLINE = 600  # seconds: the whole run stops by then, finished or not
REQUESTS = Path(__file__).with_name("room_requests.txt")


class Learner:
    """one browser: its six connections take the next request of the sequence as each comes free"""

    def __init__(self, port: int, paths: list[str], start: threading.Event, stop: float) -> None:
        self.port, self.start, self.stop = port, start, stop
        self.todo: queue.SimpleQueue[str] = queue.SimpleQueue()
        for path in paths:
            self.todo.put(path)
        self.failures: list[str] = []
        self.slowest = (0.0, "")
        self.received = 0
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.connection, daemon=True) for _ in range(CONNECTIONS)]
        for thread in self.threads:
            thread.start()

    def connection(self) -> None:
        self.start.wait()
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=REQUEST_TIMEOUT)
        while time.monotonic() < self.stop:
            try:
                path = self.todo.get_nowait()
            except queue.Empty:
                break
            started = time.perf_counter()
            try:
                connection.request("GET", "/" + path, headers={"Accept-Encoding": "gzip, deflate"})
                response = connection.getresponse()
                body = response.read()
                problem = None if response.status == 200 else f"{response.status} {path}"
            except (OSError, http.client.HTTPException) as error:
                connection.close()  # a new connection for the next request, as a browser would
                body, problem = b"", f"{type(error).__name__}: {error} ({path})"
            took = time.perf_counter() - started
            with self.lock:
                self.received += len(body)
                self.slowest = max(self.slowest, (took, path))
                if problem:
                    self.failures.append(problem)
        connection.close()

    def join(self) -> None:
        for thread in self.threads:
            thread.join(max(0.0, self.stop - time.monotonic()))


def main() -> int:
    if not (lite.OUT / "jupyter-lite.json").exists():
        sys.exit("no browser edition in build/lite: run `python tools/lite.py build` first")
    paths = [line.strip() for line in REQUESTS.read_text(encoding="utf-8").splitlines() if line.strip()]
    with lite.room_server(lite.OUT) as base:
        port = int(base.rstrip("/").rsplit(":", 1)[1])
        start = threading.Event()
        stop = time.monotonic() + DEADLINE
        learners = [Learner(port, paths, start, stop) for _ in range(LEARNERS)]
        began = time.perf_counter()
        start.set()
        for learner in learners:
            learner.join()
        took = time.perf_counter() - began
    failures = [failure for learner in learners for failure in learner.failures]
    unfinished = sum(learner.todo.qsize() for learner in learners)
    slowest = max(learner.slowest for learner in learners)
    received = sum(learner.received for learner in learners)
    print(
        f"{LEARNERS} learners x {len(paths)} requests, {CONNECTIONS} connections each, from the room server"
    )
    print(f"failed requests: {len(failures)}" + (f" (first: {failures[0]})" if failures else ""))
    if unfinished:
        print(f"not sent by the {DEADLINE} s deadline: {unfinished}")
    print(f"slowest request: {slowest[0]:.2f} s ({slowest[1]})")
    print(f"all {LEARNERS} had everything after {took:.1f} s; {received / 1e6:.0f} MB sent (gzip)")
    return 1 if failures or unfinished else 0


if __name__ == "__main__":
    sys.exit(main())
