/**
 * The result shaping moved below the client (src/client/llm-result.ts), so `callTool` can take
 * `shape: "llm"`; the adapters and their subpaths keep importing it from here.
 */
export * from "../client/llm-result.js";
