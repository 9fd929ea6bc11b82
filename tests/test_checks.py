"""The exercise checks: they pass the solutions and say what is wrong with the stubs."""

from agent_core.checks.lesson00 import check_ask, check_repaired


def ask_keeping_history(client, history, question):
    history.append({"role": "user", "content": question})
    answer = client.chat.completions.create(model="mock-model", messages=history).choices[0].message.content
    history.append({"role": "assistant", "content": answer})
    return answer


def ask_forgetting(client, history, question):
    reply = client.chat.completions.create(model="mock-model", messages=[{"role": "user", "content": question}])
    return reply.choices[0].message.content


def test_check_ask_passes_a_solution_and_explains_a_stub(capsys):
    assert check_ask(ask_keeping_history)
    assert not check_ask(ask_forgetting)
    assert "the second call sent 1 message(s); it should send 3" in capsys.readouterr().out


def test_check_ask_reports_an_exception_instead_of_raising(capsys):
    def broken(client, history, question):
        raise KeyError("oops")

    assert not check_ask(broken)
    assert "ask() raised KeyError" in capsys.readouterr().out


def test_check_repaired(capsys):
    calls = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "add", "arguments": "{}"}}]}
    user, result = {"role": "user", "content": "x"}, {"role": "tool", "tool_call_id": "c1", "content": "1"}
    assert check_repaired([user, calls, result], [result, user, calls])
    assert not check_repaired([result, user, calls], [result, user, calls])
    assert not check_repaired([user, calls], [result, user, calls])
    out = capsys.readouterr().out
    assert "still refuses it" in out and "exactly the same messages" in out
