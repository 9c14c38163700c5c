/** Resolves after `ms` milliseconds. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
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
