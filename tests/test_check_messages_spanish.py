"""A check's verdict reaches a Spanish learner in Spanish, every line of it (agent_core/_i18n.py).

tools/translate.py check fails on a message marked with `_()` that has no Spanish entry; this test
fails on the other way a learner meets English: a message never marked. Each row runs one tempting
wrong answer of a lesson's catalogue (tests/test_checks_lessonNN.py) through its check twice, in
English and with AGENT_CORE_LANG=es, and requires of every problem line that it changed, that no run
of five English words survived into the Spanish outside values (quoted text, code, an exception's
own words), as a part left unmarked would, and that the English run's message log (agent_core._i18n,
AGENT_CORE_MESSAGE_LOG) turns the English verdict into the Spanish one as tools/translate.py build
does (so a Spanish notebook's stored outputs are what a run prints). A lesson joins by
adding its rows to its table: a few wrong answers that name different problems, fast ones.
"""

import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import test_checks_lesson00 as l00
import test_checks_lesson01 as l01
import test_checks_lesson02 as l02
import test_checks_lesson03 as l03
import test_checks_lesson04 as l04
import test_checks_lesson05 as l05
import test_checks_lesson06 as l06

from agent_core.checks.lesson00 import check_ask, check_repaired
from agent_core.checks.lesson01 import (
    check_cancel_description,
    check_make_definition,
    check_schedule_delivery,
    check_strict_find_orders,
)
from agent_core.checks.lesson02 import check_ask_once
from agent_core.checks.lesson03 import check_honest_tool, check_safe_dispatch
from agent_core.checks.lesson04 import check_my_run, check_predictions
from agent_core.checks.lesson05 import check_ask_first, check_max_uses
from agent_core.checks.lesson06 import check_keep_lines, check_split, check_token_rows

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import message_log  # noqa: E402
import translate  # noqa: E402

from agent_core._i18n import MESSAGE_LOG  # noqa: E402

Case = Callable[[], object]


LESSONS_00_06: dict[str, list[Case]] = {
    "00": [
        lambda: check_ask(l00.ask_forgetting),
        lambda: check_ask(l00.ask_appending_the_answer_as_user),
        lambda: check_ask(l00.ask_twice),
        lambda: check_repaired(
            [l00.QUESTION, l00.ANSWER, l00.CALLS, l00.RESULT_A, l00.RESULT_B], l00.JUMBLED
        ),
        lambda: check_repaired(
            [l00.QUESTION, l00.CALLS, l00.RESULT_B, l00.RESULT_A, l00.ANSWER], l00.JUMBLED
        ),
    ],
    "01": [
        lambda: check_make_definition(l01.with_mistake(all_required=True)),
        lambda: check_schedule_delivery(l01.delivery(day=str)),
        lambda: check_cancel_description(l01.vague_cancel_order),
        lambda: check_strict_find_orders(l01.find_orders_stub),
        lambda: check_strict_find_orders(l01.find_orders_with_a_model),
    ],
    "02": [
        lambda: check_ask_once(l02.ask_once_keeps_asking),
        lambda: check_ask_once(l02.by_hand(quote_strings=True)),
        lambda: check_ask_once(l02.by_hand(eval_arguments=True)),
    ],
    "03": [
        lambda: check_safe_dispatch(l03.catch_all),
        lambda: check_safe_dispatch(l03.lesson_tools_listed),
        lambda: check_safe_dispatch(l03.str_of_the_result),
        lambda: check_safe_dispatch(l03.wrong_shape),
        lambda: check_safe_dispatch(l03.catches_what_it_expects),
        lambda: check_safe_dispatch(l03.lets_system_exit_through),
        lambda: check_honest_tool(l03.says_why_not_what),
        lambda: check_honest_tool(l03.raises_a_plain_exception),
        lambda: check_honest_tool(l03.confirms_nothing),
    ],
    "04": [
        lambda: check_predictions(l04.WRONG_RULES[0][0]),
        lambda: check_predictions(l04.WRONG_RULES[6][0]),
        lambda: check_predictions(l04.WRONG_RULES[7][0]),
        lambda: check_my_run(l04.runs_the_tools_itself),
    ],
    "05": [
        lambda: check_max_uses(l05.CountsForEver),
        lambda: check_max_uses(l05.Stops),
        lambda: check_ask_first(l05.GuardsByPrefix),
    ],
    "06": [
        lambda: check_token_rows(l06.WRONG_TOKEN_ROWS[0][0]),
        lambda: check_keep_lines(l06.WRONG_KEEP_LINES[0][0]),
        lambda: check_split(l06.WRONG_SPLITS[0][0]),
    ],
}
LESSONS_07_13: dict[str, list[Case]] = {}

ROWS = [
    pytest.param(case, id=f"lesson{lesson}-{number}")
    for table in (LESSONS_00_06, LESSONS_07_13)
    for lesson, cases in table.items()
    for number, case in enumerate(cases)
]
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
RAISED = re.compile(r"\b\w+(Error|Exception): [^.;]*")  # an exception's own words are a value too


def _verdict(case: Case, language: str, monkeypatch, capsys) -> list[str]:
    monkeypatch.setenv("AGENT_CORE_LANG", language)
    capsys.readouterr()
    case()
    return capsys.readouterr().out.splitlines()


def as_built(case: Case, monkeypatch, capsys, log: Path) -> list[str]:
    """the English verdict with the messages its run logged put in Spanish, as the build does"""
    monkeypatch.setenv(MESSAGE_LOG, str(log))
    english = _verdict(case, "en", monkeypatch, capsys)
    monkeypatch.delenv(MESSAGE_LOG)
    pairs, _end = message_log.read_new(log, 0)
    log.unlink(missing_ok=True)
    stream = {"output_type": "stream", "name": "stdout", "text": "\n".join(english)}
    return translate.spanish_outputs([stream], pairs)[0]["text"].split("\n")


def _runs_of_five(line: str) -> set[tuple[str, ...]]:
    prose = re.sub(r"\S*[()._=\[\]]\S*", " ", RAISED.sub(" ", QUOTED.sub(" ", line)))  # code is a value
    words = re.findall(r"[A-Za-z]+", prose)
    return {tuple(words[i : i + 5]) for i in range(len(words) - 4)}


@pytest.mark.parametrize("case", ROWS)
def test_every_line_of_a_wrong_answers_verdict_is_spanish(case, monkeypatch, capsys, tmp_path):
    english = _verdict(case, "en", monkeypatch, capsys)
    spanish = _verdict(case, "es", monkeypatch, capsys)
    assert english and english[0].startswith("✗ Exercise "), english  # a wrong answer, named
    assert spanish[0].startswith("✗ Ejercicio ") and len(spanish) == len(english) > 1
    for line, translated in zip(english[1:], spanish[1:], strict=True):
        assert translated != line, f"a problem line with no Spanish: {line}"
        left = _runs_of_five(line) & _runs_of_five(translated)
        assert not left, f"English left in {translated!r}: {sorted(left)[0]}"
    assert as_built(case, monkeypatch, capsys, tmp_path / "messages.jsonl") == spanish
