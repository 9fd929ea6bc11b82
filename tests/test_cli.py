"""The agent-core command, run as a real subprocess with no key and no network."""

import json
import os
import subprocess
import sys
from pathlib import Path

COMMAND = str(Path(sys.executable).parent / "agent-core")
NO_KEYS = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "ANTHROPIC"))}


def agent_core(*args):
    return subprocess.run([COMMAND, *args], capture_output=True, text=True, env=NO_KEYS, timeout=120)


def test_demo_prints_each_turns_request_and_response():
    result = agent_core("demo")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count('"messages"') >= 2  # both requests' JSON
    assert '"tool_calls"' in result.stdout and '"finish_reason"' in result.stdout
    assert "4 + 2 = 6" in result.stdout


def test_demo_json_is_the_raw_trace():
    result = agent_core("demo", "--json")
    assert result.returncode == 0, result.stderr
    trace = json.loads(result.stdout)
    first, second = trace["turns"]
    assert first["response"]["choices"][0]["finish_reason"] == "tool_calls"
    call = first["response"]["choices"][0]["message"]["tool_calls"][0]
    assert second["request"]["messages"][-1] == {"role": "tool", "tool_call_id": call["id"], "content": "6"}
    assert second["response"]["choices"][0]["message"]["content"] == "4 + 2 = 6"


def test_demo_is_byte_identical_across_runs():
    assert agent_core("demo", "--json").stdout == agent_core("demo", "--json").stdout
