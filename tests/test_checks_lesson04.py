"""Lesson 04's exercise checks: they pass the solutions and name what is wrong in tempting wrong answers."""

import json

import pytest
from hash_seeds import under_two_hash_seeds

from agent_core.calls import assistant_message, tool_calls_of
from agent_core.checks.lesson04 import PREDICTION_CASES, check_my_run, check_predictions

RIGHT = dict(zip(PREDICTION_CASES, [3, 3, 2, 2, 4, 1], strict=True))


def by_rule(*calls):
    return dict(zip(PREDICTION_CASES, calls, strict=True))


# the rules a learner is tempted by, most tempting first; each tells on at least one case
WRONG_RULES = [
    (
        by_rule(3, 4, 2, 3, 4, 1),
        "'(1 + 2) * (3 + 4)' with add, multiply: you predicted 4; too many",
    ),  # per call
    (
        by_rule(3, 4, 4, 3, 4, 4),
        "'(1 + 2) * (3 + 4)' with multiply: you predicted 4; too many",
    ),  # operations + 1
    (by_rule(2, 2, 1, 1, 3, 0), "'2*3 + 4' with add, multiply: you predicted 2; too few"),  # no answer call
    (by_rule(3, 3, 3, 2, 4, 4), "'(1 + 2) * (3 + 4)' with multiply: you predicted 3; too many"),  # all tools
    (
        by_rule(3, 3, 2, 2, 4, 0),
        "'1 + 2 + 3 + 4' with no tools: you predicted 0; too few",
    ),  # no tool, no call
    (by_rule(3, 3, 2, 2, 2, 1), "'1 + 2 + 3 + 4' with add: you predicted 2; too few"),  # a sum in parallel
    (  # one more for the user's question: a chain has nothing independent to blame
        by_rule(3, 3, 2, 2, 5, 1),
        "'1 + 2 + 3 + 4' with add: you predicted 5; too many. Here each operation needs the result of the "
        "one before it",
    ),
    (by_rule(3, 3, 2, 2, 4, 2), "'1 + 2 + 3 + 4' with no tools: you predicted 2; too many. With no tools"),
]


@pytest.mark.parametrize(("wrong", "message"), WRONG_RULES)
def test_check_predictions_rejects_each_tempting_rule(wrong, message, capsys):
    result = check_predictions(wrong)
    assert not result and result.scenarios == 6
    assert message in capsys.readouterr().out


@pytest.mark.parametrize(
    "right",
    [
        {  # the cases in another order, a case's tools the other way round
            ("1 + 2 + 3 + 4", ()): 1,
            ("2*3 + 4", ("multiply", "add")): 3,
            ("10 - 4 and 6/3", ("divide", "subtract")): 2,
            ("(1 + 2) * (3 + 4)", ("multiply",)): 2,
            ("1 + 2 + 3 + 4", ("add",)): 4,
            ("(1 + 2) * (3 + 4)", ("multiply", "add")): 3,
        },
        {  # built from a table, the tools given as lists
            (expression, tuple(tools)): calls
            for expression, tools, calls in [
                ("2*3 + 4", ["add", "multiply"], 3),
                ("(1 + 2) * (3 + 4)", ["add", "multiply"], 3),
                ("(1 + 2) * (3 + 4)", ["multiply"], 2),
                ("10 - 4 and 6/3", ["subtract", "divide"], 2),
                ("1 + 2 + 3 + 4", ["add"], 4),
                ("1 + 2 + 3 + 4", [], 1),
            ]
        },
        {**RIGHT, ("4+2 and 7+8", ("add",)): 2},  # a case of the learner's own, predicted right
    ],
)
def test_check_predictions_accepts_right_answers_written_differently(right, capsys):
    result = check_predictions(right)
    assert result and result.scenarios == len(right)
    assert "✓ Exercise 4.2" in capsys.readouterr().out


def test_check_predictions_gives_the_same_verdict_every_time(capsys):
    first, second = check_predictions(WRONG_RULES[0][0]), check_predictions(WRONG_RULES[0][0])
    out = capsys.readouterr().out.split("✗")
    assert first.scenarios == second.scenarios == 6 and out[1] == out[2]


def test_right_predictions_pass(capsys):
    assert check_predictions(RIGHT)
    assert "all 6 predictions match the runs" in capsys.readouterr().out


def test_the_unsolved_stub_says_how_many_are_left(capsys):
    assert not check_predictions(dict.fromkeys(PREDICTION_CASES))
    out = capsys.readouterr().out
    assert "6 case(s) still say None" in out
    assert out.count("\n  - ") == 1  # one line, not six


def test_a_wrong_prediction_says_which_case_and_which_direction(capsys):
    wrong = {**RIGHT, ("1 + 2 + 3 + 4", ("add",)): 2, ("1 + 2 + 3 + 4", ()): 4}
    assert not check_predictions(wrong)
    out = capsys.readouterr().out
    assert "'1 + 2 + 3 + 4' with add: you predicted 2; too few" in out
    assert "'1 + 2 + 3 + 4' with no tools: you predicted 4; too many" in out
    assert "3" not in out.split("too few")[1].split("\n")[0]  # the right number is not given away


def test_missing_cases_and_values_that_are_not_numbers_are_named(capsys):
    answers = dict(RIGHT)
    del answers[("2*3 + 4", ("add", "multiply"))]
    answers[("10 - 4 and 6/3", ("subtract", "divide"))] = "two"
    answers[("1 + 2 + 3 + 4", ())] = True
    answers[("2 ** 3", ("power",))] = 2
    assert not check_predictions(answers)
    out = capsys.readouterr().out
    assert "keep the case ('2*3 + 4', ('add', 'multiply'))" in out
    assert "predict a whole number of model calls, not 'two'" in out
    assert "not True" in out
    assert "('2 ** 3', ('power',)) is not a case" in out


def test_an_extra_case_of_the_learners_own_is_checked_too():
    assert check_predictions({**RIGHT, ("4+2 and 7+8", ("add",)): 2})
    assert not check_predictions({**RIGHT, ("4+2 and 7+8", ("add",)): 3})


def test_predictions_must_be_a_dict(capsys):
    assert not check_predictions([3, 3, 2, 2, 4, 1])
    assert "should be a dict" in capsys.readouterr().out


# --- Exercise 4.1: the loop -----------------------------------------------------------------


def make_run(
    *,
    offer_tools=True,
    tools_after_first=True,
    stop_when="no tool_calls",
    append_reply=True,
    answer_every_call=True,
    stop_on_text=True,
    cap=True,
    turns_short=0,
    cap_reason="max_turns",
    cap_answer="No final answer: stopped at max_turns.",
):
    """a loop for my_run, right by default; each flag breaks one rule"""

    def my_run(client, task, registry, max_turns=10):
        messages = [{"role": "user", "content": task}]
        made = 0
        while not cap or made < max_turns - turns_short:
            made += 1
            offer = offer_tools and (tools_after_first or made == 1)
            options = {"tools": registry.definitions} if offer else {}
            response = client.chat.completions.create(model="mock-model", messages=messages, **options)
            message = assistant_message(response)
            if append_reply:
                messages.append(message)
            calls = tool_calls_of(message)
            finished = {
                "no tool_calls": not calls,
                "finish_reason": response.choices[0].finish_reason != "tool_calls",
                "content": response.choices[0].message.content is not None,
            }[stop_when]
            if finished:
                if stop_on_text:
                    return message["content"], messages, "answered"
                continue
            for call in calls if answer_every_call else calls[:1]:
                messages.append(registry.dispatch(call))
        return cap_answer, messages, cap_reason

    return my_run


def stub(client, task, registry, max_turns=10):
    messages = [{"role": "user", "content": task}]
    response = client.chat.completions.create(
        model="mock-model", messages=messages, tools=registry.definitions
    )
    message = assistant_message(response)
    messages.append(message)
    return message["content"], messages, "answered"


def test_a_right_loop_passes(capsys):
    assert check_my_run(make_run())
    assert "stops at max_turns with an honest message" in capsys.readouterr().out


def test_the_stub_is_told_to_keep_going(capsys):
    assert not check_my_run(stub)
    assert (
        "for '5 + 8/12' with add, divide and max_turns=3: my_run stopped after 1 model call(s) while the "
        "model was still asking for tools"
    ) in capsys.readouterr().out


@pytest.mark.parametrize(
    ("broken", "explanation"),
    [
        (
            dict(tools_after_first=False),
            "model call 2 was sent without tools. The model only knows the tools of the request",
        ),
        (dict(cap=False), "max_turns=1: my_run kept calling the model"),
        (
            dict(turns_short=1),
            "max_turns=1: my_run gave up after 0 model call(s): max_turns=1 allows 1 model calls",
        ),
        (dict(turns_short=-1), "max_turns=1: my_run made 2 model calls: stop after max_turns model calls"),
        (
            dict(stop_when="finish_reason"),
            "Its reply had tool_calls and finish_reason 'stop': a reply asks for tools when it has "
            "tool_calls, whatever finish_reason says",
        ),
        (
            dict(stop_when="content"),
            "Its reply had text beside its tool_calls: a reply asks for tools when it has "
            "tool_calls, even with text",
        ),
        (dict(answer_every_call=False), "Every tool call needs its own tool message"),
        (dict(append_reply=False), "Append the assistant message, with its tool_calls"),
        (dict(offer_tools=False), "the requests offered no tools"),
        (
            dict(stop_on_text=False),
            "and max_turns=3: the answer should be the text of the model's last reply",
        ),
        (dict(stop_on_text=False, cap=False), "kept calling the model"),
        (dict(cap_reason="answered"), "stop_reason should be 'max_turns'; got 'answered'"),
        (dict(cap_answer=None), "the answer should be an honest message"),
    ],
)
def test_each_broken_rule_is_named(capsys, broken, explanation):
    assert not check_my_run(make_run(**broken))
    assert explanation in capsys.readouterr().out


def test_the_answer_and_stop_reason_of_a_finished_run_are_checked(capsys):
    def wrong_answer(client, task, registry, max_turns=10):
        answer, messages, _ = make_run()(client, task, registry, max_turns)
        return "done", messages, "finished"

    assert not check_my_run(wrong_answer)
    out = capsys.readouterr().out
    assert "the answer should be the text of the model's last reply, '5 + 8/12 = 5.666666666666667'" in out
    assert "stop_reason should be 'answered' when the model answered; got 'finished'" in out


def test_messages_must_be_the_whole_conversation(capsys):
    def only_the_start(client, task, registry, max_turns=10):
        answer, messages, reason = make_run()(client, task, registry, max_turns)
        return answer, messages[:2], reason

    assert not check_my_run(only_the_start)
    assert "messages should hold the whole conversation" in capsys.readouterr().out


def test_a_wrong_shape_or_an_exception_is_reported_not_raised(capsys):
    assert not check_my_run(lambda client, task, registry, max_turns=10: "6")
    assert not check_my_run(lambda client, task, registry, max_turns=10: 1 / 0)
    out = capsys.readouterr().out
    assert "should return (answer, messages, stop_reason); it returned '6'" in out
    assert "raised ZeroDivisionError: division by zero" in out


def test_a_cap_on_tool_calls_instead_of_model_calls_is_named(capsys):
    def counts_tool_calls(client, task, registry, max_turns=10):
        messages, used = [{"role": "user", "content": task}], 0
        while used < max_turns:
            response = client.chat.completions.create(
                model="mock-model", messages=messages, tools=registry.definitions
            )
            message = assistant_message(response)
            messages.append(message)
            if not tool_calls_of(message):
                return message["content"], messages, "answered"
            for call in tool_calls_of(message):
                messages.append(registry.dispatch(call))
                used += 1
        return "No final answer: stopped at max_turns.", messages, "max_turns"

    assert not check_my_run(counts_tool_calls)
    assert (
        "gave up after 1 model call(s): max_turns=2 allows 2 model calls (count model calls, not loop steps "
        "or tool calls)" in (capsys.readouterr().out)
    )


def test_leaving_the_last_calls_unanswered_at_the_cap_is_named(capsys):
    def drops_the_last_calls(client, task, registry, max_turns=10):
        messages = [{"role": "user", "content": task}]
        for turn in range(max_turns):
            response = client.chat.completions.create(
                model="mock-model", messages=messages, tools=registry.definitions
            )
            message = assistant_message(response)
            messages.append(message)
            if not tool_calls_of(message):
                return message["content"], messages, "answered"
            if turn < max_turns - 1:
                messages += registry.dispatch_all(tool_calls_of(message))
        return "No final answer: stopped at max_turns.", messages, "max_turns"

    assert not check_my_run(drops_the_last_calls)
    assert "Answer every call, even on the last turn" in capsys.readouterr().out


def test_parallel_calls_answered_out_of_order_are_named(capsys):
    def last_call_first(client, task, registry, max_turns=10):
        messages = [{"role": "user", "content": task}]
        for _ in range(max_turns):
            response = client.chat.completions.create(
                model="mock-model", messages=messages, tools=registry.definitions
            )
            message = assistant_message(response)
            messages.append(message)
            if not tool_calls_of(message):
                return message["content"], messages, "answered"
            messages += [registry.dispatch(call) for call in reversed(tool_calls_of(message))]
        return "No final answer: stopped at max_turns.", messages, "max_turns"

    assert not check_my_run(last_call_first)
    assert "Run the calls of a reply in the order they came" in capsys.readouterr().out


def test_an_answer_on_the_last_allowed_call_must_not_be_taken_for_the_cap(capsys):
    def checks_the_cap_first(client, task, registry, max_turns=10):
        messages, made = [{"role": "user", "content": task}], 0
        while True:
            response = client.chat.completions.create(
                model="mock-model", messages=messages, tools=registry.definitions
            )
            made += 1
            message = assistant_message(response)
            messages.append(message)
            messages += [registry.dispatch(call) for call in tool_calls_of(message)]
            if made >= max_turns:
                return "No final answer: stopped at max_turns.", messages, "max_turns"
            if not tool_calls_of(message):
                return message["content"], messages, "answered"

    assert not check_my_run(checks_the_cap_first)
    out = capsys.readouterr().out
    assert "for '5 + 8/12' with add, divide and max_turns=3" in out
    assert "It answered on the last model call max_turns allows" in out


@pytest.mark.parametrize(
    ("at_the_cap", "shown"),
    [
        (lambda messages: messages[-1]["content"], "got '2', which is not a message of your own"),
        (
            lambda messages: str(None),
            "got 'None', which is not a message of your own",
        ),  # str(message.content)
    ],
)
def test_a_result_or_none_passed_off_as_the_answer_at_the_cap_is_named(capsys, at_the_cap, shown):
    def answers_with_what_it_has(client, task, registry, max_turns=10):
        messages = [{"role": "user", "content": task}]
        for _ in range(max_turns):
            response = client.chat.completions.create(
                model="mock-model", messages=messages, tools=registry.definitions
            )
            message = assistant_message(response)
            messages.append(message)
            if not tool_calls_of(message):
                return message["content"], messages, "answered"
            messages += [registry.dispatch(call) for call in tool_calls_of(message)]
        return at_the_cap(messages), messages, "max_turns"

    assert not check_my_run(answers_with_what_it_has)
    assert shown in capsys.readouterr().out


def appends_sdk_objects(client, task, registry, max_turns=10):
    """the seed article's loop: the SDK's message object goes into the history as it is"""
    messages = [{"role": "user", "content": task}]
    for _ in range(max_turns):
        message = (
            client.chat.completions.create(model="mock-model", messages=messages, tools=registry.definitions)
            .choices[0]
            .message
        )
        messages.append(message)
        if not message.tool_calls:
            return message.content, messages, "answered"
        messages += registry.dispatch_all(message.tool_calls)
    return "No final answer: stopped at max_turns.", messages, "max_turns"


def keeps_a_window(client, task, registry, max_turns=10):
    """sends only the last four messages 'to save tokens'"""
    messages = [{"role": "user", "content": task}]
    for _ in range(max_turns):
        response = client.chat.completions.create(
            model="mock-model", messages=messages[:1] + messages[1:][-4:], tools=registry.definitions
        )
        message = assistant_message(response)
        messages.append(message)
        if not tool_calls_of(message):
            return message["content"], messages, "answered"
        messages += registry.dispatch_all(tool_calls_of(message))
    return "No final answer: stopped at max_turns.", messages, "max_turns"


def runs_each_distinct_call_once(client, task, registry, max_turns=10):
    """answers two identical calls with one result, reusing the first tool message for both ids"""
    messages = [{"role": "user", "content": task}]
    for _ in range(max_turns):
        message = assistant_message(
            client.chat.completions.create(model="mock-model", messages=messages, tools=registry.definitions)
        )
        messages.append(message)
        if not tool_calls_of(message):
            return message["content"], messages, "answered"
        seen = {}
        for call in tool_calls_of(message):
            key = (call["function"]["name"], call["function"]["arguments"])
            if key not in seen:
                seen[key] = registry.dispatch(call)["content"]
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": seen[key] + " "})
    return "No final answer: stopped at max_turns.", messages, "max_turns"


def runs_the_tools_itself(client, task, registry, max_turns=10):
    """calls each tool's function directly instead of through the dispatcher: a tool that raises crashes it"""
    messages = [{"role": "user", "content": task}]
    for _ in range(max_turns):
        message = assistant_message(
            client.chat.completions.create(model="mock-model", messages=messages, tools=registry.definitions)
        )
        messages.append(message)
        if not tool_calls_of(message):
            return message["content"], messages, "answered"
        for call in tool_calls_of(message):
            result = registry[call["function"]["name"]](**json.loads(call["function"]["arguments"]))
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result)})
    return "No final answer: stopped at max_turns.", messages, "max_turns"


def keeps_only_the_first_call(client, task, registry, max_turns=10):
    """trims a parallel reply to its first call, so the history stays valid: the model asks again"""
    messages = [{"role": "user", "content": task}]
    for _ in range(max_turns):
        response = client.chat.completions.create(
            model="mock-model", messages=messages, tools=registry.definitions
        )
        message = assistant_message(response)
        calls = tool_calls_of(message)
        if not calls:
            messages.append(message)
            return message["content"], messages, "answered"
        messages.append({**message, "tool_calls": message["tool_calls"][:1]})
        messages.append(registry.dispatch(calls[0]))
    return "No final answer: stopped at max_turns.", messages, "max_turns"


def writes_its_own_answer_at_the_cap(client, task, registry, max_turns=10):
    """at max_turns, presents the last tool result as the answer"""
    answer, messages, reason = make_run()(client, task, registry, max_turns)
    if reason == "max_turns":
        answer = f"The result is {messages[-1]['content']}."
    return answer, messages, reason


@pytest.mark.parametrize(
    ("wrong", "explanation"),
    [
        (
            runs_the_tools_itself,
            "raised ZeroDivisionError (division by zero) from the divide tool: run each call "
            "through registry.dispatch(call)",
        ),
        (
            writes_its_own_answer_at_the_cap,
            "presents a tool's result as the answer, but the model never answered",
        ),
        (appends_sdk_objects, "messages holds a ChatCompletionMessage: append plain dicts"),
        (keeps_a_window, "the API refused model call"),
        (runs_each_distinct_call_once, "message [2] differs in 'content'"),
        (
            keeps_only_the_first_call,
            "model call 1 asked for 2 tools at once, and my_run answered 1 of them before calling the model "
            "again: every call needs its answer",
        ),
    ],
)
def test_fresh_wrong_loops_are_named(capsys, wrong, explanation):
    assert not check_my_run(wrong)
    assert explanation in capsys.readouterr().out


def loop_with_for_and_dicts_typed_otherwise(client, task, registry, max_turns=10):
    """a right loop written differently: for/else, the reply dict typed with its keys in another order"""
    messages = [{"content": task, "role": "user"}]
    for _ in range(max_turns):
        reply = client.chat.completions.create(
            model="mock-model", tools=registry.definitions, messages=messages
        )
        message = reply.choices[0].message
        calls = [
            {
                "type": "function",
                "id": c.id,
                "function": {"arguments": c.function.arguments, "name": c.function.name},
            }
            for c in message.tool_calls or []
        ]
        messages.append(
            {"tool_calls": calls, "content": message.content, "role": "assistant"}
            if calls
            else {"content": message.content, "role": "assistant"}
        )
        if not calls:
            break
        messages.extend(registry.dispatch(call) for call in calls)
    else:
        return f"Stopped after {max_turns} model calls without an answer.", messages, "max_turns"
    return messages[-1]["content"], messages, "answered"


@pytest.mark.parametrize("right", [make_run(), loop_with_for_and_dicts_typed_otherwise])
def test_right_loops_written_differently_pass(capsys, right):
    result = check_my_run(right)
    assert result and result.scenarios == 20


def test_check_my_run_gives_the_same_verdict_every_time(capsys):
    check_my_run(keeps_a_window)
    first = capsys.readouterr().out
    check_my_run(keeps_a_window)
    assert capsys.readouterr().out == first


def test_the_lesson_04_checks_give_the_same_verdicts_under_another_hash_seed():
    """each check on a wrong answer: the same words whatever the order of a set"""
    outputs = under_two_hash_seeds(
        "test_checks_lesson04",
        "c.check_predictions(t.WRONG_RULES[0][0]); c.check_my_run(t.runs_each_distinct_call_once)",
    )
    assert len(outputs) == 1 and outputs.pop().count("✗ Exercise 4.") == 2


def loop_counting_down(client, task, registry, max_turns=10):
    """right, written differently: a while loop counting the turns left, tool messages built by hand"""
    messages, left = [{"role": "user", "content": task}], max_turns
    while left > 0:
        left -= 1
        message = (
            client.chat.completions.create(model="mock-model", messages=messages, tools=registry.definitions)
            .choices[0]
            .message
        )
        entry = message.model_dump(include={"role", "content", "tool_calls"}, exclude_none=True)
        entry.setdefault("content", None)
        messages.append(entry)
        if not message.tool_calls:
            return message.content, messages, "answered"
        for call in message.tool_calls:
            result = registry.dispatch(call)
            messages.append({"role": "tool", "content": result["content"], "tool_call_id": call.id})
    return f"Gave up: no answer within {max_turns} model calls.", messages, "max_turns"


def counts_its_tool_calls_at_the_cap(client, task, registry, max_turns=10):
    """right: at the cap it says how many tool calls ran, a number that may equal the last result"""
    answer, messages, reason = make_run()(client, task, registry, max_turns)
    if reason == "max_turns":
        ran = sum(m["role"] == "tool" for m in messages)
        answer = f"No answer after {ran} tool calls."
    return answer, messages, reason


@pytest.mark.parametrize("right", [loop_counting_down, counts_its_tool_calls_at_the_cap])
def test_another_right_loop_written_differently_passes(capsys, right):
    result = check_my_run(right)
    assert result and result.scenarios == 20, capsys.readouterr().out


def test_a_loop_that_calls_first_and_checks_the_cap_after_is_caught_at_max_turns_0(capsys):
    """a do-while loop: fine for every cap but 0, where it still makes one model call"""

    def calls_first(client, task, registry, max_turns=10):
        messages, made = [{"role": "user", "content": task}], 0
        while True:
            response = client.chat.completions.create(
                model="mock-model", messages=messages, tools=registry.definitions
            )
            made += 1
            message = assistant_message(response)
            messages.append(message)
            if not tool_calls_of(message):
                return message["content"], messages, "answered"
            for call in tool_calls_of(message):
                messages.append(registry.dispatch(call))
            if made >= max_turns:
                return "No final answer: stopped at max_turns.", messages, "max_turns"

    assert not check_my_run(calls_first)
    out = capsys.readouterr().out
    assert "max_turns=0: my_run made 1 model calls: stop after max_turns model calls" in out
