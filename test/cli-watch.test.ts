// `conduit-mcp watch`, run as users run it (`node dist/cli/main.js watch ...`), against
// test/fixtures/cli-watch-server.mjs: an HTTP server made with the official package whose state
// every session shares, with admin endpoints this test calls to change things while the watch
// is connected. Over stdio, against test/fixtures/notify-server.mjs, for the interrupt and the
// server process. Needs `npm run build` first.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "./support/async.js";
import { startWatchServer, type WatchServer } from "./support/watch-server.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const CLI = `${root}dist/cli/main.js`;
const NOTIFY_SERVER = `${root}test/fixtures/notify-server.mjs`;

/** A human line: `12:34:56.789 method summary`. */
const TIME = String.raw`\d{2}:\d{2}:\d{2}\.\d{3}`;
// Anything a terminal could act on, or that changes how text reads.
const UNSAFE =
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u206F\uFEFF]/;

/** A running `conduit-mcp watch`: its output so far, line by line, and ways to wait and stop. */
class Watch {
  readonly child: ChildProcess;
  stdout = "";
  stderr = "";
  readonly exited: Promise<number | null>;
  #waiters: Array<() => void> = [];

  constructor(args: string[]) {
    this.child = spawn(process.execPath, [CLI, "watch", ...args], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      this.stdout += d;
      for (const w of this.#waiters) w();
    });
    this.child.stderr!.setEncoding("utf8").on("data", (d: string) => (this.stderr += d));
    this.exited = new Promise((resolve) => this.child.once("close", (code) => resolve(code)));
    running.add(this);
  }

  get lines(): string[] {
    return this.stdout.split("\n").filter((line) => line.length > 0);
  }

  /** Resolves with the first complete line matching `pattern` (waits for it to be printed). */
  line(pattern: RegExp, timeout = 15_000): Promise<string> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.lines.find((line) => pattern.test(line));
        if (found === undefined) return false;
        clearTimeout(timer);
        this.#waiters = this.#waiters.filter((w) => w !== onData);
        resolve(found);
        return true;
      };
      const onData = () => void check();
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== onData);
        reject(new Error(`no line matching ${pattern} in:\n${this.stdout}\nstderr:\n${this.stderr}`));
      }, timeout);
      if (!check()) this.#waiters.push(onData);
    });
  }

  /** Sends `signal` and resolves with the exit status. */
  async stop(signal: NodeJS.Signals = "SIGINT"): Promise<number | null> {
    this.child.kill(signal);
    const code = await this.exited;
    running.delete(this);
    return code;
  }
}

const running = new Set<Watch>();

/** The process ids of `pid`'s children. */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" })
      .split("\n")
      .map((s) => Number(s.trim()))
      .filter((n) => n > 0);
  } catch {
    return []; // ps exits 1 when there are none
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error("dist/cli/main.js is missing: run `npm run build` first");
});

afterEach(async () => {
  // A failed test must not leave a watch running.
  for (const watch of [...running]) await watch.stop("SIGKILL");
});

describe("conduit-mcp watch over HTTP", () => {
  let server: WatchServer;
  beforeAll(async () => {
    server = await startWatchServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("modern: prints list changes with what changed, resource updates and a changed tool's warning", async () => {
    const watch = new Watch(["--subscribe", "file:///watched.txt", "--url", server.url]);
    const start = await watch.line(/ watching /);
    expect(start).toMatch(
      new RegExp(
        `^${TIME} watching cli-watch 1\\.0\\.0 \\(modern 2026-07-28\\): \\d+ tools, \\d+ resources?, 1 prompt; log level info; subscribed to file:///watched\\.txt$`,
      ),
    );

    await server.admin("add_tool", { name: "modern_added" });
    expect(await watch.line(/tools \+modern_added/)).toMatch(
      new RegExp(`^${TIME} notifications/tools/list_changed tools \\+modern_added \\(\\d+ in all\\)$`),
    );

    await server.admin("touch", { uri: "file:///watched.txt" });
    expect(await watch.line(/resources\/updated/)).toMatch(
      new RegExp(`^${TIME} notifications/resources/updated file:///watched\\.txt$`),
    );

    await server.admin("change_tool", { name: "modern_added" });
    expect(await watch.line(/WARNING/)).toMatch(
      new RegExp(
        `^${TIME} conduit-mcp/tool_definition_changed WARNING: the definition of tool "modern_added" changed`,
      ),
    );
    expect(watch.lines).toContainEqual(
      expect.stringMatching(/notifications\/tools\/list_changed tools: no names added or removed/),
    );

    await server.admin("remove_tool", { name: "modern_added" });
    await watch.line(/tools -modern_added/);

    await server.admin("add_resource", { uri: "file:///modern-new.txt" });
    expect(await watch.line(/resources \+file/)).toMatch(
      new RegExp(`^${TIME} notifications/resources/list_changed resources \\+file:///modern-new\\.txt`),
    );

    expect(await watch.stop("SIGINT")).toBe(0);
    expect(watch.stderr).toBe("");
    // Every line is `time method summary`, and nothing else was printed.
    for (const line of watch.lines) expect(line).toMatch(new RegExp(`^${TIME} \\S+ `));
  });

  it("legacy --json: one JSON object per line; log entries at --log-level and above", async () => {
    const watch = new Watch([
      "--json",
      "--protocol",
      "legacy",
      "--log-level",
      "warning",
      "--subscribe",
      "file:///watched.txt",
      "--url",
      server.url,
    ]);
    await watch.line(/"type":"ready"/);
    await server.admin("log", { level: "debug", text: "too quiet" });
    await server.admin("log", { level: "error", text: "disk \u001b[2Jfull \u202Eevil" });
    await watch.line(/notifications\/message/);
    await server.admin("add_tool", { name: "legacy_added" });
    await watch.line(/legacy_added/);
    await server.admin("touch", { uri: "file:///watched.txt" });
    await watch.line(/resources\/updated/);
    expect(await watch.stop("SIGTERM")).toBe(0);

    const objects = watch.lines.map((line) => {
      expect(line).not.toMatch(UNSAFE); // escaped, not raw
      return JSON.parse(line);
    });
    for (const o of objects) expect(o.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(objects[0]).toMatchObject({
      type: "ready",
      era: "legacy",
      version: "2025-11-25",
      serverInfo: { name: "cli-watch", version: "1.0.0" },
      prompts: ["greet"],
      subscribed: ["file:///watched.txt"],
      logLevel: "warning",
    });
    expect(objects[0].tools).toContain("echo");
    const logs = objects.filter((o) => o.method === "notifications/message");
    expect(logs).toEqual([
      {
        time: expect.any(String),
        type: "notification",
        method: "notifications/message",
        // The library's sanitiser has already removed what a terminal would act on.
        params: { level: "error", logger: "cli-watch", data: { text: "disk full evil" } },
      },
    ]);
    expect(objects).toContainEqual(
      expect.objectContaining({
        type: "list_changed",
        method: "notifications/tools/list_changed",
        list: "tools",
        added: ["legacy_added"],
        removed: [],
      }),
    );
    expect(objects).toContainEqual(
      expect.objectContaining({
        type: "notification",
        method: "notifications/resources/updated",
        params: { uri: "file:///watched.txt" },
      }),
    );
    expect(await server.stats()).toMatchObject({ logLevels: expect.arrayContaining(["warning"]) });
  });

  it("legacy, human: log entries and unknown notifications are sanitised", async () => {
    const watch = new Watch(["--protocol", "legacy", "--url", server.url]);
    await watch.line(/ watching /);
    await server.admin("log", { level: "warning", text: "ring \u0007\u001b]0;pwned\u0007 done" });
    await server.admin("notify", { method: "notifications/\u001b[31mcustom", note: "x\u200By" });
    const log = await watch.line(/notifications\/message/);
    const custom = await watch.line(/custom/);
    expect(log).toMatch(
      new RegExp(`^${TIME} notifications/message warning cli-watch: \\{"text":"ring\\s*done"\\}$`),
    );
    expect(custom).toMatch(new RegExp(`^${TIME} notifications/custom \\{"note":"xy"\\}$`));
    expect(await watch.stop()).toBe(0);
    expect(watch.stdout.replace(/\n/g, "")).not.toMatch(UNSAFE);
  });

  it("keeps going across a server restart: state changes, the lists caught up, the log level again", async () => {
    // A server of its own, so that it can be stopped and started again on the same port.
    let own = await startWatchServer();
    try {
      const watch = new Watch([
        "--protocol",
        "legacy",
        "--health-check",
        "300",
        "--log-level",
        "error",
        "--url",
        own.url,
      ]);
      await watch.line(/ watching /);
      await own.admin("add_tool", { name: "gone_after_restart" });
      await watch.line(/list_changed tools \+gone_after_restart/);

      await own.stop();
      await watch.line(/state ready -> reconnecting/);
      own = await startWatchServer(own.port);
      expect(await watch.line(/state \w+ -> ready/)).toMatch(
        new RegExp(`^${TIME} state initializing -> ready \\(attempt \\d+\\)$`),
      );
      // The restarted server never announced that the tool went away; the watch listed again.
      // (Waited for by what it says: under load a 300 ms health check can miss twice and make a
      // reconnect to the old server first, whose resync says other things.)
      expect(await watch.line(/resync tools -/)).toMatch(
        new RegExp(`^${TIME} resync tools -gone_after_restart \\(\\d+ in all\\)$`),
      );
      // The new session has the log level too.
      expect((await own.stats()).logLevels).toEqual(["error"]);
      await own.admin("log", { level: "warning", text: "below the level" });
      await own.admin("log", { level: "error", text: "after the restart" });
      await watch.line(/after the restart/);
      await own.admin("add_tool", { name: "after_restart" });
      await watch.line(/tools \+after_restart/);

      expect(await watch.stop()).toBe(0);
      expect(watch.stdout).not.toContain("below the level");
      const reconnecting = watch.lines.find((line) => / state ready -> reconnecting/.test(line));
      expect(reconnecting).toMatch(
        new RegExp(`^${TIME} state ready -> reconnecting \\(attempt 1\\): transport: `),
      );
    } finally {
      await own.stop();
    }
  });

  it("waits for a server that is not up yet, within --timeout", async () => {
    const later = await startWatchServer();
    const port = later.port;
    await later.stop();
    const watch = new Watch(["--timeout", "20000", "--url", `http://127.0.0.1:${port}/mcp`]);
    // Not up yet: the watch says its first attempt failed and it is trying again.
    await waitFor(() => watch.stderr.includes("connection attempt 1 failed"), "a failed attempt", 15_000);
    const own = await startWatchServer(port);
    try {
      await watch.line(/ watching cli-watch/);
      expect(await watch.stop()).toBe(0);
    } finally {
      await own.stop();
    }
  });
});

describe("conduit-mcp watch: errors", () => {
  it("a server that cannot be reached within --timeout exits 3, saying why", async () => {
    // The reason comes from the failed attempts' own state changes, reported one by one before
    // the end; not from the status at the deadline, which may be a new attempt's (no reason yet).
    const watch = new Watch(["--timeout", "2000", "--url", "http://127.0.0.1:1/mcp"]);
    expect(await watch.exited).toBe(3);
    expect(watch.stdout).toBe("");
    const lines = watch.stderr.trimEnd().split("\n");
    expect(lines.at(0)).toBe(
      "conduit-mcp: connection attempt 1 failed: transport: network_error; trying again",
    );
    expect(lines.at(-1)).toMatch(
      /timeout: not_ready \(the server did not finish the handshake within --timeout; last attempt: transport: network_error\)/,
    );
  });

  it("a stdio server that exits before it is ready ends the watch at once, with what it wrote", async () => {
    const script = "console.error('Error: Cannot find module ./missing.js'); process.exit(3)";
    const watch = new Watch(["--timeout", "60000", "--", process.execPath, "-e", script]);
    expect(await watch.exited).toBe(3);
    expect(watch.stdout).toBe("");
    // The library's rule: two starts (the probe's restart), then closed; no retry loop.
    expect(watch.stderr).not.toContain("trying again");
    expect(watch.stderr).toContain("Error: Cannot find module ./missing.js");
    expect(watch.stderr.trimEnd().split("\n").at(-1)).toMatch(
      /^conduit-mcp: closed: server_exited \(the server exited/,
    );
  });

  it("--subscribe to a server without subscriptions exits 3 (--json: the error document)", async () => {
    const watch = new Watch([
      "--json",
      "--subscribe",
      "file:///readme.md",
      "--",
      process.execPath,
      `${root}test/fixtures/official-server.mjs`,
      "dual",
    ]);
    expect(await watch.exited).toBe(3);
    expect(JSON.parse(watch.stdout)).toEqual({
      error: {
        kind: "protocol",
        reason: "subscriptions_not_supported",
        message: "protocol: subscriptions_not_supported",
        hint: "the server offers no resource subscriptions (--subscribe)",
      },
    });
  });
});

describe("conduit-mcp watch over stdio", () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`${signal} closes the client, stops the server and exits 0`, async () => {
      const watch = new Watch([
        "--subscribe",
        "file:///watched.txt",
        "--",
        process.execPath,
        NOTIFY_SERVER,
        "modern",
      ]);
      expect(await watch.line(/ watching /)).toMatch(
        new RegExp(
          `^${TIME} watching notify-modern 1\\.0\\.0 \\(modern 2026-07-28\\): 3 tools, 1 resource, 0 prompts; log level info; subscribed to file:///watched\\.txt$`,
        ),
      );
      const servers = childrenOf(watch.child.pid!);
      expect(servers).toHaveLength(1);
      expect(alive(servers[0]!)).toBe(true);
      expect(await watch.stop(signal)).toBe(0);
      expect(watch.stderr).toBe("");
      expect(alive(servers[0]!)).toBe(false);
    });
  }

  it("a reader that closes its end of the stdout socket ends the watch and stops the server (a quiet server: no EPIPE to wait for)", async () => {
    // Node's spawn gives the child a socket, not a pipe, for stdio "pipe": the watch cannot see
    // its reader in /proc, and the server says nothing more, so no write would fail either.
    const watch = new Watch(["--", process.execPath, NOTIFY_SERVER, "modern"]);
    await watch.line(/ watching /);
    const servers = childrenOf(watch.child.pid!);
    expect(servers).toHaveLength(1);
    watch.child.stdout!.destroy();
    const hang = new Promise<"still running">((resolve) =>
      setTimeout(() => resolve("still running"), 15_000).unref(),
    );
    expect(await Promise.race([watch.exited, hang])).toBe(0);
    running.delete(watch);
    expect(watch.stderr).toBe("");
    expect(alive(servers[0]!)).toBe(false);
  });

  it("a server that dies is started again, and the watch goes on", async () => {
    const watch = new Watch(["--", process.execPath, NOTIFY_SERVER, "legacy"]);
    await watch.line(/ watching notify-legacy/);
    const [first] = childrenOf(watch.child.pid!);
    process.kill(first!, "SIGKILL");
    expect(await watch.line(/state ready -> reconnecting/)).toMatch(
      new RegExp(`^${TIME} state ready -> reconnecting \\(attempt 1\\): transport: server_exited$`),
    );
    await watch.line(/state initializing -> ready/);
    const [second] = childrenOf(watch.child.pid!);
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    expect(await watch.stop()).toBe(0);
    expect(alive(second!)).toBe(false);
  });

  it("legacy: a server without logging gets no level; --log-level says so", async () => {
    const quiet = ["--protocol", "legacy", "--", process.execPath, `${root}examples/server.mjs`];
    const [plain, asked] = [new Watch(quiet), new Watch(["--log-level", "debug", ...quiet])];
    expect(await plain.line(/ watching /)).not.toContain("log level");
    await asked.line(/ watching /);
    expect(await plain.stop()).toBe(0);
    expect(await asked.stop()).toBe(0);
    expect(plain.stderr).toBe("");
    expect(asked.stderr).toContain("warning: the server does no logging; --log-level was not sent");
  });
});
