import { expect } from "vitest";

/**
 * What progress coalescing promises (requests.md): a burst read at once is heard as its latest,
 * so the values seen rise and the last one always arrives. Exact sequences would make a test
 * timed: on a busy machine two steps can arrive in one read.
 */
export function expectCoalescedProgress(values: readonly number[], last: number): void {
  expect(values.at(-1)).toBe(last);
  expect(values.every((v, i) => i === 0 || v > values[i - 1]!)).toBe(true);
}
