/**
 * The `conduit-mcp/http` entry: the `Mcp-Param-*` header helpers of the Streamable HTTP transport
 * (docs/http.md), for a server author or a tool that checks a schema's `x-mcp-header` annotations
 * the way the client does. The transport itself and its options come from the root entry.
 */
export {
  encodeHeaderValue,
  invalidMcpHeaderAnnotations,
  type McpHeaderAnnotation,
  mcpHeaderAnnotations,
} from "./mcp-headers.js";
