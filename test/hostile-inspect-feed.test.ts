/**
 * The inspector's event stream to a page that stopped reading (a frozen or suspended tab): the
 * feed drops the stream once 1 MiB waits unsent, rather than hold every event for good (a
 * server's log flood is megabytes a second, until the process runs out of memory). A real
 * `node:http` server and a real socket that is paused, never read.
 */
import { createServer, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import { afterAll, expect, it } from "vitest";
import { Feed, MAX_UNSENT } from "../src/inspect/feed.js";

let server: Server | undefined;
let socket: Socket | undefined;
afterAll(async () => {
  socket?.destroy();
  await new Promise((resolve) => server?.close(resolve));
});

it("a stream nobody reads is dropped past 1 MiB unsent; a reading one keeps its events", async () => {
  const feed = new Feed("hostile-feed");
  let closed = 0;
  server = createServer((_req, res) => {
    res.on("close", () => closed++);
    feed.attach(res);
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  socket = connect(port, "127.0.0.1");
  await new Promise((resolve) => socket!.once("connect", resolve));
  socket.write("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  // Read the head, then stop reading for good.
  await new Promise((resolve) => socket!.once("data", resolve));
  socket.pause();
  // 190 events of 100 KB (a burst within one second's allowance of 200): 19 MB, far past what
  // the kernel's socket buffers take on loopback (a few MB) and the 1 MiB cap.
  const data = "x".repeat(100_000);
  for (let i = 0; i < 190; i++) {
    feed.send("log", { data });
    await new Promise((resolve) => setImmediate(resolve));
  }
  // Before: the stream stayed, holding every frame the socket could not take.
  await new Promise((resolve) => setTimeout(resolve, 200));
  // The server side: the stream ended (a paused client socket hears nothing until it reads).
  expect(closed).toBe(1);
  expect(MAX_UNSENT).toBe(1024 * 1024);
  // A reader that reads gets what is sent after.
  const reader = await fetch(`http://127.0.0.1:${port}/api/events`);
  const body = reader.body!.getReader();
  const first = new TextDecoder().decode((await body.read()).value);
  expect(first).toContain(": open");
  feed.send("log", { data: "hello" });
  const next = new TextDecoder().decode((await body.read()).value);
  expect(next).toContain('"data":"hello"');
  await body.cancel();
  feed.close();
});
