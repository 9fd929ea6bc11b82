"""Tests for agent_core.mock.chooser: a mock model that picks tools by their descriptions (lesson 01)."""

from typing import Literal

from agent_core import mock
from agent_core.dispatch import ToolRegistry
from agent_core.mock import Reply, ToolCall, offered_tools
from agent_core.mock.chooser import (
    DescriptionReader,
    ToolScore,
    fill_arguments,
    score_tools,
    words,
)
from agent_core.schema import tool

# --- the lesson-01 scenario: a shop assistant with three tools ------------------------------


def lookup_order(order_id: str) -> str:
    """Gets data."""
    return f"Order {order_id}: shipped on 3 May, delivery expected on 6 May."


def search_products(query: str) -> str:
    """Searches the product catalog by name and returns price and stock for each product you can order."""
    return f"No products match {query!r}."


def find_customer(email: str) -> str:
    """Finds a customer account by email address."""
    return f"No customer with email {email}."


VAGUE = tool(lookup_order)
FIXED = tool(
    lookup_order,
    description="Looks up an order by its id and returns its status and delivery date.",
)
QUESTION = "Where is my order A-1042? I need the delivery status."


def request(question, *definitions, **extra):
    messages = [{"role": "user", "content": question}]
    return {"model": "m", "messages": messages, "tools": list(definitions), **extra}


def shop(lookup):
    return [lookup.definition, tool(search_products).definition, tool(find_customer).definition]


def test_a_vague_description_makes_it_pick_the_wrong_tool():
    reply = DescriptionReader()(request(QUESTION, *shop(VAGUE)))
    assert reply.tool_calls == (ToolCall("search_products", {"query": "A-1042"}),)


def test_rewriting_one_sentence_of_the_description_fixes_the_choice():
    reply = DescriptionReader()(request(QUESTION, *shop(FIXED)))
    assert reply.tool_calls == (ToolCall("lookup_order", {"order_id": "A-1042"}),)


def test_the_scores_show_why():
    vague = score_tools(QUESTION, offered_tools(request(QUESTION, *shop(VAGUE))))
    fixed = score_tools(QUESTION, offered_tools(request(QUESTION, *shop(FIXED))))
    assert vague == [
        ToolScore("lookup_order", 0, ()),
        ToolScore("search_products", 1, ("order",)),
        ToolScore("find_customer", 0, ()),
    ]
    assert fixed[0] == ToolScore("lookup_order", 3, ("order", "status", "delivery"))


def test_the_whole_conversation_through_the_real_sdk():
    def ask(lookup):
        registry = ToolRegistry([lookup, search_products, find_customer])
        client = mock.client(DescriptionReader())
        messages = [{"role": "user", "content": QUESTION}]
        first = client.chat.completions.create(
            model="mock-model", messages=messages, tools=registry.definitions
        )
        assistant = first.choices[0].message
        messages.append(assistant.model_dump(exclude_none=True))
        messages += registry.dispatch_all(assistant.tool_calls)
        second = client.chat.completions.create(
            model="mock-model", messages=messages, tools=registry.definitions
        )
        return second.choices[0].message.content

    assert ask(VAGUE) == "The search_products tool says: No products match 'A-1042'."
    assert ask(FIXED) == (
        "The lookup_order tool says: Order A-1042: shipped on 3 May, delivery expected on 6 May."
    )


# --- how it reads ---------------------------------------------------------------------------


def test_words_are_lowercased_without_stop_words_and_singular():
    assert words("Where are the Orders? Show me the matches and categories.") == [
        "order",
        "match",
        "category",
    ]
    assert words("status address") == ["status", "address"]


def test_no_shared_word_means_no_tool_call():
    reply = DescriptionReader()(request("Tell me a joke", *shop(VAGUE)))
    assert reply == Reply(
        content="None of my tools' descriptions has a word in common with your request, "
        "so I will not call one."
    )


def test_a_tie_goes_to_the_tool_offered_first():
    first = {"type": "function", "function": {"name": "first", "description": "Weather now."}}
    second = {"type": "function", "function": {"name": "second", "description": "Weather later."}}
    assert DescriptionReader()(request("weather?", first, second)).tool_calls[0].name == "first"
    assert DescriptionReader()(request("weather?", second, first)).tool_calls[0].name == "second"


def test_tool_choice_is_respected():
    definitions = shop(VAGUE)
    none = DescriptionReader()(request(QUESTION, *definitions, tool_choice="none"))
    assert none.tool_calls == () and none.content
    forced = {"type": "function", "function": {"name": "find_customer"}}
    reply = DescriptionReader()(request("a@b.example", *definitions, tool_choice=forced))
    assert reply.tool_calls[0].name == "find_customer"
    required = DescriptionReader()(request("Tell me a joke", *definitions, tool_choice="required"))
    assert required.tool_calls[0].name == "lookup_order"


def test_no_tools_means_a_text_answer():
    reply = DescriptionReader()({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    assert reply == Reply(content="I have no tools to look this up with.")


def test_after_the_result_it_answers_quoting_it():
    messages = [
        {"role": "user", "content": QUESTION},
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "lookup_order", "arguments": '{"order_id": "A-1042"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "Order A-1042: delivered."},
    ]
    reply = DescriptionReader()({"model": "m", "messages": messages, "tools": shop(FIXED)})
    assert reply == Reply(content="The lookup_order tool says: Order A-1042: delivered.")


# --- filling arguments ----------------------------------------------------------------------


def test_quoted_text_fills_string_parameters_in_order():
    def rename(old: str, new: str) -> str:
        """Rename a file."""
        return new

    function = tool(rename).definition["function"]
    assert fill_arguments("Rename \"a.txt\" to 'b.txt'", function) == {
        "old": "a.txt",
        "new": "b.txt",
    }


def test_without_quotes_a_string_gets_the_words_the_description_does_not_use():
    function = tool(search_products).definition["function"]
    assert fill_arguments("What is the price of blue running shoes?", function) == {
        "query": "blue running shoes"
    }


def test_numbers_and_choices_are_taken_from_the_request():
    def forecast(city: str, days: int, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
        """Forecast the weather."""
        return city

    def convert(amount: float, currency: str) -> str:
        """Convert money."""
        return currency

    weather = tool(forecast).definition["function"]
    assert fill_arguments('Weather in "Oslo" for 3 days in Fahrenheit', weather) == {
        "city": "Oslo",
        "days": 3,
        "unit": "fahrenheit",
    }
    money = tool(convert).definition["function"]
    assert fill_arguments('Convert 12.5 to "EUR"', money) == {"amount": 12.5, "currency": "EUR"}


def test_strict_nullable_parameters_it_cannot_fill_are_null():
    def lookup(order_id: str, note: str | None = None, limit: int = 5) -> str:
        """Look up an order."""
        return order_id

    function = tool(lookup, strict=True).definition["function"]
    assert fill_arguments("order A-7", function) == {"order_id": "A-7", "note": None, "limit": None}


def test_parallel_results_are_each_quoted_in_order():
    calls = [
        {"id": i, "type": "function", "function": {"name": n, "arguments": "{}"}}
        for i, n in [("call_1", "find_customer"), ("call_2", "lookup_order")]
    ]
    messages = [
        {"role": "user", "content": "old question"},
        {"role": "assistant", "content": "old answer"},
        {"role": "user", "content": QUESTION},
        {"role": "assistant", "tool_calls": calls},
        {"role": "tool", "tool_call_id": "call_1", "content": "Ada"},
        {"role": "tool", "tool_call_id": "call_2", "content": "Delivered."},
    ]
    reply = DescriptionReader()({"model": "m", "messages": messages, "tools": shop(FIXED)})
    assert reply.content == ("The find_customer tool says: Ada\nThe lookup_order tool says: Delivered.")
