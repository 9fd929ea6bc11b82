"""Calculator: a mock model that does arithmetic with whichever tools it is offered (the mock)."""

from __future__ import annotations

import json
import math
import operator
import re
from dataclasses import dataclass
from typing import Any

from ._text_memory import with_tool_messages
from .policy import Policy, Reply, ToolCall, last_user_text, offered_tools, tool_results

__all__ = [
    "Calculator",
    "Number",
    "Negate",
    "Operation",
    "Expression",
    "ParseError",
    "parse",
    "render",
]

TOOL_NAMES = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide"}
# a call whose result is an error or not a number is asked once more, then reported in text
MAX_ATTEMPTS = 2
HELP = (
    "I am a calculator. Ask me for arithmetic such as '5 + 8/12', '(3 + 4) * 2', "
    "'4+2 and 7+8' or 'Suma 4+2 y suma 7+8'. I use the add, subtract, multiply and divide "
    "tools when they are offered and work out the rest myself."
)

_COMPUTE = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}
_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}


# --- the expression tree --------------------------------------------------------------------


@dataclass(frozen=True)
class Number:
    """a number written in the message"""

    value: int | float


@dataclass(frozen=True)
class Negate:
    """-( ... ): unary minus of a sub-expression, always done in the model's head"""

    operand: Expression


@dataclass(frozen=True)
class Operation:
    """left <symbol> right, for symbol in + - * /"""

    symbol: str
    left: Expression
    right: Expression


Expression = Number | Negate | Operation


# --- reading the message: words -> tokens -> trees ------------------------------------------


class ParseError(ValueError):
    """the message has numbers and operators that do not form an expression"""


_WORDS = [  # applied in order to the lower-cased message; longer phrases first
    (r"\bpor favor\b|\bplease\b", " "),
    (r"\bdivided by\b|\bdividido (?:entre|por)\b|\bentre\b|÷", " / "),
    (r"\bmultiplied by\b|\bmultiplicado por\b|\btimes\b|\bpor\b|×", " * "),
    (r"\bplus\b|\bmás\b|\bmas\b", " + "),
    (r"\bminus\b|\bmenos\b", " - "),
]
_TOKEN = re.compile(r"(?P<number>\d+(?:\.\d+)?|\.\d+)|(?P<symbol>[-+*/(),;.?!])|(?P<word>[^\W\d_]+)")
_SEPARATORS = {"and", "y", ",", ";", ".", "?", "!"}
_ADD_VERBS = {"add", "sum", "suma"}


def _tokens(message: str) -> list[tuple[str, str]]:
    """(kind, text) pairs; kind is "number", an operator or paren, "and", "sum" or "end" """
    message = message.lower()
    for pattern, replacement in _WORDS:
        message = re.sub(pattern, replacement, message)
    tokens = []
    for match in _TOKEN.finditer(message):
        text = match.group()
        if match.group("number"):
            tokens.append(("number", text))
        elif text in _SEPARATORS:
            tokens.append(("and", text))
        elif text in _ADD_VERBS:
            tokens.append(("sum", text))
        elif match.group("symbol"):
            tokens.append((text, text))
        # any other word ("what", "is", "calculate", ...) or character is ignored
    return tokens + [("end", "")]


class _Parser:
    """recursive descent, one method per grammar rule"""

    def __init__(self, tokens: list[tuple[str, str]]):
        self.tokens = tokens
        self.position = 0

    def peek(self) -> str:
        return self.tokens[self.position][0]

    def take(self) -> str:
        text = self.tokens[self.position][1]
        self.position += 1
        return text

    def accept(self, kind: str) -> bool:
        if self.peek() == kind:
            self.position += 1
            return True
        return False

    def found(self) -> str:
        kind, text = self.tokens[self.position]
        return "the end of the message" if kind == "end" else repr(text)

    def request(self) -> list[Expression]:
        """request := (clause | separator)*; a clause ends where the next token cannot continue it"""
        expressions = []
        while self.peek() != "end":
            if not self.accept("and"):
                expressions.append(self.clause())
        return expressions

    def clause(self) -> Expression:
        """clause := ["add" | "sum" | "suma"] expression; a plain number after the verb is added to
        what follows up to the next verb: "add 4 and 2" is 4 + 2, "suma 4+2 y suma 7+8" is two"""
        if not self.accept("sum"):
            return self.expression()
        total = self.expression()
        if not isinstance(total, Number):
            return total
        while self.peek() == "and" and self.after_separators() not in ("sum", "end"):
            while self.accept("and"):
                pass
            total = Operation("+", total, self.expression())
        return total

    def after_separators(self) -> str:
        """the kind of the first token after the "and"s at the current position"""
        position = self.position
        while self.tokens[position][0] == "and":
            position += 1
        return self.tokens[position][0]

    def expression(self) -> Expression:
        """expression := term (("+" | "-") term)*"""
        tree = self.term()
        while self.peek() in ("+", "-"):
            symbol = self.take()
            tree = Operation(symbol, tree, self.term())
        return tree

    def term(self) -> Expression:
        """term := unary (("*" | "/") unary)*"""
        tree = self.unary()
        while self.peek() in ("*", "/"):
            symbol = self.take()
            tree = Operation(symbol, tree, self.unary())
        return tree

    def unary(self) -> Expression:
        """unary := ("-" | "+") unary | primary"""
        if self.accept("+"):
            return self.unary()
        if self.accept("-"):
            operand = self.unary()
            return Number(-operand.value) if isinstance(operand, Number) else Negate(operand)
        return self.primary()

    def primary(self) -> Expression:
        """primary := number | "(" expression ")" """
        if self.peek() == "number":
            text = self.take()
            return Number(float(text) if "." in text else int(text))
        if self.accept("("):
            tree = self.expression()
            if not self.accept(")"):
                raise ParseError(f"expected ')' but found {self.found()}")
            return tree
        raise ParseError(f"expected a number or '(' but found {self.found()}")


def parse(message: str) -> list[Expression]:
    """the arithmetic in a message, one tree per result to report (bare numbers are not arithmetic)"""
    return [tree for tree in _Parser(_tokens(message)).request() if not isinstance(tree, Number)]


# --- writing numbers and trees back as text --------------------------------------------------


def _format_number(value: int | float) -> str:
    """as Python prints it, but an integral float without '.0' (6.0 -> '6')"""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return repr(value)


def render(tree: Expression) -> str:
    """the expression with the fewest parentheses: '5 + 8/12', '(3 + 4)*2'"""
    if isinstance(tree, Number):
        return _format_number(tree.value)
    if isinstance(tree, Negate):
        return "-" + _wrap(tree.operand, 3)
    precedence = _PRECEDENCE[tree.symbol]
    left, right = _wrap(tree.left, precedence), _wrap(tree.right, precedence + 1)
    return f"{left} {tree.symbol} {right}" if precedence == 1 else f"{left}{tree.symbol}{right}"


def _wrap(tree: Expression, at_least: int) -> str:
    if isinstance(tree, Operation) and _PRECEDENCE[tree.symbol] < at_least:
        return f"({render(tree)})"
    return render(tree)


# --- the policy ------------------------------------------------------------------------------


class _CannotCompute(Exception):
    """an expression that has no value: division by zero, or a tool that kept failing"""


class Calculator(Policy):
    """asks for every operation whose operands are known, all at once; answers when all are done

    Reads the arithmetic in the latest user message. An operation whose tool (add, subtract,
    multiply, divide) is offered becomes a tool call, with the tool's first two parameters as
    its operands; one whose tool is missing is done in its head. The conversation is the only
    state: tool results are matched to operations through the tool_call_id of each call.
    """

    def reply(self, request: dict[str, Any]) -> str | Reply | list[ToolCall]:
        request = with_tool_messages(request)  # calls and results a framework wrote out as text
        message = last_user_text(request)
        try:
            expressions = parse(message)
        except ParseError as error:
            return f"I could not read the arithmetic in {message!r}: {error}. {HELP}"
        if not expressions:
            return HELP
        tools = _usable_tools(request)
        results = _results_so_far(request, tools)
        ready: list[ToolCall] = []
        lines = []
        done: dict[str, int | float] = {}  # expression -> its value, for structured answers
        for tree in expressions:
            needed: list[ToolCall] = []
            try:
                value = _evaluate(tree, tools, results, needed)
            except _CannotCompute as problem:
                lines.append(f"{render(tree)}: {problem}")
                continue
            ready += needed
            if value is not None:
                lines.append(f"{render(tree)} = {_format_number(value)}")
                done[render(tree)] = value
        if ready:
            return ready
        values: dict[str, Any] = {"expressions": list(done), "results": list(done.values())}
        if len(done) == 1:
            ((expression, result),) = done.items()
            values = {"expression": expression, "result": result}
        return Reply(content="\n".join(lines), values=values)


def _usable_tools(request: dict[str, Any]) -> dict[str, tuple[str, str, str]]:
    """symbol -> (tool name, first parameter, second parameter) for each arithmetic tool offered"""
    if request.get("tool_choice") == "none":
        return {}
    offered = offered_tools(request)
    tools = {}
    for symbol, name in TOOL_NAMES.items():
        if name not in offered:
            continue
        schema = offered[name].get("parameters") or {}
        parameters = list(schema.get("properties") or {})
        if len(parameters) >= 2:  # with fewer, the tool cannot take two operands
            tools[symbol] = (name, parameters[0], parameters[1])
    return tools


def _results_so_far(
    request: dict[str, Any], tools: dict[str, tuple[str, str, str]]
) -> dict[tuple[str, Any, Any], list[str]]:
    """(tool name, a, b) -> the result texts received for that call since the latest user message"""
    parameters = {name: (first, second) for name, first, second in tools.values()}
    asked: dict[str, tuple[str, Any, Any]] = {}  # tool_call_id -> (name, a, b), oldest first
    for message in _since_last_user(request.get("messages", [])):
        for tool_call in message.get("tool_calls") or []:
            function = tool_call.get("function") or {}
            name = function.get("name")
            if name in parameters:
                operands = _operands(function.get("arguments"), *parameters[name])
                if operands is not None:
                    asked[tool_call.get("id")] = (name, *operands)
    answers = tool_results(request)
    results: dict[tuple[str, Any, Any], list[str]] = {}
    for call_id, operation in asked.items():
        if call_id in answers:
            results.setdefault(operation, []).append(answers[call_id])
    return results


def _since_last_user(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    return messages[last_user + 1 :]


def _operands(arguments: Any, first: str, second: str) -> tuple[Any, Any] | None:
    try:
        values = json.loads(arguments) if isinstance(arguments, str) else arguments
        a, b = values[first], values[second]
    except (ValueError, TypeError, KeyError):
        return None
    return (a, b) if _is_number(a) and _is_number(b) else None


def _evaluate(
    tree: Expression,
    tools: dict[str, tuple[str, str, str]],
    results: dict[tuple[str, Any, Any], list[str]],
    needed: list[ToolCall],
) -> int | float | None:
    """the value of the tree, or None while it waits for tool results; appends the calls it needs"""
    if isinstance(tree, Number):
        return tree.value
    if isinstance(tree, Negate):
        value = _evaluate(tree.operand, tools, results, needed)
        return None if value is None else -value
    left = _evaluate(tree.left, tools, results, needed)
    right = _evaluate(tree.right, tools, results, needed)
    if left is None or right is None:
        return None
    if tree.symbol not in tools:  # no tool for it: done in its head
        if tree.symbol == "/" and right == 0:
            raise _CannotCompute("undefined, it divides by zero")
        computed: int | float = _COMPUTE[tree.symbol](left, right)
        return computed
    name, first, second = tools[tree.symbol]
    answers = results.get((name, left, right), [])
    for text in answers:
        value = _read_number(text)
        if value is not None:
            return value
    if len(answers) >= MAX_ATTEMPTS:
        call = f"{name}({_format_number(left)}, {_format_number(right)})"
        raise _CannotCompute(f"could not compute it, {call} answered {answers[-1]!r}")
    needed.append(ToolCall(name, {first: left, second: right}))
    return None


def _read_number(text: str) -> int | float | None:
    """a tool result as a number: '6', '0.6666666666666666', or JSON like {"result": 6}"""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if isinstance(value, dict) and len(value) == 1:
        (value,) = value.values()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value if _is_number(value) else None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
