/** Resolves after `ms` milliseconds. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Resolves once `cond` holds (it is checked every 10 ms); rejects after `timeout` ms, naming `what`.
 * For waiting on something a test cannot await directly; never for asserting how long it took.
 */
export async function waitFor(cond: () => boolean | Promise<boolean>, timeout?: number): Promise<void>;
export async function waitFor(
  cond: () => boolean | Promise<boolean>,
  what: string,
  timeout?: number,
): Promise<void>;
export async function waitFor(
  cond: () => boolean | Promise<boolean>,
  whatOrTimeout: string | number = 10_000,
  timeout = 10_000,
): Promise<void> {
  const what = typeof whatOrTimeout === "string" ? whatOrTimeout : "condition";
  const ms = typeof whatOrTimeout === "number" ? whatOrTimeout : timeout;
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await delay(10);
  }
}

/** What a promise settled with. Rejects if `promise` resolves: use it where a rejection is expected. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the promise to reject, but it resolved");
}

/** Watches a promise so a test can ask, synchronously, whether it has settled yet. */
export interface Watched<T> {
  readonly settled: boolean;
  readonly promise: Promise<T>;
}

export function watch<T>(promise: Promise<T>): Watched<T> {
  const w = { settled: false, promise };
  promise.then(
    () => {
      w.settled = true;
    },
    () => {
      w.settled = true;
    },
  );
  return w;
}
