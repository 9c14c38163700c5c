// The upstream for conformance/serve.sh: a server on the official server SDK with what the
// conformance suite's server scenarios call (the test_* tools, the test:// resources and template,
// the test_* prompts, logging, completions). Served over stdio (behind `conduit-mcp serve`) or
// over HTTP at /mcp (run directly against the suite), both eras in either.
//   node conformance/serve-upstream.mjs stdio
//   node conformance/serve-upstream.mjs http PORT      (prints the URL on stdout)
import { createServer } from "node:http";
import { createMcpHandler, inputRequired, McpServer, ResourceTemplate } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";
import { gateTaskOnlyTools, registerTaskTools, TASKS } from "./serve-upstream-tasks.mjs";

// 1x1 PNG and a minimal WAV, as the scenarios expect some image and audio data.
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";
const text = (t) => ({ content: [{ type: "text", text: t }] });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function build() {
  const s = new McpServer(
    { name: "conduit-conformance-upstream", version: "1.0.0" },
    {
      capabilities: {
        // `tools` ({ listChanged: true }) comes with the first registerTool, after the task gate.
        resources: { listChanged: true },
        prompts: { listChanged: true },
        logging: {},
        completions: {},
        extensions: { [TASKS]: {} },
      },
    },
  );
  gateTaskOnlyTools(s);
  const none = { inputSchema: z.object({}) };
  s.registerTool("test_simple_text", { description: "Simple text", ...none }, async () =>
    text("This is a simple text response for testing."),
  );
  s.registerTool("test_image_content", { description: "Image content", ...none }, async () => ({
    content: [{ type: "image", data: PNG, mimeType: "image/png" }],
  }));
  s.registerTool("test_audio_content", { description: "Audio content", ...none }, async () => ({
    content: [{ type: "audio", data: WAV, mimeType: "audio/wav" }],
  }));
  const embedded = {
    uri: "test://embedded-resource",
    mimeType: "text/plain",
    text: "This is an embedded resource content.",
  };
  s.registerTool("test_embedded_resource", { description: "Embedded resource", ...none }, async () => ({
    content: [{ type: "resource", resource: embedded }],
  }));
  s.registerTool(
    "test_multiple_content_types",
    { description: "Text, image and resource", ...none },
    async () => ({
      content: [
        { type: "text", text: "Multiple content types test:" },
        { type: "image", data: PNG, mimeType: "image/png" },
        {
          type: "resource",
          resource: {
            uri: "test://mixed-content-resource",
            mimeType: "application/json",
            text: '{"test":"data","value":123}',
          },
        },
      ],
    }),
  );
  s.registerTool(
    "test_tool_with_logging",
    { description: "Logs while it runs", ...none },
    async (_a, ctx) => {
      for (const m of ["Tool execution started", "Tool processing data", "Tool execution completed"]) {
        await ctx.mcpReq.notify({ method: "notifications/message", params: { level: "info", data: m } });
        await sleep(20);
      }
      return text("Tool with logging executed successfully");
    },
  );
  s.registerTool("test_tool_with_progress", { description: "Reports progress", ...none }, async (_a, ctx) => {
    const token = ctx.mcpReq._meta?.progressToken ?? 0;
    for (const p of [0, 50, 100]) {
      await ctx.mcpReq.notify({
        method: "notifications/progress",
        params: { progressToken: token, progress: p, total: 100, message: `Completed step ${p} of 100` },
      });
      await sleep(20);
    }
    return text(String(token));
  });
  s.registerTool("test_error_handling", { description: "Fails", ...none }, async () => {
    throw new Error("This tool intentionally returns an error for testing");
  });
  s.registerTool(
    "json_schema_2020_12_tool",
    {
      description: "JSON Schema 2020-12 features",
      inputSchema: z.object({
        name: z.string().optional(),
        address: z.object({ street: z.string().optional(), city: z.string().optional() }).optional(),
      }),
    },
    async (args) => text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`),
  );

  // 2026-07-28 input_required rounds (SEP-2322): the question is in `inputRequests`, the answer
  // comes back in `inputResponses` on the retry, with `requestState` echoed.
  const ask = (message) => ({
    method: "elicitation/create",
    params: {
      mode: "form",
      message,
      requestedSchema: { type: "object", properties: { name: { type: "string" } } },
    },
  });
  const answered = (ctx, key) => ctx.mcpReq.inputResponses?.[key] !== undefined;
  s.registerTool(
    "test_input_required_result_elicitation",
    { description: "Asks for a name", ...none },
    async (_a, ctx) =>
      answered(ctx, "user_name")
        ? text(`Hello, ${JSON.stringify(ctx.mcpReq.inputResponses.user_name)}`)
        : inputRequired({ inputRequests: { user_name: ask("What is your name?") } }),
  );
  s.registerTool(
    "test_input_required_result_sampling",
    { description: "Asks the model", ...none },
    async (_a, ctx) =>
      answered(ctx, "capital_question")
        ? text(`The model said: ${JSON.stringify(ctx.mcpReq.inputResponses.capital_question)}`)
        : inputRequired({
            inputRequests: {
              capital_question: inputRequired.createMessage({
                messages: [
                  { role: "user", content: { type: "text", text: "What is the capital of France?" } },
                ],
                maxTokens: 100,
              }),
            },
          }),
  );
  s.registerTool(
    "test_input_required_result_request_state",
    { description: "Round-trips its state", ...none },
    async (_a, ctx) => {
      if (!answered(ctx, "confirm"))
        return inputRequired({ inputRequests: { confirm: ask("Confirm?") }, requestState: "round-1" });
      return ctx.mcpReq.requestState() === "round-1" ? text("state-ok") : text("state lost");
    },
  );
  s.registerTool(
    "test_input_required_result_multi_round",
    { description: "Asks twice", ...none },
    async (_a, ctx) => {
      const state = ctx.mcpReq.requestState();
      if (state === undefined)
        return inputRequired({ inputRequests: { step1: ask("Name?") }, requestState: "step-1" });
      if (state === "step-1" && answered(ctx, "step1"))
        return inputRequired({ inputRequests: { step2: ask("Colour?") }, requestState: "step-2" });
      if (state === "step-2" && answered(ctx, "step2")) return text("both rounds answered");
      return inputRequired({ inputRequests: { step1: ask("Name?") }, requestState: "step-1" });
    },
  );

  // The lists changing (the suite's test_trigger_* tools; serve's tests use them too).
  s.registerTool(
    "test_trigger_prompt_change",
    { description: "Says the prompt list changed", ...none },
    async () => {
      s.sendPromptListChanged();
      return text("prompts changed");
    },
  );
  s.registerTool(
    "test_trigger_resource_change",
    { description: "Says the resource list changed", ...none },
    async () => {
      s.sendResourceListChanged();
      return text("resources changed");
    },
  );

  s.registerResource(
    "static-text",
    "test://static-text",
    { title: "Static Text Resource", description: "A static text resource", mimeType: "text/plain" },
    async () => ({
      contents: [
        {
          uri: "test://static-text",
          mimeType: "text/plain",
          text: "This is the content of the static text resource.",
        },
      ],
    }),
  );
  s.registerResource(
    "static-binary",
    "test://static-binary",
    { title: "Static Binary Resource", description: "A static binary resource", mimeType: "image/png" },
    async () => ({ contents: [{ uri: "test://static-binary", mimeType: "image/png", blob: PNG }] }),
  );
  s.registerResource(
    "template",
    new ResourceTemplate("test://template/{id}/data", { list: undefined }),
    { title: "Resource Template", description: "A template", mimeType: "application/json" },
    async (uri, { id }) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: "application/json",
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
        },
      ],
    }),
  );

  const user = (content) => ({ role: "user", content });
  s.registerPrompt("test_simple_prompt", { description: "A simple prompt" }, () => ({
    messages: [user({ type: "text", text: "This is a simple prompt for testing." })],
  }));
  s.registerPrompt(
    "test_prompt_with_arguments",
    { description: "A prompt with arguments", argsSchema: z.object({ arg1: z.string(), arg2: z.string() }) },
    ({ arg1, arg2 }) => ({
      messages: [user({ type: "text", text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` })],
    }),
  );
  s.registerPrompt(
    "test_prompt_with_embedded_resource",
    { description: "A prompt with a resource", argsSchema: z.object({ resourceUri: z.string() }) },
    ({ resourceUri }) => ({
      messages: [
        user({
          type: "resource",
          resource: {
            uri: resourceUri,
            mimeType: "text/plain",
            text: "Embedded resource content for testing.",
          },
        }),
        user({ type: "text", text: "Please process the embedded resource above." }),
      ],
    }),
  );
  s.registerPrompt("test_prompt_with_image", { description: "A prompt with an image" }, () => ({
    messages: [
      user({ type: "image", data: PNG, mimeType: "image/png" }),
      user({ type: "text", text: "Please analyze the image above." }),
    ],
  }));

  registerTaskTools(s);

  s.server.setRequestHandler("logging/setLevel", async () => ({}));
  s.server.setRequestHandler("completion/complete", async () => ({
    completion: { values: [], total: 0, hasMore: false },
  }));
  return s;
}

if (process.argv[2] === "stdio") {
  serveStdio(build, { legacy: "serve" });
} else {
  const handler = createMcpHandler(build);
  const http = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
    const response = await handler.fetch(
      new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) return void res.end();
    for await (const c of response.body) res.write(c);
    res.end();
  });
  http.listen(Number(process.argv[3] ?? 0), "127.0.0.1", () =>
    console.log(`http://127.0.0.1:${http.address().port}/mcp`),
  );
}
