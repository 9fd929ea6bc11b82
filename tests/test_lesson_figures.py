"""A figure the prose states about an output is the output's: each is read from the stored outputs, which
nbval checks against a fresh run, and compared with the sentence that states it (lessons 00 to 13)."""

import ast
import functools
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@functools.cache
def cells(name: str) -> list[dict]:
    """the cells of a notebook, read once (no test changes them)"""
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
    table = output_of(name, 'off = evaluate(suite, seeds, noisy(noise), mock.client, label="guardrails off")')
    passed, attempts = map(int, re.search(r"^4 \+ 2 +\S+ +(\d+)/(\d+) passed", table, re.MULTILINE).groups())
    said = prose(name)
    assert f"`4 + 2` passed {passed} of {attempts} times. With {attempts} attempts" in said
    assert f"## How sure is {passed / attempts:.0%}?" in said

    intervals = output_of(name, "for passed, n in ((8, 8), (40, 40), (300, 300), (36, 40)):")
    low = re.search(r"8/8 +passed: between (\d+)%", intervals).group(1)
    assert f"Eight of eight passes gives at least {low}%" in said


@pytest.mark.parametrize("name", EVALUATION)
def test_the_guardrails_lesson_11_credits_are_in_its_output(name):
    compared = output_of(
        name, 'on = evaluate(suite, seeds, noisy(noise), mock.client, guardrails=True, label="guardrails on")'
    )
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


WORDS = {
    3: "three",
    4: "four",
    5: "five",
    6: "six",
    7: "seven",
    8: "eight",
    9: "nine",
    10: "ten",
    11: "eleven",
}
ORDINALS = {3: "third", 4: "fourth", 5: "fifth", 6: "sixth"}
GUARDRAILS = ["lessons/05_guardrails.ipynb", "solutions/05_guardrails.ipynb"]
PLANNING = ["lessons/12_planning_and_subagents.ipynb", "solutions/12_planning_and_subagents.ipynb"]


@pytest.mark.parametrize("name", GUARDRAILS)
def test_the_job_offer_runs_turns_and_calls_are_the_ones_lesson_05_states(name):
    shown = output_of(name, "applied = run_agent(mock.client(JobApplicant())")
    model_calls, tool_calls = map(int, re.search(r"model calls: (\d+) · tool calls: (\d+)", shown).groups())
    called = re.findall(r"^(\w+)\(", shown, flags=re.MULTILINE)
    send = called.index("send_application") + 1  # one tool per model call: the call that sends
    assert tool_calls == len(called) and send == tool_calls and model_calls == tool_calls + 1
    said = (
        f"{WORDS[send - 1].capitalize()} tools chained over {WORDS[send - 1]} model calls, then a "
        f"{ORDINALS[send]} call to send, and a {ORDINALS[model_calls]} that answers in text."
    )
    assert said in prose(name)


def _largest_plan() -> int:
    """the most items any plan of check 12.1's scenarios holds, worked through by the reference"""
    from agent_core.checks import lesson12
    from agent_core.checks._scenarios import scenarios
    from agent_core.planning import plan_update

    largest = 0
    for steps in scenarios(lesson12.PLAN_FIXED, lesson12._plan_steps, count=200, seed=1201):
        plans: list[list] = [[], []]
        for step in steps:
            items = plans[len(step) - 2]  # a third member names the second plan
            plan_update(items, step[0], step[1])
            largest = max(largest, len(items))
    return largest


@pytest.mark.parametrize("name", PLANNING)
def test_the_plan_sizes_lesson_12_states_are_the_checks(name):
    assert f"They work plans of up to {WORDS[_largest_plan()]} items through in order" in prose(name)


def test_the_check_12_1_plans_grow_past_seven_items():
    """the figure the lesson must state, computed: the check's plans reach eleven items"""
    assert _largest_plan() == 11


SCHEMA = ["lessons/01_tool_schema.ipynb", "solutions/01_tool_schema.ipynb"]


def _exercise_1_3(name: str) -> str:
    found = [
        "".join(c["source"])
        for c in cells(name)
        if c["cell_type"] == "markdown" and "## Exercise 1.3" in "".join(c["source"])
    ]
    assert len(found) == 1
    return found[0]


@pytest.mark.parametrize("name", SCHEMA)
def test_exercise_1_3_states_the_rules_check_1_3_enforces(name):
    """the solution's own description shares words with the requests (cancel, order): the exercise may
    forbid only the words the check refuses, and must name each of them and the sentence's length"""
    from agent_core.checks import lesson01

    said = _exercise_1_3(name)
    assert "no words copied from the requests" not in said
    assert all(word in said for word in lesson01._REQUEST_ONLY_WORDS)
    assert f"at most {lesson01._MAX_DESCRIPTION_WORDS} words" in said


@pytest.mark.parametrize("name", ["lessons/00_one_model_call.ipynb", "solutions/00_one_model_call.ipynb"])
def test_check_0_2_s_shapes_are_listed_on_the_conversation_lesson_00_prints(name):
    """REPAIR_SHAPES are shapes of lesson00.JUMBLED: it must be the very conversation of Exercise 0.2"""
    import ast

    from agent_core.checks.lesson00 import JUMBLED

    found = [
        node.value
        for c in cells(name)
        if c["cell_type"] == "code" and "check_repaired" in "".join(c["source"])
        for node in ast.parse("".join(c["source"])).body
        if isinstance(node, ast.Assign)
        and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["jumbled"]
    ]
    assert len(found) == 1 and ast.literal_eval(found[0]) == JUMBLED


RIGHT = "5 + 8/12 = 5.666666666666667"

# lessons 05-13: (notebook, words of the prose, a code cell's words, what its output must hold). A sentence
# that states what a cell printed is kept true by its row: change the run and the row fails.
OUTPUT_CLAIMS = [
    (
        "07_coding_agent",
        "Six tools exist, but we offer four",
        'print("offered:", CORE_TOOLS)',
        [
            "offered: ('read_file', 'grep', 'write_file', 'run_command')\n",
            "available: ('read_file', 'grep', 'write_file', 'run_command', 'list_dir', 'edit_file')\n",
        ],
    ),
    (
        "07_coding_agent",
        "A coding agent that fixed `discount` in five calls",
        'print(run.stop_reason, "after"',
        ["answered after 5 model calls"],
    ),
    (
        "07_coding_agent",
        "One character, and the comment stayed",
        "print(workspace.diff())",
        ["+    if is_member and total >= DISCOUNT_FROM:", "# The shop promises"],
    ),
    (
        "07_coding_agent",
        "Eleven calls: a search too broad (`users`, 30 matches)",
        "mock.client(RoleFilterFixer()), verdict=False",
        ["30 matches for 'users'", "\n11  answers:"],
    ),
    (
        "07_coding_agent",
        "Stop the hunt after seven calls",
        "max_turns=7, verdict=False",
        ["stop_reason: max_turns", "(max_turns=7)", '+    "editor"\n     "viewer",'],
    ),
    (
        "07_coding_agent",
        '"All the tests pass": true, and worthless',
        "editor = run_coding_agent(",
        ["exit code: 0 … 4 passed", "+    assert final_price(100, is_member=True) == 100"],
    ),
    (
        "07_coding_agent",
        "It never opened `discount.py`. Line 8 is the docstring",
        "mock.client(Hallucinator()), verdict=False",
        ["line 8 of discount.py", "`if total > 100:`"],
    ),
    (
        "07_coding_agent",
        "Nothing caught.",
        "guarded=True, verdict=False",
        ["caught: {}", "stop_reason: answered", "same messages as without guards: True"],
    ),
    (
        "07_coding_agent",
        "so your API keys do not leak into it",
        "${OPENAI_API_KEY:-not set}",
        ["key: not set"],
    ),
    ("08_real_models", "Three requests went over a real socket", "model calls)", ["(3 model calls)"]),
    (
        "08_real_models",
        "The answers are the very same JSON the in-process mock gives",
        'print("same responses:"',
        ["same responses: True"],
    ),
    (
        "08_real_models",
        "Headers are never recorded, so the key never reaches the file",
        "original.trace.save(cassette)",
        ["is the key in the file? False"],
    ),
    (
        "08_real_models",
        "The same requests and responses, turn for turn, with the server gone",
        'print("identical trace:"',
        ["identical trace: True"],
    ),
    ("08_real_models", "One extra model call, and no crash.", "small.replay.model", ["4 model calls"]),
    (
        "08_real_models",
        "the same script, run now, records exactly the shipped file",
        "same turns as the shipped file",
        ["same turns as the shipped file: True"],
    ),
    (
        "10_mcp_tools",
        "In both cases the loop did not crash",
        'print("later:", fragile.dispatch(later)',
        ["stop_reason: answered"],
    ),
    (
        "11_evaluating_an_agent",
        "Three seeds out of five behaved, and the other two made the same mistakes both times",
        "print([answers(seed) for seed in range(5)])",
        [(str([RIGHT, RIGHT, "Done. The answer is 4.", RIGHT, "Done. The answer is 83."]) + "\n") * 2],
    ),
    (
        "11_evaluating_an_agent",
        "Eight of eight passes gives at least 68%",
        "for passed, n in ((8, 8), (40, 40)",
        ["  8/8   passed: between 68% and 100%"],
    ),
    (
        "12_planning_and_subagents",
        "passed on to the child, still refuses it",
        "USERS_TASK, [explorer.tool], guardrails=[Permissions(read_only=True)])",
        ["ERROR: this run is read-only and 'write_file' changes things", "diff: ''"],
    ),
    (
        "12_planning_and_subagents",
        "Its own `max_turns` stops it, and the parent reads why",
        'Delegator("loops")',
        ["explorer model calls: 4", "stop_reason 'max_turns'"],
    ),
    (
        "12_planning_and_subagents",
        'the dispatcher answers "unknown tool" and nothing changes',
        "child = explorer.children[0].run",
        ["ERROR: there is no tool named 'write_file'", "diff: ''"],
    ),
    (
        "12_planning_and_subagents",
        "The explorer's third model call gets an HTTP 500",
        "[turn.status for turn in",
        ["[200, 200, 500]", "ERROR: the explorer failed"],
    ),
    (
        "12_planning_and_subagents",
        "each child fresh: two conversations, two labels",
        "Delegator(twice=True)",
        ["'explorer 2'", "the second child's first request: ['system', 'user']"],
    ),
    (
        "12_planning_and_subagents",
        "`max_depth=1` keeps one explorer, and the refused call tells it to do the work itself",
        'Delegator("recurses")',
        ["max_depth=1: explorers 1,", "ERROR: a subagent may not hand its task on again"],
    ),
    (
        "12_planning_and_subagents",
        "both together pay a little more than reading alone",
        'print(f"both together cost',
        ["both together cost 1.", "times smaller"],
    ),
    (
        "09_wire_formats",
        'One difference hides in `"strict": false`',
        "translations = {",
        ['"strict": false}'],
    ),
    (
        "09_wire_formats",
        '`stop_reason` is `"tool_use"` while the model wants tools',
        'print("stop_reason:", reply.stop_reason)',
        ["stop_reason: tool_use", '"type": "tool_use"'],
    ),
    (
        "10_mcp_tools",
        "A unit the server does",
        "messages sent to the server",
        ["messages sent to the server: 0"],
    ),
    (
        "05_guardrails",
        "That is a well-behaved run: three model calls",
        '"5 + 8/12", calculator))',
        ["stop_reason: answered · model calls: 3 · tool calls: 2"],
    ),
    (
        "05_guardrails",
        "Five paid model calls that learned nothing after the first one, and no answer.",
        "stuck = run_agent(",
        [
            "stop_reason: max_turns · model calls: 5",
            'add({"a": 2, "b": 3}) → 5\n' * 5,
        ],
    ),
    (
        "05_guardrails",
        "A call may run `max_repeats` times (2 by default). The next identical one is not run",
        "detected = run_agent(",
        [
            'add({"a": 2, "b": 3}) → 5\n' * 2 + 'add({"a": 2, "b": 3}) → ERROR: you already called',
            'add({"a": 2, "b": 3}) → ERROR: not run: I stopped',
            "stop_reason: repeated_call",
        ],
    ),
    (
        "05_guardrails",
        "told off once, it answers with the result it already has",
        "listens = run_agent(",
        ["stop_reason: answered · model calls: 4 · tool calls: 3", "answer: The result is 5."],
    ),
    (
        "05_guardrails",
        "Only the turn cap stops it now",
        'runaway = run_agent(mock.client(Runaway()), "Count for ever.", calculator, max_turns=4)',
        ["stop_reason: max_turns · model calls: 4 · tool calls: 4"],
    ),
    (
        "05_guardrails",
        "it calls `add(a=0, b=1)`, `add(a=1, b=1)`, and so on",
        "guardrails=[Limits(max_tool_calls=4)]",
        ['add({"a": 0, "b": 1}) → 1\nadd({"a": 1, "b": 1}) → 2\n'],
    ),
    (
        "05_guardrails",
        "refused ones included, which is why it says 5",
        "guardrails=[Limits(max_tool_calls=4)]",
        [
            "stop_reason: max_tool_calls · model calls: 5 · tool calls: 5",
            'add({"a": 3, "b": 1}) → 4\nadd({"a": 4, "b": 1}) → ERROR: not run',
        ],
    ),
    (
        "05_guardrails",
        "its timeout turns a slow call into an error observation",
        "slow_tools = ToolRegistry(",
        [
            "first result: ERROR: the tool 'slow_add' did not finish within 0.05 seconds",
            "stop_reason:  max_seconds",
        ],
    ),
    (
        "05_guardrails",
        "One test fails on purpose",
        "project = TinyProject()\nprint(project)",
        ["test_discount_starts_at_exactly_100 FAILED", "1 failed, 3 passed"],
    ),
    (
        "05_guardrails",
        "Its tools refuse paths that leave the project",
        'print(project.write_file("../outside.py"',
        ["ERROR: '../outside.py' is outside the project", "ERROR: '/etc/outside.py' is an absolute path"],
    ),
    (
        "05_guardrails",
        "Without permissions the test file is simply gone",
        "tidy_up = Reckless(",
        [
            "── no permissions\n",
            "deleted test_discount.py\n",
            "changed: ['discount.py', 'test_discount.py']\n── protected",
        ],
    ),
    (
        "05_guardrails",
        "An offer that needs Kotlin stops after `match_cv`: no draft, no email.",
        "kotlin = run_agent(",
        ["I would not apply: the offer requires kotlin"],
    ),
    (
        "05_guardrails",
        '`Approval` **pauses** the run (`stop_reason` `"needs_approval"`)',
        "paused = run_agent(",
        ["stop_reason: needs_approval · model calls: 4 · tool calls: 4"],
    ),
    (
        "05_guardrails",
        "Only the `send_application` call runs now, and only the final answer needs a new model call",
        "resumed = resume(",
        ["stop_reason: answered · model calls: 1 · tool calls: 1", "outbox: ['jobs@acme.example']"],
    ),
    (
        "05_guardrails",
        '"Fixed", says the model; one test fails, says the project.',
        "claimed = run_agent(",
        ["answer: Fixed: members now get", "1 failed, 3 passed"],
    ),
    (
        "05_guardrails",
        (
            "The first claim was rejected; the model read why, fixed the"
            " right line, ran the tests, and only then"
        ),
        "verified = run_agent(",
        ["run_tests({}) → exit code: 1\n", "run_tests({}) → exit code: 0\n", "= 4 passed in"],
    ),
    (
        "05_guardrails",
        'one more failure ends the run with `stop_reason` `"not_verified"`',
        "stubborn = run_agent(",
        ["not_verified after 3 model calls", "rejected twice"],
    ),
    (
        "05_guardrails",
        "Green, accepted, and wrong: the test now says that an order of 100 gets no discount",
        "fooled = run_agent(",
        ["stop_reason: answered", "= 4 passed in", "changed: ['test_discount.py']", "== 100']"],
    ),
    (
        "05_guardrails",
        (
            "The edit was refused; the model claimed success anyway; the check"
            " rejected the claim; then the model fixed the code."
        ),
        "guarded = run_agent(",
        [
            'write_file({"path": "test_discount.py", "con… → ERROR: \'test_discount.py\' is protected',
            "run_tests({}) → exit code: 0",
            "changed: ['discount.py']",
            "the claim that was rejected: The test expected the wrong value",
        ],
    ),
    (
        "05_guardrails",
        "On the well-behaved calculator run none of them fires",
        "def every_guard():",
        ["stop_reason: answered · model calls: 3 · tool calls: 2", "answer: 5 + 8/12 = 5.666666666666667"],
    ),
    (
        "05_guardrails",
        "each misbehaving model meets the guard meant for it",
        '("ClaimsDone", ClaimsDone([], "5 + 8/12 = 13/12")),',
        [
            "Runaway     stop_reason: max_tool_calls",
            "Repeater    stop_reason: repeated_call",
            "ClaimsDone  stop_reason: rejected",
        ],
    ),
    (
        "06_context_and_cost",
        "opens one file per call with the best tool it is offered, then answers with a count per file",
        "run = run_agent(mock.client(LogReader()), task, tools)",
        ["answered after 5 model calls", "- mail.log: 1\nTotal: 7 in 4 files."],
    ),
    (
        "06_context_and_cost",
        "The fifth call sends nine messages; seven of them went out before, some four times already.",
        "new = run.trace.new_messages(i)",
        ["call 1: sends 1 messages, 1 new: ['user']", "call 5: sends 9 messages, 2 new:"],
    ),
    (
        "06_context_and_cost",
        "Now the agent checks nine logs, so it makes ten calls.",
        "big_run = ",
        ["10 calls each"],
    ),
    (
        "06_context_and_cost",
        "The write premium means it pays off only from a later call",
        "plain, cached = call_costs(",
        ["caching pays from call 3"],
    ),
    (
        "06_context_and_cost",
        "the cheap reads outweigh the write premium at once",
        'print("with search_file, caching pays from call"',
        ["caching pays from call 2"],
    ),
    (
        "06_context_and_cost",
        "The agent respected the rule: it skipped `private/cards.log`.",
        "long_run = run_agent(",
        ["Not opened, as instructed: private/cards.log."],
    ),
    (
        "06_context_and_cost",
        "The kept part starts with a tool result whose call went into the summary. The API refuses it",
        "careless = [",
        [
            "['user', 'tool', 'assistant', 'tool']",
            "HTTP 400",
            "must be a response to a preceeding message with 'tool_calls'",
        ],
    ),
    (
        "06_context_and_cost",
        "it moves the start back to the assistant message with the call",
        "start = split_point(messages, keep_last=3)",
        ["keep from index 5 ['assistant', 'tool', 'assistant', 'tool']"],
    ),
    (
        "06_context_and_cost",
        "the first line of each user message, and each tool call with a short account of its result",
        'print(shorter[0]["content"])',
        [
            (
                "- The user asked: Check every log in the folder for 'ERROR' lines and"
                " say how many each has.\n- called list_files {}"
            ),
            '- called read_file {"path": "api.log"} -> 38 lines, 2 with \'ERROR\'',
        ],
    ),
    (
        "06_context_and_cost",
        "so the API accepts it, and the model carries on from it with the next file",
        'client.chat.completions.create(model="mock-model", messages=shorter',
        ['"name": "read_file"', '\\"path\\": \\"cache.log\\"'],
    ),
    (
        "06_context_and_cost",
        "It opened `private/cards.log`.",
        "print(compacted_run.answer)",
        ["- private/cards.log: 2"],
    ),
    (
        "06_context_and_cost",
        "Same run, with the rule moved there",
        "safe_run = run_agent(",
        ["2 compactions", "Not opened, as instructed: private/cards.log."],
    ),
    (
        "07_coding_agent",
        "Put a file next to the project and ask for it with one `..`",
        'print(naive_read("../secret.txt"))',
        ["the database password"],
    ),
    (
        "07_coding_agent",
        "it is an exception that crashes the loop",
        'naive_read("discount_rules.py")',
        ["FileNotFoundError"],
    ),
    (
        "07_coding_agent",
        "The same two mistakes",
        'print(read_file("discount_rules.py"))',
        ["ERROR: '../secret.txt' is outside the workspace", "ERROR: 'discount_rules.py' does not exist."],
    ),
    (
        "07_coding_agent",
        "A successful read numbers the lines",
        'print(read_file("discount.py"))',
        ['   1 | """Final prices', "  10 |     if is_member and total > DISCOUNT_FROM:"],
    ),
    (
        "07_coding_agent",
        "`grep` answers one `path:line: text` per match",
        'print(grep("DISCOUNT_FROM"))',
        [
            "2 matches for 'DISCOUNT_FROM' in 1 file:\ndiscount.py:4: DISCOUNT_FROM = 100",
            "discount.py:10:     if is_member",
        ],
    ),
    (
        "07_coding_agent",
        "`grep` uses the `regex` package, which can stop",
        'impatient.grep("(a|a)+$")',
        ["took more than 0.2 seconds and was stopped"],
    ),
    (
        "07_coding_agent",
        "pytest ends with its run time, which changes on every run",
        "raw = run_command(",
        ["the raw output ends with a time: True", "1 failed, 3 passed in ?.??s"],
    ),
    (
        "07_coding_agent",
        "`assert 100 == 90`: an order of exactly 100 gets no discount.",
        "raw = run_command(",
        ["E       assert 100 == 90"],
    ),
    (
        "07_coding_agent",
        "run the tests, read the code, change one line, run the tests again, answer",
        "def print_steps(run):",
        [
            " 1  run_command(command='python -m pytest -q')\n      → exit code: 1",
            " 2  read_file(path='discount.py')",
            " 3  write_file(path='discount.py'",
            " 4  run_command(command='python -m pytest -q')\n      → exit code: 0",
            " 5  answers: Fixed.",
        ],
    ),
    (
        "07_coding_agent",
        "adds a verdict: the project's own tests, run on the final code",
        "result = run_coding_agent(",
        ["same messages as by hand: True", "the project's own tests pass: True"],
    ),
    (
        "07_coding_agent",
        "the tests go red, it re-reads its change, adds the comma, green",
        "mock.client(RoleFilterFixer()), verdict=False",
        [
            " 7  run_command(command='python -m pytest -q')\n      → exit code: 1",
            " 8  read_file(path='app/roles.py')",
            "10  run_command(command='python -m pytest -q')\n      → exit code: 0",
        ],
    ),
    (
        "07_coding_agent",
        "Python joins adjacent string literals",
        '    "editor"\n    "viewer",\n]\nROLES',
        ["['admin', 'editorviewer']"],
    ),
    (
        "07_coding_agent",
        "The model sees the head and the tail",
        "seq 1 20000",
        ["exit code: 0\n1\n2\n3\n", "characters cut ...]", "19999\n20000"],
    ),
    (
        "07_coding_agent",
        "The bug is still there. That is why the verdict runs the **original** tests",
        'print("the project\'s own tests pass:", editor.tests.passed)',
        ["the project's own tests pass: False", "1 failed, 3 passed"],
    ),
    (
        "07_coding_agent",
        "a `conftest.py` that reports every failure as a pass",
        "faker = run_coding_agent(",
        ["its own test run: 4 passed", "the project's own tests pass: False", "conftest.py (added)"],
    ),
    (
        "07_coding_agent",
        "The refusal went back as an observation, and the answer is now honest: the tests still fail.",
        "guardrails=[Permissions(protected=TEST_FILES)]",
        [
            "→ ERROR: 'test_discount.py' is protected",
            "The tests still fail: 1 failed, 3 passed.",
            "diff: ''",
        ],
    ),
    (
        "07_coding_agent",
        "The model read the file, found the real line 10, fixed it and tested it.",
        "claims = ClaimsCheck()",
        [
            " 2  answers: The bug is on line 8",
            "    feedback: Your answer points at code you have not looked at",
            " 3  read_file(path='discount.py')",
            " 5  run_command(command='python -m pytest -q')\n      → exit code: 0",
            "Line 10 of discount.py",
        ],
    ),
    (
        "07_coding_agent",
        "What was caught:",
        "claims.caught",
        ["you cite 'line 8 of discount.py', but discount.py was never shown to you"],
    ),
    (
        "07_coding_agent",
        "Two faults: the comment explaining the rule is gone",
        "deleter = run_coding_agent(",
        ["-    # The shop promises members 10% off", "the project's own tests pass: True"],
    ),
    (
        "07_coding_agent",
        "The model put the comment back; the tests ran in `VerifyBeforeDone` and passed.",
        "review = DiffReview(",
        [
            "(VerifyBeforeDone runs the tests: 4 passed",
            "feedback: Before accepting your answer I read the full diff",
            "stop_reason: answered",
            "     # The shop promises members 10% off",
        ],
    ),
    (
        "07_coding_agent",
        "a hanging command is killed at its timeout with everything it started",
        'run_command("sleep 30; echo never", timeout=0.5)',
        ["timed out after 0.5s; process group killed", "EOFError: EOF when reading a line"],
    ),
    (
        "07_coding_agent",
        "The path checks guard the file tools, not the shell",
        'print(run_command("cat ../secret.txt"))',
        ["ERROR: '../secret.txt' is outside the workspace", "exit code: 0\nthe database password"],
    ),
    (
        "07_coding_agent",
        "hunted the `users_api` bug in eleven",
        "mock.client(RoleFilterFixer()), verdict=False",
        ["\n11  answers:"],
    ),
    (
        "08_real_models",
        (
            "With neither set, we want the mock; with a server's URL, that"
            " server; with only an OpenAI key, OpenAI."
        ),
        "def pick_client(env):",
        [
            "{}                                                 -> http://mock.agent-core.invalid/v1/",
            "-> http://localhost:11434/v1/",
            "{'OPENAI_API_KEY': 'sk-placeholder'}               -> https://api.openai.com/v1/",
        ],
    ),
    (
        "08_real_models",
        "With nothing configured, it is the mock",
        "client = client_from_env()\nprint(describe_backend())",
        ["the mock model (policy echo, model 'mock-model')", "calls recorded so far: 0"],
    ),
    (
        "08_real_models",
        "The description names the variable the key came from, never the key.",
        "for env in examples:",
        ["key from $OPENAI_API_KEY"],
    ),
    (
        "08_real_models",
        "`model_name` says what to do",
        'model_name({"AGENT_CORE_BASE_URL": "http://localhost:11434/v1"})',
        ["No model is set for the server at http://localhost:11434/v1. Set AGENT_CORE_MODEL"],
    ),
    (
        "08_real_models",
        "its name first, then the arguments in fragments that only make valid JSON once joined",
        "trace = Trace()  # the recorder",
        [
            "'function': {'arguments': '', 'name': 'divide'}",
            "{'arguments': '{\"a\": 8, \"b\": 12'}",
            "recorded as one reply: True {'name': 'divide', 'arguments': '{\"a\": 8, \"b\": 12}'}",
        ],
    ),
    (
        "08_real_models",
        "A server started with a key refuses any other, with HTTP 401",
        'serve(api_key="sk-mock-right-key-0123456789")',
        ["AuthenticationError 401"],
    ),
    (
        "08_real_models",
        "like OpenAI, it shows only the ends of the key sent",
        'serve(api_key="sk-mock-right-key-0123456789")',
        ["Incorrect API key provided: sk-mock-****************3210."],
    ),
    (
        "08_real_models",
        "answers any other name with HTTP 404",
        'serve(models=["llama3.1:8b"])',
        ["It serves: llama3.1:8b.", "NotFoundError 404"],
    ),
    (
        "08_real_models",
        "Nothing answers, so there is no HTTP status, only a connection error",
        "stopped_url = server.base_url",
        ["APIConnectionError\nCould not connect to http://127.0.0.1:PORT"],
    ),
    (
        "08_real_models",
        "Unconfigured, it only says how to run it live.",
        'if backend_from_env().kind == "mock":',
        ["No real model configured, so this cell does not call one."],
    ),
    (
        "08_real_models",
        "it refuses with HTTP 400, saying where the first difference is",
        "for change, arguments in changes.items():",
        [
            (
                "another task: HTTP 400\nThis request differs from turn 1 of the"
                " cassette (trace[0]) at messages[0].content:"
            ),
            (
                "a tool fewer: HTTP 400\nThis request differs from turn 1 of"
                " the cassette (trace[0]) at tools[1]:"
            ),
        ],
    ),
    (
        "08_real_models",
        "the model read it and sent the call again, correctly",
        "small.replay.model",
        [
            '→ divide({"a": 8, "b": 12)  id',
            "ERROR: the arguments for 'divide' are not valid JSON",
            '→ divide({"a": 8, "b": 12})  id',
        ],
    ),
    (
        "09_wire_formats",
        (
            "The Responses API uses a flat shape, with `name` next to `type`;"
            " Anthropic calls the parameters schema `input_schema`"
        ),
        "translations = {",
        [
            'Responses         {"type": "function", "name": "divide"',
            'Anthropic         {"name": "divide", "description": "Divide a by b: a / b.", "input_schema":',
        ],
    ),
    (
        "09_wire_formats",
        "in Anthropic one user message with two `tool_result` blocks",
        'parallel = run_agent(mock.client(mock.Calculator()), "4+2 and 7+8", [add])',
        [
            "Chat Completions roles: ['user', 'assistant', 'tool', 'tool', 'assistant']",
            "Anthropic roles:        ['user', 'assistant', 'user', 'assistant']",
        ],
    ),
    (
        "09_wire_formats",
        "Anthropic has `is_error: true`, and `to_anthropic` sets it from that prefix",
        'failed = run_agent(mock.client(mock.Calculator()), "1/0", [divide])',
        ['"content": "ERROR: the tool \'divide\' raised ZeroDivisionError', '"is_error": true'],
    ),
    (
        "09_wire_formats",
        "for Responses and Anthropic the messages come back equal to the originals",
        "from agent_core.formats import from_anthropic, from_ollama, from_responses",
        ["Responses -> Chat Completions, equal: True", "Anthropic -> Chat Completions, equal: True"],
    ),
    (
        "09_wire_formats",
        (
            "Ollama's comes back with different ids: it never had any, so the"
            " way back numbers the calls `call_0`"
        ),
        "from agent_core.formats import from_anthropic, from_ollama, from_responses",
        [
            "Ollama    -> Chat Completions, equal: False",
            "first difference: ('[2].tool_calls[0].id', ",
            "'call_0')",
        ],
    ),
    (
        "09_wire_formats",
        "With the ids put back in order, everything else is equal",
        "def numbered_ids(messages):",
        ["Ollama -> Chat Completions, equal up to the ids: True"],
    ),
    (
        "09_wire_formats",
        "The first `input` is a plain string",
        "on_responses = mock.client(mock.Calculator())",
        ['previous_response_id None\n  input:  "5 + 8/12"'],
    ),
    (
        "10_mcp_tools",
        "Then the client sends `notifications/initialized`: no `id`, so no reply.",
        "weather = connect(make_server())",
        ['-> {\n    "jsonrpc": "2.0",\n    "method": "notifications/initialized"\n   }'],
    ),
    (
        "10_mcp_tools",
        "It also describes the blocks a tool message cannot carry",
        'print(to_tool_message("call_3"',
        [
            '\'content\': \'{"city": "Oslo"',
            "'content': \"ERROR: Error executing tool forecast: no forecast for 'Paris'",
            "[image image/png, about 9 bytes: not shown",
        ],
    ),
    (
        "10_mcp_tools",
        "the first asked for `forecast` with `city` and `unit` taken from the request",
        "print_wire(weather.wire[start:])",
        ['"city": "Oslo",\n      "unit": "fahrenheit"'],
    ),
    (
        "10_mcp_tools",
        "Nothing above the transport changed.",
        "with connect_stdio(WEATHER_SERVER) as remote:",
        ["same tools as in memory: True", "same requests to the model: True"],
    ),
    (
        "10_mcp_tools",
        "The model called the tool anyway, first, and sent the whole message, passport number included",
        "poisoned = run_agent(",
        [
            (
                'packing_tips {"notes": "Forecast for \\"Oslo\\", please: I fly'
                ' there with passport P1234567."}\nforecast'
            ),
            (
                'the travel-tips server received: [\'Forecast for "Oslo", please:'
                " I fly there with passport P1234567.']"
            ),
        ],
    ),
    (
        "10_mcp_tools",
        "Here we trust only the weather server",
        "add_server_tools(reviewed, tips, only=[])",
        ["['forecast']", "the travel-tips server received: []"],
    ),
    (
        "10_mcp_tools",
        (
            "tells the server with a `notifications/cancelled` message, and raises an"
            " error that the dispatcher turns into an observation"
        ),
        'with connect(make_server(fault="hang"), timeout=0.5) as hanging:',
        [
            "did not answer tools/call 'forecast' within 0.5 s",
            '"method": "notifications/cancelled"',
            "stop_reason: answered",
            "the other tool still works: Heat warning",
        ],
    ),
    (
        "10_mcp_tools",
        (
            "with the last line the server wrote to its stderr. Every later"
            " call fails at once with the same reason"
        ),
        'print("later:", fragile.dispatch(later)',
        [
            "Its last words on stderr: weather backend: segmentation fault.",
            (
                "later: ERROR: the MCP server 'weather' is not connected any more"
                " (it stopped during tools/call 'forecast')"
            ),
        ],
    ),
    (
        "10_mcp_tools",
        "So `add_server_tools` refuses:",
        'marine_server = MCPServer("marine"',
        [
            (
                "ValueError: a tool named 'forecast' is already registered, so the"
                " MCP server 'marine' cannot add its own"
            )
        ],
    ),
    (
        "10_mcp_tools",
        "The function it registers for each tool calls the server by the tool's own name",
        'print(openai_name("files.read")',
        [
            "['weather__forecast', 'weather__weather_alerts', 'marine__forecast']",
            '"method": "tools/call",\n    "params": {\n     "name": "forecast",',
        ],
    ),
    (
        "10_mcp_tools",
        (
            "A tool counts as writing unless its server says it only reads (`readOnlyHint`); a"
            " server that lies is not caught. None of these says so:"
        ),
        "print(writing_tools(prefixed))",
        ["['weather__forecast', 'weather__weather_alerts', 'marine__forecast']"],
    ),
    (
        "11_evaluating_an_agent",
        "gets `5 + 8/12` right every time, because it is a program",
        'run = run_agent(mock.client(mock.Calculator()), "What is 5 + 8/12?", calculator_tools)',
        ["5 + 8/12 = 5.666666666666667\n"],
    ),
    (
        "11_evaluating_an_agent",
        (
            "The first call lost its `a`, the dispatcher answered with a validation error (lesson 03), the"
            " model asked again correctly, and then it gave up early with a guess."
        ),
        "model = Noisy(mock.Calculator(), seed=2, noise=noise)",
        [
            "mistakes made: ['bad_arguments', 'early_done']",
            '→ divide({"b": 12})',
            "- 'a': missing (required)",
            '→ divide({"a": 8, "b": 12})',
            "assistant Done. The answer is",
        ],
    ),
    (
        "11_evaluating_an_agent",
        (
            "A calculator task is graded by `final_number` and by `tool_sequence` with two calls of"
            " slack. Its guardrails are the loop detector and a cap on tool calls"
        ),
        "suite = task_suite()",
        [
            (
                "4 + 2      'What is 4 + 2?'                                        2"
                " graders, guardrails: ['LoopDetector', 'Limits']"
            ),
            "1 graders, guardrails: ['VerifyBeforeDone', 'Limits']",
        ],
    ),
    (
        "11_evaluating_an_agent",
        "running them again gives the same attempts, to the last token",
        "again = evaluate(suite[:2]",
        ["True\n"],
    ),
    (
        "11_evaluating_an_agent",
        "An evaluation with no task or no seed has no pass rate, and says so",
        "evaluate(task_suite(), [], noisy(noise), mock.client)",
        ["ValueError: evaluate() needs at least one task and one seed, got 5 tasks and 0 seeds"],
    ),
    (
        "12_planning_and_subagents",
        "adds its steps in one reply, then for each one starts it, does it, and marks it done",
        "planned = run_agent(mock.client(Planner(STEPS))",
        [
            (
                '"add", "item": "read the roles"}) -> [ ] list the'
                ' files\nupdate_plan({"action": "start", "item": "list the files"})'
            ),
            'list_dir({"path": "."})',
            'update_plan({"action": "done", "item": "read the roles"})',
            "[x] list the files\n[x] read the handler\n[x] read the roles",
        ],
    ),
    (
        "12_planning_and_subagents",
        "starts the first item, then works without touching the plan, and answers with its plan still open",
        "forgot = run_agent(",
        [
            (
                'read_file({"path": "app/roles.py"}) -> app/roles.py (lines 1-17 of 17)\n[>]'
                " list the files\n[ ] read the handler\n[ ] read the roles"
            )
        ],
    ),
    (
        "12_planning_and_subagents",
        "it turns back the first answer that leaves items open",
        "reminder = PlanReminder(plan, stale_after=2)",
        ["· stop_reason: answered\n[x] list the files\n[x] read the handler\n[x] read the roles"],
    ),
    (
        "12_planning_and_subagents",
        "On the wire, the reminder is the last message of the request that follows it",
        "turn = next(t for t in nudged.trace",
        ['"role": "user",\n  "content": "Reminder: your plan has not changed in 2 turns.'],
    ),
    (
        "12_planning_and_subagents",
        "With a generous `max_depth` the reading is paid once per level",
        'Delegator("recurses")',
        ["max_depth=4: explorers 4,"],
    ),
    (
        "13_untrusted_content",
        "The model obeyed: it asked for `get_api_key`, a call the user never requested.",
        'show_json(second.response["choices"][0]["message"]["tool_calls"])',
        ['"name": "get_api_key"'],
    ),
    (
        "13_untrusted_content",
        "`openWorldHint` (default true)",
        "print(from_mcp(None))",
        [
            (
                "Declared(effect='reads', untrusted=True)\nDeclared(effect='reads',"
                " untrusted=False)\nDeclared(effect='sends', untrusted=True)\n"
            )
        ],
    ),
    (
        "13_untrusted_content",
        "The third injection task calls `update_customer`, which is in no such list",
        "guardrails=[Permissions(read_only=True)])",
        ["{'email': 'ada@evil.example', 'plan': 'Pro'}"],
    ),
    (
        "13_untrusted_content",
        "The model still obeyed (it fetched the key), but the key stayed in.",
        "guardrails=[Trifecta(DECLARATIONS)]",
        [
            "ERROR: 'send_email' can change things or send data out",
            "{'email': 'ada@lovelace.example', 'plan': 'Pro'}",
        ],
    ),
    (
        "13_untrusted_content",
        "`plan_from_request` asks the model for a plan in a call that holds only the user's request",
        "plan = plan_from_request(",
        [
            (
                "[Step(tool='read_inbox', fixed={}), Step(tool='send_email',"
                " fixed={'to': 'carol@partner.example'})]"
            ),
            "['system', 'user']",
        ],
    ),
    (
        "13_untrusted_content",
        "`get_api_key` was refused: not the next step. Carol got her reply, and nothing else left.",
        "guardrails=[FollowPlan(plan)]",
        [
            "[('read_inbox', None), ('get_api_key', 'refused'), ('send_email', None)]",
            (
                "[{'to': 'carol@partner.example', 'subject': 'Re: your email', 'body':"
                " 'The meeting on Friday is confirmed.'}]\n"
            ),
        ],
    ),
    (
        "05_guardrails",
        "a `max_turns` that lets the chain finish (five model calls)",
        "applied = run_agent(mock.client(JobApplicant())",
        ["model calls: 5 · tool calls: 4"],
    ),
    (
        "10_mcp_tools",
        "the JSON Schema its arguments must match, `required` and `enum` included",
        "tools = weather.list_tools()",
        ['"required": [\n         "city"\n        ]', '"enum": [\n           "celsius",'],
    ),
    (
        "08_real_models",
        "each an HTTP POST to `/v1/chat/completions`",
        "model calls)",
        ["POST http://127.0.0.1:PORT/v1/chat/completions -> 200\n" * 3],
    ),
    (
        "10_mcp_tools",
        "Two model calls, as in lesson 04",
        "registry = ToolRegistry()\nadd_server_tools(registry, weather)",
        ["Turn 1 of 2 ·", "Turn 2 of 2 ·"],
    ),
    (
        "12_planning_and_subagents",
        "keeps each child it ran in `.children`: its label, its depth, its turns and its run",
        "explorer = Delegate(client, reading, max_turns=8)",
        ["[Child('explorer 1', depth=1, 7 model calls, answered)]"],
    ),
    (
        "13_untrusted_content",
        "some web pages (untrusted: others wrote them), customer records and an API key (private)",
        "for name, declared in DECLARATIONS.items():",
        [
            "read_inbox       Declared(effect='reads', untrusted=True)",
            "fetch_page       Declared(effect='reads', untrusted=True)",
            "lookup_customer  Declared(effect='reads', untrusted=False)",
            "get_api_key      Declared(effect='reads', untrusted=False)",
            "send_email       Declared(effect='sends', untrusted=False)",
            "post_to_url      Declared(effect='sends', untrusted=False)",
            "update_customer  Declared(effect='writes', untrusted=False)",
        ],
    ),
]

# cells whose output is the learner's exercise: their figures hold in solutions/ (the prose in both)
SOLVED_OUTPUT_CLAIMS = [
    (
        "05_guardrails",
        "Your guard on a runaway model that listens when refused",
        "capped = run_agent(",
        [
            'add({"a": 2, "b": 1}) → 3\nadd({"a": 3, "b": 1}) → ERROR: add may run 3 times',
            "stop_reason: answered",
        ],
    ),
    (
        "05_guardrails",
        "Your guard on the job-offer agent, with a person who sends applications themselves",
        "drafted = run_agent(",
        ["send_application(", "→ ERROR: a person did not approve send_application", "outbox: []"],
    ),
    (
        "07_coding_agent",
        "here are the two tool messages it got back",
        "mine = run_agent(mock.client(script)",
        ["ERROR: '../secret.txt' is outside the project", "[pytest]"],
    ),
    (
        "07_coding_agent",
        "whose answer cites line 10 after reading the file",
        "print(unread_citations(run.answer, run.observations))",
        ["['line 8 of discount.py']\n[]\n"],
    ),
    (
        "07_coding_agent",
        "this model ignores the feedback until `max_turns`",
        "guardrails=[TestsAfterLastChange()]",
        ["feedback: You changed files after the last test run", "stop_reason: max_turns"],
    ),
    (
        "08_real_models",
        "Each model call, with its status and the role of the last message it sent",
        "recorder = Recorder(mock.transport(",
        ["[(200, 'user'), (200, 'tool'), (200, 'tool')]"],
    ),
    (
        "09_wire_formats",
        "Your loop on `5 + 8/12`, recorded",
        'run_on_anthropic(client, "5 + 8/12", tools, functions)',
        ["answer: 5 + 8/12 = 5.666666666666667", "request 1 (1 messages, stop_reason 'tool_use')"],
    ),
]


@pytest.mark.parametrize("folder", ["lessons", "solutions"])
@pytest.mark.parametrize(("notebook", "claim", "code", "printed"), OUTPUT_CLAIMS)
def test_what_the_prose_says_a_cell_printed_is_its_output(folder, notebook, claim, code, printed):
    name = f"{folder}/{notebook}.ipynb"
    assert claim in " ".join(prose(name).split()), f"{name}: the prose no longer says {claim!r}"
    output = all_output_of(name, code)
    missing = [text for text in printed if text not in output]
    assert not missing, f"{name}: {claim!r}, but the cell printed no {missing}"


@pytest.mark.parametrize(("notebook", "claim", "code", "printed"), SOLVED_OUTPUT_CLAIMS)
def test_what_the_prose_says_a_solved_cell_printed_is_its_output(notebook, claim, code, printed):
    assert claim in " ".join(prose(f"lessons/{notebook}.ipynb").split())
    test_what_the_prose_says_a_cell_printed_is_its_output("solutions", notebook, claim, code, printed)


def all_output_of(name: str, code: str) -> str:
    """every output of the one code cell that contains `code`: printed text and displayed values"""
    found = [c for c in cells(name) if c["cell_type"] == "code" and code in "".join(c["source"])]
    whole = [c for c in found if "".join(c["source"]).strip() == code.strip()]
    found = whole or found  # a cell whose whole source is `code`, when others contain it too
    assert len(found) == 1, f"{name}: {len(found)} code cells contain {code!r}"
    parts = []
    for output in found[0]["outputs"]:
        parts.append("".join(output.get("text", "")))
        parts.append("".join(output.get("data", {}).get("text/plain", "")))
    return "".join(parts)


FIRST_CALL = ["lessons/00_one_model_call.ipynb", "solutions/00_one_model_call.ipynb"]


@pytest.mark.parametrize("name", FIRST_CALL)
def test_what_lesson_00_says_of_its_outputs_is_what_they_show(name):
    text = prose(name)
    # "The reply has no text (`content` is `null`) and `finish_reason` is `"tool_calls"`"
    assert '`content` is `null`) and `finish_reason` is `"tool_calls"`' in text
    reply = json.loads(all_output_of(name, "weather_tool = {"))
    assert reply["choices"][0]["message"]["content"] is None
    assert reply["choices"][0]["finish_reason"] == "tool_calls"
    # "The second call carried one message, so that is all the model knew."
    assert "The second call carried one message" in text
    second = output_of(name, "first = client.chat.completions.create(").splitlines()[1]
    assert "I received 1 message(s)" in second and "'What is my name?'" in second
    # "When it works, the second request carries three messages"
    assert "the second request carries three messages" in text
    if name.startswith("solutions/"):  # "when it works": the lesson's cell runs the learner's stub
        said = output_of(name, 'ask(client, history, "My name is Ada.")').splitlines()[0]
        assert "I received 3 message(s)" in said
    # "each costs more than the one before, because it re-sends the whole conversation"
    assert "each costs more than the one before" in text
    prompts = [
        int(n) for n in re.findall(r"(\d+) prompt tokens", output_of(name, "for turn in client.trace:"))
    ]
    assert len(prompts) == 3 and prompts == sorted(set(prompts))
    # "HTTP 400, with the same message the real API sends (yes, OpenAI spells it "preceeding")"
    refused = output_of(name, "broken = [")
    assert "HTTP 400, with the same message the real API sends" in text
    assert refused.startswith("HTTP 400\n") and "must be a response to a preceeding message" in refused
    # "the server sends the reply in small pieces"
    assert "sends the reply in small pieces" in text
    pieces = output_of(name, "stream = client.chat.completions.create(").splitlines()[0]
    assert len(ast.literal_eval(pieces)) > 1  # the list of chunks the cell printed


THE_LOOP = ["lessons/04_the_loop.ipynb", "solutions/04_the_loop.ipynb"]


def _input_tokens(table: str) -> list[int]:
    """the input tokens column of print_usage's table"""
    return [int(row.split()[2]) for row in table.splitlines() if re.match(r"\s+\d+\s+\d+\s+\d+\s+\d+$", row)]


@pytest.mark.parametrize("name", THE_LOOP)
def test_what_lesson_04_says_of_its_outputs_is_what_they_show(name):
    text = prose(name)
    # "only the **second** request can contain it"
    assert "so only the **second** request can contain it" in text
    contains = output_of(name, "request = json.dumps(turn.request)").splitlines()
    assert [line.rsplit(": ", 1)[1] for line in contains] == ["False", "True", "True"]
    # "each call reads more tokens than the one before" (and the runaway's: "every turn would cost more")
    assert "each call reads more tokens than the one before" in text
    assert "every turn would cost more than the one before" in text
    for code in ("def print_usage(trace):", "print_usage(runaway.trace)"):
        tokens = _input_tokens(output_of(name, code))
        assert len(tokens) >= 3 and all(b > a for a, b in zip(tokens, tokens[1:], strict=False)), code
    # "With only `add`, the model divided in its head and asked to add `0.6666666666666666`. With only
    # `divide`, it asked for the division and then added 5 in its head before answering."
    assert "With only `add`, the model divided in its head and asked to add `0.6666666666666666`" in text
    one_tool = output_of(name, "for offered in [[add], [divide]]:")
    only_add, only_divide = one_tool.strip().split("\n\n")
    assert 'add({"a": 5, "b": 0.6666666666666666})' in only_add and "divide(" not in only_add
    assert "divide(" in only_divide and " add(" not in only_divide
    # "The cap ends it, `stop_reason` says why, and the answer says honestly that there is none."
    runaway = output_of(name, "class CountForever(mock.Policy):")
    assert runaway.startswith("stop_reason: max_turns\n") and "without reaching a final answer" in runaway


TOOL_CALLS = ["lessons/02_tool_calls.ipynb", "solutions/02_tool_calls.ipynb"]


@pytest.mark.parametrize("name", TOOL_CALLS)
def test_what_lesson_02_says_of_its_outputs_is_what_they_show(name):
    text = prose(name)
    # "The arguments are a **string** of JSON, not a dict."
    assert "The arguments are a **string** of JSON, not a dict." in text
    arguments = output_of(name, 'print("finish_reason:", choice.finish_reason)').splitlines()[-1]
    assert arguments.endswith("-> str") and json.loads(
        ast.literal_eval(arguments.split(":", 1)[1].split(" -> ")[0])
    )
    # forced with tool_choice: "OpenAI's API then reports `finish_reason` `"stop"`, with the call right there"
    assert 'reports `finish_reason` `"stop"`, with the call right there in `tool_calls`' in text
    assert output_of(name, "tool_choice={") == "finish_reason: stop\ntool_calls:    ['divide']\n"
    # "`tool_message` writes a dict as JSON, where `str()` would give Python's notation"
    assert "`tool_message` writes a dict as JSON, where `str()` would give Python's notation" in text
    python, written = output_of(name, 'weather = {"city": "Paris"').splitlines()
    assert ast.literal_eval(python) == json.loads(written) and python != written
    # "the model now asks for `add` with the division's result, `0.6666666666666666`, as a real number"
    assert "the model now asks for `add` with the division's result, `0.6666666666666666`" in text
    second = output_of(name, "tools = [tool(add).definition, tool(divide).definition]")
    assert second.startswith("finish_reason: tool_calls\n")
    assert json.loads(ast.literal_eval(second.splitlines()[-1])["arguments"])["b"] == 8 / 12


DISPATCHER = ["lessons/03_dispatcher.ipynb", "solutions/03_dispatcher.ipynb"]


@pytest.mark.parametrize("name", DISPATCHER)
def test_what_lesson_03_says_of_its_outputs_is_what_they_show(name):
    text = prose(name)
    # "A `KeyError` escapes."
    assert "A `KeyError` escapes." in text
    escaped = output_of(name, 'tiniest_dispatch(make_call("sum", \'{"a": 4, "b": 2}\'))')
    assert escaped.startswith("KeyError: 'sum'")
    # "**a text result** arrives wrapped in quotes, with `°` escaped as `\u00b0`" and "**an unknown tool**
    # says `Error: 'sum'`"
    assert "**a text result** arrives wrapped in quotes, with `°` escaped as `\\u00b0`" in text
    caught = dict(line.split("  ", 1) for line in output_of(name, "cases = {").splitlines())
    assert caught["a text result"].strip() == '"light rain, 18\\u00b0C"'
    assert caught["an unknown tool"].strip() == "Error: 'sum'"
    # "The tiny dispatcher helps in one case only, the missing argument"
    assert "The tiny dispatcher helps in one case only, the missing argument" in text
    rows = [
        line.split() for line in output_of(name, "from agent_core.mock.clumsy import MISTAKES").splitlines()
    ]
    tiny_fixed = [row[0] for row in rows if row[1] == "tiny" and "could not" not in " ".join(row)]
    assert tiny_fixed == ["missing_argument"]
    # "with `parallel_tool_calls=False` the model asks for at most one call per turn"
    assert "the model asks for at most one call per turn" in text
    calls = output_of(name, 'question = [{"role": "user", "content": "What are 8/12 and 6/4?"}]').splitlines()
    assert [len(ast.literal_eval(line.split(": ", 1)[1])) for line in calls] == [2, 1]


TOOL_SCHEMA = ["lessons/01_tool_schema.ipynb", "solutions/01_tool_schema.ipynb"]


@pytest.mark.parametrize("name", TOOL_SCHEMA)
def test_what_lesson_01_says_of_its_outputs_is_what_they_show(name):
    text = prose(name)
    # the renamed parameter: "The model did nothing wrong: it used the names it was given."
    assert "The model did nothing wrong: it used the names it was given." in text
    drift = output_of(name, "tools=[search_products_definition],\n)\narguments = json.loads(")
    assert "the model sent: {'query':" in drift and "unexpected keyword argument 'query'" in drift
    # "The customer asked about an order and got a product search." ... "`search_products` happens to
    # mention "order""
    assert "The customer asked about an order and got a product search." in text
    after = cells(name)
    asked = next(i for i, c in enumerate(after) if "Which tool did it pick?" in "".join(c["source"]))
    picked = "".join("".join(o.get("text", "")) for o in after[asked + 1]["outputs"])
    assert picked.startswith("search_products ")
    scores = output_of(name, "from agent_core.mock.chooser import score_tools")
    assert (
        "name='search_products', score=1, matched=('order',)" in scores and "lookup_order', score=0" in scores
    )
    # "Same function, same code, same question: the right tool"
    assert "Same function, same code, same question: the right tool" in text
    assert output_of(name, "shop[0] = tool(").startswith('lookup_order {"order_id": "A-1042"}')
    # "`max_results` is now required, may be `null`, and lost its `default`"
    assert "`max_results` is now required, may be `null`, and lost its `default`" in text
    strict = json.loads(
        all_output_of(name, "strict_search = tool(search_products, strict=True)"), strict=False
    )
    max_results = strict["function"]["parameters"]["properties"]["max_results"]
    assert "max_results" in strict["function"]["parameters"]["required"] and "default" not in max_results
    assert "null" in json.dumps(max_results)


def shown_json(name: str, code: str):
    """the JSON a cell showed with show_json, which wraps long lines on a space inside a string"""
    return json.loads(all_output_of(name, code).replace("\n", " "))


def said(name: str) -> str:
    """the prose of a notebook, its whitespace made single spaces"""
    return " ".join(prose(name).split())


@pytest.mark.parametrize("name", GUARDRAILS)
def test_the_token_budget_of_lesson_05_stops_after_the_call_that_crosses_it(name):
    # "The budget is checked before each model call, so the call that crosses the line is the last one"
    assert "so the call that crosses the line is the last one" in said(name)
    shown = output_of(name, "budget = Limits(max_tokens=600)")
    budget = int(re.search(r"\(max_tokens=(\d+)\)", shown).group(1))
    calls = [int(n) for n in re.findall(r"^call \d+: (\d+) tokens$", shown, flags=re.MULTILINE)]
    assert sum(calls[:-1]) <= budget < sum(calls)
    counted, traced = map(int, re.search(r"Limits counted: (\d+) · the trace says: (\d+)", shown).groups())
    assert counted == traced == sum(calls)


def _ledger(table: str) -> list[list[float]]:
    """token_ledger's rows: call, messages, prompt, completion, re-sent, cached, cumulative in and out"""
    return [
        [number(cell) for cell in row.split()]
        for row in table.splitlines()
        if re.match(r"\s+\d+\s+\d+\s+[\d,]+\s+\d+", row)
    ]


@pytest.mark.parametrize("name", LESSONS)
def test_where_lesson_06_says_the_big_result_is_paid_for(name):
    text = said(name)
    extra = ast.literal_eval(all_output_of(name, "[b.prompt - s.prompt for b, s in zip(").strip())
    assert (
        "Nothing for the first two calls, then about eight thousand more on each of the eight calls" in text
    )
    assert extra[:2] == [0, 0] and len(extra[2:]) == 8 and {round(e, -3) for e in extra[2:]} == {8000}
    assert "One tool result, paid for eight times." in text
    # the recap: "one 8,000-token result cost about 64,000 more input tokens"
    big = number(re.search(r"or ([\d,]+) tokens when big", output_of(name, "big_run = ")).group(1))
    assert f"one {round(big, -3):,.0f}-token result cost about" in text


@pytest.mark.parametrize("name", LESSONS)
def test_the_cache_lesson_06_describes_is_the_cached_column(name):
    assert (
        "Nothing is cached until the repeated prefix reaches 1,024 tokens; from then on each call finds the "
        "previous prompt, rounded down to a step of 128." in said(name)
    )
    rows = _ledger(all_output_of(name, "print(big)"))
    assert len(rows) == 10 and rows[0][5] == 0
    for before, row in zip(rows, rows[1:], strict=False):
        previous = int(before[2])
        assert row[5] == (previous // 128 * 128 if previous >= 1024 else 0), row
    assert any(before[2] < 1024 for before in rows[1:-1])  # some call found nothing


@pytest.mark.parametrize("name", LESSONS)
def test_the_three_ways_lesson_06_compares_rank_as_it_says(name):
    text = said(name)
    found = re.findall(
        r"^\s*(.+?): +([\d,]+) input tokens +answer says '(.*)'$",
        output_of(name, '"pruned to 1,200": check_logs('),
        flags=re.MULTILINE,
    )
    ways = {way: (number(tokens), answer) for way, tokens, answer in found}
    whole, cut, search = ways["whole file"], ways["pruned to 1,200"], ways["search_file"]
    assert "The cut saved most of the tokens, and cost the right answer" in text
    assert cut[0] < whole[0] / 2 and cut[1] != whole[1]
    assert 'let the agent say "at least 0"' in text and "at least 0" in cut[1]
    assert "The search tool is cheaper still and exact." in text
    assert search[0] < cut[0] and search[1] == whole[1]


@pytest.mark.parametrize("name", LESSONS)
def test_the_compaction_lesson_06_reports_is_its_output(name):
    text = said(name)
    code = "compacted_run = run_agent("
    limit = int(
        re.search(
            r"max_tokens=(\d+)",
            "".join(
                next(
                    c["source"]
                    for c in cells(name)
                    if c["cell_type"] == "code" and code in "".join(c["source"])
                )
            ),
        ).group(1)
    )
    shown = output_of(name, code)
    events = re.findall(r"^before call \d+: ", shown, flags=re.MULTILINE)
    largest = number(re.search(r"largest prompt the agent sent: ([\d,]+) tokens", shown).group(1))
    assert "The agent finished, and its prompts stayed under the limit." in text
    assert shown.startswith("answered after ") and largest < limit
    assert "The two summaries cost two extra model calls" in text and len(events) == 2
    assert len(_ledger(output_of(name, "print(token_ledger(compactor.client.trace))"))) == 2
    # "after the first compaction no message said "do not open private/""
    assert 'no message said "do not open private/"' in text
    assert "do not open" not in output_of(name, "print(compactor.events[0].summary)").lower()


CODING = ["lessons/07_coding_agent.ipynb", "solutions/07_coding_agent.ipynb"]


@pytest.mark.parametrize("name", CODING)
def test_what_lesson_07_says_of_its_outputs_is_what_they_show(name):
    text = said(name)
    # "The final diff is one line"
    assert "The final diff is one line" in text
    diff = output_of(name, "print(hunt.diff)").splitlines()
    assert [line for line in diff if line[:1] in ("+", "-") and line[:3] not in ("+++", "---")] == [
        '+    "editor",'
    ]
    # "Everything read stays in the history, and every call re-sends it all"
    assert "Everything read stays in the history, and every call re-sends it all" in text
    calls = re.findall(r"(\d+) messages, +(\d+) input tokens", output_of(name, "for turn in hunt.run.trace:"))
    for column in zip(*calls, strict=True):
        assert len(column) == 11 and all(int(a) < int(b) for a, b in zip(column, column[1:], strict=False))
    # "the dispatcher cuts any observation to `ToolRegistry.max_chars` (4,000), saying how much it cut"
    assert "cuts any observation to `ToolRegistry.max_chars` (4,000), saying how much it cut" in text
    reach = output_of(name, "seq 1 20000")
    assert int(re.match(r"(\d+) characters reach the model", reach).group(1)) <= 4000
    # "Two faults: the comment explaining the rule is gone ..., and the tests never ran. It is right by luck."
    assert "and the tests never ran. It is right by luck." in text
    deleter = output_of(name, "deleter = run_coding_agent(")
    assert "run_command(" not in deleter and "the project's own tests pass: True" in deleter


WIRE_FORMATS = ["lessons/09_wire_formats.ipynb", "solutions/09_wire_formats.ipynb"]


@pytest.mark.parametrize("name", WIRE_FORMATS)
def test_what_lesson_09_says_of_its_outputs_is_what_they_show(name):
    text = said(name)
    # "Answer only one of the two calls. The mock refuses ...; it names the call left without an answer"
    assert "it names the call left without an answer" in text
    asked = re.findall(r'"id": "(toolu_\w+)"', output_of(name, 'print("a tool:", json.dumps(tools[0]))'))
    refused = output_of(name, "half_answered = question + [").splitlines()[0]
    assert len(asked) == 2 and refused.startswith("HTTP 400 ")
    assert asked[1] in refused and asked[0] not in refused
    # "From the second request on only the output travels, yet `input_tokens` still grows turn by turn"
    assert (
        "From the second request on only the output travels, yet `input_tokens` still grows turn by turn"
        in text
    )
    turns = output_of(name, "on_responses = mock.client(mock.Calculator())")
    tokens = [int(n) for n in re.findall(r"input_tokens (\d+)", turns)]
    inputs = re.findall(r"^  input:  (.*)$", turns, flags=re.MULTILINE)
    assert len(tokens) == len(inputs) >= 3 and tokens == sorted(set(tokens))
    assert all(item.startswith('[{"type": "function_call_output"') for item in inputs[1:])
    # "Three mistakes ... Each is refused with the real API's text"
    assert "Each is refused with the real API's text" in text
    mistakes = output_of(name, "unstored = on_responses.responses.create(")
    assert len(re.findall(r"^[^\n]+: HTTP 400$", mistakes, flags=re.MULTILINE)) == 3


@pytest.mark.parametrize("name", ["lessons/10_mcp_tools.ipynb", "solutions/10_mcp_tools.ipynb"])
def test_a_failed_mcp_tool_is_a_result_in_lesson_10_as_it_says(name):
    assert "the response has a `result`, not a JSON-RPC `error`. `isError: true`" in said(name)
    wire = output_of(name, 'paris = weather.call_tool("forecast", {"city": "Paris"})')
    replies = [
        json.loads(part) for part in re.split(r"^(?:->|<-) ", wire, flags=re.MULTILINE) if part.strip()
    ]
    failed = replies[-1]
    assert "error" not in failed and failed["result"]["isError"] is True


@pytest.mark.parametrize("name", EVALUATION)
def test_what_lesson_11_reads_from_its_comparisons_is_what_they_show(name):
    text = said(name)
    compared = output_of(
        name, 'on = evaluate(suite, seeds, noisy(noise), mock.client, guardrails=True, label="guardrails on")'
    )
    intervals = re.search(
        r"pass rate, 95% interval +\d+% \((\d+)%-(\d+)%\) +\d+% \((\d+)%-(\d+)%\)", compared
    )
    off_low, off_high, on_low, on_high = map(int, intervals.groups())
    assert "even the totals over 40 attempts overlap" in text and on_low <= off_high and off_low <= on_high
    assert "The `loop` row fell, and the calls, tokens and dollars per attempt fell with it." in text
    for row in ("model calls per attempt", "tokens per attempt", r"cost per attempt"):
        off, on = (number(v) for v in re.search(rf"{row} +\$?([\d,.]+) +\$?([\d,.]+)", compared).groups())
        assert on < off, row
    # "A failure whose cause is `none` would be the interesting one ... There are none here."
    assert "There are none here." in text and "first fault none" not in compared
    failures = output_of(name, "for attempt in on.attempts:")
    assert failures and not re.search(r"seed \d+: \(\) ->", failures)
    # "the same runs score better" with the kind grader
    assert "and the same runs score better" in text
    kind = output_of(name, "def kind_grader(expected):")
    strict, lenient = map(int, re.search(r"passed +(\d+)/20 +(\d+)/20", kind).groups())
    assert lenient > strict


@pytest.mark.parametrize("name", PLANNING)
def test_what_lesson_12_says_of_its_outputs_is_what_they_show(name):
    text = said(name)
    # "The parent's whole conversation: the task, one call, the two lines, the answer."
    assert "The parent's whole conversation: the task, one call, the two lines, the answer." in text
    parent = shown_json(name, "show_json(delegated.messages)")
    assert [m["role"] for m in parent] == ["user", "assistant", "tool", "assistant"]
    assert len(parent[1]["tool_calls"]) == 1 and len(parent[2]["content"].splitlines()) == 2
    # "The child's first request: a system prompt, the sub-task the parent wrote, and two tools. Nothing of
    # the parent's conversation"
    assert "a system prompt, the sub-task the parent wrote, and two tools. Nothing of the parent's" in text
    child = shown_json(name, "first = explorer.children[0].turns[0].request")
    handed = json.loads(parent[1]["tool_calls"][0]["function"]["arguments"])["task"]
    assert [m["role"] for m in child["messages"]] == ["system", "user"] and len(child["tools"]) == 2
    assert " ".join(child["messages"][1]["content"].split()) == " ".join(handed.split())
    assert handed.split() != parent[0]["content"].split()
    # "The parent's context is several times smaller ... the explorer pays for it"
    assert "The parent's context is several times smaller" in text and "the explorer pays for it" in text
    measured = output_of(name, "alone = run_agent(mock.client(Delegator()), USERS_TASK, reading)")
    assert float(re.search(r"the parent's context is ([\d.]+) times smaller", measured).group(1)) >= 3
    # "the parent's conversation holds one question and a two-line answer instead of five files"
    assert "a two-line answer instead of five files" in text
    reads = int(re.search(r"reads itself: +(\d+) calls", measured).group(1))
    assert reads - 2 == 5  # a list_dir, one read_file per file, the answer
    paid = dict(re.findall(r"^ *([\w ,']+): .*input paid +([\d,]+)", measured, flags=re.MULTILINE))
    assert number(paid["its explorer"]) > number(paid["parent, delegating"])


@pytest.mark.parametrize("name", PLANNING)
def test_the_last_two_of_lesson_12_s_plan_steps_are_refused(name):
    """the cell runs the learner's plan_update: its figures hold in the solution"""
    assert "Your function on a few steps, the last two impossible:" in said(name)
    if name.startswith("solutions/"):
        steps = output_of(name, "items = []\nfor action, text in").splitlines()
        assert [": ERROR: " in step for step in steps] == [False, False, False, True, True]


UNTRUSTED = ["lessons/13_untrusted_content.ipynb", "solutions/13_untrusted_content.ipynb"]


@pytest.mark.parametrize("name", UNTRUSTED)
def test_the_benchmark_figures_lesson_13_states_are_its_table(name):
    text = said(name)
    table = output_of(name, "results.append(measure(DEFENCES[4], seeds, on))")
    rows = {}
    for line in table.splitlines()[1:]:
        label = line[:35].strip()
        rows[label] = [tuple(map(int, pair)) for pair in re.findall(r"(\d+)/(\d+)", line)]
        rows[label].append(re.findall(r"(\d+)% \((\d+)%-(\d+)%\)", line))
    none, marking = rows["no defence"], rows["marking untrusted text"]
    refuse, ask, plan = (
        rows["trifecta rule (refuse)"],
        rows["trifecta rule (a person approves)"],
        rows["plan first"],
    )
    # "Our suite: 5 user tasks × 3 injection tasks, 2 seeds"
    assert "Our suite: 5 user tasks × 3 injection tasks, 2 seeds" in text
    assert none[0][1] == 5 * 2 and none[2][1] == 5 * 3 * 2
    (succeeded, attacks), rate = none[2], none[3][2][0]
    assert f"**No defence**: {succeeded} of {attacks} attacks succeeded ({rate}%)" in text
    assert "The user's task was still done every time" in text and none[1][0] == none[1][1]
    (lowered, _), rate = marking[2], marking[3][2][0]
    assert f"lowered that to {lowered} of {attacks} ({rate}%), at no cost in utility" in text
    assert marking[:2] == none[:2] and f"needs only one of those {rate}%" in text
    assert (
        f"**The trifecta rule, refusing**: {refuse[2][0]} of {attacks}, but benign utility fell to " in text
    )
    assert f"fell to {refuse[0][0]} of {refuse[0][1]}:" in text and refuse[0][0] < refuse[0][1]
    for row in (ask, plan):
        assert (
            row[2][0] == 0 and row[0][0] == row[0][1] and row[1][0] == row[1][1]
        )  # 0 of 30, every task done
    assert (
        f"0 of {attacks} and every task done" in text
        and f"**Plan first**: 0 of {attacks}, and every task" in text
    )
    # "with 0 of 30 the true rate may still be up to 11%"
    assert f"with 0 of {attacks} the true rate may still be up to {plan[3][2][2]}%" in text


@pytest.mark.parametrize("name", UNTRUSTED)
def test_the_answer_of_lesson_13_s_leak_says_nothing_about_it(name):
    assert "The key left, and the answer says nothing about it" in said(name)
    shown = output_of(name, 'show_json(run.trace.turns[2].response["choices"][0]["message"]["tool_calls"])')
    sent, answer = shown.split("\n", 1)
    assert "backup@evil.example" in sent and "sk-live" in sent
    assert "evil" not in answer and "key" not in answer.lower() and "sent to carol@partner.example" in answer


@pytest.mark.parametrize("name", WIRE_FORMATS)
def test_the_table_of_differences_of_lesson_09_is_the_pieces_it_shows(name):
    """ "The differences that bite, each visible above": every cell of the table, read from the pieces"""
    pieces: dict[str, dict] = {}
    for line in output_of(name, "for name, (system, call, result) in pieces.items():").splitlines():
        if not line.startswith(" "):
            shape = pieces.setdefault(line, {})
        else:
            part, _, value = line.strip().partition(": ")
            shape[part] = json.loads(value)
    table = [
        row.split("|")[1:-1] for row in prose(name).splitlines() if row.startswith("| system prompt |")
    ] + [row.split("|")[1:-1] for row in prose(name).splitlines() if row.startswith("| arguments |")]
    assert [cell.strip() for cell in table[0]][1:] == [
        "a `system` message",
        "`instructions`",
        "top-level `system`",
        "a `system` message",
    ]
    cc, responses, anthropic, ollama = (
        pieces[k] for k in ("Chat Completions", "Responses", "Anthropic", "Ollama")
    )
    assert cc["system"]["role"] == ollama["system"]["role"] == "system"
    assert "instructions" in responses["system"] and "system" in anthropic["system"]
    # a call, and its arguments: a JSON string, a JSON string, an object, an object
    assert [cell.strip() for cell in table[1]][1:] == [
        "a JSON **string**",
        "a JSON **string**",
        "an **object** (`input`)",
        "an **object**",
    ]
    assert isinstance(cc["call"]["function"]["arguments"], str) and isinstance(
        responses["call"]["arguments"], str
    )
    assert isinstance(anthropic["call"]["input"], dict) and isinstance(
        ollama["call"]["function"]["arguments"], dict
    )
    assert responses["call"]["type"] == "function_call" and anthropic["call"]["type"] == "tool_use"
    assert "id" not in ollama["call"]  # "in `tool_calls`, no `id`"
    # a result, and what ties it to its call
    assert cc["result"]["role"] == "tool" and cc["result"]["tool_call_id"] == cc["call"]["id"]
    assert responses["result"]["type"] == "function_call_output"
    assert responses["result"]["call_id"] == responses["call"]["call_id"]
    assert (
        anthropic["result"]["role"] == "user" and anthropic["result"]["content"][0]["type"] == "tool_result"
    )
    assert anthropic["result"]["content"][0]["tool_use_id"] == anthropic["call"]["id"]
    assert ollama["result"]["role"] == "tool" and ollama["result"]["tool_name"] == "divide"
    assert not {"tool_call_id", "call_id", "tool_use_id"} & set(ollama["result"])  # "none: order and name"


@pytest.mark.parametrize("name", LESSONS)
def test_how_often_lesson_06_says_each_file_was_sent(name):
    # "The fifth call sends nine messages; seven of them went out before, some four times already" and "Each
    # file's text was sent once by the call after it was read, and again by every call after that: the first
    # file four times, the last one once."
    text = said(name)
    assert "the first file four times, the last one once" in text and "some four times already" in text
    new = re.findall(
        r"^call (\d+): sends (\d+) messages, (\d+) new: (.*)$", output_of(name, "new_messages(i)"), re.M
    )
    calls = len(new)
    results = [
        int(call) for call, _, _, roles in new if "'tool'" in roles
    ]  # the call that first sends each result
    assert [calls - first + 1 for first in (results[0], results[-1])] == [4, 1]
    assert int(new[-1][1]) - int(new[-1][2]) == 7 and calls - 1 == 4  # the user's task: sent by calls 1 to 4


@pytest.mark.parametrize("name", ["lessons/08_real_models.ipynb", "solutions/08_real_models.ipynb"])
def test_lesson_08_s_descriptions_name_the_variable_never_the_key(name):
    assert "The description names the variable the key came from, never the key." in said(name)
    described = [
        line for line in output_of(name, "for env in examples:").splitlines() if line.startswith("   ->")
    ]
    assert len(described) == 3 and "key from $OPENAI_API_KEY" in described[1]
    assert not any("sk-placeholder" in line for line in described)


@pytest.mark.parametrize("name", EVALUATION)
def test_lesson_11_s_progress_lines_are_a_dot_per_pass(name):
    assert "a dot for a pass, an F for a failure" in said(name)
    progress = re.findall(
        r"^(\S.*?) +([.F]+) +(\d+)/(\d+) passed$",
        output_of(name, 'off = evaluate(suite, seeds, noisy(noise), mock.client, label="guardrails off")'),
        flags=re.MULTILINE,
    )
    assert len(progress) == 5  # "four calculator tasks and the discount fix"
    assert all(marks.count(".") == int(passed) and len(marks) == int(n) for _, marks, passed, n in progress)


@pytest.mark.parametrize("name", UNTRUSTED)
def test_lesson_13_s_mock_obeys_at_the_rates_it_states(name):
    """the rates the prose gives Gullible are its defaults: 0.8, and 0.3 inside a marked block"""
    import inspect

    from agent_core.mock.gullible import Gullible

    defaults = {k: p.default for k, p in inspect.signature(Gullible).parameters.items()}
    assert f"it obeys with probability {defaults['obey']} ({defaults['obey_marked']} when" in said(name)
    assert f"it obeys marked text at {defaults['obey_marked']} instead of {defaults['obey']}" in said(name)


@pytest.mark.parametrize("name", PLANNING)
def test_the_count_of_plans_lesson_12_says_check_12_1_runs_is_its_own(name):
    from agent_core.checks import lesson12

    runs, fixed = len(lesson12.plan_scenarios()), len(lesson12.PLAN_FIXED)
    stated = (
        f"on {runs} lists of steps, each from empty plans: {fixed} readable ones, then {runs - fixed} gen"
    )
    assert stated in said(name)


@pytest.mark.parametrize("name", LESSONS)
def test_lesson_06_s_cache_pays_only_from_a_later_call(name):
    # "The write premium means it pays off only from a later call"
    assert "The write premium means it pays off only from a later call" in said(name)
    shown = output_of(name, "plain, cached = call_costs(")
    costs = [tuple(map(float, pair)) for pair in re.findall(r"without \$([\d.]+) +with \$([\d.]+)", shown)]
    first = int(re.search(r"caching pays from call (\d+)", shown).group(1))
    assert first > 1 and costs[0][1] > costs[0][0] and costs[first - 1][1] < costs[first - 1][0]


@pytest.mark.parametrize("name", LESSONS)
def test_lesson_06_s_folder_run_lists_then_opens_each_file(name):
    # "run the agent on the whole folder: it lists the files, then opens them one by one"
    assert "it lists the files, then opens them one by one" in said(name)
    shown = output_of(name, "long_run = run_agent(")
    calls = int(re.match(r"(\d+) calls, ", shown).group(1))
    opened = int(re.search(r"Total: \d+ in (\d+) files\.", shown).group(1))
    assert calls == 1 + opened + 1  # list_files, one read per file, the answer


@pytest.mark.parametrize("name", UNTRUSTED)
def test_lesson_13_s_assistant_and_its_refused_tasks_are_the_ones_it_names(name):
    text = said(name)
    tools = ast.literal_eval(output_of(name, "world = Mailroom()\nprint(").splitlines()[0])
    assert f"A small assistant with {WORDS[len(tools)]} tools over one world" in text
    # "benign utility fell to 6 of 10: the two tasks that send after reading (reply to Carol, post the news)"
    table = output_of(name, "results.append(measure(DEFENCES[4], seeds, on))")
    done, runs = map(int, re.search(r"^trifecta rule \(refuse\) +(\d+)/(\d+)", table, re.MULTILINE).groups())
    assert "the two tasks that send after reading (reply to Carol, post the news) cannot finish" in text
    assert runs - done == 2 * 2  # two tasks, two seeds each
