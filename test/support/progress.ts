import { expect } from "vitest";

/**
 * What progress delivery promises (requests.md): below the rate (`PROGRESS_PER_TURN` in one
 * event-loop turn) every notification is heard once, in order, so a server that sends steps 1 to
 * `last` is heard saying exactly that.
 */
export function expectEveryProgress(values: readonly number[], last: number): void {
  expect(values).toEqual(Array.from({ length: last }, (_, i) => i + 1));
}
