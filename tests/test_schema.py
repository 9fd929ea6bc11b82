"""Tests for agent_core.schema: function -> Chat Completions tool definition (lesson 01)."""

import enum
import inspect
import json
from collections.abc import Callable
from typing import Annotated, Any, Literal, NotRequired, Optional, TypedDict

import httpx2
import jsonschema
import openai
import pytest
from openai.types.chat import ChatCompletionFunctionTool, ChatCompletionFunctionToolParam
from openai.types.shared_params import FunctionDefinition
from pydantic import BaseModel, Field, TypeAdapter

from agent_core.schema import Tool, ToolSchemaError, parse_docstring, tool, tool_definition

# --- example tools, at module level so their type hints resolve --------------------------


class Unit(str, enum.Enum):  # noqa: UP042 - the (str, Enum) form learners write, on purpose
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Priority(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Point(TypedDict):
    """A place on the map."""

    lat: float
    lon: float
    label: NotRequired[str]


class Address(BaseModel):
    """A postal address."""

    street: str = Field(description="street and number")
    city: str
    postcode: Optional[str] = None  # noqa: UP045 (the older spelling is supported too)


class Order(BaseModel):
    """An order to ship."""

    items: list[str]
    address: Address
    unit: Unit = Unit.CELSIUS


def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


def get_weather(city: str, unit: Unit = Unit.CELSIUS, days: int | None = None) -> str:
    """Get the current weather for a city.

    Use it when the user asks about temperature, rain or wind.

    Args:
        city (str): The city name,
            for example "Madrid".
        unit: Temperature unit.
        days: How many days of forecast.

    Returns:
        A short text report.
    """
    return f"{city}: 21 {unit.value}"


def everything(
    text: str,
    count: int,
    ratio: float,
    flag: bool,
    names: list[str],
    matrix: list[list[int]],
    mode: Literal["fast", "slow"],
    level: Literal[1, 2, 3],
    unit: Unit,
    priority: Priority,
    where: Point,
    order: Order,
    labels: dict[str, int],
    anything: dict,
    maybe: Optional[str] = None,  # noqa: UP045
    newer_maybe: float | None = None,
    size: int = 10,
    note: Annotated[str, "a note for the reader"] = "",
) -> None:
    """Take one parameter of every supported kind."""


def schedule(when: str, where: Point, order: Order, priority: Priority = Priority.LOW) -> str:
    """Schedule a delivery.

    :param when: ISO date of the delivery.
    :param where: Where to deliver.
    """
    return when


EXAMPLES: list[Callable[..., Any]] = [add, get_weather, everything, schedule]
STRICT_EXAMPLES: list[Callable[..., Any]] = [add, get_weather, schedule]


def properties(function: Callable[..., Any], **options: Any) -> dict[str, Any]:
    return tool(function, **options).parameters["properties"]


def walk_objects(node: Any):
    """every object schema inside a schema"""
    if isinstance(node, dict):
        if node.get("type") == "object" or "properties" in node:
            yield node
        for key, value in node.items():
            if key == "properties":
                for sub in value.values():
                    yield from walk_objects(sub)
            elif key not in ("enum", "default", "const"):
                yield from walk_objects(value)
    elif isinstance(node, list):
        for item in node:
            yield from walk_objects(item)


# --- the shape: what the openai SDK and JSON Schema say is right ---------------------------


@pytest.mark.parametrize("function", EXAMPLES)
def test_definition_has_the_openai_sdk_shape(function):
    definition = tool(function).definition
    assert set(definition) == set(ChatCompletionFunctionToolParam.__annotations__)
    assert set(definition["function"]) <= set(FunctionDefinition.__annotations__)
    assert TypeAdapter(ChatCompletionFunctionToolParam).validate_python(definition) == definition
    parsed = ChatCompletionFunctionTool.model_validate(definition)
    assert parsed.function.name == function.__name__
    assert parsed.function.parameters == definition["function"]["parameters"]


@pytest.mark.parametrize("function", EXAMPLES)
def test_parameters_pass_the_json_schema_meta_schema(function):
    jsonschema.Draft202012Validator.check_schema(tool(function).parameters)


@pytest.mark.parametrize("function", STRICT_EXAMPLES)
def test_strict_parameters_pass_the_json_schema_meta_schema(function):
    jsonschema.Draft202012Validator.check_schema(tool(function, strict=True).parameters)


def test_the_real_sdk_sends_the_definition_unchanged():
    bodies = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        bodies.append(json.loads(request.content))
        message = {"role": "assistant", "content": "ok"}
        choice = {"index": 0, "finish_reason": "stop", "message": message}
        body = {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [choice],
        }
        return httpx2.Response(200, json=body)

    http = httpx2.Client(transport=httpx2.MockTransport(handler))
    client = openai.OpenAI(api_key="test", base_url="http://test/v1", http_client=http)
    definitions = [tool(get_weather).definition, tool(schedule, strict=True).definition]
    client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}], tools=definitions)
    assert bodies[0]["tools"] == definitions


def test_add_produces_the_textbook_definition():
    assert tool(add).definition == {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Add two integers.",
            "parameters": {
                "type": "object",
                "properties": {
                    "a": {"type": "integer", "description": "The first number."},
                    "b": {"type": "integer", "description": "The second number."},
                },
                "required": ["a", "b"],
            },
        },
    }


# --- each annotation kind -------------------------------------------------------------------


def test_primitive_types_map_to_json_types():
    props = properties(everything)
    assert props["text"] == {"type": "string"}
    assert props["count"] == {"type": "integer"}
    assert props["ratio"] == {"type": "number"}
    assert props["flag"] == {"type": "boolean"}


def test_lists_have_item_schemas():
    props = properties(everything)
    assert props["names"] == {"type": "array", "items": {"type": "string"}}
    assert props["matrix"] == {
        "type": "array",
        "items": {"type": "array", "items": {"type": "integer"}},
    }


def test_dicts_are_objects():
    props = properties(everything)
    assert props["labels"] == {"type": "object", "additionalProperties": {"type": "integer"}}
    assert props["anything"] == {"type": "object"}


def test_literal_and_enum_become_enums_with_the_right_json_type():
    props = properties(everything)
    assert props["mode"] == {"type": "string", "enum": ["fast", "slow"]}
    assert props["level"] == {"type": "integer", "enum": [1, 2, 3]}
    assert props["unit"] == {"type": "string", "enum": ["celsius", "fahrenheit"]}
    assert props["priority"] == {"type": "integer", "enum": [1, 2]}


def test_optional_and_defaulted_parameters_are_not_required():
    parameters = tool(everything).parameters
    assert "maybe" not in parameters["required"]
    assert "newer_maybe" not in parameters["required"]
    assert "size" not in parameters["required"]
    assert parameters["properties"]["maybe"] == {"type": ["string", "null"], "default": None}
    assert parameters["properties"]["newer_maybe"] == {"type": ["number", "null"], "default": None}
    assert parameters["properties"]["size"] == {"type": "integer", "default": 10}


def test_enum_default_is_written_as_its_value():
    assert properties(get_weather)["unit"]["default"] == "celsius"


def test_required_lists_exactly_the_parameters_without_default():
    assert tool(get_weather).parameters["required"] == ["city"]


def test_typeddict_becomes_a_nested_object_with_its_own_required_list():
    assert properties(everything)["where"] == {
        "type": "object",
        "description": "A place on the map.",
        "properties": {
            "lat": {"type": "number"},
            "lon": {"type": "number"},
            "label": {"type": "string"},
        },
        "required": ["lat", "lon"],
    }


def test_pydantic_model_is_inlined_without_refs_or_titles():
    order = properties(everything)["order"]
    text = json.dumps(order)
    assert "$ref" not in text and "$defs" not in text and '"title"' not in text
    assert order["required"] == ["items", "address"]
    address = order["properties"]["address"]
    assert address["type"] == "object"
    assert address["required"] == ["street", "city"]
    assert address["properties"]["street"] == {"description": "street and number", "type": "string"}
    assert order["properties"]["unit"]["enum"] == ["celsius", "fahrenheit"]


def test_generated_schema_accepts_good_arguments_and_rejects_bad_ones():
    validator = jsonschema.Draft202012Validator(tool(schedule).parameters)
    good = {
        "when": "2030-01-01",
        "where": {"lat": 40.4, "lon": -3.7},
        "order": {"items": ["book"], "address": {"street": "Gran Via 1", "city": "Madrid"}},
    }
    assert validator.is_valid(good)
    assert not validator.is_valid({**good, "where": {"lat": 40.4}})
    assert not validator.is_valid({**good, "priority": 3})
    assert not validator.is_valid({**good, "order": {"items": "book", "address": {}}})


def test_annotated_text_is_a_description_when_the_docstring_has_none():
    assert properties(everything)["note"]["description"] == "a note for the reader"


# --- docstrings -----------------------------------------------------------------------------


def test_google_docstring_gives_summary_and_parameter_descriptions():
    definition = tool(get_weather).definition["function"]
    assert definition["description"] == (
        "Get the current weather for a city.\n\nUse it when the user asks about temperature, rain or wind."
    )
    props = definition["parameters"]["properties"]
    assert props["city"]["description"] == 'The city name, for example "Madrid".'
    assert props["unit"]["description"] == "Temperature unit."
    assert "Returns" not in definition["description"]


def test_sphinx_param_fields_give_parameter_descriptions():
    props = properties(schedule)
    assert props["when"]["description"] == "ISO date of the delivery."
    assert props["where"]["description"] == "Where to deliver."
    assert tool(schedule).description == "Schedule a delivery."


def test_parse_docstring_reads_continuations_types_and_ignores_other_sections():
    description, texts = parse_docstring(
        """
        Search the catalog.

        Args:
            query (str): Words to look for,
                as typed by the user.
            limit (int, optional): How many results: at most 50.

        Raises:
            ValueError: never.
        """
    )
    assert description == "Search the catalog."
    assert texts == {
        "query": "Words to look for, as typed by the user.",
        "limit": "How many results: at most 50.",
    }


def test_parse_docstring_keeps_colons_in_sphinx_text():
    _, texts = parse_docstring(":param str city: the city: e.g. Madrid\n:returns: text")
    assert texts == {"city": "the city: e.g. Madrid"}


def test_parameters_without_description_are_allowed():
    def echo(text: str) -> str:
        """Repeat the text."""
        return text

    assert properties(echo) == {"text": {"type": "string"}}


def test_missing_docstring_is_refused_with_advice():
    def mystery(x: int) -> int:
        return x

    with pytest.raises(ToolSchemaError, match=r"mystery\(\) has no description") as error:
        tool(mystery)
    assert "the prompt the model reads" in str(error.value)
    assert tool(mystery, description="Return x.").description == "Return x."


# --- strict mode ----------------------------------------------------------------------------


@pytest.mark.parametrize("function", STRICT_EXAMPLES)
def test_strict_mode_closes_every_object_and_requires_every_key(function):
    definition = tool(function, strict=True).definition
    assert definition["function"]["strict"] is True
    objects = list(walk_objects(definition["function"]["parameters"]))
    assert objects
    for node in objects:
        assert node["additionalProperties"] is False
        assert node["required"] == list(node["properties"])


def test_strict_mode_makes_optional_parameters_nullable_without_default():
    props = properties(get_weather, strict=True)
    assert props["unit"] == {
        "type": ["string", "null"],
        "enum": ["celsius", "fahrenheit", None],
        "description": "Temperature unit.",
    }
    assert props["days"] == {
        "type": ["integer", "null"],
        "description": "How many days of forecast.",
    }
    assert "default" not in json.dumps(tool(schedule, strict=True).parameters)


def test_strict_schema_demands_every_key_but_accepts_null_for_optional_ones():
    validator = jsonschema.Draft202012Validator(tool(get_weather, strict=True).parameters)
    assert validator.is_valid({"city": "Madrid", "unit": None, "days": None})
    assert not validator.is_valid({"city": "Madrid"})
    assert not validator.is_valid({"city": "Madrid", "unit": None, "days": None, "extra": 1})


def test_non_strict_definition_has_no_strict_key():
    assert "strict" not in tool(add).definition["function"]


def test_strict_mode_refuses_a_free_form_dict_naming_the_parameter():
    def tag(labels: dict[str, int]) -> None:
        """Tag things."""

    with pytest.raises(ToolSchemaError, match=r"parameter 'labels' of tag\(\)") as error:
        tool(tag, strict=True)
    assert "strict=False" in str(error.value)


def test_strict_mode_refuses_any_and_bare_lists():
    def anything(value: Any) -> None:
        """Take anything."""

    def items(values: list) -> None:
        """Take a list."""

    with pytest.raises(ToolSchemaError, match=r"parameter 'value' of anything\(\).*any JSON value"):
        tool(anything, strict=True)
    with pytest.raises(ToolSchemaError, match=r"parameter 'values' of items\(\).*list\[str\]"):
        tool(items, strict=True)
    assert properties(anything) == {"value": {}}


def test_strict_mode_names_the_field_inside_a_nested_model():
    class Settings(BaseModel):
        extras: dict[str, str]

    def configure(settings: Settings) -> None:
        """Configure it."""

    with pytest.raises(ToolSchemaError, match=r"field 'extras' in parameter 'settings' of configure"):
        tool(configure, strict=True)


# --- what is refused, and how ---------------------------------------------------------------


class Widget:
    pass


def test_unsupported_annotations_name_the_function_and_parameter():
    def with_set(tags: set[str]) -> None:
        """Use a set."""

    def with_callable(callback: Callable[[int], int]) -> None:
        """Use a callback."""

    def with_class(widget: Widget) -> None:
        """Use a widget."""

    for function, name in [(with_set, "tags"), (with_callable, "callback"), (with_class, "widget")]:
        with pytest.raises(ToolSchemaError) as error:
            tool(function)
        message = str(error.value)
        assert f"parameter '{name}' of {function.__name__}()" in message
        assert "pydantic BaseModel or a TypedDict" in message


def test_missing_type_hint_is_refused():
    def untyped(city) -> str:
        """Say the city."""
        return city

    with pytest.raises(ToolSchemaError, match=r"parameter 'city' of untyped\(\) has no type hint"):
        tool(untyped)


def test_star_args_and_kwargs_are_refused():
    def spread(*numbers: int) -> int:
        """Add numbers."""
        return sum(numbers)

    def options(**settings: str) -> None:
        """Set options."""

    with pytest.raises(ToolSchemaError, match=r"parameter 'numbers' of spread\(\).*\*args"):
        tool(spread)
    with pytest.raises(ToolSchemaError, match=r"parameter 'settings' of options\(\)"):
        tool(options)


def test_unions_without_none_are_refused():
    def either(value: int | str) -> None:
        """Take either."""

    with pytest.raises(ToolSchemaError, match=r"parameter 'value' of either\(\).*not supported"):
        tool(either)


@pytest.mark.parametrize("bad_name", ["get weather", "x" * 65, "café", "add()"])
def test_tool_names_must_match_the_openai_pattern(bad_name):
    with pytest.raises(ToolSchemaError, match="1 to 64 letters"):
        tool(add, name=bad_name)
    assert tool(add, name="x" * 64).name == "x" * 64


def test_a_lambda_needs_a_name():
    with pytest.raises(ToolSchemaError, match=r"'<lambda>' is not allowed.*name="):
        tool(lambda: 1, description="One.")
    assert tool(lambda: 1, name="one", description="One.").name == "one"


# --- the Tool object ------------------------------------------------------------------------


def test_decorated_tool_stays_callable_with_the_function_metadata():
    @tool
    def multiply(a: float, b: float) -> float:
        """Multiply two numbers."""
        return a * b

    assert isinstance(multiply, Tool)
    assert multiply(3, 4) == 12
    assert multiply(a=2, b=0.5) == 1.0
    assert multiply.__name__ == "multiply"
    assert multiply.__doc__ == "Multiply two numbers."
    assert list(inspect.signature(multiply).parameters) == ["a", "b"]
    assert multiply.__wrapped__ is multiply.function


def test_decorator_with_options():
    @tool(strict=True, name="times", description="Multiply a by b.")
    def multiply(a: float, b: float) -> float:
        """Ignored docstring summary."""
        return a * b

    assert multiply.name == "times"
    assert multiply.description == "Multiply a by b."
    assert multiply.strict is True
    assert multiply.definition["function"]["strict"] is True
    assert multiply(2, 3) == 6


def test_tool_attributes_agree_with_the_definition():
    weather = tool(get_weather)
    function = weather.definition["function"]
    assert (weather.name, weather.description, weather.parameters) == (
        function["name"],
        function["description"],
        function["parameters"],
    )
    assert weather.function is get_weather


def test_tool_definition_function_form_matches_the_decorator():
    assert tool_definition(get_weather) == tool(get_weather).definition
    assert tool_definition(get_weather, strict=True) == tool(get_weather, strict=True).definition
    strict_tool = tool(add, strict=True)
    assert tool_definition(strict_tool) == strict_tool.definition
    assert "strict" not in tool_definition(strict_tool, strict=False)["function"]


def test_definition_is_a_fresh_copy():
    weather = tool(get_weather)
    weather.definition["function"]["parameters"]["properties"].clear()
    assert "city" in weather.definition["function"]["parameters"]["properties"]


def test_retooling_a_tool_wraps_the_original_function_and_keeps_its_texts():
    strict_add = tool(tool(add, name="plus", description="Sum a and b."), strict=True)
    assert strict_add.function is add
    assert (strict_add.name, strict_add.description, strict_add.strict) == (
        "plus",
        "Sum a and b.",
        True,
    )


def test_a_subclass_can_give_its_own_parameters_schema():
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string", "enum": ["Oslo"]}},
        "required": ["city"],
    }

    class GivenSchema(Tool):
        def read_parameters(self, parameter_docs: dict[str, str]) -> dict[str, Any]:
            return schema

    def forecast(**arguments):
        return arguments

    with pytest.raises(ToolSchemaError, match="kwargs"):
        Tool(forecast, description="Tomorrow's forecast.")
    definition = GivenSchema(forecast, description="Tomorrow's forecast.").definition
    assert definition["function"]["parameters"] == schema


@pytest.mark.parametrize("option", ["writes", "timeout", "parameters"])
def test_a_tool_has_lesson_01s_options_only(option):
    def send(to: str) -> str:
        """Send a message."""
        return to

    with pytest.raises(TypeError, match=option):
        Tool(send, **{option: None})
    with pytest.raises(TypeError, match=option):
        tool(**{option: None})
    fields = {key for key in vars(Tool(send)) if not key.startswith("__")}  # not update_wrapper's
    assert fields == {"function", "name", "strict", "description", "parameters"}


def test_a_tool_does_not_copy_the_function_attributes():
    def marked() -> str:
        """Return a mark."""
        return "x"

    marked.colour = "red"
    assert not hasattr(Tool(marked), "colour") and Tool(marked).__name__ == "marked"
