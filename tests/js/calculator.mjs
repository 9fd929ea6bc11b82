// A calculator task with the openai npm package against agent-core serve-mock: the agent loop on
// Chat Completions, then on the Responses API. Usage: node calculator.mjs BASE_URL QUESTION
// Prints one JSON line: {"chat": answer, "responses": answer, "calls": [tool names in order]}.
import OpenAI from "openai";

const [baseURL, question] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey: "mock-key-not-secret", maxRetries: 0 });
const functions = { add: (a, b) => a + b, multiply: (a, b) => a * b };
const parameters = {
  type: "object",
  properties: { a: { type: "number" }, b: { type: "number" } },
  required: ["a", "b"],
  additionalProperties: false,
};
const calls = [];

function run(name, argumentsJson) {
  const { a, b } = JSON.parse(argumentsJson);
  calls.push(name);
  return String(functions[name](a, b));
}

async function onChatCompletions() {
  const tools = Object.keys(functions).map((name) => ({
    type: "function",
    function: { name, description: `${name} two numbers`, parameters },
  }));
  const messages = [{ role: "user", content: question }];
  for (let turn = 0; turn < 6; turn++) {
    const completion = await client.chat.completions.create({ model: "mock-model", messages, tools });
    const message = completion.choices[0].message;
    messages.push(message);
    if (!message.tool_calls?.length) return message.content;
    for (const call of message.tool_calls) {
      messages.push({ role: "tool", tool_call_id: call.id, content: run(call.function.name, call.function.arguments) });
    }
  }
  throw new Error("no answer after 6 turns");
}

async function onResponses() {
  const tools = Object.keys(functions).map((name) => ({
    type: "function", name, description: `${name} two numbers`, parameters, strict: true,
  }));
  let response = await client.responses.create({ model: "mock-model", input: question, tools });
  for (let turn = 0; turn < 6; turn++) {
    const outputs = response.output
      .filter((item) => item.type === "function_call")
      .map((item) => ({ type: "function_call_output", call_id: item.call_id, output: run(item.name, item.arguments) }));
    if (!outputs.length) return response.output_text;
    response = await client.responses.create({
      model: "mock-model", input: outputs, tools, previous_response_id: response.id,
    });
  }
  throw new Error("no answer after 6 turns");
}

const chat = await onChatCompletions();
const responses = await onResponses();
console.log(JSON.stringify({ chat, responses, calls }));
