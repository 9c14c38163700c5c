/**
 * A tool as the index reads it: its texts split into weighted fields. Every text comes from the
 * server and is untrusted, so each field is clamped to a number of terms: a description padded
 * with every common word cannot reach past its clamp, and its length counts against it.
 */
import { isObject } from "../shared/guards.js";
import type { Tool } from "../shared/tool.js";
import { terms } from "./text.js";

/** The fields, in the order of `FIELDS`. */
export interface FieldSpec {
  name: string;
  /** How much a match here counts (a name says more than a parameter's description). */
  weight: number;
  /** BM25's length normalisation for this field: 0 none, 1 full. */
  b: number;
  /** At most this many terms are read from the field. */
  clamp: number;
}

export const FIELDS: readonly FieldSpec[] = [
  { name: "name", weight: 3, b: 0.3, clamp: 16 },
  { name: "server", weight: 0.7, b: 0, clamp: 8 },
  { name: "title", weight: 2, b: 0.3, clamp: 16 },
  { name: "description", weight: 1, b: 0.75, clamp: 120 },
  { name: "params", weight: 1, b: 0.5, clamp: 40 },
  { name: "paramDescriptions", weight: 0.4, b: 0.75, clamp: 160 },
  { name: "annotations", weight: 0.5, b: 0.5, clamp: 16 },
];

/** Per field, its terms (clamped). */
export function toolFields(tool: Tool, serverId: string): string[][] {
  const props = isObject(tool.inputSchema) ? tool.inputSchema.properties : undefined;
  const paramNames: string[] = [];
  const paramTexts: string[] = [];
  if (isObject(props)) {
    for (const key of Object.keys(props).slice(0, 64)) {
      paramNames.push(key);
      const p = props[key];
      if (isObject(p) && typeof p.description === "string") paramTexts.push(p.description.slice(0, 1024));
    }
  }
  const title = typeof tool.title === "string" ? tool.title : "";
  const a = isObject(tool.annotations) ? tool.annotations : {};
  const hints = [typeof a.title === "string" ? a.title : ""];
  if (a.readOnlyHint === true) hints.push("read only");
  if (a.destructiveHint === true) hints.push("destructive");
  const description = typeof tool.description === "string" ? tool.description.slice(0, 8192) : "";
  const texts = [
    String(tool.name),
    serverId,
    title,
    description,
    paramNames.join(" "),
    paramTexts.join(" "),
    hints.join(" "),
  ];
  return texts.map((t, i) => terms(t, FIELDS[i]!.clamp));
}

/** The text an embedding hook is given for a tool. */
export function embeddingText(name: string, tool: Tool): string {
  const parts = [name];
  if (typeof tool.title === "string") parts.push(tool.title);
  if (typeof tool.description === "string") parts.push(tool.description.slice(0, 1024));
  return parts.join(": ");
}
