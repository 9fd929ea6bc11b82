"""Tests for agent_core.dispatch: tool call in, tool message out, failures as observations (lesson 03)."""

import enum
import json
import threading
import time
from typing import Any, NotRequired

import pytest
from calculator_tools import add, divide, multiply
from openai.types.chat import ChatCompletionMessageFunctionToolCall, ChatCompletionToolMessageParam
from openai.types.chat.chat_completion_message_function_tool_call import Function
from pydantic import BaseModel, TypeAdapter, field_validator
from typing_extensions import TypedDict

from agent_core import dispatch
from agent_core.dispatch import (
    ERROR_PREFIX,
    Observation,
    ToolRegistry,
    is_error,
    python_arguments,
    to_text,
    truncate,
)
from agent_core.schema import Tool, tool


class Unit(str, enum.Enum):  # noqa: UP042 - the (str, Enum) form learners write, on purpose
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Address(BaseModel):
    street: str
    city: str

    @field_validator("city")
    @classmethod
    def city_is_known(cls, city: str) -> str:
        if city == "Atlantis":
            raise ValueError("no deliveries to Atlantis")
        return city


def weather(city: str, unit: Unit = Unit.CELSIUS, days: int | None = None) -> dict:
    """Report the weather in a city."""
    return {"city": city, "unit": unit, "days": days, "sky": "soleado ☀"}


def ship(address: Address, express: bool = False) -> Address:
    """Ship a parcel to an address."""
    assert isinstance(address, Address)
    return address


class Stop(TypedDict):
    city: str
    unit: NotRequired[Unit]


def plan(stops: list[Stop]) -> list:
    """Plan a trip through some cities."""
    return [stop.get("unit") for stop in stops]


def call(name, arguments, call_id="call_1"):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


@pytest.fixture
def registry():
    return ToolRegistry([add, divide, weather, ship])


# --- the happy path, both call shapes -------------------------------------------------------


def test_dispatch_answers_a_dict_call_with_a_tool_message(registry):
    message = registry.dispatch(call("add", '{"a": 2, "b": 3}'))
    assert message == {"role": "tool", "tool_call_id": "call_1", "content": "5"}
    assert TypeAdapter(ChatCompletionToolMessageParam).validate_python(message) == message


def test_dispatch_accepts_the_sdk_tool_call_object(registry):
    sdk_call = ChatCompletionMessageFunctionToolCall(
        id="call_abc", type="function", function=Function(name="add", arguments='{"a": 1, "b": 2}')
    )
    assert registry.dispatch(sdk_call) == {
        "role": "tool",
        "tool_call_id": "call_abc",
        "content": "3",
    }


def test_arguments_already_parsed_as_a_dict_are_accepted(registry):
    assert registry.dispatch(call("add", {"a": 1, "b": 1}))["content"] == "2"


def test_empty_arguments_mean_no_arguments():
    def ping() -> str:
        """Check the service is up."""
        return "pong"

    assert ToolRegistry([ping]).dispatch(call("ping", ""))["content"] == "pong"


def test_results_are_serialised_as_json_unless_they_are_text(registry):
    content = registry.dispatch(call("weather", '{"city": "Málaga"}'))["content"]
    assert content == '{"city": "Málaga", "unit": "celsius", "days": null, "sky": "soleado ☀"}'
    shipped = registry.dispatch(call("ship", '{"address": {"street": "Larios 1", "city": "Málaga"}}'))
    assert json.loads(shipped["content"]) == {"street": "Larios 1", "city": "Málaga"}
    assert to_text("plain text") == "plain text"
    assert to_text(None) == "null"
    assert to_text((1, Unit.FAHRENHEIT)) == '[1, "fahrenheit"]'


# --- converting JSON into the function's Python types ---------------------------------------


def test_enum_and_pydantic_parameters_arrive_as_python_objects(registry):
    observation = registry.run(
        call("ship", '{"address": {"street": "Larios 1", "city": "Málaga"}, "express": true}')
    )
    assert isinstance(observation.value, Address)
    assert observation.value.city == "Málaga"
    assert registry.run(call("weather", '{"city": "Oslo", "unit": "fahrenheit"}')).value["unit"] is (
        Unit.FAHRENHEIT
    )


def test_null_for_a_defaulted_parameter_means_use_the_default():
    strict_weather = tool(weather, strict=True)
    registry = ToolRegistry([strict_weather])
    value = registry.run(call("weather", '{"city": "Oslo", "unit": null, "days": null}')).value
    assert value["unit"] is Unit.CELSIUS
    assert value["days"] is None


def test_a_missing_optional_parameter_without_default_becomes_none():
    def greet(name: str, title: str | None) -> str:
        """Greet someone."""
        return f"{title or ''} {name}".strip()

    assert python_arguments(greet, {"name": "Ada"}) == {"name": "Ada", "title": None}
    assert ToolRegistry([greet]).dispatch(call("greet", '{"name": "Ada"}'))["content"] == "Ada"


def test_enums_inside_typeddicts_inside_lists_are_converted():
    stops = '{"stops": [{"city": "Oslo", "unit": "fahrenheit"}, {"city": "Bergen"}]}'
    assert ToolRegistry([plan]).run(call("plan", stops)).value == [Unit.FAHRENHEIT, None]


def test_whole_floats_become_ints_for_int_parameters(registry):
    assert registry.run(call("add", '{"a": 2.0, "b": 1}')).value == 3


# --- every failure is an observation --------------------------------------------------------


def test_unknown_tool_lists_the_known_ones(registry):
    message = registry.dispatch(call("multiply", '{"a": 2, "b": 3}'))
    assert message == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "ERROR: there is no tool named 'multiply'. The available tools are: "
        "add, divide, weather, ship. Call one of them by its exact name.",
    }


def test_unknown_tool_in_an_empty_registry_says_to_answer_without_tools():
    content = ToolRegistry().dispatch(call("add", "{}"))["content"]
    assert content == ("ERROR: there is no tool named 'add'; no tools are available, so answer without one.")


def test_invalid_json_says_where_and_shows_the_text(registry):
    content = registry.dispatch(call("add", '{"a": 2 "b": 3}'))["content"]
    assert content == (
        "ERROR: the arguments for 'add' are not valid JSON: Expecting ',' delimiter at line 1, "
        'column 9 (char 8). Received: {"a": 2 "b": 3}. '
        'Call \'add\' again with one JSON object, like {"a": ..., "b": ...}.'
    )


def test_a_huge_number_is_reported_not_raised(registry):
    observation = registry.run(call("add", '{"a": 1' + "0" * 5000 + ', "b": 1}'))
    assert observation.error_type == "invalid_json"
    assert "5001 digits" in observation.content


def test_json_that_is_not_an_object_is_refused(registry):
    content = registry.dispatch(call("add", "[2, 3]"))["content"]
    assert content == (
        "ERROR: the arguments for 'add' must be a JSON object, but got an array: [2, 3]. "
        'Call \'add\' again with one JSON object, like {"a": ..., "b": ...}.'
    )


def test_schema_violations_name_each_field_and_what_was_expected(registry):
    content = registry.dispatch(call("add", '{"a": "two", "c": 1}'))["content"]
    assert content.startswith("ERROR: the arguments for 'add' do not match its parameters:\n")
    assert "- 'a': expected a number, got a string \"two\"\n" in content
    assert "- 'b': missing (required)\n" in content
    assert "- the arguments: unexpected 'c' (not a parameter)\n" in content
    assert content.endswith(
        "Call 'add' again with corrected arguments. "
        "Its parameters: a (number, required), b (number, required)."
    )


def test_enum_and_nested_violations_give_the_path(registry):
    content = registry.dispatch(call("weather", '{"city": "Oslo", "unit": "kelvin"}'))["content"]
    assert '- \'unit\': "kelvin" is not one of "celsius", "fahrenheit"' in content
    content = registry.dispatch(call("ship", '{"address": {"street": 7}}'))["content"]
    assert "- 'address.street': expected a string, got a number 7" in content
    assert "- 'address.city': missing (required)" in content


def test_a_rule_only_the_python_type_knows_is_still_an_observation(registry):
    observation = registry.run(call("ship", '{"address": {"street": "Main 1", "city": "Atlantis"}}'))
    assert observation.is_error and observation.error_type == "invalid_arguments"
    assert "no deliveries to Atlantis" in observation.content
    assert "\n" not in observation.content


def test_an_exception_in_the_tool_becomes_a_short_observation(registry):
    content = registry.dispatch(call("divide", '{"a": 1, "b": 0}'))["content"]
    assert content == (
        "ERROR: the tool 'divide' raised ZeroDivisionError: division by zero. "
        "Check the arguments and call it again, or try another approach."
    )
    assert "Traceback" not in content


def test_an_exception_whose_message_ends_a_sentence_gets_no_second_period():
    def book(guests: int) -> str:
        """Book a table."""
        raise RuntimeError("We seat at most 8; call the restaurant for a larger group.")

    content = ToolRegistry([book]).dispatch(call("book", '{"guests": 12}'))["content"]
    assert "for a larger group. Check the arguments" in content and ".." not in content


def test_an_unserialisable_result_is_reported():
    def loop() -> list:
        """Return a list that contains itself."""
        items: list = []
        items.append(items)
        return items

    observation = ToolRegistry([loop]).run(call("loop", "{}"))
    assert observation.error_type == "tool_error"
    assert "cannot be written as text" in observation.content


# --- time limits ----------------------------------------------------------------------------


@pytest.fixture
def slow_tool():
    release = threading.Event()

    def slow() -> str:
        """Wait a while."""
        release.wait(60)
        return "finally"

    yield slow
    release.set()  # let the abandoned worker thread end


def test_a_tool_that_runs_too_long_is_reported_at_its_own_timeout(slow_tool):
    registry = ToolRegistry()
    registry.add(slow_tool, timeout=0.2)
    observation = registry.run(call("slow", "{}"))
    assert (
        observation.error_type == "timeout"
    )  # the tool waits 60 s: had the dispatcher waited, it would have "finally"
    assert observation.content == (
        "ERROR: the tool 'slow' did not finish within 0.2 seconds. The dispatcher stopped "
        "waiting but cannot stop it: it may still be running, and what it does may still "
        "happen. Try a smaller request, or another approach."
    )


def test_the_registry_timeout_applies_to_every_tool(slow_tool):
    registry = ToolRegistry([slow_tool, add], timeout=0.1)
    assert registry.timeout_for("slow") == 0.1
    assert is_error(registry.dispatch(call("slow", "{}")))
    assert registry.dispatch(call("add", '{"a": 1, "b": 2}'))["content"] == "3"


def test_no_timeout_waits_for_the_tool_however_long_it_takes():
    def slow_answer() -> str:
        """Answer after a while."""
        time.sleep(0.3)
        return "late but here"

    registry = ToolRegistry([slow_answer], timeout=None)
    assert registry.dispatch(call("slow_answer", "{}"))["content"] == "late but here"


# --- the size cap ---------------------------------------------------------------------------


def test_long_results_keep_head_and_tail_with_a_marker():
    def dump() -> str:
        """Return a long text."""
        return "H" * 5000 + "T" * 5000

    content = ToolRegistry([dump], max_chars=1000).dispatch(call("dump", "{}"))["content"]
    assert content == "H" * 483 + "\n[... 9,033 characters cut ...]\n" + "T" * 484
    assert len(content) <= 1000


def test_truncate_leaves_short_text_alone_and_respects_the_limit():
    assert truncate("short", 10) == "short"
    assert truncate("x" * 100, None) == "x" * 100
    cut = truncate("a" * 50_000 + "z" * 50_000, 4000)
    assert len(cut) <= 4000
    assert cut.startswith("a") and cut.endswith("z")
    assert "characters cut" in cut


def test_error_observations_are_capped_too():
    registry = ToolRegistry([add], max_chars=200)
    content = registry.dispatch(call("add", "{" + "x" * 5000))["content"]
    assert len(content) <= 200
    assert content.startswith(ERROR_PREFIX)


# --- parallel calls -------------------------------------------------------------------------


def test_dispatch_all_answers_every_call_in_order_even_when_one_fails(registry):
    messages = registry.dispatch_all(
        [
            call("add", '{"a": 4, "b": 2}', "call_a"),
            call("divide", '{"a": 1, "b": 0}', "call_b"),
            call("nope", "{}", "call_c"),
            call("add", '{"a": 7, "b": 8}', "call_d"),
        ]
    )
    assert [m["tool_call_id"] for m in messages] == ["call_a", "call_b", "call_c", "call_d"]
    assert [is_error(m) for m in messages] == [False, True, True, False]
    assert [messages[0]["content"], messages[3]["content"]] == ["6", "15"]


def test_dispatch_all_of_no_calls_is_empty(registry):
    assert registry.dispatch_all(None) == []
    assert registry.dispatch_all([]) == []


# --- the structured result ------------------------------------------------------------------


def test_run_returns_an_observation_with_the_details(registry):
    ok = registry.run(call("add", '{"a": 1, "b": 2}'))
    assert ok == Observation("call_1", "add", "3", False, None, {"a": 1, "b": 2}, 3)
    failed = registry.run(call("add", '{"a": 1}'))
    assert (failed.is_error, failed.error_type, failed.arguments) == (
        True,
        "invalid_arguments",
        {"a": 1},
    )
    assert failed.to_message() == registry.dispatch(call("add", '{"a": 1}'))


def test_is_error_reads_messages_observations_and_text(registry):
    failed = registry.run(call("nope", "{}"))
    assert is_error(failed) and is_error(failed.to_message()) and is_error(failed.content)
    assert not is_error({"role": "tool", "tool_call_id": "x", "content": "fine"})
    assert not is_error(registry.run(call("add", '{"a": 1, "b": 2}')))


# --- the registry ---------------------------------------------------------------------------


def test_registry_lists_names_and_definitions(registry):
    assert registry.names == ["add", "divide", "weather", "ship"]
    assert len(registry) == 4
    assert "add" in registry and "multiply" not in registry
    assert isinstance(registry["add"], Tool)
    assert registry.definitions[0] == tool(add).definition
    assert [t.name for t in registry] == registry.names


def test_register_works_as_a_bare_decorator_and_with_options():
    registry = ToolRegistry()

    @registry.register
    def double(x: int) -> int:
        """Double a number."""
        return 2 * x

    @registry.register(name="triple", timeout=1.5)
    def times_three(x: int) -> int:
        """Triple a number."""
        return 3 * x

    assert double(4) == 8
    assert registry.names == ["double", "triple"]
    assert registry.timeout_for("triple") == 1.5
    assert registry.dispatch(call("triple", '{"x": 2}'))["content"] == "6"


def test_add_keeps_a_strict_tool_strict():
    registry = ToolRegistry()
    registry.add(tool(add, strict=True))
    assert registry.definitions[0]["function"]["strict"] is True


def test_duplicate_names_are_refused(registry):
    with pytest.raises(ValueError, match="'add' is already registered"):
        registry.add(add)


def test_a_call_that_is_not_a_tool_call_is_a_programming_error(registry):
    with pytest.raises(TypeError, match="expected a tool call"):
        registry.dispatch("add(1, 2)")


def test_a_function_taking_keyword_arguments_receives_them_as_json_values():
    def lookup(**arguments):
        return arguments

    class GivenSchema(Tool):  # as an MCP server's tool gives its own schema (lesson 10)
        def read_parameters(self, parameter_docs: dict[str, str]) -> dict[str, Any]:
            return {"type": "object", "properties": {"user-id": {"type": "integer"}}, "required": ["user-id"]}

    registry = ToolRegistry([GivenSchema(lookup, description="Look a user up.")])
    call = {"id": "call_1", "function": {"name": "lookup", "arguments": '{"user-id": 7}'}}
    assert registry.dispatch(call)["content"] == '{"user-id": 7}'
    assert python_arguments(lookup, {"a": [1]}) == {"a": [1]}


def test_a_tool_failure_is_sent_as_the_tool_wrote_it():
    def lookup(user: str) -> str:
        """Look a user up."""
        raise dispatch.ToolFailure(f"the directory is down; {user} cannot be looked up now.")

    observation = ToolRegistry([lookup]).run(
        {"id": "call_1", "function": {"name": "lookup", "arguments": '{"user": "ada"}'}}
    )
    assert observation.content == "ERROR: the directory is down; ada cannot be looked up now."
    assert observation.error_type == "tool_error"


def test_a_timeout_given_when_adding_a_tool_is_its_own(slow_tool):
    registry = ToolRegistry(timeout=0.1)
    registry.add(slow_tool, timeout=5)
    registry.add(add)
    assert registry.timeout_for("slow") == 5 and registry.timeout_for("add") == 0.1
    assert ToolRegistry([slow_tool], timeout=None).timeout_for("slow") is None


def test_a_registry_adds_a_tool_strict_without_undoing_a_strict_tool():
    registry = ToolRegistry([tool(add, strict=True)])
    strict_times = registry.add(multiply, strict=True)
    assert registry["add"].strict and strict_times.strict
    assert registry.add(registry["add"], name="plus").strict
