/**
 * A real Redis server for the fleet tests: Debian's /usr/bin/redis-server on 127.0.0.1 and a free
 * port, without persistence (`--save "" --appendonly no`), stopped at the end. It can be killed
 * and started again on the same port (the "Redis down" tests).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { freePort, stopChild } from "./http-servers.js";

export const REDIS_SERVER = process.env.CONDUIT_REDIS_SERVER ?? "/usr/bin/redis-server";

export interface RunningRedis {
  port: number;
  url: string;
  /** Kills the server (SIGKILL: a crash, nothing flushed). */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty: it kept nothing). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

async function launch(port: number): Promise<ChildProcess> {
  const child = spawn(
    REDIS_SERVER,
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--protected-mode",
      "no",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`redis-server not ready: ${seen.slice(-500)}`)), 10_000);
    const onData = (d: Buffer) => {
      seen += String(d);
      if (/Ready to accept connections/.test(seen)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code}): ${seen.slice(-500)}`));
    });
  });
  child.stdout?.resume();
  child.stderr?.resume();
  return child;
}

export async function startRedis(): Promise<RunningRedis> {
  if (!existsSync(REDIS_SERVER)) {
    throw new Error(
      `the fleet tests need a real Redis server at ${REDIS_SERVER}: install the Debian package redis-server (apt-get install redis-server)`,
    );
  }
  const port = await freePort();
  let child = await launch(port);
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill: () => stopChild(child, "SIGKILL"),
    restart: async () => {
      child = await launch(port);
    },
    stop: () => stopChild(child),
  };
}
