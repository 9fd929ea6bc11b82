"""Lesson 10's exercise checks: they accept the solutions and reject tempting wrong answers, naming the
fault."""

import json
import re

import pytest
from hash_seeds import under_two_hash_seeds

from agent_core.checks.lesson10 import check_prefix_tools, check_result_message, check_tool_definition
from agent_core.mcp_bridge import openai_name, to_openai_tool, to_tool_message

# --- Exercise 10.1: MCP tool -> Chat Completions tool definition ----------------------------------


def definition_solved(mcp_tool):
    function = {"name": mcp_tool["name"], "parameters": mcp_tool["inputSchema"]}
    if "description" in mcp_tool:
        function["description"] = mcp_tool["description"]
    return {"type": "function", "function": function}


def definition_without_titles(mcp_tool):
    def strip(schema):
        if isinstance(schema, dict):
            return {k: strip(v) for k, v in schema.items() if k != "title"}
        return schema

    definition = definition_solved(mcp_tool)
    definition["function"]["parameters"] = strip(mcp_tool["inputSchema"])
    return definition


def definition_properties_only(mcp_tool):  # rebuilds the schema from its properties
    function = definition_solved(mcp_tool)["function"]
    function["parameters"] = {"type": "object", "properties": mcp_tool["inputSchema"]["properties"]}
    return {"type": "function", "function": function}


def definition_types_only(mcp_tool):  # keeps each property's type, nothing else
    properties = {
        name: {"type": schema["type"]} for name, schema in mcp_tool["inputSchema"]["properties"].items()
    }
    function = definition_solved(mcp_tool)["function"]
    function["parameters"] = {**mcp_tool["inputSchema"], "properties": properties}
    return {"type": "function", "function": function}


def definition_keeps_input_schema(mcp_tool):  # renames nothing
    return {
        "type": "function",
        "function": {k: v for k, v in mcp_tool.items() if k in ("name", "description", "inputSchema")},
    }


def definition_assumes_description(mcp_tool):
    return {
        "type": "function",
        "function": {
            "name": mcp_tool["name"],
            "description": mcp_tool["description"],
            "parameters": mcp_tool["inputSchema"],
        },
    }


def definition_null_description(mcp_tool):  # .get() gives None for a tool without one
    return {
        "type": "function",
        "function": {
            "name": mcp_tool["name"],
            "description": mcp_tool.get("description"),
            "parameters": mcp_tool["inputSchema"],
        },
    }


def definition_popping_the_schema(mcp_tool):  # takes the schema out of the server's tool
    return {
        "type": "function",
        "function": {
            "name": mcp_tool["name"],
            "description": mcp_tool.get("description", ""),
            "parameters": mcp_tool.pop("inputSchema"),
        },
    }


def definition_unwrapped(mcp_tool):  # the Responses API's flat shape, not Chat Completions'
    return {"name": mcp_tool["name"], "parameters": mcp_tool["inputSchema"]}


def definition_copying_every_key(mcp_tool):  # title, outputSchema, annotations come along
    function = {key: value for key, value in mcp_tool.items() if key != "inputSchema"}
    function["parameters"] = mcp_tool["inputSchema"]
    return {"type": "function", "function": function}


def definition_by_copy(mcp_tool):
    """right, written differently: a deep copy of the schema, keys in another order, the description
    only when the server gave one"""
    import copy

    function = {"parameters": copy.deepcopy(mcp_tool["inputSchema"]), "name": mcp_tool["name"]}
    function.update({k: v for k, v in mcp_tool.items() if k == "description"})
    return {"function": function, "type": "function"}


@pytest.mark.parametrize(
    "solution", [definition_solved, definition_without_titles, definition_by_copy, to_openai_tool]
)
def test_check_tool_definition_accepts_solutions(solution, capsys):
    assert check_tool_definition(solution)
    assert "✓ Exercise 10.1" in capsys.readouterr().out


CATALOGUE_9_1 = [  # most tempting first
    (definition_properties_only, "parameters lost 'required' (['city']): the model is no longer told"),
    (definition_types_only, "parameters.properties.unit lost its enum ['celsius', 'fahrenheit']"),
    (
        definition_keeps_input_schema,
        "Chat Completions has no 'inputSchema': the same JSON Schema goes in function.parameters",
    ),
    (
        definition_assumes_description,
        "your code raised KeyError: 'description' (description is optional in MCP)",
    ),
    (definition_null_description, "function.description is None, not a string"),
    (definition_popping_the_schema, "your function changed the tool it was given"),
    (definition_unwrapped, "a Chat Completions tool is {'type': 'function', 'function': {...}}"),
    (
        lambda tool: json.dumps(to_openai_tool(tool)),
        "a Chat Completions tool is {'type': 'function', 'function': {...}}, a dict; yours is a str",
    ),
    (
        definition_copying_every_key,
        "function.outputSchema is MCP's, not a field of a Chat Completions function (name, description, "
        "parameters, strict): the API refuses it",
    ),
]


@pytest.mark.parametrize("wrong, message", CATALOGUE_9_1, ids=[w.__name__ for w, _ in CATALOGUE_9_1])
def test_check_tool_definition_rejects_tempting_wrong_answers(wrong, message, capsys):
    assert not check_tool_definition(wrong)
    out = capsys.readouterr().out
    assert "✗ Exercise 10.1: not yet." in out
    assert message in out


def test_check_tool_definition_finds_a_lost_nested_required(capsys):
    def nested_required_lost(mcp_tool):
        definition = json.loads(json.dumps(definition_solved(mcp_tool)))
        party = definition["function"]["parameters"]["properties"].get("party")
        if party:
            del party["required"]
        return definition

    assert not check_tool_definition(nested_required_lost)
    assert "parameters.properties.party lost 'required' (['size'])" in capsys.readouterr().out


def test_check_tool_definition_never_raises(capsys):
    assert not check_tool_definition(lambda mcp_tool: None)
    assert "yours is a NoneType: None" in capsys.readouterr().out


# --- Exercise 10.2: MCP result -> tool message ------------------------------------------------------


def message_solved(tool_call_id, result):
    if result.get("structuredContent") is not None:
        text = json.dumps(result["structuredContent"])
    else:
        text = "\n".join(block["text"] for block in result["content"] if block["type"] == "text")
    if result.get("isError"):
        text = "ERROR: " + text
    return {"role": "tool", "tool_call_id": tool_call_id, "content": text}


def message_keeps_text_too(tool_call_id, result):
    """right, written differently: the text blocks too, then the structured content's JSON"""
    message = message_solved(tool_call_id, result)
    texts = "\n".join(block["text"] for block in result["content"] if block["type"] == "text")
    if result.get("structuredContent") is not None:
        data = json.dumps(result["structuredContent"], indent=1)
        message["content"] = ("ERROR: " if result.get("isError") else "") + texts + "\n" + data
    return message


def message_drops_is_error(tool_call_id, result):
    text = (
        json.dumps(result["structuredContent"])
        if "structuredContent" in result
        else "\n".join(block["text"] for block in result["content"])
    )
    return {"role": "tool", "tool_call_id": tool_call_id, "content": text}


def message_ignores_structured(tool_call_id, result):
    text = "\n".join(block["text"] for block in result["content"])
    if result.get("isError"):
        text = "ERROR: " + text
    return {"role": "tool", "tool_call_id": tool_call_id, "content": text}


def message_first_block_only(tool_call_id, result):
    message = message_solved(tool_call_id, result)
    if result.get("structuredContent") is None:
        message["content"] = ("ERROR: " if result.get("isError") else "") + result["content"][0]["text"]
    return message


def message_python_repr(tool_call_id, result):  # str(dict): the data, but not JSON
    message = message_solved(tool_call_id, result)
    if result.get("structuredContent") is not None:
        message["content"] = str(result["structuredContent"])
    return message


def message_blocks_run_together(tool_call_id, result):
    message = message_solved(tool_call_id, result)
    if result.get("structuredContent") is None:
        text = "".join(block["text"] for block in result["content"])
        message["content"] = ("ERROR: " if result.get("isError") else "") + text
    return message


def message_blocks_joined_with_spaces(tool_call_id, result):
    message = message_solved(tool_call_id, result)
    if result.get("structuredContent") is None:
        text = " ".join(block["text"] for block in result["content"] if block["type"] == "text")
        message["content"] = ("ERROR: " if result.get("isError") else "") + text
    return message


def message_every_block_read_as_text(tool_call_id, result):
    """reads block["text"] from every block: an image block has none"""
    message = message_solved(tool_call_id, result)
    if result.get("structuredContent") is None:
        text = "\n".join(block["text"] for block in result["content"])
        message["content"] = ("ERROR: " if result.get("isError") else "") + text
    return message


def message_other_blocks_as_repr(tool_call_id, result):
    """a block with no text sent as its Python repr: 'join the text of the content blocks' broken"""
    message = message_solved(tool_call_id, result)
    if result.get("structuredContent") is None:
        text = "\n".join(block.get("text") or str(block) for block in result["content"])
        message["content"] = ("ERROR: " if result.get("isError") else "") + text
    return message


def message_image_data_as_text(tool_call_id, result):
    """an image's base64 data read as if it were text"""
    message = message_solved(tool_call_id, result)
    if result.get("structuredContent") is None:
        text = "\n".join(block.get("text") or block.get("data") or "" for block in result["content"])
        message["content"] = ("ERROR: " if result.get("isError") else "") + text
    return message


def message_content_blocks(tool_call_id, result):  # MCP's blocks passed on as they are
    return {"role": "tool", "tool_call_id": tool_call_id, "content": result["content"]}


def message_empty_structured_is_absent(tool_call_id, result):  # `if structuredContent:` skips {}
    if result.get("structuredContent"):
        content = json.dumps(result["structuredContent"], ensure_ascii=False)
    else:
        content = "\n".join(b["text"] for b in result["content"] if b["type"] == "text")
    return {
        "role": "tool",
        "tool_call_id": tool_call_id,
        "content": ("ERROR: " if result.get("isError") else "") + content,
    }


def message_without_id(tool_call_id, result):
    message = message_solved(tool_call_id, result)
    del message["tool_call_id"]
    return message


def message_by_parts(tool_call_id, result):
    """right, written differently: the parts listed, then joined; the error prefix added last"""
    structured = result.get("structuredContent")
    parts = (
        [json.dumps(structured, ensure_ascii=False, sort_keys=True)]
        if structured is not None
        else [block.get("text", "") for block in result.get("content", []) if block.get("type") == "text"]
    )
    text = "\n".join(parts)
    return {
        "content": f"ERROR: {text}" if result.get("isError") else text,
        "tool_call_id": tool_call_id,
        "role": "tool",
    }


@pytest.mark.parametrize(
    "solution", [message_solved, message_keeps_text_too, message_by_parts, to_tool_message]
)
def test_check_result_message_accepts_solutions(solution, capsys):
    assert check_result_message(solution)
    assert "✓ Exercise 10.2" in capsys.readouterr().out


CATALOGUE_9_2 = [  # most tempting first
    (message_drops_is_error, "the result has isError: true, so the content should start with 'ERROR: '"),
    (
        message_ignores_structured,
        "did not reach the model: send structuredContent (as JSON)",
    ),
    (message_first_block_only, "your code raised IndexError"),
    (message_python_repr, "the structuredContent reached the model, but not as JSON"),
    (
        message_blocks_run_together,
        "run together: join the text blocks with newlines",
    ),
    (message_blocks_joined_with_spaces, "each text block should be a line of its own, in order"),
    (message_every_block_read_as_text, "your code raised KeyError: 'text'"),
    (message_content_blocks, "content should be one string of text"),
    (
        message_other_blocks_as_repr,
        'the MCP result {"content": [{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}]}: '
        "the image block reached the model as data (\"{'type': 'image', 'data': 'iVBORw0KGgo=', "
        "'mimeType': 'image/png'}\"): only text blocks have text to join",
    ),
    (message_image_data_as_text, "the image block reached the model as data ('iVBORw0KGgo=')"),
    (
        lambda call_id, result: {
            "role": "tool",
            "tool_call_id": call_id,
            "content": result.get("structuredContent") or to_tool_message(call_id, result)["content"],
        },
        "content should be one string of text, not a dict: {'rain_chance': 0.8} (structuredContent goes as "
        "JSON text: json.dumps)",
    ),
    (message_without_id, "tool_call_id should be 'call_mcp_1', the id of the call it answers, not None"),
    (
        message_empty_structured_is_absent,
        'the MCP result {"content": [], "structuredContent": {}}: the result\'s structuredContent is {}, and '
        "the content is '': an empty object is structured content too",
    ),
]


@pytest.mark.parametrize("wrong, message", CATALOGUE_9_2, ids=[w.__name__ for w, _ in CATALOGUE_9_2])
def test_check_result_message_rejects_tempting_wrong_answers(wrong, message, capsys):
    assert not check_result_message(wrong)
    out = capsys.readouterr().out
    assert "✗ Exercise 10.2: not yet." in out
    assert message in out


def test_check_result_message_never_raises(capsys):
    assert not check_result_message(lambda tool_call_id, result: result["nope"])
    assert "your code raised KeyError" in capsys.readouterr().out


# --- Exercise 10.3: every server's tools prefixed, with the way back --------------------------------


def prefix_solved(servers):
    definitions, route = [], {}
    for server, tools in servers.items():
        for mcp_tool in tools:
            name = re.sub(r"[^a-zA-Z0-9_-]", "_", f"{server}__{mcp_tool['name']}")
            definitions.append(to_openai_tool(mcp_tool, name=name))
            route[name] = (server, mcp_tool["name"])
    return definitions, route


def prefix_renaming_in_place(servers):  # renames the servers' own tool dicts
    definitions, route = [], {}
    for server, tools in servers.items():
        for mcp_tool in tools:
            own_name = mcp_tool["name"]
            mcp_tool["name"] = re.sub(r"[^a-zA-Z0-9_-]", "_", f"{server}__{own_name}")
            definitions.append(to_openai_tool(mcp_tool))
            route[mcp_tool["name"]] = (server, own_name)
    return definitions, route


def prefix_names_only(servers):  # a definition with a name and parameters, no description
    definitions, route = prefix_solved(servers)
    for definition in definitions:
        definition["function"].pop("description", None)
    return definitions, route


def prefix_with_the_library(servers):
    definitions, route = [], {}
    for server, tools in servers.items():
        for mcp_tool in tools:
            name = openai_name(mcp_tool["name"], prefix=server)
            definitions.append(to_openai_tool(mcp_tool, name=name))
            route[name] = [server, mcp_tool["name"]]  # a list is as good as a tuple
    return definitions, route


def prefix_without_the_way_back(servers):
    definitions, route = prefix_solved(servers)
    return definitions, {name: (server, name) for name, (server, _) in route.items()}


def prefix_only_on_clash(servers):
    counts = {}
    for tools in servers.values():
        for mcp_tool in tools:
            counts[mcp_tool["name"]] = counts.get(mcp_tool["name"], 0) + 1
    definitions, route = [], {}
    for server, tools in servers.items():
        for mcp_tool in tools:
            name = f"{server}__{mcp_tool['name']}" if counts[mcp_tool["name"]] > 1 else mcp_tool["name"]
            name = name.replace(".", "_")
            definitions.append(to_openai_tool(mcp_tool, name=name))
            route[name] = (server, mcp_tool["name"])
    return definitions, route


def prefix_keeping_dots(servers):
    definitions, route = [], {}
    for server, tools in servers.items():
        for mcp_tool in tools:
            name = f"{server}__{mcp_tool['name']}"
            definitions.append(to_openai_tool(mcp_tool, name=name))
            route[name] = (server, mcp_tool["name"])
    return definitions, route


def prefix_keeping_word_characters(servers):  # [^\w-]: \w keeps é, ß, 中
    definitions, route = [], {}
    for server, tools in servers.items():
        for mcp_tool in tools:
            name = re.sub(r"[^\w-]", "_", f"{server}__{mcp_tool['name']}")
            definitions.append(to_openai_tool(mcp_tool, name=name))
            route[name] = (server, mcp_tool["name"])
    return definitions, route


def prefix_server_name_as_it_is(servers):
    """cleans the tool's name only: a server named 'my.files' gives 'my.files__read'"""
    definitions, route = [], {}
    for server, tools in servers.items():
        for mcp_tool in tools:
            name = server + "__" + re.sub(r"[^A-Za-z0-9_-]", "_", mcp_tool["name"])
            definitions.append(to_openai_tool(mcp_tool, name=name))
            route[name] = (server, mcp_tool["name"])
    return definitions, route


def prefix_dots_only(servers):
    """replaces '.' only: 'fetch url' keeps its space"""
    definitions, route = [], {}
    for server, tools in servers.items():
        for mcp_tool in tools:
            name = f"{server}__{mcp_tool['name']}".replace(".", "_")
            definitions.append(to_openai_tool(mcp_tool, name=name))
            route[name] = (server, mcp_tool["name"])
    return definitions, route


def prefix_route_by_server_name(servers):
    definitions, route = prefix_solved(servers)
    return definitions, {tool_name: (server, tool_name) for server, tool_name in route.values()}


def no_prefix_last_server_wins(servers):
    by_name = {}
    for server, tools in servers.items():
        for mcp_tool in tools:
            by_name[mcp_tool["name"].replace(".", "_")] = (server, mcp_tool)
    definitions = [to_openai_tool(t, name=name) for name, (_, t) in by_name.items()]
    return definitions, {name: (server, t["name"]) for name, (server, t) in by_name.items()}


def prefix_lower_cased(servers):
    """lower-cases every name: the files server's Read and read become one tool"""
    definitions, route = [], {}
    for server, tools in servers.items():
        for mcp_tool in tools:
            name = re.sub(r"[^a-z0-9_-]", "_", f"{server}__{mcp_tool['name']}".lower())
            definitions.append(to_openai_tool(mcp_tool, name=name))
            route[name] = (server, mcp_tool["name"])
    return definitions, route


def prefix_by_comprehension(servers):
    """right, written differently: pairs listed first, names cleaned character by character"""
    allowed = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
    pairs = [(server, mcp_tool) for server, tools in servers.items() for mcp_tool in tools]
    names = [
        "".join(c if c in allowed else "_" for c in f"{server}__{t['name']}")[:64] for server, t in pairs
    ]
    definitions = [to_openai_tool(t, name=name) for name, (_, t) in zip(names, pairs, strict=True)]
    return definitions, {name: (server, t["name"]) for name, (server, t) in zip(names, pairs, strict=True)}


@pytest.mark.parametrize("solution", [prefix_solved, prefix_with_the_library, prefix_by_comprehension])
def test_check_prefix_tools_accepts_solutions(solution, capsys):
    assert check_prefix_tools(solution)
    assert "✓ Exercise 10.3" in capsys.readouterr().out


CATALOGUE_9_3 = [  # most tempting first
    (
        prefix_without_the_way_back,
        "the server only knows its tool as",
    ),
    (prefix_only_on_clash, "the files server's 'files.read' should be 'files__files_read'"),
    (prefix_keeping_dots, "'files__files.read' is not a name the API accepts"),
    (prefix_route_by_server_name, "route['files__files_read'] should be ('files', 'files.read'), not None"),
    (no_prefix_last_server_wins, "With every tool prefixed, the model can tell which server each comes from"),
    (
        prefix_renaming_in_place,
        "your function changed the servers' tool lists it was given",
    ),
    (prefix_names_only, "should keep its description"),
    (prefix_server_name_as_it_is, "is not a name the API accepts (letters, digits, '_' and '-' only)"),
    (prefix_dots_only, "is not a name the API accepts (letters, digits, '_' and '-' only)"),
    (
        prefix_lower_cased,
        "the files server's 'Read' became 'files__read': tool names are case-sensitive, and changing the "
        "case can make two tools one (files has 'Read', 'read'); keep the case, giving 'files__Read'",
    ),
    (
        prefix_keeping_word_characters,
        "'météo__prévision' is not a name the API accepts (letters, digits, '_' and '-' only) ('é' is a "
        "letter to Python's \\w and str.isalnum(), but not to the API: only ASCII letters A-Z and a-z): "
        "replace the other characters with '_', giving 'm_t_o__pr_vision'",
    ),
]


@pytest.mark.parametrize("wrong, message", CATALOGUE_9_3, ids=[w.__name__ for w, _ in CATALOGUE_9_3])
def test_check_prefix_tools_rejects_tempting_wrong_answers(wrong, message, capsys):
    assert not check_prefix_tools(wrong)
    out = capsys.readouterr().out
    assert "✗ Exercise 10.3: not yet." in out
    assert message in out


def test_check_prefix_tools_never_raises(capsys):
    assert not check_prefix_tools(lambda servers: servers["nope"])
    assert "your code raised KeyError" in capsys.readouterr().out
    assert not check_prefix_tools(lambda servers: None)
    assert "return a pair (definitions, route)" in capsys.readouterr().out


def test_the_checks_never_raise_on_return_values_they_cannot_read(capsys):
    assert not check_tool_definition(lambda t: {"type": "function", "function": {**t, "parameters": 5}})
    assert not check_prefix_tools(
        lambda servers: (
            [
                {"function": {"name": openai_name(t["name"], s)}}
                for s, tools in servers.items()
                for t in tools
            ],
            {openai_name(t["name"], s): 5 for s, tools in servers.items() for t in tools},
        )
    )
    out = capsys.readouterr().out
    assert "could not read what prefix_tools() returned (TypeError" in out


@pytest.mark.parametrize(
    "check, wrong, count",
    [
        (check_tool_definition, definition_properties_only, 63),
        (check_result_message, message_python_repr, 105),
        (check_prefix_tools, prefix_only_on_clash, 63),
    ],
)
def test_each_check_is_deterministic_and_counts_its_scenarios(check, wrong, count, capsys):
    first, second = check(wrong), check(wrong)
    out = capsys.readouterr().out.split("✗")
    assert first.scenarios == second.scenarios == count and out[1] == out[2]


def test_generated_schemas_reach_what_the_fixed_tools_do_not(capsys):
    def first_level_only(mcp_tool):  # keeps nested objects' properties, drops what is nested in arrays
        definition = json.loads(json.dumps(definition_solved(mcp_tool)))
        for schema in definition["function"]["parameters"].get("properties", {}).values():
            if schema.get("type") == "array":
                schema["items"] = {}
        return definition

    assert not check_tool_definition(first_level_only)
    assert ".items" in capsys.readouterr().out


def test_the_lesson_10_checks_give_the_same_verdicts_under_another_hash_seed():
    """each check on a wrong answer: the same words whatever the order of a set"""
    outputs = under_two_hash_seeds(
        "test_checks_lesson10",
        "c.check_tool_definition(t.definition_properties_only); "
        "c.check_result_message(t.message_drops_is_error); "
        "c.check_prefix_tools(t.prefix_keeping_dots)",
    )
    assert len(outputs) == 1 and outputs.pop().count("✗ Exercise 10.") == 3
