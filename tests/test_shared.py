"""The pieces every lesson shares, in agent_core/_shared.py: the one cut of a long text's middle."""

import pytest

from agent_core._shared import keep_ends
from agent_core.coding import OutputCap
from agent_core.context import keep_head_and_tail
from agent_core.dispatch import truncate
from agent_core.tokens import encoding


def test_keep_ends_keeps_head_and_tail_and_counts_the_cut():
    assert keep_ends("abcdefghij", 5) == ("ab", 5, "hij")  # the tail keeps the odd one
    assert keep_ends([1, 2, 3, 4, 5, 6], 4) == ([1, 2], 2, [5, 6])
    assert keep_ends("short", 10) == ("short", 0, "")
    assert keep_ends("abc", 0) == ("", 3, "")


@pytest.mark.parametrize("size", [101, 4000, 9999])
def test_the_three_cuts_keep_the_same_ends(size):
    text = "".join(chr(ord("a") + i % 26) for i in range(size * 3))
    head, cut, tail = keep_ends(text, size)
    cap = OutputCap(size)
    for start in range(0, len(text), 7):  # a command's output arrives in chunks
        cap.add(text[start : start + 7])
    assert (cap.head, cap.chars_cut, cap.tail) == (head, cut, tail)
    observation = truncate(text, size + 40)
    before, after = observation.split("\n[...")[0], observation.rsplit("...]\n", 1)[1]
    assert text.startswith(before) and text.endswith(after) and len(after) - len(before) in (0, 1)
    assert len(observation) <= size + 40


def test_a_result_cut_to_a_token_budget_keeps_its_first_and_last_tokens():
    text = " ".join(f"word{i}" for i in range(2000))
    cut = keep_head_and_tail(text, 100)
    tokens = encoding().encode_ordinary(text)
    head, _, tail = keep_ends(tokens, 80)
    assert cut.startswith(encoding().decode(head)) and cut.endswith(encoding().decode(tail))
