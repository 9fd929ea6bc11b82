"""Lesson 00's exercise checks: each wrong answer is rejected with a message naming its fault; the solution
passes."""

import pytest
from hash_seeds import under_two_hash_seeds

from agent_core.checks.lesson00 import check_ask, check_repaired

# --- exercise 0.1 -----------------------------------------------------------------------------


def ask_keeping_history(client, history, question):
    history.append({"role": "user", "content": question})
    answer = client.chat.completions.create(model="mock-model", messages=history).choices[0].message.content
    history.append({"role": "assistant", "content": answer})
    return answer


def ask_forgetting(client, history, question):
    """the most tempting: one call per question, no history at all"""
    reply = client.chat.completions.create(
        model="mock-model", messages=[{"role": "user", "content": question}]
    )
    return reply.choices[0].message.content


def ask_without_the_answers(client, history, question):
    """keeps the questions, forgets to append the model's answers"""
    history.append({"role": "user", "content": question})
    return client.chat.completions.create(model="mock-model", messages=history).choices[0].message.content


def ask_answer_first(client, history, question):
    """sends the history, then records the answer before the question"""
    reply = (
        client.chat.completions.create(
            model="mock-model", messages=[*history, {"role": "user", "content": question}]
        )
        .choices[0]
        .message.content
    )
    history += [{"role": "assistant", "content": reply}, {"role": "user", "content": question}]
    return reply


def ask_last_turn_only(client, history, question):
    """a window of the last exchange: enough for two questions, not for three"""
    history.append({"role": "user", "content": question})
    answer = (
        client.chat.completions.create(model="mock-model", messages=history[-3:]).choices[0].message.content
    )
    history.append({"role": "assistant", "content": answer})
    return answer


def ask_twice(client, history, question):
    """calls the model once to 'warm up', then once for real"""
    client.chat.completions.create(model="mock-model", messages=[{"role": "user", "content": question}])
    return ask_keeping_history(client, history, question)


def ask_returning_the_response(client, history, question):
    history.append({"role": "user", "content": question})
    response = client.chat.completions.create(model="mock-model", messages=history)
    history.append({"role": "assistant", "content": response.choices[0].message.content})
    return response


def ask_appending_sdk_objects(client, history, question):
    history.append({"role": "user", "content": question})
    response = client.chat.completions.create(model="mock-model", messages=history)
    history.append(response.choices[0].message.model_dump(exclude_none=True))
    history[-1] = response.choices[0].message
    return response.choices[0].message.content


def ask_appending_model_dump(client, history, question):
    """appends the SDK's model_dump() of the reply: annotations, audio, refusal... go back to the API"""
    history.append({"role": "user", "content": question})
    message = client.chat.completions.create(model="mock-model", messages=history).choices[0].message
    history.append(message.model_dump())
    return message.content


def ask_sending_before_appending(client, history, question):
    """calls the model with the history before the new question is in it"""
    answer = client.chat.completions.create(model="mock-model", messages=history).choices[0].message.content
    history += [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]
    return answer


def ask_with_a_system_prompt(client, history, question):
    """adds a system message of its own the exercise did not ask for"""
    if not history:
        history.append({"role": "system", "content": "You are helpful."})
    return ask_keeping_history(client, history, question)


def ask_last_five(client, history, question):
    """a window of the last five messages: right for three questions, wrong from the fourth"""
    history.append({"role": "user", "content": question})
    answer = (
        client.chat.completions.create(model="mock-model", messages=history[-5:]).choices[0].message.content
    )
    history.append({"role": "assistant", "content": answer})
    return answer


def ask_each_question_once(client, history, question):
    """skips a question already in the history, as if it were a duplicate to clean up"""
    if {"role": "user", "content": question} not in history:
        history.append({"role": "user", "content": question})
    answer = client.chat.completions.create(model="mock-model", messages=history).choices[0].message.content
    history.append({"role": "assistant", "content": answer})
    return answer


_EVERYONES_HISTORY = []


def ask_with_its_own_list(client, history, question):
    """keeps one list of its own for every conversation, and leaves `history` empty"""
    return ask_keeping_history(client, _EVERYONES_HISTORY, question)


def ask_without_keeping_the_question(client, history, question):
    """sends the question with the history but never stores it"""
    answer = (
        client.chat.completions.create(
            model="mock-model", messages=[*history, {"role": "user", "content": question}]
        )
        .choices[0]
        .message.content
    )
    history.append({"role": "assistant", "content": answer})
    return answer


def ask_appending_the_answer_as_user(client, history, question):
    """the answer appended, with the person's role"""
    history.append({"role": "user", "content": question})
    answer = client.chat.completions.create(model="mock-model", messages=history).choices[0].message.content
    history.append({"role": "user", "content": answer})
    return answer


def ask_appending_the_answer_as_system(client, history, question):
    history.append({"role": "user", "content": question})
    answer = client.chat.completions.create(model="mock-model", messages=history).choices[0].message.content
    history.append({"role": "system", "content": answer})
    return answer


WRONG_ASKS = [
    (ask_forgetting, "after the questions, history should hold each question and its answer"),
    (ask_last_five, "asked 4 question(s) in a row"),
    (ask_last_five, "call 4 sent 5 message(s); it should send 7"),
    (ask_without_the_answers, "history holds the questions but none of the model's answers"),
    (ask_answer_first, "it has roles ['assistant', 'user']"),
    (ask_last_turn_only, "call 3 sent 3 message(s); it should send 5"),
    (ask_each_question_once, "asked 2 question(s) in a row"),
    (ask_with_its_own_list, "call 1 sent 7 message(s); it should send 1"),
    (ask_without_keeping_the_question, "it has roles ['assistant']"),
    (ask_twice, "1 questions made 2 calls"),
    (
        ask_returning_the_response,
        "should return the reply's text (message.content); it returned ChatCompletion(",
    ),
    (ask_sending_before_appending, "the API refused call 1: "),
    (ask_with_a_system_prompt, "call 1 sent 2 message(s); it should send 1"),
    (ask_appending_sdk_objects, "append plain dicts"),
    (
        ask_appending_the_answer_as_user,
        "history[1] is the model's answer with role 'user'; it should be 'assistant'",
    ),
    (
        ask_appending_the_answer_as_system,
        "history[1] is the model's answer with role 'system'; it should be 'assistant'",
    ),
    (ask_appending_model_dump, "messages[1].annotations is not a field a message may have"),
]


@pytest.mark.parametrize(("wrong", "message"), WRONG_ASKS)
def test_check_ask_rejects_a_wrong_answer_naming_its_fault(wrong, message, capsys):
    _EVERYONES_HISTORY.clear()
    assert not check_ask(wrong)
    assert message in capsys.readouterr().out


def ask_with_keys_the_other_way(client, history, question):
    """the dicts typed content first, the reply read back from the message object"""
    history += [{"content": question, "role": "user"}]
    message = client.chat.completions.create(model="mock-model", messages=list(history)).choices[0].message
    history += [{"content": message.content, "role": message.role}]
    return history[-1]["content"]


def ask_building_a_new_list(client, history, question):
    """sends a fresh list built from the history, then records both turns at once"""
    messages = [dict(m) for m in history] + [{"role": "user", "content": question}]
    answer = client.chat.completions.create(model="mock-model", messages=messages).choices[0].message.content
    history.extend([messages[-1], {"role": "assistant", "content": answer}])
    return answer


def ask_appending_model_dump_without_nones(client, history, question):
    """model_dump(exclude_none=True) keeps only role and content: the plain message, built by the SDK"""
    history.append({"role": "user", "content": question})
    message = client.chat.completions.create(model="mock-model", messages=history).choices[0].message
    history.append(message.model_dump(exclude_none=True))
    return message.content


@pytest.mark.parametrize(
    "right",
    [
        ask_keeping_history,
        ask_with_keys_the_other_way,
        ask_building_a_new_list,
        ask_appending_model_dump_without_nones,
    ],
)
def test_check_ask_accepts_right_answers_written_differently(right, capsys):
    result = check_ask(right)
    assert result and result.scenarios == 13
    assert "✓ Exercise 0.1" in capsys.readouterr().out


def test_check_ask_reports_an_exception_instead_of_raising(capsys):
    def broken(client, history, question):
        raise KeyError("oops")

    assert not check_ask(broken)
    assert "your code raised KeyError" in capsys.readouterr().out


def test_check_ask_gives_the_same_verdict_every_time(capsys):
    check_ask(ask_last_five)
    first = capsys.readouterr().out
    check_ask(ask_last_five)
    assert capsys.readouterr().out == first


def test_check_ask_gives_the_same_verdict_under_another_hash_seed():
    outputs = under_two_hash_seeds("test_checks_lesson00", "c.check_ask(t.ask_last_five)")
    assert len(outputs) == 1 and "call 4 sent 5 message(s)" in outputs.pop()


# --- exercise 0.2 -----------------------------------------------------------------------------

QUESTION = {"role": "user", "content": "What are 4+2 and 7+8?"}
CALLS = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "call_a", "type": "function", "function": {"name": "add", "arguments": '{"a": 4, "b": 2}'}},
        {"id": "call_b", "type": "function", "function": {"name": "add", "arguments": '{"a": 7, "b": 8}'}},
    ],
}
RESULT_A = {"role": "tool", "tool_call_id": "call_a", "content": "6"}
RESULT_B = {"role": "tool", "tool_call_id": "call_b", "content": "15"}
ANSWER = {"role": "assistant", "content": "4 + 2 = 6 and 7 + 8 = 15."}
JUMBLED = [RESULT_B, QUESTION, ANSWER, RESULT_A, CALLS]


@pytest.mark.parametrize(
    ("wrong", "message"),
    [
        ([QUESTION, CALLS, RESULT_A, ANSWER, RESULT_B], "the API still refuses it"),
        ([QUESTION, ANSWER, CALLS, RESULT_A, RESULT_B], "the final answer comes before the tool results"),
        ([QUESTION, CALLS, RESULT_A, RESULT_B], "exactly the same messages"),
        ([QUESTION, CALLS, RESULT_A, RESULT_A, ANSWER], "exactly the same messages"),
        (JUMBLED, "the API still refuses it"),
        (
            [QUESTION, CALLS, RESULT_B, RESULT_A, ANSWER],
            "the API accepts it, but the results come in the order call_b, call_a while the calls were "
            "call_a, call_b: put the results in the order of the calls",
        ),
    ],
)
def test_check_repaired_rejects_a_wrong_order_naming_its_fault(wrong, message, capsys):
    assert not check_repaired(wrong, JUMBLED)
    assert message in capsys.readouterr().out


def test_check_repaired_accepts_the_solution(capsys):
    assert check_repaired([QUESTION, CALLS, RESULT_A, RESULT_B, ANSWER], JUMBLED)
    assert "✓ Exercise 0.2" in capsys.readouterr().out


@pytest.mark.parametrize(("wrong", "kind"), [(None, "NoneType"), ((m for m in JUMBLED), "generator")])
def test_check_repaired_reports_a_non_list_instead_of_raising(wrong, kind, capsys):
    assert not check_repaired(wrong, JUMBLED)
    assert f"`repaired` should be a list of the messages; it is {kind}" in capsys.readouterr().out


def test_check_repaired_accepts_a_right_order_typed_with_other_key_orders(capsys):
    retyped = [
        {"content": "What are 4+2 and 7+8?", "role": "user"},
        {"tool_calls": CALLS["tool_calls"], "content": None, "role": "assistant"},
        {"content": "6", "tool_call_id": "call_a", "role": "tool"},
        {"tool_call_id": "call_b", "role": "tool", "content": "15"},
        {"content": "4 + 2 = 6 and 7 + 8 = 15.", "role": "assistant"},
    ]
    result = check_repaired(retyped, JUMBLED)
    assert result and result.scenarios == 0
    assert "✓ Exercise 0.2" in capsys.readouterr().out


def test_check_repaired_rejects_a_message_changed_on_the_way(capsys):
    changed = [QUESTION, CALLS, RESULT_A, {**RESULT_B, "content": "16"}, ANSWER]
    assert not check_repaired(changed, JUMBLED)
    assert "exactly the same messages" in capsys.readouterr().out


def test_check_repaired_gives_the_same_verdict_every_time(capsys):
    wrong = [QUESTION, ANSWER, CALLS, RESULT_A, RESULT_B]
    first, second = check_repaired(wrong, JUMBLED), check_repaired(wrong, JUMBLED)
    out = capsys.readouterr().out.split("✗")
    assert first.scenarios == second.scenarios == 0 and out[1] == out[2]
