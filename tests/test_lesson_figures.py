"""A figure the prose states about an output is the output's: each is read from the stored outputs, which
nbval checks against a fresh run, and compared with the sentence that states it (lessons 00 to 06, and 11)."""

import ast
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

# lessons 07-12: (notebook, words of the prose, a code cell's words, what its output must hold). A sentence
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
]


@pytest.mark.parametrize("folder", ["lessons", "solutions"])
@pytest.mark.parametrize(("notebook", "claim", "code", "printed"), OUTPUT_CLAIMS)
def test_what_lessons_07_to_12_say_a_cell_printed_is_its_output(folder, notebook, claim, code, printed):
    name = f"{folder}/{notebook}.ipynb"
    assert claim in " ".join(prose(name).split()), f"{name}: the prose no longer says {claim!r}"
    output = output_of(name, code)
    missing = [text for text in printed if text not in output]
    assert not missing, f"{name}: {claim!r}, but the cell printed no {missing}"


def all_output_of(name: str, code: str) -> str:
    """every output of the one code cell that contains `code`: printed text and displayed values"""
    found = [c for c in cells(name) if c["cell_type"] == "code" and code in "".join(c["source"])]
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
