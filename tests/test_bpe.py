"""agent_core._bpe: cl100k_base in pure Python (the browser edition) gives tiktoken's tokens exactly."""

import random
from pathlib import Path

import pytest

from agent_core import tokens
from agent_core._bpe import PureEncoding, last_safe_cut

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def both():
    real = tokens.encoding()
    return real, PureEncoding(tokens.ENCODING_NAME, real._mergeable_ranks)


def test_the_pure_encoding_gives_tiktokens_tokens_on_the_course_and_on_random_text(both):
    real, pure = both
    texts = [path.read_text(encoding="utf-8") for path in sorted(ROOT.glob("lessons/0*.ipynb"))[:4]]
    texts += [path.read_text(encoding="utf-8") for path in sorted((ROOT / "agent_core").glob("*.py"))]
    texts += [
        "",
        " ",
        "don't WE'LL it's  \n\n\t x",
        "½ ² ٣ Ⅻ 東京 naïve café 😀👍🏽",
        "12345678901 1.5e-3 $9.99",
        "a" * 3000,
    ]
    rng = random.Random(27)
    alphabet = "aZé東😀1²½٣Ⅻ \n\r\t'.,!-_$\u00a0\u2028"
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 80))) for _ in range(2000)]
    different = [text for text in texts if pure.encode_ordinary(text) != real.encode_ordinary(text)]
    assert different == []


def test_decoding_gives_tiktokens_text_even_for_a_character_cut_in_half(both):
    real, pure = both
    tokens = real.encode_ordinary("naïve café 東京 😀 done")
    for end in range(len(tokens) + 1):
        assert pure.decode(tokens[:end]) == real.decode(tokens[:end])


def test_the_last_safe_cut_is_where_the_regex_module_finds_it():
    rng = random.Random(5)
    alphabet = "ab é東 \n\t.x"
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(200))
        found = tokens._LAST_SAFE_CUT.search(text, 50, 200)
        assert last_safe_cut(text, 50, 200) == (found.start() if found else None), repr(text)
