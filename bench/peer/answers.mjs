// What the bare peer answers: the same result shapes the official server sends (checked against
// bench/server.mjs), built with no library, so the peer costs as little as a peer can and the
// client's own cost is what the benchmark sees. One `echo` tool, and `tools/list` pages over a
// catalogue of BENCH_TOOLS tools (default 1 000, about 1.5 KB each) for the listing benchmark.
const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";
const SERVER_INFO = { name: "bench-bare-peer", version: "1.0.0" };
const MODERN_META = { "io.modelcontextprotocol/serverInfo": SERVER_INFO };
const PAGE = 250;

const ECHO = {
  name: "echo",
  description: "Repeats the message",
  inputSchema: {
    type: "object",
    $schema: "https://json-schema.org/draft/2020-12/schema",
    properties: { message: { type: "string" } },
    required: ["message"],
  },
};

/** A tool definition of about 1.5 KB with nested schemas, as real catalogues have. */
export function benchTool(i) {
  return {
    name: `tool_${String(i).padStart(4, "0")}`,
    title: `Tool number ${i}`,
    description: `Looks up record ${i} in the inventory and returns its fields. Use it when the caller names a record by its id or by its code; it never changes anything.`,
    inputSchema: {
      type: "object",
      $schema: "https://json-schema.org/draft/2020-12/schema",
      properties: {
        id: { type: "string", description: "The record's id, as shown in the inventory list.", minLength: 1 },
        code: { type: "string", pattern: "^[A-Z]{3}-[0-9]{4}$", description: "The record's code." },
        fields: {
          type: "array",
          items: { type: "string", enum: ["name", "owner", "location", "status", "updated", "tags"] },
          description: "Which fields to return; all of them when left out.",
        },
        options: {
          type: "object",
          properties: {
            includeHistory: { type: "boolean", default: false },
            limit: { type: "integer", minimum: 1, maximum: 100, default: 10 },
            order: { type: "string", enum: ["asc", "desc"] },
          },
          additionalProperties: false,
        },
      },
      required: ["id"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        record: {
          type: "object",
          properties: { name: { type: "string" }, owner: { type: "string" }, status: { type: "string" } },
        },
        found: { type: "boolean" },
      },
      required: ["found"],
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  };
}

// `--tools=N` on the peer's command line (a stdio client does not hand its environment to the
// peer it spawns) or BENCH_TOOLS; the memory cells use 0: see MEMORY_PEER_ARGS in bare-peer.mjs.
const TOOLS_ARG = process.argv.find((a) => a.startsWith("--tools="));
const COUNT = Number(TOOLS_ARG ? TOOLS_ARG.slice(8) : (process.env.BENCH_TOOLS ?? 1000));
const CATALOGUE = [ECHO, ...Array.from({ length: COUNT }, (_, i) => benchTool(i))];

function listPage(cursor) {
  const start = cursor === undefined ? 0 : Number(cursor);
  const tools = CATALOGUE.slice(start, start + PAGE);
  const next = start + PAGE < CATALOGUE.length ? String(start + PAGE) : undefined;
  return next === undefined ? { tools } : { tools, nextCursor: next };
}

/**
 * The JSON text answering one parsed message, or undefined (notifications). The era is the
 * request's: modern requests carry the `_meta` protocol version.
 */
export function answer(m) {
  if (m.id === undefined || m.method === undefined) return undefined;
  const modern = m.params?._meta?.["io.modelcontextprotocol/protocolVersion"] === MODERN;
  let result;
  switch (m.method) {
    case "tools/call": {
      const text = m.params?.arguments?.message;
      result = { content: [{ type: "text", text }] };
      if (modern) {
        result.resultType = "complete";
        result._meta = MODERN_META;
      }
      break;
    }
    case "tools/list":
      result = listPage(m.params?.cursor);
      if (modern)
        Object.assign(result, {
          resultType: "complete",
          ttlMs: 0,
          cacheScope: "private",
          _meta: MODERN_META,
        });
      break;
    case "server/discover":
      result = {
        supportedVersions: [MODERN],
        capabilities: { tools: { listChanged: true } },
        resultType: "complete",
        ttlMs: 0,
        cacheScope: "private",
        _meta: MODERN_META,
      };
      break;
    case "initialize":
      result = {
        protocolVersion: LEGACY,
        capabilities: { tools: { listChanged: true } },
        serverInfo: SERVER_INFO,
      };
      break;
    case "ping":
      result = {};
      break;
    default:
      return JSON.stringify({
        jsonrpc: "2.0",
        id: m.id,
        error: { code: -32601, message: "Method not found" },
      });
  }
  return JSON.stringify({ jsonrpc: "2.0", id: m.id, result });
}
