/** Worker processes of a fleet (test/fixtures/fleet-worker.mjs on the built package), over IPC. */
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";

const WORKER = fileURLToPath(new URL("../fixtures/fleet-worker.mjs", import.meta.url));

export interface WorkerConfig {
  redis: string;
  prefix: string;
  url: string;
  mode?: "client" | "hub";
  bearer?: string;
  oauth?: { principal: string; login?: boolean };
  principal?: string;
  approve?: "allow" | "deny";
  lockMs?: number;
  commandTimeout?: number;
  requestTimeout?: number;
}

export interface Worker {
  child: ChildProcess;
  // biome-ignore lint/suspicious/noExplicitAny: the worker answers JSON of each op's own shape.
  ask(op: string, args?: Record<string, unknown>): Promise<any>;
  kill(): Promise<void>;
}

const live = new Set<Worker>();

export async function startWorker(cfg: WorkerConfig): Promise<Worker> {
  const child = fork(WORKER, [JSON.stringify(cfg)], {
    stdio: ["ignore", "inherit", process.env.CONDUIT_TEST_STDERR === "inherit" ? "inherit" : "ignore", "ipc"],
  });
  let next = 0;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  await new Promise<void>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`worker exited before it was ready (${code})`)));
    child.on(
      "message",
      (m: { id?: number; ready?: boolean; ok?: boolean; value?: unknown; error?: unknown }) => {
        if (m.ready) return resolve();
        const p = pending.get(m.id!);
        if (!p) return;
        pending.delete(m.id!);
        if (m.ok) p.resolve(m.value);
        else p.reject(Object.assign(new Error(JSON.stringify(m.error)), m.error as object));
      },
    );
  });
  child.on("exit", () => {
    for (const p of pending.values()) p.reject(new Error("worker exited"));
    pending.clear();
  });
  const w: Worker = {
    child,
    ask: (op, args = {}) =>
      new Promise((resolve, reject) => {
        const id = next++;
        pending.set(id, { resolve, reject });
        child.send({ id, op, ...args });
      }),
    kill: () =>
      new Promise<void>((resolve) => {
        live.delete(w);
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
  live.add(w);
  return w;
}

/** Ends every worker still running (each closes its client and stores on disconnect). */
export async function stopWorkers(): Promise<void> {
  await Promise.all(
    [...live].map(
      (w) =>
        new Promise<void>((resolve) => {
          live.delete(w);
          if (w.child.exitCode !== null || w.child.signalCode !== null) return resolve();
          const t = setTimeout(() => w.child.kill("SIGKILL"), 3_000);
          w.child.once("exit", () => {
            clearTimeout(t);
            resolve();
          });
          w.child.disconnect();
        }),
    ),
  );
}
