#!/usr/bin/env node
// Serves a fake server definition over stdio: `node fake-server-entry.js <definition file>`. The
// file's default export is a FakeServer (or a function returning one). JSON-RPC arrives one line
// at a time on stdin; every message the server sends is one line on stdout. The process exits
// when stdin ends or the server hangs up (`fail(..., { close: true })`).
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import type { JsonRpcMessage } from "../shared/jsonrpc.js";
import { isInProcessServer } from "../transport/in-process.js";

const file = process.argv[2];
if (!file) {
  process.stderr.write("usage: fake-server-entry.js <fake server definition file>\n");
  process.exit(2);
}
const mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
const made = typeof mod.default === "function" ? await (mod.default as () => unknown)() : mod.default;
if (!isInProcessServer(made)) {
  process.stderr.write(`${file}: the default export is not a FakeServer (or a function returning one)\n`);
  process.exit(2);
}
const session = await made.serveInProcess({
  send: (message) => {
    process.stdout.write(`${JSON.stringify(message)}\n`);
  },
  close: () => process.exit(0),
});
const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
lines.on("line", (line) => {
  if (line.trim() === "") return;
  let message: JsonRpcMessage;
  try {
    message = JSON.parse(line) as JsonRpcMessage;
  } catch {
    process.stderr.write("fake server: ignored a line that is not JSON\n");
    return;
  }
  session.receive(message);
});
lines.on("close", () => {
  void Promise.resolve(session.close()).finally(() => process.exit(0));
});
