"""Benchmark: `agent-core serve-mock` under load, over real sockets on 127.0.0.1.

    python benchmarks/bench_server.py

Prints how many of 200 requests sent at the same moment are answered (target: all), and how
much a 4 MB request (one letter, repeated: the tokenizer's worst case) delays a small request
sent while it is being answered (target: under 1 second).
"""

from __future__ import annotations

import http.client
import json
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

CLIENTS = 200
BIG_BYTES = 4_000_000
COMMAND = str(Path(sys.executable).parent / "agent-core")


def chat(text: str) -> bytes:
    return json.dumps({"model": "mock-model", "messages": [{"role": "user", "content": text}]}).encode()


def post(port: int, body: bytes, timeout: float = 60) -> tuple[int, float]:
    """(status, seconds) of one POST /v1/chat/completions on a new connection"""
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        return response.status, time.perf_counter() - started
    finally:
        connection.close()


def start_server() -> tuple[subprocess.Popen, int]:
    server = subprocess.Popen(
        [COMMAND, "serve-mock", "--port", "0", "--quiet"], stdout=subprocess.PIPE, text=True
    )
    first_line = server.stdout.readline()  # "mock model serving at http://127.0.0.1:PORT/v1"
    port = int(first_line.rsplit(":", 1)[1].split("/", 1)[0])
    return server, port


def crowd(port: int) -> tuple[int, list[str], float]:
    """CLIENTS requests released at the same moment: (answered with 200, errors, seconds)"""
    statuses: list[int] = []
    errors: list[str] = []
    start = threading.Barrier(CLIENTS)

    def client() -> None:
        start.wait()
        try:
            statuses.append(post(port, chat("hi"), timeout=30)[0])
        except OSError as error:
            errors.append(type(error).__name__)

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses.count(200), errors, time.perf_counter() - started


def delay_of_a_small_request(port: int) -> tuple[float, float, float]:
    """(small alone, small while a 4 MB request is answered, the 4 MB request itself), in seconds"""
    alone = statistics.median(post(port, chat("hi"))[1] for _ in range(5))
    big: dict[str, float] = {}
    sender = threading.Thread(target=lambda: big.update(seconds=post(port, chat("a" * BIG_BYTES))[1]))
    sender.start()
    time.sleep(0.2)  # the big body is on its way and being answered
    during = [post(port, chat("hi"))[1] for _ in range(5)]
    sender.join()
    return alone, max(during), big["seconds"]


def main() -> None:
    server, port = start_server()
    try:
        answered, errors, seconds = crowd(port)
        print(
            f"{CLIENTS} requests at once: {answered} answered, {len(errors)} failed "
            f"{sorted(set(errors)) or ''} in {seconds:.2f} s (target: all answered)"
        )
        alone, during, big = delay_of_a_small_request(port)
        print(
            f"a small request alone: {alone * 1000:.0f} ms; while a 4 MB request is answered: "
            f"{during * 1000:.0f} ms at worst; the 4 MB request took {big:.2f} s"
        )
        print(f"a 4 MB request delays a small one by {max(during - alone, 0):.2f} s (target: under 1 s)")
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
