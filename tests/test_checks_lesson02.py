"""Lesson 02's exercise check: each wrong round trip is rejected with a message naming its fault; the
solutions pass."""

import json

import pytest
from hash_seeds import under_two_hash_seeds

from agent_core.calls import assistant_message, parse_arguments, tool_calls_of, tool_message
from agent_core.checks.lesson02 import check_ask_once


def ask_once_solved(client, question, tools, functions):
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model="mock-model", messages=messages, tools=tools)
    messages.append(assistant_message(response))
    for call in tool_calls_of(response):
        result = functions[call["function"]["name"]](**parse_arguments(call))
        messages.append(tool_message(call, result))
    final = client.chat.completions.create(model="mock-model", messages=messages, tools=tools)
    return final.choices[0].message.content


def ask_once_by_hand(
    client,
    question,
    tools,
    functions,
    *,
    only_first=False,
    by_finish_reason=False,
    text_first=False,
    dump=False,
    as_str=False,
    reversed_answers=False,
    tools_once=False,
    first_id=False,
    positional=False,
    first_function=False,
    eval_arguments=False,
    no_text=False,
    quote_strings=False,
    reencode=False,
):
    """the exercise done without agent_core, with one tempting mistake switched on by name"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model="mock-model", messages=messages, tools=tools)
    message = response.choices[0].message
    if text_first and message.content:
        return message.content
    if by_finish_reason and response.choices[0].finish_reason != "tool_calls":
        return message.content
    calls = message.tool_calls[:1] if only_first else message.tool_calls
    if dump:
        assistant = message.model_dump()
    else:
        assistant = {
            "role": "assistant",
            "content": None if no_text else message.content,
            "tool_calls": [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {
                        "name": c.function.name,
                        "arguments": json.dumps(json.loads(c.function.arguments))
                        if reencode
                        else c.function.arguments,
                    },
                }
                for c in message.tool_calls
            ],
        }
    answers = []
    for call in calls:
        function = next(iter(functions.values())) if first_function else functions[call.function.name]
        arguments = eval(call.function.arguments) if eval_arguments else json.loads(call.function.arguments)
        result = function(*arguments.values()) if positional else function(**arguments)
        if as_str:
            content = str(result)
        else:
            content = result if isinstance(result, str) and not quote_strings else json.dumps(result)
        call_id = message.tool_calls[0].id if first_id else call.id
        answers.append({"role": "tool", "tool_call_id": call_id, "content": content})
    if reversed_answers:
        answers.reverse()
    messages += [assistant, *answers]
    final = client.chat.completions.create(
        model="mock-model", messages=messages, **({} if tools_once else {"tools": tools})
    )
    return final.choices[0].message.content


def by_hand(**mistake):
    return lambda *args: ask_once_by_hand(*args, **mistake)


def ask_once_stub(client, question, tools, functions):
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model="mock-model", messages=messages, tools=tools)
    return response.choices[0].message.content


def ask_once_hard_coded(client, question, tools, functions):
    """runs the calls but returns a text of its own instead of the model's answer"""
    ask_once_solved(client, question, tools, functions)
    return "Take an umbrella."


def ask_once_fixed_result(client, question, tools, functions):
    """answers every call with the same made-up result instead of running the function"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model="mock-model", messages=messages, tools=tools)
    messages.append(assistant_message(response))
    messages += [tool_message(call, {"sky": "light rain"}) for call in tool_calls_of(response)]
    final = client.chat.completions.create(model="mock-model", messages=messages, tools=tools)
    return final.choices[0].message.content


def ask_once_keeps_asking(client, question, tools, functions):
    """a loop before its time: calls the model until it answers, and one more time to be sure"""
    answer = ask_once_solved(client, question, tools, functions)
    client.chat.completions.create(
        model="mock-model", messages=[{"role": "user", "content": question}], tools=tools
    )
    return answer


def ask_once_remembering_results(client, question, tools, functions):
    """runs a call it has seen before only once, and reuses the result for the same arguments"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model="mock-model", messages=messages, tools=tools)
    messages.append(assistant_message(response))
    seen = {}
    for call in tool_calls_of(response):
        key = (call["function"]["name"], call["function"]["arguments"])
        if key not in seen:
            seen[key] = functions[call["function"]["name"]](**parse_arguments(call))
        messages.append(tool_message(call, seen[key]))
    final = client.chat.completions.create(model="mock-model", messages=messages, tools=tools)
    return final.choices[0].message.content


def ask_once_answering_each_call_once(client, question, tools, functions):
    """keys the results by name and arguments, so two identical calls get one tool message"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model="mock-model", messages=messages, tools=tools)
    messages.append(assistant_message(response))
    answers = {}
    for call in tool_calls_of(response):
        key = (call["function"]["name"], call["function"]["arguments"])
        answers.setdefault(
            key, tool_message(call, functions[call["function"]["name"]](**parse_arguments(call)))
        )
    messages += answers.values()
    final = client.chat.completions.create(model="mock-model", messages=messages, tools=tools)
    return final.choices[0].message.content


def ask_once_rounding(client, question, tools, functions):
    """rounds every number to two places 'to keep the context short'"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model="mock-model", messages=messages, tools=tools)
    messages.append(assistant_message(response))
    for call in tool_calls_of(response):
        result = functions[call["function"]["name"]](**parse_arguments(call))
        messages.append(tool_message(call, round(result, 2) if isinstance(result, float) else result))
    final = client.chat.completions.create(model="mock-model", messages=messages, tools=tools)
    return final.choices[0].message.content


@pytest.mark.parametrize(
    ("wrong", "message"),
    [
        (ask_once_remembering_results, "the model asked for add 2 times; yours ran it 1 time"),
        (ask_once_answering_each_call_once, "every call needs its own tool message"),
        (ask_once_rounding, "on '¿Cuánto es 2/12?' with the tools divide: the tool message for divide"),
        (
            by_hand(only_first=True),
            "on 'What are 4+2 and 7+8?' with the tools divide, add: the model asked for 2 call(s) and the "
            "second request answered 1: every call needs its own tool message",
        ),
        (by_hand(by_finish_reason=True), "said finish_reason 'stop' and carried a tool call"),
        (by_hand(text_first=True), "the model's reply had text AND a tool call"),
        (
            ask_once_stub,
            "on 'Do I need an umbrella in Tokyo?' with the tools get_weather: ask_once() called the model "
            "once and stopped",
        ),
        (by_hand(as_str=True), "the tool message's content is Python's str() of the result"),
        (
            by_hand(dump=True),
            "the assistant message carries ['annotations', 'audio', 'function_call', 'refusal']",
        ),
        (
            by_hand(reversed_answers=True),
            "on 'What are 4+2 and 7+8?' with the tools divide, add: answer the calls in the order they came",
        ),
        (by_hand(tools_once=True), "call 2 was sent without tools"),
        (
            by_hand(no_text=True),
            "the assistant message you appended holds the content None; the model's reply said 'Let me "
            "divide that first.' beside its call",
        ),
        (by_hand(first_id=True), "tool message 2 has tool_call_id"),
        (
            by_hand(positional=True),
            'divide({"b": 12, "a": 9}) should hold that call\'s result, 0.75; it holds '
            "'1.3333333333333333' (run the function the call names, with its arguments by name",
        ),
        (
            by_hand(first_function=True),
            'add({"a": 4, "b": 2}) should hold that call\'s result, 6; it holds \'2.0\'',
        ),
        (by_hand(eval_arguments=True), "name 'false' is not defined. The arguments are JSON, not Python"),
        (ask_once_hard_coded, "return the final answer's text ('No umbrella: clear and 27°C in Tokyo.')"),
        (
            ask_once_fixed_result,
            'should hold that call\'s result, {"city": "Tokyo", "sky": "clear", "celsius": 27}',
        ),
        (ask_once_keeps_asking, "ask_once() called the model 3 times; one round trip is 2 calls"),
        (
            by_hand(quote_strings=True),
            "on 'Is it snowing in Zürich?' with the tools get_sky: get_sky returned the text 'light snow "
            "over Zürich'; its tool message holds '\"light snow over Z\\\\u00fcrich\"'. Send a string result "
            "as it is",
        ),
        (
            by_hand(reencode=True),
            "on 'Is it snowing in Zürich?' with the tools get_sky: the assistant message's tool_calls hold "
            "the arguments re-encoded",
        ),
    ],
)
def test_check_ask_once_rejects_a_wrong_round_trip_naming_its_fault(wrong, message, capsys):
    assert not check_ask_once(wrong)
    assert message in capsys.readouterr().out


def _text(result):
    return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)


def ask_once_dumping_the_calls(client, question, tools, functions):
    """the calls dumped from the SDK (they carry only id, type and function), keys typed in another order"""
    response = client.chat.completions.create(
        model="mock-model", messages=[{"content": question, "role": "user"}], tools=tools
    )
    message = response.choices[0].message
    calls = [call.model_dump() for call in message.tool_calls]
    results = [
        {
            "content": _text(functions[c["function"]["name"]](**json.loads(c["function"]["arguments"]))),
            "tool_call_id": c["id"],
            "role": "tool",
        }
        for c in calls
    ]
    messages = [
        {"content": question, "role": "user"},
        {"tool_calls": calls, "role": "assistant", "content": message.content},
    ]
    final = client.chat.completions.create(model="mock-model", tools=tools, messages=messages + results)
    return final.choices[0].message.content


@pytest.mark.parametrize("right", [ask_once_solved, ask_once_by_hand, ask_once_dumping_the_calls])
def test_check_ask_once_passes_right_answers_written_differently(right, capsys):
    result = check_ask_once(right)
    assert result and result.scenarios == 35
    assert "✓ Exercise 2.1" in capsys.readouterr().out


def test_check_ask_once_gives_the_same_verdict_every_time(capsys):
    check_ask_once(ask_once_remembering_results)
    first = capsys.readouterr().out
    check_ask_once(ask_once_remembering_results)
    assert capsys.readouterr().out == first


def test_check_ask_once_reports_an_exception_instead_of_raising(capsys):
    def broken(client, question, tools, functions):
        raise KeyError("oops")

    assert not check_ask_once(broken)
    assert "your code raised KeyError: 'oops'" in capsys.readouterr().out


def test_the_lesson_02_checks_give_the_same_verdicts_under_another_hash_seed():
    """each check on a wrong answer: the same words whatever the order of a set"""
    outputs = under_two_hash_seeds(
        "test_checks_lesson02",
        "c.check_ask_once(t.ask_once_answering_each_call_once)",
    )
    assert len(outputs) == 1 and outputs.pop().count("✗ Exercise 2.") == 1
