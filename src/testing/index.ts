/**
 * `conduit-mcp/testing`: test an agent without spawning servers or opening sockets. A
 * `FakeServer` is served in-process (`transport: { type: "in-process", server }`) or, through
 * `fakeServerCommand`, over the real stdio transport. See docs/testing.md.
 */
export {
  type FakeCall,
  type FakeContext,
  type FakeEra,
  type FakeFault,
  type FakePromptArgument,
  FakeServer,
  type FakeServerOptions,
  type PromptHandler,
  type ResourceHandler,
  type ToolHandler,
} from "./fake-server.js";
export { fakeServerCommand } from "./fake-server-command.js";
