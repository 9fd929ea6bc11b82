"""A figure the prose states about an output is the output's: each is read from the stored outputs, which
nbval
checks against a fresh run, and compared with the sentence that states it (lessons 06 and 11)."""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def cells(name: str) -> list[dict]:
    return json.loads((ROOT / name).read_text(encoding="utf-8"))["cells"]


def prose(name: str) -> str:
    return "\n".join("".join(c["source"]) for c in cells(name) if c["cell_type"] == "markdown")


def output_of(name: str, code: str) -> str:
    """the printed output of the one code cell that contains `code`"""
    found = [c for c in cells(name) if c["cell_type"] == "code" and code in "".join(c["source"])]
    assert len(found) == 1, f"{name}: {len(found)} code cells contain {code!r}"
    return "".join("".join(o.get("text", "")) for o in found[0]["outputs"])


def number(text: str) -> float:
    return float(text.replace(",", ""))


LESSONS = ["lessons/06_context_and_cost.ipynb", "solutions/06_context_and_cost.ipynb"]
EVALUATION = ["lessons/11_evaluating_an_agent.ipynb", "solutions/11_evaluating_an_agent.ipynb"]


@pytest.mark.parametrize("name", LESSONS)
def test_the_ledger_figures_of_lesson_06_are_its_output(name):
    ledger = output_of(name, "ledger = token_ledger(run)")
    ratio = number(re.search(r"input paid [\d,]+ tokens \(([\d.]+)x\)", ledger).group(1))
    calls = len(re.findall(r"^\s+\d+\s+\d+\s+[\d,]+", ledger, flags=re.MULTILINE))
    said = prose(name)
    assert f"a five-call run pay about {ratio:.1f} times its final history" in said and calls == 5
    assert f"five calls paid {ratio:.1f} times the final history" in said
    assert round(ratio * 2) / 2 == 2.5 and "About two and a half times." in said

    difference = number(
        re.search(r"difference: \+([\d,]+) input tokens", output_of(name, "big_run = ")).group(1)
    )
    assert f"one big tool result add about {round(difference, -3):,.0f} input tokens" in said
    assert f"cost about {round(difference, -3):,.0f} more input tokens" in said


@pytest.mark.parametrize("name", LESSONS)
def test_a_log_line_is_about_the_tokens_lesson_06_says(name):
    sizes = re.findall(r"(\d+) lines\s+([\d,]+) tokens", output_of(name, "logs = sample_logs()"))
    per_line = sum(number(t) for _, t in sizes) / sum(int(n) for n, _ in sizes)
    assert f"A log line is about {round(per_line)} tokens." in prose(name)


@pytest.mark.parametrize("name", EVALUATION)
def test_the_pass_rates_lesson_11_states_are_its_output(name):
    table = output_of(name, 'off = evaluate(suite, seeds, noise, label="guardrails off")')
    passed, attempts = map(int, re.search(r"^4 \+ 2 +\S+ +(\d+)/(\d+) passed", table, re.MULTILINE).groups())
    said = prose(name)
    assert f"`4 + 2` passed {passed} of {attempts} times. With {attempts} attempts" in said
    assert f"## How sure is {passed / attempts:.0%}?" in said

    intervals = output_of(name, "for passed, n in ((8, 8), (40, 40), (300, 300), (36, 40)):")
    low = re.search(r"8/8 +passed: between (\d+)%", intervals).group(1)
    assert f"Eight of eight passes gives at least {low}%" in said


@pytest.mark.parametrize("name", EVALUATION)
def test_the_guardrails_lesson_11_credits_are_in_its_output(name):
    compared = output_of(name, 'on = evaluate(suite, seeds, noise, guardrails=True, label="guardrails on")')
    loops_off, loops_on = map(int, re.search(r"first fault loop +(\d+) +(\d+)", compared).groups())
    left, in_discount = map(
        int,
        re.search(r"loops left with guardrails on: (\d+), in the discount task: (\d+)", compared).groups(),
    )
    said = prose(name)
    assert loops_on < loops_off and "The `loop` row fell" in said
    assert left == loops_on == in_discount and "The loops left are in the discount task" in said

    verify = output_of(name, "verify_on = evaluate(")
    passes, calls, tokens = map(
        float, re.search(r"([\d.]+)x the passes, ([\d.]+)x the calls, ([\d.]+)x the tokens", verify).groups()
    )
    assert passes > 1 and calls > 1 and tokens > 1
    assert "more passes. It also cost more calls and tokens" in said
