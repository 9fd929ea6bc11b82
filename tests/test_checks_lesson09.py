"""Lesson 09's exercise checks pass the solutions and name what is wrong in each tempting wrong answer."""

import copy

import pytest
from hash_seeds import under_two_hash_seeds

from agent_core.anthropic_loop import run_on_anthropic
from agent_core.checks.lesson09 import CONVERSATION, check_anthropic, check_anthropic_loop
from agent_core.formats import to_anthropic

# --- Exercise 9.1 ---------------------------------------------------------------------------


SYSTEM = CONVERSATION[0]["content"]
ERROR_TEXT = CONVERSATION[4]["content"]


def by_hand():
    """the solution, written out as a learner would"""
    return {
        "system": SYSTEM,
        "messages": [
            {"role": "user", "content": "What are 8/12 and 1/0?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "call_a", "name": "divide", "input": {"a": 8, "b": 12}},
                    {"type": "tool_use", "id": "call_b", "name": "divide", "input": {"a": 1, "b": 0}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "call_a", "content": "0.6666666666666666"},
                    {"type": "tool_result", "tool_use_id": "call_b", "content": ERROR_TEXT, "is_error": True},
                    {"type": "text", "text": "If one of them failed, say why in one sentence."},
                ],
            },
        ],
    }


def test_the_hand_written_request_and_to_anthropic_both_pass(capsys):
    assert check_anthropic(by_hand())
    assert check_anthropic(to_anthropic(CONVERSATION))
    assert "results as tool_result blocks in ONE user message" in capsys.readouterr().out


def test_equivalent_spellings_pass():
    request = by_hand()
    request["messages"][0]["content"] = [{"type": "text", "text": "What are 8/12 and 1/0?"}]
    results = request["messages"][2]["content"]
    results[0]["is_error"] = False
    results[1]["content"] = [{"type": "text", "text": ERROR_TEXT}]
    results[0], results[1] = results[1], results[0]  # results are paired by id, not by position
    assert check_anthropic(request)


def test_a_request_written_differently_passes(capsys):
    """right, written differently: keys in another order, the arguments' numbers as floats (JSON's 8 and 8.0
    are one number), a tool's text in two text blocks"""
    request = by_hand()
    request = {"messages": request["messages"], "system": request["system"]}
    uses = request["messages"][1]["content"]
    uses[0] = {"input": {"b": 12.0, "a": 8.0}, "name": "divide", "id": "call_a", "type": "tool_use"}
    failed = request["messages"][2]["content"][1]
    failed["content"] = [{"type": "text", "text": ERROR_TEXT[:20]}, {"type": "text", "text": ERROR_TEXT[20:]}]
    assert check_anthropic(request), capsys.readouterr().out


def test_an_argument_of_another_value_or_type_is_still_named(capsys):
    request = by_hand()
    request["messages"][1]["content"][0]["input"] = {"a": 8.5, "b": 12}
    assert not check_anthropic(request)
    assert "input.a: expected 8, found 8.5" in capsys.readouterr().out
    request["messages"][1]["content"][0]["input"] = {"a": "8", "b": 12}
    assert not check_anthropic(request)
    assert "input.a" in capsys.readouterr().out


def test_the_system_prompt_as_a_list_of_text_blocks_passes(capsys):
    request = by_hand()
    request["system"] = [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}]
    assert check_anthropic(request)
    request["system"] = [{"type": "text", "text": "You are a careful assistant."}]
    assert not check_anthropic(request)
    assert "request['system'] should be the system prompt" in capsys.readouterr().out


def test_the_chat_completions_messages_as_they_are_break_three_rules(capsys):
    assert not check_anthropic({"system": None, "messages": copy.deepcopy(CONVERSATION)})
    out = capsys.readouterr().out
    assert "Anthropic has no 'system' role" in out
    assert "Anthropic has no 'tool' role" in out
    assert "request['system'] should be the system prompt" in out


def test_results_in_separate_user_messages_are_refused(capsys):
    request = by_hand()
    results = request["messages"].pop()["content"]
    request["messages"] += [{"role": "user", "content": [block]} for block in results]
    assert not check_anthropic(request)
    assert "messages[2] and messages[3] are both 'user' messages" in capsys.readouterr().out


def test_a_json_string_input_and_a_missing_is_error_are_named(capsys):
    request = by_hand()
    request["messages"][1]["content"][0]["input"] = '{"a": 8, "b": 12}'
    del request["messages"][2]["content"][1]["is_error"]
    assert not check_anthropic(request)
    out = capsys.readouterr().out
    assert "tool_use call_a: 'input' is an object" in out
    assert "the result for call_b is a failure: mark it with 'is_error': True" in out


def test_a_result_content_not_a_string_or_without_its_error_prefix_is_named(capsys):
    request = by_hand()
    request["messages"][2]["content"][0]["content"] = 0.6666666666666666  # the number, not its text
    assert not check_anthropic(request)
    out = capsys.readouterr().out
    assert "the tool_result for call_a should carry the tool's text as 'content', a string" in out
    assert "yours is a float: 0.6666666666666666" in out
    request = by_hand()
    request["messages"][2]["content"][1]["content"] = ERROR_TEXT.removeprefix("ERROR: ")
    assert not check_anthropic(request)
    out = capsys.readouterr().out
    assert "the tool_result for call_b should carry the tool's text as 'content' whole: " in out
    assert "the failure's 'ERROR: ' is missing" in out
    request = by_hand()
    request["messages"][2]["content"][0]["content"] = "0.67"
    assert not check_anthropic(request)
    assert "as 'content', '0.6666666666666666'; yours is '0.67'" in capsys.readouterr().out


def test_text_before_the_results_and_an_unanswered_call_are_named(capsys):
    request = by_hand()
    content = request["messages"][2]["content"]
    request["messages"][2]["content"] = [content[2], content[0], content[1]]
    assert not check_anthropic(request)
    assert "the tool_result blocks come first, then the text" in capsys.readouterr().out
    request = by_hand()
    del request["messages"][2]["content"][1]
    assert not check_anthropic(request)
    assert "no tool_result with tool_use_id 'call_b'" in capsys.readouterr().out


def test_a_small_slip_is_shown_as_the_first_difference(capsys):
    request = by_hand()
    request["messages"][1]["content"][1]["input"] = {"a": 1, "b": "0"}
    assert not check_anthropic(request)
    assert "at messages[1].content[1].input.b: expected 0, found '0'" in capsys.readouterr().out


@pytest.mark.parametrize(
    "request_", ["text", None, {"messages": "x"}, {"system": SYSTEM, "messages": [1, 2, 3]}]
)
def test_odd_shapes_are_explained_not_raised(request_, capsys):
    assert not check_anthropic(request_)
    assert "✗ Exercise 9.1: not yet." in capsys.readouterr().out


# --- Exercise 9.2 ---------------------------------------------------------------------------
# Each wrong loop below is the reference with one tempting shortcut; the most tempting first.


def answered(functions, block):
    """(output, failed) for one tool_use block, as the reference computes it"""
    try:
        return str(functions[block.name](**block.input)), False
    except Exception as error:
        return f"{type(error).__name__}: {error}", True


def results_split(client, task, tools, functions, max_turns=6):
    """one user message per tool_result, as Chat Completions has one tool message per result"""
    messages = [{"role": "user", "content": task}]
    for _ in range(max_turns):
        response = client.messages.create(model="mock-model", max_tokens=1024, tools=tools, messages=messages)
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason != "tool_use":
            return "".join(b.text for b in response.content if b.type == "text")
        for block in response.content:
            if block.type == "tool_use":
                output, failed = answered(functions, block)
                result = {
                    "type": "tool_result",
                    "tool_use_id": block.id,
                    "content": output,
                    "is_error": failed,
                }
                messages.append({"role": "user", "content": [result]})
    raise RuntimeError("no answer")


def calls_only(client, task, tools, functions, max_turns=6, keep=("tool_use",)):
    """appends only some of the reply's blocks (by default drops its text)"""
    messages = [{"role": "user", "content": task}]
    for _ in range(max_turns):
        response = client.messages.create(model="mock-model", max_tokens=1024, tools=tools, messages=messages)
        messages.append({"role": "assistant", "content": [b for b in response.content if b.type in keep]})
        if response.stop_reason != "tool_use":
            return "".join(b.text for b in response.content if b.type == "text")
        results = []
        for block in response.content:
            if block.type == "tool_use":
                output, failed = answered(functions, block)
                results.append(
                    {"type": "tool_result", "tool_use_id": block.id, "content": output, "is_error": failed}
                )
        messages.append({"role": "user", "content": results})
    raise RuntimeError("no answer")


def text_only(client, task, tools, functions, max_turns=6):
    return calls_only(client, task, tools, functions, max_turns, keep=("text",))


def loop(
    client,
    task,
    tools,
    functions,
    max_turns=6,
    *,
    turns=None,
    stop=None,
    answer=None,
    tools_after=True,
    read=None,
    dump=None,
):
    """the reference loop with one rule swapped out (the keyword arguments)"""
    messages = [{"role": "user", "content": task}]
    n = 0
    while turns is None or n < turns(max_turns):
        n += 1
        sent = tools if (tools_after or n == 1) else []
        response = client.messages.create(model="mock-model", max_tokens=1024, tools=sent, messages=messages)
        content = response.content if dump is None else [dump(b) for b in response.content]
        messages.append({"role": "assistant", "content": content})
        if (stop or (lambda r: r.stop_reason != "tool_use"))(response):
            return (read or (lambda r: "".join(b.text for b in r.content if b.type == "text")))(response)
        results = [
            r for b in response.content if b.type == "tool_use" for r in (answer or default)(functions, b)
        ]
        messages.append({"role": "user", "content": results})
    raise RuntimeError("no answer")


def default(functions, block):
    output, failed = answered(functions, block)
    return [{"type": "tool_result", "tool_use_id": block.id, "content": output, "is_error": failed}]


def without_is_error(functions, block):
    output, _ = answered(functions, block)
    return [{"type": "tool_result", "tool_use_id": block.id, "content": output}]


def skip_failures(functions, block):
    output, failed = answered(functions, block)
    return [] if failed else [{"type": "tool_result", "tool_use_id": block.id, "content": output}]


def uncaught(functions, block):
    return [
        {"type": "tool_result", "tool_use_id": block.id, "content": str(functions[block.name](**block.input))}
    ]


def no_cap(client, task, tools, functions, max_turns=6):
    messages = [{"role": "user", "content": task}]
    while True:
        response = client.messages.create(model="mock-model", max_tokens=1024, tools=tools, messages=messages)
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason != "tool_use":
            return "".join(b.text for b in response.content if b.type == "text")
        messages.append(
            {
                "role": "user",
                "content": [
                    r for b in response.content if b.type == "tool_use" for r in default(functions, b)
                ],
            }
        )


def caps_tool_calls(client, task, tools, functions, max_turns=6):
    """counts tool calls against max_turns, not model calls"""
    messages, used = [{"role": "user", "content": task}], 0
    while used < max_turns:
        response = client.messages.create(model="mock-model", max_tokens=1024, tools=tools, messages=messages)
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason != "tool_use":
            return "".join(b.text for b in response.content if b.type == "text")
        results = [r for b in response.content if b.type == "tool_use" for r in default(functions, b)]
        used += len(results)
        messages.append({"role": "user", "content": results})
    raise RuntimeError("no answer")


def returns_at_cap(client, task, tools, functions, max_turns=6):
    """stops at the cap but returns quietly, as if the run had ended well"""
    try:
        return loop(client, task, tools, functions, max_turns, turns=lambda m: m)
    except RuntimeError:
        return "I could not finish."


def hard_coded(client, task, tools, functions, max_turns=6):
    loop(client, task, tools, functions, max_turns)
    return "5 + 8/12 = 5.666666666666667"


WRONG_LOOPS = {
    "results in several user messages": (results_split, "in 2 user messages: put every tool_result"),
    "only the tool_use blocks appended": (calls_only, "append the full reply, every content block"),
    "only the text blocks appended": (text_only, "append the full reply, every content block"),
    "is_error missing": (
        lambda *a, **k: loop(*a, **k, answer=without_is_error),
        "failed, but its tool_result does not say 'is_error': True",
    ),
    "a failed call left unanswered": (
        lambda *a, **k: loop(*a, **k, answer=skip_failures),
        "got no tool_result: every call is answered, a failed one too",
    ),
    "a tool's exception not caught": (
        lambda *a, **k: loop(*a, **k, answer=uncaught),
        "ZeroDivisionError escaped your loop",
    ),
    "stops as soon as the reply has text": (
        lambda *a, **k: loop(*a, **k, stop=lambda r: r.content[0].type == "text"),
        "stopped after 1 model call(s) although the last reply's stop_reason was 'tool_use'",
    ),
    "goes on while the reply has a tool_use block": (
        lambda *a, **k: loop(*a, **k, stop=lambda r: not any(b.type == "tool_use" for b in r.content)),
        "a reply cut off at max_tokens in the middle of a tool_use block: reply 1 had stop_reason "
        "'max_tokens' and your loop called the model again",
    ),
    "goes on until stop_reason is end_turn": (
        lambda *a, **k: loop(*a, **k, stop=lambda r: r.stop_reason == "end_turn"),
        "had stop_reason 'max_tokens' and your loop called the model again",
    ),
    "blocks turned into dicts without exclude_none": (
        lambda *a, **k: loop(*a, **k, dump=lambda block: block.model_dump()),
        "tool_use.caller: Extra inputs are not permitted",
    ),
    "no cap": (no_cap, "your loop never stopped; the check cut it off after 12 model calls"),
    "one call too many": (
        lambda *a, **k: loop(*a, **k, turns=lambda m: m + 1),
        "make exactly max_turns model calls before giving up; your loop made 4",
    ),
    "one call too few": (
        lambda *a, **k: loop(*a, **k, turns=lambda m: m - 1),
        "your loop made 2",
    ),
    "max_turns counted in tool calls": (caps_tool_calls, "max_turns=3: make exactly max_turns model calls"),
    "returns quietly at the cap": (returns_at_cap, "raise RuntimeError; it returned 'I could not finish.'"),
    "tools sent on the first call only": (
        lambda *a, **k: loop(*a, **k, tools_after=False),
        "request 2 does not carry the tools it was given",
    ),
    "a hard-coded answer": (hard_coded, "return the text of the last reply"),
    "text blocks joined with newlines": (
        lambda *a, **k: loop(
            *a, **k, read=lambda r: "\n".join(b.text for b in r.content if b.type == "text")
        ),
        "yours returned '8/12 is about 0.667. \\n1/0 cannot be computed: division by zero.'",
    ),
    "only the first text block returned": (
        lambda *a, **k: loop(*a, **k, read=lambda r: next(b.text for b in r.content if b.type == "text")),
        "a final answer in two text blocks: return the text "
        "of the last reply (every text block of it, joined with no separator), "
        "'8/12 is about 0.667. 1/0 cannot be computed: division "
        "by zero.'; yours returned '8/12 is about 0.667. '",
    ),
}


def test_the_reference_loop_passes(capsys):
    assert check_anthropic_loop(run_on_anthropic)
    assert "✓ Exercise 9.2" in capsys.readouterr().out


@pytest.mark.parametrize("wrong", WRONG_LOOPS)
def test_each_wrong_loop_is_refused_with_its_fault_named(wrong, capsys):
    function, fault = WRONG_LOOPS[wrong]
    assert not check_anthropic_loop(function)
    out = capsys.readouterr().out
    assert "✗ Exercise 9.2: not yet." in out
    assert fault in out, out


def test_the_empty_stub_is_refused_without_raising(capsys):
    def stub(client, task, tools, functions, max_turns=6):
        pass  # YOUR CODE HERE

    assert not check_anthropic_loop(stub)
    assert "expected 3 model calls, your loop made 0" in capsys.readouterr().out


def test_a_loop_with_the_wrong_parameters_is_reported_not_raised(capsys):
    def without_max_turns(client, task, tools, functions):
        return None

    assert not check_anthropic_loop(without_max_turns)
    assert "your function raised TypeError" in capsys.readouterr().out


def test_check_anthropic_loop_runs_generated_scenarios_once_the_readable_ones_pass(capsys):
    def forgets_failures_after_the_first_turn(client, task, tools, functions, max_turns=6):
        """right on every readable run (one turn of calls at most), wrong when a later turn's call fails"""
        messages = [{"role": "user", "content": task}]
        for turn in range(max_turns):
            response = client.messages.create(
                model="mock-model", max_tokens=1024, tools=tools, messages=messages
            )
            messages.append({"role": "assistant", "content": response.content})
            if response.stop_reason != "tool_use":
                return "".join(block.text for block in response.content if block.type == "text")
            results = []
            for block in response.content:
                if block.type == "tool_use":
                    try:
                        output, failed = str(functions[block.name](**block.input)), False
                    except Exception as error:
                        output, failed = f"{type(error).__name__}: {error}", turn == 0
                    results.append(
                        {
                            "type": "tool_result",
                            "tool_use_id": block.id,
                            "content": output,
                            "is_error": failed,
                        }
                    )
            messages.append({"role": "user", "content": results})
        raise RuntimeError(f"no final answer after {max_turns} model calls")

    first, second = (
        check_anthropic_loop(forgets_failures_after_the_first_turn),
        check_anthropic_loop(forgets_failures_after_the_first_turn),
    )
    out = capsys.readouterr().out.split("✗")
    assert not first and first.scenarios == second.scenarios == 20 and out[1] == out[2]
    assert (
        "a model that asks" in out[1]
        and "failed, but its tool_result does not say 'is_error': True" in out[1]
    )


def loop_for_else(client, task, tools, functions, max_turns=6):
    """right, written differently: for/else, the reply's blocks kept as plain dicts, every result built
    by one helper, the answer's text blocks joined at the end"""

    def result_for(block):
        try:
            return {
                "type": "tool_result",
                "tool_use_id": block.id,
                "content": str(functions[block.name](**block.input)),
            }
        except Exception as error:
            return {"type": "tool_result", "tool_use_id": block.id, "content": repr(error), "is_error": True}

    history = [{"role": "user", "content": [{"type": "text", "text": task}]}]
    for _ in range(max_turns):
        reply = client.messages.create(messages=history, tools=tools, model="mock-model", max_tokens=2048)
        history.append(
            {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in reply.content]}
        )
        if reply.stop_reason != "tool_use":
            break
        history.append(
            {"role": "user", "content": [result_for(b) for b in reply.content if b.type == "tool_use"]}
        )
    else:
        raise RuntimeError(f"gave up: {max_turns} model calls and still no answer")
    return "".join([b.text for b in reply.content if b.type == "text"])


def loop_with_a_counter(client, task, tools, functions, max_turns=6):
    """right, written differently: a while loop counting model calls, results by a helper per block"""
    return loop(client, task, tools, functions, max_turns, turns=lambda cap: cap)


@pytest.mark.parametrize("right", [loop_with_a_counter, loop_for_else])
def test_right_loops_written_differently_pass(right, capsys):
    result = check_anthropic_loop(right)
    assert result and result.scenarios == 20, capsys.readouterr().out


def test_check_anthropic_gives_the_same_verdict_every_time(capsys):
    wrong = to_anthropic(CONVERSATION)
    wrong["messages"][2]["content"].reverse()  # the text before the results
    first, second = check_anthropic(wrong), check_anthropic(wrong)
    out = capsys.readouterr().out.split("✗")
    assert not first and first.scenarios == second.scenarios == 0 and out[1] == out[2]


def test_the_lesson_09_checks_give_the_same_verdicts_under_another_hash_seed():
    """each check on a wrong answer: the same words whatever the order of a set"""
    outputs = under_two_hash_seeds(
        "test_checks_lesson09",
        "c.check_anthropic({}); c.check_anthropic_loop(t.results_split)",
    )
    assert len(outputs) == 1 and outputs.pop().count("✗ Exercise 9.") == 2
