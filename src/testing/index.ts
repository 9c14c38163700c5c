/**
 * `conduit-mcp/testing`: test an agent without spawning servers or opening sockets. A
 * `FakeServer` is served in-process (`transport: { type: "in-process", server }`) or, through
 * `fakeServerCommand`, over the real stdio transport. See docs/testing.md.
 */
export { FakeServer } from "./fake-server.js";
export { fakeServerCommand } from "./fake-server-command.js";
export type {
  FakeCall,
  FakeContext,
  FakeEra,
  FakeFault,
  FakePromptArgument,
  FakeServerOptions,
  PromptHandler,
  ResourceHandler,
  ToolHandler,
} from "./fake-types.js";
