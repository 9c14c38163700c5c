// Pseudo-random JSON-ish values for the tests of the canonical JSON writer and comparer.

/** A deterministic pseudo-random JSON-ish value (xorshift), with the awkward cases mixed in. */
export function randomValue(seed: number, depth = 0): unknown {
  let x = seed || 1;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
  const leaf = (): unknown => {
    const pick = Math.floor(next() * 12);
    return [
      "plain",
      'quote " backslash \\ newline \n tab \t',
      "\u2028\u2029 \ud800 lone surrogate, é, 😀",
      0,
      -0,
      1.5e300,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      true,
      null,
      undefined,
      -123.456,
    ][pick];
  };
  const build = (d: number): unknown => {
    const r = next();
    if (d > 4 || r < 0.4) return leaf();
    if (r < 0.7) return Array.from({ length: Math.floor(next() * 5) }, () => build(d + 1));
    const o: Record<string, unknown> = {};
    const keys = [
      "b",
      "a",
      "Z",
      "é",
      "10",
      "2",
      "01",
      "4294967295",
      "4294967294",
      "1e3",
      "__proto__x",
      "",
      "a b",
      "$schema",
      "😀",
    ];
    for (let i = Math.floor(next() * 6); i > 0; i--)
      o[keys[Math.floor(next() * keys.length)]!] = build(d + 1);
    return o;
  };
  return build(depth);
}
