"""Lesson 02's exercise check: each wrong round trip is rejected with a message naming its fault; the solutions pass."""

import json

import pytest

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


def ask_once_by_hand(client, question, tools, functions, *, only_first=False, by_finish_reason=False,
                     text_first=False, dump=False, as_str=False, reversed_answers=False, tools_once=False,
                     first_id=False, positional=False, first_function=False, eval_arguments=False):
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
            "content": message.content,
            "tool_calls": [
                {"id": c.id, "type": "function", "function": {"name": c.function.name, "arguments": c.function.arguments}}
                for c in message.tool_calls
            ],
        }
    answers = []
    for call in calls:
        function = next(iter(functions.values())) if first_function else functions[call.function.name]
        arguments = eval(call.function.arguments) if eval_arguments else json.loads(call.function.arguments)
        result = function(*arguments.values()) if positional else function(**arguments)
        content = str(result) if as_str else json.dumps(result)
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
    client.chat.completions.create(model="mock-model", messages=[{"role": "user", "content": question}], tools=tools)
    return answer


@pytest.mark.parametrize(
    ("wrong", "message"),
    [
        (by_hand(only_first=True), "on 'What are 4+2 and 7+8?': the model asked for 2 call(s) and the second "
                                   "request answered 1: every call needs its own tool message"),
        (by_hand(by_finish_reason=True), "said finish_reason 'stop' and carried a tool call"),
        (by_hand(text_first=True), "the model's reply had text AND a tool call"),
        (ask_once_stub, "on 'Do I need an umbrella in Tokyo?': ask_once() called the model once and stopped"),
        (by_hand(as_str=True), "the tool message's content is Python's str() of the result"),
        (by_hand(dump=True), "the assistant message carries ['annotations', 'audio', 'function_call', 'refusal']"),
        (by_hand(reversed_answers=True), "on 'What are 4+2 and 7+8?': answer the calls in the order they came"),
        (by_hand(tools_once=True), "call 2 was sent without tools"),
        (by_hand(first_id=True), "tool message 2 has tool_call_id"),
        (by_hand(positional=True), 'divide({"b": 12, "a": 9}) should hold that call\'s result, 0.75; it holds '
                                   "'1.3333333333333333' (run the function the call names, with its arguments by name"),
        (by_hand(first_function=True), 'add({"a": 4, "b": 2}) should hold that call\'s result, 6; it holds \'2.0\''),
        (by_hand(eval_arguments=True), "name 'false' is not defined. The arguments are JSON, not Python"),
        (ask_once_hard_coded, "return the final answer's text ('No umbrella: clear and 27°C in Tokyo.')"),
        (ask_once_fixed_result, 'should hold that call\'s result, {"city": "Tokyo", "sky": "clear", "celsius": 27}'),
        (ask_once_keeps_asking, "ask_once() called the model 3 times; one round trip is 2 calls"),
    ],
)
def test_check_ask_once_rejects_a_wrong_round_trip_naming_its_fault(wrong, message, capsys):
    assert not check_ask_once(wrong)
    assert message in capsys.readouterr().out


def test_check_ask_once_passes_solutions_with_and_without_agent_core(capsys):
    assert check_ask_once(ask_once_solved)
    assert check_ask_once(ask_once_by_hand)
    assert capsys.readouterr().out.count("✓ Exercise 2.1") == 2


def test_check_ask_once_reports_an_exception_instead_of_raising(capsys):
    def broken(client, question, tools, functions):
        raise KeyError("oops")

    assert not check_ask_once(broken)
    assert "ask_once() raised KeyError: 'oops'" in capsys.readouterr().out
