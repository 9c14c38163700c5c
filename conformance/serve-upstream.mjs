// The upstream for conformance/serve.sh: a server on the official server SDK with what the
// conformance suite's server scenarios call (the test_* tools, the test:// resources and template,
// the test_* prompts, logging, completions). Served over stdio (behind `conduit-mcp serve`) or
// over HTTP at /mcp (run directly against the suite), both eras in either.
//   node conformance/serve-upstream.mjs stdio
//   node conformance/serve-upstream.mjs http PORT      (prints the URL on stdout)
import { createServer } from "node:http";
import { createMcpHandler, McpServer, ResourceTemplate } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

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
        tools: { listChanged: true },
        resources: { listChanged: true },
        prompts: { listChanged: true },
        logging: {},
        completions: {},
      },
    },
  );
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
