"""Lesson 02's exercise checks: they pass the solutions and say what is wrong with the stubs."""

import json

from agent_core.calls import assistant_message, parse_arguments, tool_calls_of, tool_message
from agent_core.checks.lesson02 import check_answer_calls, check_ask_once


def ask_once_solved(client, question, tools, functions):
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model="mock-model", messages=messages, tools=tools)
    call = tool_calls_of(response)[0]
    result = functions[call["function"]["name"]](**parse_arguments(call))
    messages += [assistant_message(response), tool_message(call, result)]
    final = client.chat.completions.create(model="mock-model", messages=messages, tools=tools)
    return final.choices[0].message.content


def ask_once_by_hand(client, question, tools, functions, dump=False, as_str=False):
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model="mock-model", messages=messages, tools=tools)
    message = response.choices[0].message
    call = message.tool_calls[0]
    result = functions[call.function.name](**json.loads(call.function.arguments))
    if dump:
        assistant = message.model_dump()
    else:
        assistant = {
            "role": "assistant",
            "content": message.content,
            "tool_calls": [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.function.name, "arguments": call.function.arguments},
                }
            ],
        }
    content = str(result) if as_str else json.dumps(result)
    messages += [assistant, {"role": "tool", "tool_call_id": call.id, "content": content}]
    final = client.chat.completions.create(model="mock-model", messages=messages, tools=tools)
    return final.choices[0].message.content


def ask_once_stub(client, question, tools, functions):
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model="mock-model", messages=messages, tools=tools)
    return response.choices[0].message.content


def test_check_ask_once_passes_solutions_with_and_without_agent_core(capsys):
    assert check_ask_once(ask_once_solved)
    assert check_ask_once(ask_once_by_hand)
    assert capsys.readouterr().out.count("✓ Exercise 2.1") == 2


def test_check_ask_once_explains_the_stub(capsys):
    assert not check_ask_once(ask_once_stub)
    assert "ask_once() called the model once; call it a second time" in capsys.readouterr().out


def test_check_ask_once_reports_the_picky_servers_refusal_of_a_dumped_message(capsys):
    assert not check_ask_once(lambda *args: ask_once_by_hand(*args, dump=True))
    out = capsys.readouterr().out
    assert "the server refused the second call (HTTP 400)" in out
    assert "Extra inputs are not permitted" in out


def test_check_ask_once_wants_json_not_python_notation(capsys):
    assert not check_ask_once(lambda *args: ask_once_by_hand(*args, as_str=True))
    assert "content is Python's str() of the dict" in capsys.readouterr().out


def test_check_ask_once_wants_the_final_text_returned(capsys):
    def returns_nothing(*args):
        ask_once_solved(*args)

    assert not check_ask_once(returns_nothing)
    assert "return the final answer's text" in capsys.readouterr().out


def test_check_ask_once_reports_an_exception_instead_of_raising(capsys):
    def broken(client, question, tools, functions):
        raise KeyError("get_weather")

    assert not check_ask_once(broken)
    assert "ask_once() raised KeyError" in capsys.readouterr().out


def answer_all(response, functions):
    return [
        tool_message(call, functions[call["function"]["name"]](**parse_arguments(call)))
        for call in tool_calls_of(response)
    ]


def test_check_answer_calls_passes_the_solution(capsys):
    assert check_answer_calls(answer_all)
    assert "✓ Exercise 2.2" in capsys.readouterr().out


def test_check_answer_calls_explains_the_stub_with_the_apis_refusal(capsys):
    assert not check_answer_calls(lambda response, functions: answer_all(response, functions)[:1])
    out = capsys.readouterr().out
    assert "the model made 2 calls and answer_calls() returned 1 tool message(s)" in out
    assert "The following tool_call_ids did not have response messages" in out


def test_check_answer_calls_wants_the_calls_order(capsys):
    assert not check_answer_calls(lambda response, functions: answer_all(response, functions)[::-1])
    assert "answer the calls in the order they came" in capsys.readouterr().out


def test_check_answer_calls_reports_wrong_shapes_and_exceptions(capsys):
    assert not check_answer_calls(lambda response, functions: "6 and 15")
    assert not check_answer_calls(lambda response, functions: 1 / 0)
    out = capsys.readouterr().out
    assert "should return a list of messages, not str" in out
    assert "answer_calls() raised ZeroDivisionError" in out
