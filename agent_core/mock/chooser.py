"""A mock model that picks its tool by reading the descriptions: the description is the prompt (lesson 01)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .policy import Policy, ReplyLike, call, last_user_text, offered_tools, tool_results

__all__ = ["DescriptionReader", "ToolScore", "score_tools", "fill_arguments", "words"]

_STOP_WORDS = frozenset(
    """a an the and or but if of to in on at by for with from about into as than then so
    is are was were be been being am do does did done have has had can could will would
    should may might must shall it its this that these those there here i me my mine you
    your we our us they them their he she his her what which who whom whose where when why
    how please tell show give get got want need know let up out any some all not no just
    also very too one each every""".split()
)


@dataclass(frozen=True)
class ToolScore:
    """how well one tool's description matches the request: the shared words, and their count"""

    name: str
    score: int
    matched: tuple[str, ...]


class DescriptionReader(Policy):
    """calls the offered tool whose description shares the most words with the user's request

    Like a model, it knows a tool only by what the definition says, and only the description
    counts here (names are ignored so that the lesson isolates the description). Scoring:
    lower-cased words, minus _STOP_WORDS, plurals made singular; the highest count of shared
    words wins and a tie goes to the tool offered first. No shared word: no tool call.
    Arguments: see fill_arguments. Once the result comes back, it answers quoting it.
    """

    def reply(self, request: dict[str, Any]) -> ReplyLike:
        messages = request.get("messages", [])
        if messages and messages[-1].get("role") == "tool":
            return self._answer(request)
        tools = offered_tools(request)
        if request.get("tool_choice") == "none" or not tools:
            return "I have no tools to look this up with."
        user_text = last_user_text(request)
        scores = score_tools(user_text, tools)
        forced = _forced_tool(request)
        if forced in tools:
            chosen = forced
        elif max(s.score for s in scores) > 0 or request.get("tool_choice") == "required":
            chosen = max(scores, key=lambda s: s.score).name  # max keeps the first of equals
        else:
            return (
                "None of my tools' descriptions has a word in common with your request, "
                "so I will not call one."
            )
        return call(chosen, fill_arguments(user_text, tools[chosen]))

    def _answer(self, request: dict[str, Any]) -> str:
        """quote the results that came back since the last assistant turn"""
        messages = request.get("messages", [])
        names: dict[Any, Any] = {}
        latest: list[Any] = []
        for message in messages:
            for tool_call in message.get("tool_calls") or []:
                names[tool_call.get("id")] = (tool_call.get("function") or {}).get("name")
        for message in reversed(messages):
            if message.get("role") != "tool":
                break
            latest.insert(0, message.get("tool_call_id"))
        results = tool_results(request)
        return "\n".join(
            f"The {names.get(call_id) or 'tool'} tool says: {results[call_id]}" for call_id in latest
        )


def score_tools(request_text: str, tools: dict[str, dict[str, Any]]) -> list[ToolScore]:
    """one ToolScore per offered tool (name -> function definition), in the order offered"""
    asked = set(words(request_text))
    scores = []
    for name, function in tools.items():
        shared = [w for w in dict.fromkeys(words(function.get("description") or "")) if w in asked]
        scores.append(ToolScore(name, len(shared), tuple(shared)))
    return scores


def fill_arguments(request_text: str, function: dict[str, Any]) -> dict[str, Any]:
    """the arguments a literal reader can take from the request, for one function definition

    - string with an enum: the first choice named in the request;
    - string: the next "quoted" text; failing that, the first string parameter gets an id
      such as A-1042, or else the request's words that the description does not use;
    - integer / number: the next number in the request;
    - anything else is left out; strict mode's required-but-nullable parameters get null.
    """
    parameters = function.get("parameters") or {}
    properties = parameters.get("properties") or {}
    quoted = [a or b or c for a, b, c in _QUOTED.findall(request_text)]
    numbers = [float(n) if "." in n else int(n) for n in _NUMBER.findall(request_text)]
    ids = [token for token in _TOKEN.findall(request_text) if _is_id(token)]
    description_words = set(words(function.get("description") or ""))
    rest = " ".join(
        token
        for token in _TOKEN.findall(request_text)
        if _normal(token) and _normal(token) not in description_words and not _is_id(token)
    )
    arguments: dict[str, Any] = {}
    first_string = True
    for name, schema in properties.items():
        kinds = _json_types(schema)
        if "enum" in schema:
            named = [c for c in schema["enum"] if isinstance(c, str) and c.lower() in request_text.lower()]
            if named:
                arguments[name] = named[0]
        elif "string" in kinds and quoted:
            arguments[name] = quoted.pop(0)
        elif "string" in kinds and first_string and (ids or rest):
            arguments[name] = ids[0] if ids else rest
        elif kinds & {"integer", "number"} and numbers:
            number = numbers.pop(0)
            arguments[name] = int(number) if "integer" in kinds and number == int(number) else number
        first_string = first_string and "string" not in kinds
    for name in parameters.get("required") or []:
        if name not in arguments and "null" in _json_types(properties.get(name, {})):
            arguments[name] = None
    return arguments


def words(text: str) -> list[str]:
    """the content words of a text: lower-cased, stop words dropped, plurals made singular"""
    return [w for w in (_normal(token) for token in _TOKEN.findall(text)) if w]


# --- helpers --------------------------------------------------------------------------------

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]*")
_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|(?<!\w)'([^']+)'(?!\w)")
_NUMBER = re.compile(r"(?<![\w.-])-?\d+(?:\.\d+)?(?![\w-])")


def _normal(token: str) -> str:
    """one token as a content word ('' for a stop word or a single letter)"""
    word = token.lower().strip("-")
    if word in _STOP_WORDS or len(word) < 2:
        return ""
    return _singular(word)


def _is_id(token: str) -> bool:
    """A-1042, order7, x2: letters and digits together"""
    return any(c.isdigit() for c in token) and any(c.isalpha() for c in token)


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "ches", "shes", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _json_types(schema: dict[str, Any]) -> set[str]:
    kinds = schema.get("type")
    found = set(kinds if isinstance(kinds, list) else [kinds] if kinds else [])
    for option in schema.get("anyOf") or []:
        found |= _json_types(option)
    return found


def _forced_tool(request: dict[str, Any]) -> str | None:
    choice = request.get("tool_choice")
    if isinstance(choice, dict):
        return (choice.get("function") or {}).get("name")
    return None
