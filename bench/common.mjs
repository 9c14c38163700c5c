// What the benchmarks share: the workload loops, medians, the output table, and the Linux /proc
// readings (child processes, a process's CPU time). Everything from /proc degrades to "unknown"
// (null) elsewhere.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

// ---- the command line --------------------------------------------------------------------------

/**
 * The script's arguments: with `help`, `--help` prints it and exits; `opt(name, dflt)` is the
 * word after `--name` (else `dflt`), `num` the same as a number.
 */
export function cliArgs(help) {
  const args = process.argv.slice(2);
  if (help !== undefined && args.includes("--help")) {
    console.log(help);
    process.exit(0);
  }
  const at = (name) => args.indexOf(`--${name}`);
  return {
    args,
    opt: (name, dflt) => (at(name) === -1 ? dflt : args[at(name) + 1]),
    num: (name, dflt) => (at(name) === -1 ? dflt : Number(args[at(name) + 1])),
  };
}

// ---- the workload ------------------------------------------------------------------------------

/** `n` calls, each awaited before the next. */
export async function sequential(c, n) {
  for (let i = 0; i < n; i++) await c.call();
}

/** `n` calls shared by `k` callers; each caller awaits its own call before making the next. */
export async function concurrent(c, n, k) {
  let left = n;
  const caller = async () => {
    while (left-- > 0) await c.call();
  };
  await Promise.all(Array.from({ length: k }, caller));
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// ---- processes ---------------------------------------------------------------------------------

let CLK_TCK = 100;
try {
  CLK_TCK = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
} catch {}

/** The fields of /proc/<pid>/stat after the command name: [0] state, [1] ppid, [11] utime, [12] stime. */
export function procStat(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, "utf8");
    return s.slice(s.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/** Whether `pid` is still running (not gone, not a zombie); false where /proc is not there. */
export function isRunning(pid) {
  const st = procStat(pid);
  return st !== null && st[0] !== "Z";
}

/** Live children of this process, or null where /proc is not there. */
export function childPids() {
  let entries;
  try {
    entries = readdirSync("/proc");
  } catch {
    return null;
  }
  const out = [];
  for (const e of entries) {
    if (e.charCodeAt(0) < 48 || e.charCodeAt(0) > 57) continue;
    const st = procStat(e);
    if (st && Number(st[1]) === process.pid && st[0] !== "Z") out.push(Number(e));
  }
  return out;
}

/** CPU time (user + system) of `pid` so far, in microseconds; null if unknown. */
export function cpuOf(pid) {
  const st = pid === undefined ? null : procStat(pid);
  return st ? ((Number(st[11]) + Number(st[12])) * 1e6) / CLK_TCK : null;
}

// ---- output ------------------------------------------------------------------------------------

export const fmtInt = (x) => Math.round(x).toLocaleString("en-US");
export const fmtRatio = (x) => `${x.toFixed(2)}x`;
export const fmtUs = (x) => (x === null ? "?" : x.toFixed(0));

/** A plain-text table; the columns whose indexes are in `right` are right-aligned. */
export function table(header, rows, right) {
  const w = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) =>
    cells
      .map((c, i) => (right.has(i) ? String(c).padStart(w[i]) : String(c).padEnd(w[i])))
      .join("  ")
      .trimEnd();
  return [line(header), line(w.map((n) => "-".repeat(n))), ...rows.map(line)].join("\n");
}

/**
 * One row per mode and client from the runs of an era: the median calls/s with the range, the
 * median CPU per call, and two ratios: of the medians (the headline), and the median of the
 * per-repetition ratios (each repetition's runs are back to back, so slow drift cancels out).
 */
export function summarize(runs, clients, era, concurrency) {
  const CLIENT_KEYS = ["conduit", "official", "bare"];
  const MODES = ["sequential", "concurrent"];
  const o = { concurrency };
  const rows = [];
  for (const mode of MODES) {
    const med = {};
    for (const key of CLIENT_KEYS) {
      const rs = runs[`${mode}/${key}`];
      const cps = rs.map((x) => x.callsPerSec);
      const srv = rs.map((x) => x.serverCpuUs).filter((x) => x !== null);
      med[key] = median(cps);
      rows.push({
        era,
        version: clients[key].version,
        mode,
        concurrency: mode === "sequential" ? 1 : o.concurrency,
        client: key,
        callsPerSec: med[key],
        min: Math.min(...cps),
        max: Math.max(...cps),
        clientCpuUsPerCall: median(rs.map((x) => x.clientCpuUs)),
        serverCpuUsPerCall: srv.length ? median(srv) : null,
        connectMs: clients[key].connectMs,
        runs: cps,
      });
    }
    // Two ratios: of the medians (the headline), and the median of the per-repetition ratios
    // (each repetition's runs are back to back, so slow drift of the machine cancels out).
    const paired = (key, ref) =>
      median(runs[`${mode}/${key}`].map((x, i) => x.callsPerSec / runs[`${mode}/${ref}`][i].callsPerSec));
    for (const row of rows.filter((x) => x.mode === mode)) {
      row.vsOfficial = row.callsPerSec / med.official;
      row.vsBare = row.callsPerSec / med.bare;
      row.pairedVsOfficial = paired(row.client, "official");
      row.pairedVsBare = paired(row.client, "bare");
    }
  }
  return rows;
}

/** The labels of the clients in the reports. */
export const LABELS = { conduit: "conduit-mcp", official: "official", bare: "bare loop" };

/** The report's table of rows, then conduit-mcp's ratios: lines of text. */
export function reportRows(rows) {
  const out = [];
  out.push(
    table(
      [
        "era",
        "mode",
        "client",
        "calls/s",
        "min..max",
        "client CPU µs/call",
        "server CPU µs/call",
        "vs official",
        "vs bare",
      ],
      rows.map((r) => [
        r.era,
        r.mode === "sequential" ? "sequential" : `concurrent x${r.concurrency}`,
        LABELS[r.client],
        fmtInt(r.callsPerSec),
        `${fmtInt(r.min)}..${fmtInt(r.max)}`,
        fmtUs(r.clientCpuUsPerCall),
        fmtUs(r.serverCpuUsPerCall),
        fmtRatio(r.vsOfficial),
        fmtRatio(r.vsBare),
      ]),
      new Set([3, 4, 5, 6, 7, 8]),
    ),
  );
  out.push("");
  out.push("conduit-mcp's calls per second as a ratio: of the medians (median of the per-repetition ratios)");
  for (const r of rows.filter((x) => x.client === "conduit")) {
    out.push(
      `  ${r.era.padEnd(6)}  ${r.mode.padEnd(10)}  ${fmtRatio(r.vsOfficial).padStart(6)} ` +
        `(${fmtRatio(r.pairedVsOfficial)}) of official   ${fmtRatio(r.vsBare).padStart(6)} ` +
        `(${fmtRatio(r.pairedVsBare)}) of the bare loop`,
    );
  }
  return out;
}
