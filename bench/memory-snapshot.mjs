// Heap snapshot analysis for the memory tools (bench/memory-breakdown.mjs): the dominator tree
// (what would be freed with an object) and, per instance of one constructor (a `Client`), what
// it retains, laid out by the path of fields from it. A further client's bytes are mostly in its
// own dominator subtree; what is not (a string interned by two holders, a shared pool's records)
// shows as the difference between the snapshot diff and the retained size.
import { readFileSync, unlinkSync } from "node:fs";

/** A snapshot file parsed (and removed), with the indexes the walks below use. */
export function readSnapshot(file) {
  const snap = JSON.parse(readFileSync(file, "utf8"));
  unlinkSync(file);
  const m = snap.snapshot.meta;
  const f = m.node_fields;
  const ef = m.edge_fields;
  const s = {
    raw: snap,
    nodes: snap.nodes,
    edges: snap.edges,
    strings: snap.strings,
    w: f.length,
    ew: ef.length,
    iType: f.indexOf("type"),
    iName: f.indexOf("name"),
    iSize: f.indexOf("self_size"),
    iEdges: f.indexOf("edge_count"),
    iId: f.indexOf("id"),
    eType: ef.indexOf("type"),
    eName: ef.indexOf("name_or_index"),
    eTo: ef.indexOf("to_node"),
    types: m.node_types[0],
    etypes: m.edge_types[0],
  };
  s.n = s.nodes.length / s.w;
  s.first = new Uint32Array(s.n + 1);
  for (let i = 0; i < s.n; i++) s.first[i + 1] = s.first[i] + s.nodes[i * s.w + s.iEdges];
  s.weak = s.etypes.indexOf("weak");
  return s;
}

export const nodeType = (s, v) => s.types[s.nodes[v * s.w + s.iType]];
export const nodeName = (s, v) => s.strings[s.nodes[v * s.w + s.iName]];
export const selfSize = (s, v) => s.nodes[v * s.w + s.iSize];

/** "type:name" of a node, short: the constructor for objects, "fn name" for closures. */
export function kind(s, v) {
  const t = nodeType(s, v);
  if (t === "object" || t === "native") return nodeName(s, v);
  if (t === "synthetic") return `synthetic ${nodeName(s, v)}`;
  if (t === "closure") return `fn ${nodeName(s, v)}`;
  return t;
}

function edgeLabel(s, e) {
  const et = s.etypes[s.edges[e * s.ew + s.eType]];
  const raw = s.edges[e * s.ew + s.eName];
  if (et === "element" || et === "hidden") return `[${raw}]`;
  return et === "internal" ? `<${s.strings[raw]}>` : s.strings[raw];
}

/**
 * Immediate dominators (Cooper, Harvey and Kennedy's iterative algorithm over the reverse
 * postorder from the root, weak edges left out) and retained sizes.
 */
export function dominators(s) {
  const { n, first, edges, ew, eType, eTo, weak, w } = s;
  const order = new Int32Array(n).fill(-1);
  const rpo = [];
  const stack = [0];
  const iter = new Uint32Array(n);
  const seen = new Uint8Array(n);
  seen[0] = 1;
  for (let i = 0; i < n; i++) iter[i] = first[i];
  while (stack.length) {
    const v = stack[stack.length - 1];
    let pushed = false;
    while (iter[v] < first[v + 1]) {
      const e = iter[v]++;
      if (edges[e * ew + eType] === weak) continue;
      const t = edges[e * ew + eTo] / w;
      if (!seen[t]) {
        seen[t] = 1;
        stack.push(t);
        pushed = true;
        break;
      }
    }
    if (!pushed) {
      stack.pop();
      rpo.push(v);
    }
  }
  rpo.reverse();
  rpo.forEach((v, k) => {
    order[v] = k;
  });
  // Predecessors in CSR form.
  const predCount = new Uint32Array(n + 1);
  for (const v of rpo)
    for (let e = first[v]; e < first[v + 1]; e++)
      if (edges[e * ew + eType] !== weak) predCount[edges[e * ew + eTo] / w + 1]++;
  for (let i = 0; i < n; i++) predCount[i + 1] += predCount[i];
  const preds = new Int32Array(predCount[n]);
  const fill = predCount.slice();
  for (const v of rpo)
    for (let e = first[v]; e < first[v + 1]; e++)
      if (edges[e * ew + eType] !== weak) preds[fill[edges[e * ew + eTo] / w]++] = v;
  const idom = new Int32Array(n).fill(-1);
  idom[0] = 0;
  const intersect = (a, b) => {
    while (a !== b) {
      while (order[a] > order[b]) a = idom[a];
      while (order[b] > order[a]) b = idom[b];
    }
    return a;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let k = 1; k < rpo.length; k++) {
      const v = rpo[k];
      let d = -1;
      for (let j = predCount[v]; j < predCount[v + 1]; j++) {
        const p = preds[j];
        if (idom[p] !== -1) d = d === -1 ? p : intersect(p, d);
      }
      if (d !== idom[v]) {
        idom[v] = d;
        changed = true;
      }
    }
  }
  const retained = new Float64Array(n);
  for (let k = rpo.length - 1; k >= 0; k--) {
    const v = rpo[k];
    retained[v] += selfSize(s, v);
    if (k > 0) retained[idom[v]] += retained[v];
  }
  s.idom = idom;
  s.retained = retained;
  s.rpo = rpo;
  return s;
}

/** Retained size and count per constructor, for the names asked for. */
export function retainedPer(s, names) {
  const out = new Map();
  for (const v of s.rpo) {
    if (nodeType(s, v) !== "object") continue;
    const name = nodeName(s, v);
    if (!names.includes(name)) continue;
    const e = out.get(name) ?? { size: 0, count: 0 };
    e.size += s.retained[v];
    e.count += 1;
    out.set(name, e);
  }
  return out;
}

/** The ids of a snapshot's nodes (ids are stable between snapshots of one process). */
export function nodeIds(s) {
  const ids = new Set();
  for (let v = 0; v < s.n; v++) ids.add(s.nodes[v * s.w + s.iId]);
  return ids;
}

/**
 * The nodes new since `before` (a set of ids) that `owned` does not cover, by kind and by what
 * holds them ("kind <- holder.field", the first strong retainer; "(shared)" when more than one).
 */
export function unowned(s, before, owned, per) {
  const holders = new Map();
  for (let v = 0; v < s.n; v++)
    for (let e = s.first[v]; e < s.first[v + 1]; e++) {
      if (s.edges[e * s.ew + s.eType] === s.weak) continue;
      const t = s.edges[e * s.ew + s.eTo] / s.w;
      if (owned[t] || before.has(s.nodes[t * s.w + s.iId])) continue;
      const h = holders.get(t);
      const what = `${kind(s, v)}${owned[v] ? "[owned]" : ""}.${edgeLabel(s, e)}`;
      if (h === undefined) holders.set(t, what);
      else if (h !== what) holders.set(t, `${h} +more`);
    }
  const rows = new Map();
  for (let v = 0; v < s.n; v++) {
    if (owned[v] || before.has(s.nodes[v * s.w + s.iId])) continue;
    const key = `${kind(s, v)} <- ${holders.get(v) ?? "(root)"}`.slice(0, 140);
    const r = rows.get(key) ?? { key, size: 0, count: 0 };
    r.size += selfSize(s, v) / per;
    r.count += 1 / per;
    rows.set(key, r);
  }
  return [...rows.values()].sort((a, b) => b.size - a.size);
}

/**
 * The nodes new since `before` (ids), each claimed by the first new instance of `spec` that
 * reaches it through new nodes only (breadth first, so by its shortest path), and laid out by that
 * path (fields, with element indexes as "[]"), cut at `maxDepth`: `{ instances, rows, rest }`,
 * bytes per instance; `rest` is the new nodes no instance reached, by kind and first holder.
 * Unlike the dominator tree, an object a shared socket also holds still counts for its client.
 */
export function claimedPaths(s, before, spec, maxDepth = 4) {
  const [ctor, field] = spec.split("/");
  const isNew = new Uint8Array(s.n);
  for (let v = 0; v < s.n; v++) if (!before.has(s.nodes[v * s.w + s.iId])) isNew[v] = 1;
  const hasField = (v) => {
    for (let e = s.first[v]; e < s.first[v + 1]; e++) if (edgeLabel(s, e) === field) return true;
    return false;
  };
  const roots = [];
  for (let v = 0; v < s.n; v++)
    if (isNew[v] && nodeType(s, v) === "object" && nodeName(s, v) === ctor && (!field || hasField(v)))
      roots.push(v);
  const claimed = new Uint8Array(s.n);
  const rows = new Map();
  const add = (path, depth, v) => {
    const r = rows.get(path) ?? { path, depth, size: 0, count: 0, total: 0 };
    r.size += selfSize(s, v);
    r.count += 1;
    rows.set(path, r);
  };
  // All instances at once, level by level: a node goes to the nearest (a timer list or a pool
  // links the clients' objects to each other; the first client to walk would take them all).
  let level = [];
  for (const root of roots) {
    claimed[root] = 1;
    add(ctor, 0, root);
    level.push([root, ctor, 0]);
  }
  while (level.length) {
    const next = [];
    for (const [v, path, depth] of level)
      for (let e = s.first[v]; e < s.first[v + 1]; e++) {
        if (s.edges[e * s.ew + s.eType] === s.weak) continue;
        const t = s.edges[e * s.ew + s.eTo] / s.w;
        if (!isNew[t] || claimed[t]) continue;
        claimed[t] = 1;
        const label = edgeLabel(s, e).replace(/^\[\d+\]$/, "[]");
        const p = depth < maxDepth ? `${path}.${label}(${kind(s, t)})` : path;
        const d = Math.min(depth + 1, maxDepth);
        add(p, d, t);
        next.push([t, p, d]);
      }
    level = next;
  }
  // Subtree totals: each row's size added to every prefix row.
  for (const r of rows.values()) {
    let p = r.path;
    for (;;) {
      const row = rows.get(p);
      if (row) row.total += r.size;
      const cut = p.lastIndexOf(".", p.lastIndexOf("(") - 1);
      if (cut < 0 || p === ctor) break;
      p = p.slice(0, cut);
    }
  }
  const k = roots.length || 1;
  // What holds each node none reached: "kind.field" of its first strong retainer.
  // Followed up through new unclaimed holders (a rope of concatenated strings) to the first
  // holder that is old or claimed.
  const up = new Int32Array(s.n).fill(-1);
  const upEdge = new Int32Array(s.n).fill(-1);
  for (let v = 0; v < s.n; v++)
    for (let e = s.first[v]; e < s.first[v + 1]; e++) {
      if (s.edges[e * s.ew + s.eType] === s.weak) continue;
      const t = s.edges[e * s.ew + s.eTo] / s.w;
      if (isNew[t] && !claimed[t] && up[t] < 0) {
        up[t] = v;
        upEdge[t] = e;
      }
    }
  const holder = new Map();
  for (let v = 0; v < s.n; v++) {
    if (!isNew[v] || claimed[v] || up[v] < 0) continue;
    let x = v;
    for (let i = 0; i < 30 && up[x] >= 0 && isNew[up[x]] && !claimed[up[x]]; i++) x = up[x];
    const h = up[x];
    if (h < 0) continue;
    const tag = isNew[h] ? "" : "(old)";
    holder.set(v, `${kind(s, h)}${tag}.${edgeLabel(s, upEdge[x]).replace(/^\[\d+\]$/, "[]")}`);
  }
  const rest = new Map();
  for (let v = 0; v < s.n; v++) {
    if (!isNew[v] || claimed[v]) continue;
    const key = `${kind(s, v)} <- ${holder.get(v) ?? "?"}`.slice(0, 120);
    const r = rest.get(key) ?? { key, size: 0, count: 0 };
    r.size += selfSize(s, v) / k;
    r.count += 1 / k;
    rest.set(key, r);
  }
  return {
    instances: roots.length,
    rows: [...rows.values()].map((r) => ({ ...r, size: r.size / k, count: r.count / k, total: r.total / k })),
    rest: [...rest.values()].sort((a, b) => b.size - a.size),
  };
}
