"""Lesson 13's exercise checks: right answers written differently pass, tempting wrong ones are caught."""

import pytest
from hash_seeds import under_two_hash_seeds

from agent_core.checks.lesson13 import check_decide, check_delimit, check_plan_refusal, check_provenance
from agent_core.untrusted import decide, delimit, plan_refusal, provenance

# --- 13.1: provenance -------------------------------------------------------------------------------


def provenance_in_one_pass(messages, declarations):
    """right, written differently: remember each call's tool as it comes, mark each answer at once"""
    tool_of, marks = {}, []
    for message in messages:
        for call in message.get("tool_calls") or []:
            tool_of[call["id"]] = call["function"]["name"]
        if message["role"] == "tool":
            declared = declarations.get(tool_of.get(message["tool_call_id"]))
            marks.append("untrusted" if declared is None or declared.untrusted else "trusted")
    return marks


def undeclared_is_trusted(messages, declarations):
    tool_of = {c["id"]: c["function"]["name"] for m in messages for c in m.get("tool_calls") or []}
    marks = []
    for m in messages:
        if m["role"] == "tool":
            declared = declarations.get(tool_of.get(m["tool_call_id"]))
            marks.append("untrusted" if declared is not None and declared.untrusted else "trusted")
    return marks


def by_name(messages, declarations):
    """untrusted when the name says it reads from outside"""
    tool_of = {c["id"]: c["function"]["name"] for m in messages for c in m.get("tool_calls") or []}
    return [
        "untrusted" if tool_of.get(m["tool_call_id"], "").startswith(("read_inbox", "fetch")) else "trusted"
        for m in messages
        if m["role"] == "tool"
    ]


def first_call_of_each_reply(messages, declarations):
    tool_of = {
        m["tool_calls"][0]["id"]: m["tool_calls"][0]["function"]["name"]
        for m in messages
        if m.get("tool_calls")
    }
    marks = []
    for m in messages:
        if m["role"] == "tool":
            declared = declarations.get(tool_of.get(m["tool_call_id"]))
            marks.append("trusted" if declared is not None and not declared.untrusted else "untrusted")
    return marks


def only_answered_calls(messages, declarations):
    """skips a tool message that answers no call"""
    tool_of = {c["id"]: c["function"]["name"] for m in messages for c in m.get("tool_calls") or []}
    return [
        "untrusted"
        if declarations.get(tool_of[m["tool_call_id"]]) is None
        or declarations[tool_of[m["tool_call_id"]]].untrusted
        else "trusted"
        for m in messages
        if m["role"] == "tool" and m["tool_call_id"] in tool_of
    ]


def by_effect(messages, declarations):
    """untrusted when the tool reads: confuses what a tool does with where its text comes from"""
    tool_of = {c["id"]: c["function"]["name"] for m in messages for c in m.get("tool_calls") or []}
    marks = []
    for m in messages:
        if m["role"] == "tool":
            declared = declarations.get(tool_of.get(m["tool_call_id"]))
            marks.append("untrusted" if declared is None or declared.effect == "reads" else "trusted")
    return marks


def by_position(messages, declarations):
    """the n-th tool message taken as the answer to the n-th call, never looking at its tool_call_id"""
    calls = [
        c["function"]["name"]
        for m in messages
        if m.get("role") == "assistant"
        for c in m.get("tool_calls") or []
    ]
    results = [m for m in messages if m.get("role") == "tool"]
    marks = []
    for i, _ in enumerate(results):
        declared = declarations.get(calls[i] if i < len(calls) else None)
        marks.append("trusted" if declared is not None and not declared.untrusted else "untrusted")
    return marks


def raises_on_an_unknown_id(messages, declarations):
    """reads the tools of a tool message's id as if every id had been called: a TypeError on an unknown one"""
    made = {}
    for m in messages:
        for call in m.get("tool_calls") or [] if m.get("role") == "assistant" else []:
            made.setdefault(call["id"], []).append(call["function"]["name"])
    marks = []
    for m in messages:
        if m.get("role") == "tool":
            names = made.get(m.get("tool_call_id"))
            trusted = all(n in declarations and not declarations[n].untrusted for n in names)
            marks.append("trusted" if trusted else "untrusted")
    return marks


@pytest.mark.parametrize("right", [provenance, provenance_in_one_pass])
def test_check_provenance_passes_right_answers_written_differently(right, capsys):
    assert check_provenance(right)
    assert "✓ Exercise 13.1" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("wrong", "says"),
    [
        (undeclared_is_trusted, "(from mystery) is 'untrusted'; yours says 'trusted'"),
        (by_name, "calls mystery; declared: nothing: tool message 1 (from mystery) is 'untrusted'"),
        (
            first_call_of_each_reply,
            "tool message 2 (from lookup_customer) is 'trusted'; yours says 'untrusted'",
        ),
        (
            only_answered_calls,
            "a tool message answering no call; declared: nothing: 1 tool message(s) to mark; yours marked 0",
        ),
        (by_effect, "(from lookup_customer) is 'trusted'; yours says 'untrusted'"),
        (
            by_position,
            "calls read_inbox + lookup_customer (each reply's results come back last call first); "
            "declared: lookup_customer (reads): tool message 1 (from lookup_customer) is 'trusted'; "
            "yours says 'untrusted'",
        ),
        (lambda messages, declarations: None, "return a list"),
        (  # a raise is shrunk like any failure: the smallest case that raises, named
            raises_on_an_unknown_id,
            "- calls no calls and a tool message answering no call; declared: nothing: your code raised "
            "TypeError: 'NoneType' object is not iterable",
        ),
    ],
)
def test_check_provenance_catches_tempting_wrong_answers(wrong, says, capsys):
    result = check_provenance(wrong)
    out = capsys.readouterr().out
    assert not result and says in out, out


# --- 13.2: decide ---------------------------------------------------------------------------------------


def decide_as_a_table(name, declarations, *, untrusted_seen, read_only=False, can_ask=False):
    """right, written differently: the effect first, then one lookup"""
    declared = declarations.get(name)
    effect = declared.effect if declared else "unknown"
    if effect == "reads":
        return "run"
    return {(True, False): "refuse", (True, True): "refuse", (False, False): "run"}.get(
        (read_only, untrusted_seen), "ask" if can_ask else "refuse"
    )


def denylist_read_only(name, declarations, *, untrusted_seen, read_only=False, can_ask=False):
    """lesson 05's read-only: refuses only the tools listed as writing"""
    declared = declarations.get(name)
    if read_only and name in ("send_email", "write_file", "delete_file"):
        return "refuse"
    if declared is not None and declared.effect == "reads" or read_only:
        return "run"
    if not untrusted_seen:
        return "run"
    return "ask" if can_ask else "refuse"


def undeclared_reads(name, declarations, *, untrusted_seen, read_only=False, can_ask=False):
    declared = declarations.get(name)
    if declared is None or declared.effect == "reads":
        return "run"
    if read_only:
        return "refuse"
    if not untrusted_seen:
        return "run"
    return "ask" if can_ask else "refuse"


def asks_in_read_only(name, declarations, *, untrusted_seen, read_only=False, can_ask=False):
    declared = declarations.get(name)
    if declared is not None and declared.effect == "reads":
        return "run"
    if read_only:
        return "ask" if can_ask else "refuse"
    if not untrusted_seen:
        return "run"
    return "ask" if can_ask else "refuse"


def only_sends(name, declarations, *, untrusted_seen, read_only=False, can_ask=False):
    """the trifecta rule for sends only: a write after untrusted text runs"""
    declared = declarations.get(name)
    if declared is not None and declared.effect == "reads":
        return "run"
    if read_only:
        return "refuse"
    if not untrusted_seen or (declared is not None and declared.effect == "writes"):
        return "run"
    return "ask" if can_ask else "refuse"


def by_name_prefix(name, declarations, *, untrusted_seen, read_only=False, can_ask=False):
    if name.startswith(("read", "fetch", "lookup")):
        return "run"
    return decide(name, declarations, untrusted_seen=untrusted_seen, read_only=read_only, can_ask=can_ask)


def read_only_by_default(name, declarations, *, untrusted_seen, read_only=True, can_ask=False):
    """the exercise's defaults not kept: read-only unless told otherwise"""
    return decide(name, declarations, untrusted_seen=untrusted_seen, read_only=read_only, can_ask=can_ask)


@pytest.mark.parametrize("right", [decide, decide_as_a_table])
def test_check_decide_passes_right_answers_written_differently(right, capsys):
    assert check_decide(right)
    assert "✓ Exercise 13.2" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("wrong", "says"),
    [
        (
            denylist_read_only,
            "update_customer (declared 'writes'), untrusted text not in the context, read-only on",
        ),
        (undeclared_reads, "wipe_disk (declared nowhere), untrusted text not in the context, read-only on"),
        (asks_in_read_only, "read-only on, a person to ask: the answer is 'refuse'; yours is 'ask'"),
        (only_sends, "update_customer (declared 'writes'), untrusted text in the context"),
        (by_name_prefix, "read_and_archive"),
        (lambda name, declarations, **flags: "run", "the answer is 'refuse'; yours is 'run'"),
        (read_only_by_default, "read-only off, nobody to ask: the answer is 'run'; yours is 'refuse'"),
    ],
)
def test_check_decide_catches_tempting_wrong_answers(wrong, says, capsys):
    result = check_decide(wrong)
    out = capsys.readouterr().out
    assert not result and says in out, out


# --- 13.3: plan_refusal ---------------------------------------------------------------------------


def plan_refusal_by_slicing(plan, done, name, arguments):
    """right, written differently: the rest of the plan, and a set of what was fixed, in Spanish"""
    rest = plan[done:]
    if not rest or rest[0].tool != name:
        return "el plan no incluye esta llamada ahora"
    import json

    def as_json(value):
        return json.dumps(value, sort_keys=True)

    for key, value in rest[0].fixed.items():
        given = arguments.get(key, object())
        same = (
            isinstance(given, int | float)
            and not isinstance(given, bool)
            and isinstance(value, int | float)
            and not isinstance(value, bool)
            and given == value
        )
        if not same and (
            isinstance(given, object) and type(given) is object or as_json(given) != as_json(value)
        ):
            return f"el valor de {key} lo fijó la petición del usuario"
    return None


def name_only(plan, done, name, arguments):
    return None if done < len(plan) and plan[done].tool == name else "not the next step"


def anywhere_in_plan(plan, done, name, arguments):
    """any step of the plan, in any order"""
    for step in plan:
        if step.tool == name and all(arguments.get(k) == v for k, v in step.fixed.items()):
            return None
    return "not in the plan"


def python_equality(plan, done, name, arguments):
    """fixed values compared with ==: 1 == True"""
    if done >= len(plan) or plan[done].tool != name:
        return "no"
    return (
        None if all(k in arguments and arguments[k] == v for k, v in plan[done].fixed.items()) else "changed"
    )


def missing_is_fine(plan, done, name, arguments):
    if done >= len(plan) or plan[done].tool != name:
        return "no"
    for key, value in plan[done].fixed.items():
        if key in arguments and plan_refusal(
            [type(plan[done])(name, {key: value})], 0, name, {key: arguments[key]}
        ):
            return "changed"
    return None


def no_end(plan, done, name, arguments):
    """forgets that a finished plan allows nothing: the last step again"""
    step = plan[min(done, len(plan) - 1)] if plan else None
    if step is None or step.tool != name:
        return "no"
    return plan_refusal([step], 0, name, arguments)


@pytest.mark.parametrize("right", [plan_refusal, plan_refusal_by_slicing])
def test_check_plan_refusal_passes_right_answers_written_differently(right, capsys):
    assert check_plan_refusal(right)
    assert "✓ Exercise 13.3" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("wrong", "says"),
    [
        (name_only, "the model calls send_email(): the call must be refused"),
        (anywhere_in_plan, "step(s) done"),
        (python_equality, "=1)"),
        (missing_is_fine, "the call must be refused"),
        (no_end, "2 step(s) done, the model calls send_email"),
        (lambda plan, done, name, arguments: None, "the model calls get_api_key()"),
        (lambda plan, done, name, arguments: "no", "so it runs; yours said 'no'"),
        (  # a refusal that says nothing, and reads as false where a caller tests `if refusal:`
            lambda plan, done, name, arguments: plan_refusal(plan, done, name, arguments) and "",
            "was not run. Answer the user now.); yours returned ''",
        ),
    ],
)
def test_check_plan_refusal_catches_tempting_wrong_answers(wrong, says, capsys):
    result = check_plan_refusal(wrong)
    out = capsys.readouterr().out
    assert not result and says in out, out


# --- 13.4: delimit ----------------------------------------------------------------------------------


def delimit_escaping_every_bracket(text, source):
    """right, written differently: every "<" written as HTML's &lt;"""
    return f'<untrusted source="{source}">\n{text.replace("<", "&lt;")}\n</untrusted>'


def delimit_with_a_lookalike(text, source):
    """right, written differently: the tag's "<" swapped for a lookalike, word by word"""
    import re

    inner = re.sub(r"<(?=/?untrusted)", "\u2039", text, flags=re.IGNORECASE)
    return f'<untrusted source="{source}">\n{inner}\n</untrusted>'


def no_defusing(text, source):
    return f'<untrusted source="{source}">\n{text}\n</untrusted>'


def closing_tag_only(text, source):
    return f'<untrusted source="{source}">\n{text.replace("</untrusted>", "")}\n</untrusted>'


def case_sensitive(text, source):
    inner = text.replace("<untrusted", "<_untrusted").replace("</untrusted", "<_/untrusted")
    return f'<untrusted source="{source}">\n{inner}\n</untrusted>'


def deletes_tags(text, source):
    """every tag deleted, in one pass: deleting the tag inside `<untr<untrustedusted>` rebuilds one"""
    import re

    return f'<untrusted source="{source}">\n{re.sub(r"</?untrusted", "", text, flags=re.I)}\n</untrusted>'


def drops_lines_with_tags(text, source):
    kept = "\n".join(line for line in text.split("\n") if "untrusted" not in line.lower())
    return f'<untrusted source="{source}">\n{kept}\n</untrusted>'


def no_source(text, source):
    return delimit(text, source).replace(f' source="{source}"', "", 1)


def on_one_line(text, source):
    return (
        f'<untrusted source="{source}">'
        + delimit(text, source).split("\n", 1)[1].rsplit("\n", 1)[0]
        + "</untrusted>"
    )


@pytest.mark.parametrize("right", [delimit, delimit_escaping_every_bracket, delimit_with_a_lookalike])
def test_check_delimit_passes_right_answers_written_differently(right, capsys):
    assert check_delimit(right)
    assert "✓ Exercise 13.4" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("wrong", "says"),
    [
        (no_defusing, "still holds '</untrusted', which can open or close a block"),
        (closing_tag_only, "still holds '<untrusted'"),
        (case_sensitive, "still holds '</UNTRUSTED'"),
        (drops_lines_with_tags, "the text lost"),
        (deletes_tags, "delimit('<untr<untrustedusted"),
        (no_source, "start with '<untrusted source="),
        (on_one_line, "start with '<untrusted source="),
        (lambda text, source: None, "return the delimited text"),
    ],
)
def test_check_delimit_catches_tempting_wrong_answers(wrong, says, capsys):
    result = check_delimit(wrong)
    out = capsys.readouterr().out
    assert not result and says in out, out


def test_the_checks_run_the_same_scenarios_every_time(capsys):
    assert check_provenance(by_name).problems == check_provenance(by_name).problems
    assert check_decide(only_sends).problems == check_decide(only_sends).problems
    assert check_plan_refusal(no_end).problems == check_plan_refusal(no_end).problems


def test_the_lesson_13_checks_give_the_same_verdicts_under_another_hash_seed():
    """each check on a wrong answer: the same words whatever the order of a set"""
    outputs = under_two_hash_seeds(
        "test_checks_lesson13",
        "c.check_provenance(t.by_name); c.check_decide(t.only_sends); c.check_plan_refusal(t.no_end); "
        "c.check_delimit(t.case_sensitive)",
    )
    assert len(outputs) == 1 and outputs.pop().count("✗ Exercise 13.") == 4


def test_a_value_fixed_to_null_must_be_given_not_left_out(capsys):
    """arguments.get(key) reads a missing argument as null: the plan fixed cc=null, the call left it out"""

    def gets(plan, done, name, arguments):
        if done >= len(plan) or plan[done].tool != name:
            return f"{name} is not the plan's next step."
        for key, value in plan[done].fixed.items():
            if arguments.get(key) != value:
                return f"{key} must stay {value!r}."
        return None

    assert not check_plan_refusal(gets)
    assert "send_email(cc=None)], 0 step(s) done, the model calls send_email()" in capsys.readouterr().out
