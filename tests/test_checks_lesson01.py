"""Lesson 01's exercise checks: they pass the solutions and say what is wrong with the stubs."""

import enum
import inspect
from typing import Literal, Optional, TypedDict

import pydantic
import pytest
from hash_seeds import under_two_hash_seeds

from agent_core.checks.lesson01 import (
    DELIVERY_TARGET,
    check_cancel_description,
    check_make_definition,
    check_schedule_delivery,
    check_strict_find_orders,
)
from agent_core.schema import tool_definition

# --- exercise 1.1 -----------------------------------------------------------------------------

JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}


def make_definition(
    function,
    *,
    whole_docstring=False,
    all_required=False,
    keep_newlines=False,
    empty_descriptions=False,
    no_defaults=False,
    int_before_bool=False,
    inner_only=False,
    one_paragraph=False,
    type_of_default=False,
):
    """the lesson's solution, with one tempting mistake switched on by name"""
    docstring = inspect.getdoc(function)
    summary, _, args_section = docstring.partition("\n\nArgs:\n")
    notes = {}
    for line in args_section.splitlines():
        name, _, text = line.strip().partition(": ")
        notes[name] = text
    properties, required = {}, []
    for parameter in inspect.signature(function).parameters.values():
        if int_before_bool:
            kind = next(
                v
                for k, v in [(str, "string"), (int, "integer"), (float, "number"), (bool, "boolean")]
                if issubclass(parameter.annotation, k)
            )
        elif type_of_default and parameter.default is not inspect.Parameter.empty:
            kind = JSON_TYPES[type(parameter.default)]
        else:
            kind = JSON_TYPES[parameter.annotation]
        schema = {"type": kind}
        if parameter.name in notes or empty_descriptions:
            schema["description"] = notes.get(parameter.name, "")
        if parameter.default is inspect.Parameter.empty or all_required:
            required.append(parameter.name)
        elif not no_defaults:
            schema["default"] = parameter.default
        properties[parameter.name] = schema
    description = "\n\n".join(" ".join(paragraph.split()) for paragraph in summary.split("\n\n"))
    if one_paragraph:
        description = " ".join(summary.split())
    description = docstring if whole_docstring else summary if keep_newlines else description
    inner = {
        "name": function.__name__,
        "description": description,
        "parameters": {"type": "object", "properties": properties, "required": required},
    }
    return inner if inner_only else {"type": "function", "function": inner}


def with_mistake(**mistake):
    return lambda function: make_definition(function, **mistake)


def hard_coded(function):
    """the definition written for the lesson's example, whatever the function"""
    return {
        "type": "function",
        "function": {
            "name": "search_catalog",
            "description": "Searches the catalog by product name.",
            "parameters": {
                "type": "object",
                "properties": {
                    "text": {
                        "type": "string",
                        "description": 'Words to look for in product names, like "running shoes".',
                    },
                    "max_results": {
                        "type": "integer",
                        "description": "How many products to return at most.",
                        "default": 5,
                    },
                },
                "required": ["text"],
            },
        },
    }


def args_required(function):
    """assumes every docstring has an Args: section"""
    summary, args_section = inspect.getdoc(function).split("\n\nArgs:\n")
    return make_definition(function)


def args_line_by_prefix(function):
    """finds a parameter's Args: line as the first line that starts with its name: max finds max_results"""
    definition = make_definition(function)
    lines = [line.strip() for line in inspect.getdoc(function).partition("\n\nArgs:\n")[2].splitlines()]
    for name, schema in definition["function"]["parameters"]["properties"].items():
        line = next((line for line in lines if line.startswith(name)), None)
        if line is not None:
            schema["description"] = line.split(":", 1)[1].strip()
    return definition


@pytest.mark.parametrize(
    ("wrong", "message"),
    [
        (
            args_line_by_prefix,
            'property \'id\' description should be "The id, as text: ünïcode ok.", yours is "The id_type, as '
            'text: ünïcode ok."',
        ),
        (
            with_mistake(whole_docstring=True),
            'for search_catalog(): description should be "Searches the catalog by '
            'product name.", yours is "Searches the catalog by product name.\\n\\nArgs:',
        ),
        (
            with_mistake(all_required=True),
            "for search_catalog(): property 'max_results' has no default; it should be 5",
        ),
        (
            with_mistake(keep_newlines=True),
            "for book_table(): description should be \"Books a table in the shop's cafe "
            "for a number of guests, and returns",
        ),
        (
            with_mistake(no_defaults=True),
            "property 'max_results' has no default; it should be 5 (a parameter's default",
        ),
        (
            with_mistake(int_before_bool=True),
            'for book_table(): property \'vip\' type should be "boolean", yours is "integer"',
        ),
        (
            with_mistake(empty_descriptions=True),
            "for book_table(): property 'guests' should have no description; yours is \"\" (the text after",
        ),
        (
            hard_coded,
            'for book_table(): name should be "book_table", yours is "search_catalog" (function.__name__)',
        ),
        (
            with_mistake(inner_only=True),
            "make_definition(search_catalog) should return {'type': 'function', 'function'",
        ),
        (args_required, "for ping(): your code raised ValueError"),
        (
            with_mistake(type_of_default=True),
            'property \'count\' type should be "number", yours is "integer" (map the annotation, not the '
            "default's type (`ratio: float = 0` is a number)",
        ),
        (
            with_mistake(one_paragraph=True),
            'description should be "Sends a reminder.\\n\\nIt never sends twice in an hour."',
        ),
    ],
)
def test_check_make_definition_rejects_a_wrong_generator_naming_its_fault(wrong, message, capsys):
    assert not check_make_definition(wrong)
    assert message in capsys.readouterr().out


def test_check_make_definition_reports_required_parameters(capsys):
    def every_parameter_required(function):
        definition = tool_definition(function)
        definition["function"]["parameters"]["required"] = list(inspect.signature(function).parameters)
        return definition

    assert not check_make_definition(every_parameter_required)
    assert 'required should be ["text"], yours is ["text", "max_results"]' in capsys.readouterr().out


def test_check_make_definition_says_a_tuple_of_required_names_is_not_a_list(capsys):
    def with_a_tuple(function):
        definition = tool_definition(function)
        definition["function"]["parameters"]["required"] = tuple(
            definition["function"]["parameters"]["required"]
        )
        return definition

    assert not check_make_definition(with_a_tuple)
    out = capsys.readouterr().out
    assert "required holds the right names, but as a tuple: make it a list" in out
    assert 'required should be ["text"], yours is ["text"]' not in out


def test_check_make_definition_accepts_the_solution_and_the_library(capsys):
    from agent_core.schema import tool_definition

    assert check_make_definition(make_definition)
    result = check_make_definition(tool_definition)
    assert result and result.scenarios == 43
    assert capsys.readouterr().out.count("✓ Exercise 1.1") == 2


def definition_by_regex(function):
    """right, written differently: a regex splits the docstring, the dict built with other key orders"""
    import re

    summary, *rest = re.split(r"\n\s*Args:\s*\n", inspect.getdoc(function), maxsplit=1)
    notes = dict(re.findall(r"^\s+(\w+): (.*)$", rest[0], re.MULTILINE)) if rest else {}
    parameters = inspect.signature(function).parameters.values()
    kinds = {bool: "boolean", float: "number", int: "integer", str: "string"}
    return {
        "function": {
            "parameters": {
                "required": [p.name for p in parameters if p.default is p.empty],
                "properties": {
                    p.name: {
                        **({"default": p.default} if p.default is not p.empty else {}),
                        **({"description": notes[p.name]} if p.name in notes else {}),
                        "type": kinds[p.annotation],
                    }
                    for p in parameters
                },
                "type": "object",
            },
            "description": "\n\n".join(" ".join(part.split()) for part in re.split(r"\n\s*\n", summary)),
            "name": function.__name__,
        },
        "type": "function",
    }


def test_check_make_definition_accepts_a_right_answer_written_differently(capsys):
    assert check_make_definition(definition_by_regex)


# --- exercise 1.2 -----------------------------------------------------------------------------


def schedule_delivery(
    order_id: str,
    day: Literal["monday", "tuesday", "wednesday", "thursday", "friday"],
    window: Literal["morning", "afternoon", "evening"] = "morning",
    leave_at_door: bool = False,
    instructions: str | None = None,
) -> str:
    """Books a delivery slot for an order that has not arrived yet.

    Args:
        order_id: The order's id, like A-1042.
        day: Weekday of the delivery.
        window: Part of the day the courier comes.
        leave_at_door: Whether the courier may leave the parcel without a signature.
        instructions: A note for the courier, if any.
    """
    return f"{order_id} {day} {window}"


def test_the_solution_generates_the_target_definition(capsys):
    assert tool_definition(schedule_delivery) == DELIVERY_TARGET
    assert check_schedule_delivery(schedule_delivery)
    assert "✓ Exercise 1.2" in capsys.readouterr().out


def test_the_delivery_check_names_each_difference(capsys):
    def schedule_delivery(order_id: str, day: str, window: str = "morning") -> str:
        """Schedules a delivery."""
        return f"{order_id} {day} {window}"

    assert not check_schedule_delivery(schedule_delivery)
    out = capsys.readouterr().out
    assert 'description should be "Books a delivery slot' in out
    assert "property 'leave_at_door' is missing" in out
    assert "property 'day' has no enum" in out and "Literal[...]" in out
    assert "property 'order_id' has no description" in out and "Args:" in out


def test_the_delivery_check_reports_wrong_types_defaults_and_required(capsys):
    def schedule_delivery(
        order_id: int,
        day: Literal["monday", "tuesday", "wednesday", "thursday", "friday"] = "monday",
        window: Literal["morning", "afternoon", "evening"] = "evening",
        leave_at_door: bool = False,
        instructions: str | None = None,
        extra: str = "",
    ) -> str:
        """Books a delivery slot for an order that has not arrived yet."""
        return ""

    assert not check_schedule_delivery(schedule_delivery)
    out = capsys.readouterr().out
    assert 'property \'order_id\' type should be "string", yours is "integer"' in out
    assert 'property \'window\' default should be "morning", yours is "evening"' in out
    assert "property 'day' should have no default" in out
    assert "property 'extra' is not in the target" in out
    assert 'required should be ["order_id", "day"], yours is ["order_id"]' in out


def test_the_delivery_check_tells_a_zero_default_from_false(capsys):
    def schedule_delivery(
        order_id: str,
        day: Literal["monday", "tuesday", "wednesday", "thursday", "friday"],
        window: Literal["morning", "afternoon", "evening"] = "morning",
        leave_at_door: bool = 0,
        instructions: str | None = None,
    ) -> str:
        return ""

    schedule_delivery.__doc__ = globals()["schedule_delivery"].__doc__
    assert not check_schedule_delivery(schedule_delivery)
    assert "property 'leave_at_door' default should be false, yours is 0" in capsys.readouterr().out


def test_the_delivery_check_reports_a_function_that_cannot_be_a_tool(capsys):
    def schedule_delivery(order_id, day):
        """Books a delivery slot."""

    assert not check_schedule_delivery(schedule_delivery)
    assert "cannot become a tool: ToolSchemaError: parameter 'order_id'" in capsys.readouterr().out


# --- exercise 1.3 -----------------------------------------------------------------------------


def cancel_order(order_id: str) -> str:
    """Cancels an order by its id, if it has not shipped yet."""
    return f"Order {order_id} is cancelled."


def test_a_clear_cancel_description_gets_picked(capsys):
    assert check_cancel_description(cancel_order)
    assert "✓ Exercise 1.3" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("docstring", "message"),
    [
        (
            "Cancel cancel cancel an order.",
            "the description repeats cancel: a model reads a description once",
        ),
        (
            "Cancels an order when the customer changed their mind or ordered the wrong size.",
            "copies words from the example requests (changed, mind, ordered, size, wrong)",
        ),
        ("Cancel, cancellation, order, stop, undo, refund.", "the description is a list of keywords"),
        (
            "Cancels an order by its id before the warehouse packs it, refunds the payment to the original "
            "card within five working days, emails a confirmation, restocks every item and closes any ticket "
            "support staff opened today.",
            "the description has 36 words: write one sentence of at most 30 words",
        ),
        ("Cancels an order by its id", "the description should end with a period"),
        (
            "Cancels an order. Refunds the payment to the customer.",
            "the description is 2 sentences: write one sentence",
        ),
        ("Please cancel my order.", "the description speaks as a customer (my, please)"),
        ("I want to cancel an order before it ships.", "the description speaks as a customer (i)"),
        ("Cancel my order if it has not shipped yet.", "the description speaks as a customer (my)"),
        ("I'd like an order cancelled before it ships.", "the description speaks as a customer (i'd)"),
    ],
)
def test_a_keyword_stuffed_cancel_description_is_refused(docstring, message, capsys):
    def cancel_order(order_id: str) -> str:
        return order_id

    cancel_order.__doc__ = docstring
    assert not check_cancel_description(cancel_order)
    assert message in capsys.readouterr().out


def test_a_description_that_quotes_what_customers_write_is_accepted(capsys):
    def cancel_order(order_id: str) -> str:
        return order_id

    cancel_order.__doc__ = (
        'Cancels an order by its id before it ships, for a customer who writes "stop my purchase".'
    )
    assert check_cancel_description(cancel_order)
    cancel_order.__doc__ = "Cancels an order by its id before it ships, e.g. one a customer regrets."
    assert check_cancel_description(cancel_order)
    assert "✓ Exercise 1.3" in capsys.readouterr().out


def test_a_vague_cancel_description_shows_the_scores(capsys):
    def cancel_order(order_id: str) -> str:
        """Handles changes."""
        return order_id

    assert not check_cancel_description(cancel_order)
    out = capsys.readouterr().out
    assert "the model called lookup_order, not cancel_order" in out
    assert "lookup_order 1 (order); search_products 1 (order); find_customer 0; cancel_order 0" in out


def test_a_description_that_steals_another_request_fails(capsys):
    def cancel_order(order_id: str) -> str:
        """Cancels an order, or finds running shoes in stock."""
        return order_id

    assert not check_cancel_description(cancel_order)
    out = capsys.readouterr().out
    assert "for 'Do you have blue running shoes in stock?' the model called cancel_order" in out
    assert "cancel_order 3 (running, shoe, stock)" in out
    assert "say what cancel_order does, not what search_products does" in out


def test_a_description_naming_one_order_is_refused(capsys):
    def cancel_order(order_id: str) -> str:
        """Cancels order A-2071 or B-3310."""
        return order_id

    assert not check_cancel_description(cancel_order)
    assert "mentions A-2071, B-3310" in capsys.readouterr().out


def test_the_cancel_check_wants_the_name_and_a_docstring(capsys):
    def cancel(order_id: str) -> str:
        """Cancels an order."""
        return order_id

    def cancel_order(order_id: str) -> str:
        return order_id

    assert not check_cancel_description(cancel)
    assert not check_cancel_description(cancel_order)
    out = capsys.readouterr().out
    assert "keep the name cancel_order (yours is 'cancel')" in out
    assert "has no description" in out


# --- exercise 1.4 -----------------------------------------------------------------------------


class OrderFilters(TypedDict):
    status: Literal["open", "shipped", "delivered", "cancelled"]
    placed_after: str


def find_orders(customer_email: str, filters: OrderFilters, tags: list[str] | None = None) -> str:
    """Finds a customer's orders, newest first."""
    return f"No {filters['status']} orders for {customer_email}."


def find_orders_stub(customer_email: str, filters: dict, tags: list | None = None) -> str:
    """Finds a customer's orders, newest first."""
    return customer_email


def test_typed_parameters_make_find_orders_strict(capsys):
    assert check_strict_find_orders(find_orders)
    assert "✓ Exercise 1.4" in capsys.readouterr().out


def test_the_strict_check_names_each_loose_parameter(capsys):
    assert not check_strict_find_orders(find_orders_stub)
    out = capsys.readouterr().out
    assert "'filters' is a free-form dict" in out and "TypedDict" in out
    assert "'tags' is a list of anything" in out


def test_the_strict_check_wants_the_same_parameters_and_keys(capsys):
    class Filters(TypedDict):
        status: str

    def renamed(email: str, filters: OrderFilters, tags: list[str] | None = None) -> str:
        """Finds orders."""
        return email

    def too_few_keys(customer_email: str, filters: Filters, tags: list[str] | None = None) -> str:
        """Finds orders."""
        return customer_email

    def tags_required(customer_email: str, filters: OrderFilters, tags: list[str]) -> str:
        """Finds orders."""
        return customer_email

    assert not check_strict_find_orders(renamed)
    assert not check_strict_find_orders(too_few_keys)
    assert not check_strict_find_orders(tags_required)
    out = capsys.readouterr().out
    assert "keep the parameters customer_email, filters, tags (yours: email, filters, tags)" in out
    assert "filters should have exactly two keys, status and placed_after; yours has status" in out
    assert "tags should stay optional" in out


class FiltersWithAnyStatus(TypedDict):
    """the most tempting: the TypedDict is there, but any string passes as a status"""

    status: str
    placed_after: str


class FiltersWithSomeStatuses(TypedDict):
    status: Literal["open", "shipped"]
    placed_after: str


class FiltersWithANumberForADate(TypedDict):
    status: Literal["open", "shipped", "delivered", "cancelled"]
    placed_after: int


@pytest.mark.parametrize(
    ("filters", "message"),
    [
        (FiltersWithAnyStatus, "filters' status should be one of open, shipped, delivered, cancelled"),
        (FiltersWithSomeStatuses, 'yours allows {"type": "string", "enum": ["open", "shipped"]}'),
        (FiltersWithANumberForADate, "filters' placed_after is an ISO date, which JSON writes as a string"),
    ],
)
def test_the_strict_check_wants_the_filter_keys_typed_as_described(filters, message, capsys):
    def find_orders_loosely(customer_email: str, filters: filters, tags: list[str] | None = None) -> str:
        """Finds a customer's orders, newest first."""
        return customer_email

    assert not check_strict_find_orders(find_orders_loosely)
    assert message in capsys.readouterr().out


def test_no_check_raises_on_something_that_is_not_a_function(capsys):
    for check in (check_schedule_delivery, check_cancel_description, check_strict_find_orders):
        assert not check(None)
    assert capsys.readouterr().out.count("cannot become a tool") == 3


# --- the catalogues: wrong answers (most tempting first), right ones written differently --------

DOCSTRING = schedule_delivery.__doc__
WEEKDAY = Literal["monday", "tuesday", "wednesday", "thursday", "friday"]
WINDOW = Literal["morning", "afternoon", "evening"]


def delivery(*, day=WEEKDAY, window=WINDOW, door=False, instructions=str | None, body=None, doc=DOCSTRING):
    """schedule_delivery with one part written wrong by name"""

    def schedule_delivery(
        order_id: str,
        day: day,
        window: window = "morning",
        leave_at_door: bool = door,
        instructions: instructions = None,
    ) -> str:
        if body:
            return body(order_id, day, window, leave_at_door, instructions)
        return f"{order_id} {day} {window}"

    schedule_delivery.__doc__ = doc
    return schedule_delivery


@pytest.mark.parametrize(
    ("wrong", "message"),
    [
        (delivery(day=str), "property 'day' has no enum"),
        (
            delivery(instructions=str),
            'property \'instructions\' type should be ["string", "null"], yours is "string"',
        ),
        (delivery(window=str), "property 'window' has no enum"),
        (delivery(door=0), "property 'leave_at_door' default should be false, yours is 0"),
        (
            delivery(doc="Books a delivery slot for an order that has not arrived yet."),
            "property 'order_id' has no description",
        ),
        (
            delivery(body=lambda order_id, day, window, door, note: f"{order_id}: {note.strip()}"),
            'the model\'s call schedule_delivery({"order_id": "A-1042", "day": "monday"}): the target '
            "definition allows this call, but your tool answered \"ERROR: the tool 'schedule_delivery' "
            "raised AttributeError",
        ),
        (  # a body that assumes every id looks like A-1042
            delivery(body=lambda order_id, day, window, door, note: f"order {int(order_id.split('-')[1])}"),
            "your tool answered \"ERROR: the tool 'schedule_delivery' raised",
        ),
    ],
)
def test_check_schedule_delivery_rejects_the_wrong_answer_catalogue(wrong, message, capsys):
    result = check_schedule_delivery(wrong)
    assert not result and result.scenarios == 37
    assert message in capsys.readouterr().out


class Weekday(enum.Enum):
    MONDAY = "monday"
    TUESDAY = "tuesday"
    WEDNESDAY = "wednesday"
    THURSDAY = "thursday"
    FRIDAY = "friday"


class Window(enum.StrEnum):
    MORNING = "morning"
    AFTERNOON = "afternoon"
    EVENING = "evening"


def delivery_with_enums(
    order_id: str,
    day: Weekday,
    window: Window = Window.MORNING,
    leave_at_door: bool = False,
    instructions: Optional[str] = None,  # noqa: UP045  # the older spelling is right too
) -> str:
    return f"{order_id} on {day.value}, {window.value}" + (f": {instructions}" if instructions else "")


delivery_with_enums.__name__ = "schedule_delivery"
delivery_with_enums.__doc__ = """Books a delivery slot for an order
    that has not arrived yet.

    Args:
        order_id: The order's id, like A-1042.
        day: Weekday of the delivery.
        window: Part of the day the courier comes.
        leave_at_door: Whether the courier may leave the parcel without a signature.
        instructions: A note for the courier, if any.
    """


@pytest.mark.parametrize(
    "right",
    [
        delivery_with_enums,
        delivery(body=lambda order_id, day, window, door, note: f"{note or 'no note'} for {order_id}"),
    ],
)
def test_check_schedule_delivery_accepts_right_answers_written_differently(right, capsys):
    result = check_schedule_delivery(right)
    assert result and result.scenarios == 37
    assert "✓ Exercise 1.2" in capsys.readouterr().out


def test_check_schedule_delivery_gives_the_same_verdict_every_time(capsys):
    wrong = delivery(body=lambda order_id, day, window, door, note: note.upper())
    first, second = check_schedule_delivery(wrong), check_schedule_delivery(wrong)
    out = capsys.readouterr().out.split("✗")
    assert first.scenarios == second.scenarios == 37 and out[1] == out[2]


@pytest.mark.parametrize(
    "docstring",
    [
        "Cancels an order that has not left the warehouse yet.",
        "Stops an order before it ships and cancels the payment.",
        "Cancel an order by its id.",
    ],
)
def test_check_cancel_description_accepts_right_descriptions_written_differently(docstring, capsys):
    def cancel_order(order_id: str) -> str:
        return order_id

    cancel_order.__doc__ = docstring
    result = check_cancel_description(cancel_order)
    assert result and result.scenarios == 34
    assert "✓ Exercise 1.3" in capsys.readouterr().out


def vague_cancel_order(order_id: str) -> str:
    """Handles changes."""
    return order_id


vague_cancel_order.__name__ = "cancel_order"


def test_check_cancel_description_gives_the_same_verdict_every_time(capsys):
    first, second = check_cancel_description(vague_cancel_order), check_cancel_description(vague_cancel_order)
    out = capsys.readouterr().out.split("✗")
    assert first.scenarios == second.scenarios == 34 and out[1] == out[2]


class FiltersModel(pydantic.BaseModel):
    status: Literal["open", "shipped", "delivered", "cancelled"]
    placed_after: str


def find_orders_with_a_model(
    customer_email: str, filters: FiltersModel, tags: list[str] | None = None
) -> str:
    """the most tempting: a pydantic model makes strict mode happy, but the body indexes a dict"""
    return f"No {filters['status']} orders for {customer_email} since {filters['placed_after']}."


def find_orders_joining_tags(
    customer_email: str, filters: OrderFilters, tags: list[str] | None = None
) -> str:
    """tags may be null: joining them without a look fails"""
    return f"No {filters['status']} orders tagged {', '.join(tags)}."


class OptionalFilters(TypedDict, total=False):
    status: Literal["open", "shipped", "delivered", "cancelled"]
    placed_after: str


def find_orders_with_optional_keys(
    customer_email: str, filters: OptionalFilters, tags: list[str] | None = None
) -> str:
    """total=False: strict mode makes both keys nullable, and the body reads them as they come"""
    return f"No {filters['status']} orders for {customer_email} since {filters['placed_after']}."


@pytest.mark.parametrize(
    ("wrong", "message"),
    [
        (
            find_orders_with_a_model,
            "the strict definition the exercise describes allows this call, but your tool answered "
            "\"ERROR: the tool 'find_orders' raised TypeError: 'FiltersModel' object is not subscriptable",
        ),
        (find_orders_stub, "'filters' is a free-form dict"),
        (find_orders_joining_tags, "raised TypeError: can only join an iterable"),
        (
            find_orders_with_optional_keys,
            "filters' status and placed_after should both be required, since the body reads both: a "
            "TypedDict with total=False makes them optional",
        ),
    ],
)
def test_check_strict_find_orders_rejects_the_wrong_answer_catalogue(wrong, message, capsys):
    result = check_strict_find_orders(wrong)
    assert not result and result.scenarios == 36
    assert message in capsys.readouterr().out


FunctionalFilters = TypedDict(  # noqa: UP013  # the functional spelling is right too
    "FunctionalFilters",
    {"placed_after": str, "status": Literal["open", "shipped", "delivered", "cancelled"]},
)


class Status(enum.StrEnum):
    OPEN = "open"
    SHIPPED = "shipped"
    DELIVERED = "delivered"
    CANCELLED = "cancelled"


class FiltersWithAnEnum(TypedDict):
    placed_after: str
    status: Status


def find_orders_functional(
    customer_email: str,
    filters: FunctionalFilters,
    tags: Optional[list[str]] = None,  # noqa: UP045  # the older spelling is right too
) -> str:
    """Finds a customer's orders, newest first."""
    return f"No {filters['status']} orders for {customer_email} ({len(tags or [])} tags)."


def find_orders_enum(customer_email: str, filters: FiltersWithAnEnum, tags: list[str] | None = None) -> str:
    """Finds a customer's orders, newest first."""
    return f"No {filters['status'].value} orders for {customer_email}."


@pytest.mark.parametrize("right", [find_orders_functional, find_orders_enum])
def test_check_strict_find_orders_accepts_right_answers_written_differently(right, capsys):
    result = check_strict_find_orders(right)
    assert result and result.scenarios == 36
    assert "✓ Exercise 1.4" in capsys.readouterr().out


def test_check_strict_find_orders_gives_the_same_verdict_every_time(capsys):
    first, second = (
        check_strict_find_orders(find_orders_joining_tags),
        check_strict_find_orders(find_orders_joining_tags),
    )
    out = capsys.readouterr().out.split("✗")
    assert first.scenarios == second.scenarios == 36 and out[1] == out[2]


def test_the_lesson_01_checks_give_the_same_verdicts_under_another_hash_seed():
    """each check on a wrong answer: the same words whatever the order of a set"""
    outputs = under_two_hash_seeds(
        "test_checks_lesson01",
        "c.check_make_definition(t.with_mistake(no_defaults=True)); "
        "c.check_schedule_delivery(t.delivery(body=lambda *a: a[4].upper())); "
        "c.check_cancel_description(t.vague_cancel_order); "
        "c.check_strict_find_orders(t.find_orders_joining_tags)",
    )
    assert len(outputs) == 1 and outputs.pop().count("✗ Exercise 1.") == 4


def definition_from_type_hints(function):
    """right, written differently: typing.get_type_hints, docstring lines walked one by one"""
    import typing

    hints = typing.get_type_hints(function)
    lines = (inspect.getdoc(function) or "").splitlines()
    cut = lines.index("Args:") if "Args:" in lines else len(lines)
    paragraphs, current = [], []
    for line in [*lines[:cut], ""]:
        if line.strip():
            current.append(line.strip())
        elif current:
            paragraphs.append(" ".join(current))
            current = []
    notes = {}
    for line in lines[cut + 1 :]:
        name, colon, text = line.strip().partition(":")
        if colon:
            notes[name] = text.strip()
    names = {str: "string", bool: "boolean", int: "integer", float: "number"}
    properties, required = {}, []
    for parameter in inspect.signature(function).parameters.values():
        schema = {"type": names[hints[parameter.name]]}
        if parameter.name in notes:
            schema["description"] = notes[parameter.name]
        if parameter.default is inspect.Parameter.empty:
            required.append(parameter.name)
        else:
            schema["default"] = parameter.default
        properties[parameter.name] = schema
    parameters = {"type": "object", "properties": properties, "required": required}
    inner = {"name": function.__name__, "description": "\n\n".join(paragraphs), "parameters": parameters}
    return {"type": "function", "function": inner}


def test_check_make_definition_accepts_another_right_answer_written_differently(capsys):
    result = check_make_definition(definition_from_type_hints)
    assert result and result.scenarios == 43


@pytest.mark.parametrize(
    ("check", "wrong"),
    [
        (check_make_definition, with_mistake(no_defaults=True)),
        (check_schedule_delivery, delivery(day=str)),
        (check_cancel_description, vague_cancel_order),
        (check_strict_find_orders, find_orders_stub),
    ],
)
def test_each_lesson_01_check_gives_the_same_verdict_every_time(check, wrong, capsys):
    first, second = check(wrong), check(wrong)
    out = capsys.readouterr().out.split("✗")
    assert not first and first.scenarios == second.scenarios and out[1] == out[2]
