/**
 * Light synonyms for task-style queries: a user says "make a folder", a tool says
 * "create_directory". Each group is a set of words that name one action or thing in tool
 * vocabularies; a query term also looks for the others of its groups, at a lower weight, so the
 * tool that uses the user's own word still comes first.
 */
import { stem } from "./text.js";

const GROUPS = [
  "create make new build generate mkdir start open",
  "directory folder dir mkdir",
  "file",
  "delete remove erase rm unlink drop destroy trash clear forget",
  "read get fetch retrieve load view show open cat display see look",
  "write save store put record persist",
  "edit modify change update patch replace alter fix rename",
  "list ls enumerate browse all every show",
  "search find lookup query locate grep look seek",
  "move rename mv relocate",
  "copy duplicate clone cp",
  "navigate go visit browse url page website site web",
  "click press tap select",
  "screenshot capture snapshot",
  "image picture photo media png jpeg",
  "type fill enter input form",
  "issue bug ticket problem",
  "pull merge pr request review",
  "repository repo project codebase",
  "branch ref",
  "commit change history log",
  "message chat post send say tell",
  "channel room conversation",
  "user person people member who",
  "entity node person thing memory knowledge",
  "relation relationship connection link edge",
  "observation note fact remember memory",
  "graph knowledge memory",
  "think reason thought plan step",
  "sum add total plus calculate",
  "echo repeat back",
  "time date clock now",
  "info information detail metadata stat size",
  "tree structure hierarchy recursive",
  "run execute evaluate eval script javascript",
  "weather forecast temperature",
  "map location place geocode address direction route distance",
  "sql database table db query",
  "schema structure column describe",
  "env environment variable config",
  "resource link reference",
  "notification notify alert progress",
  "sample sampling llm model",
  "log logging",
  "allow allowed permitted access",
  "append add extend attach",
  "block paragraph",
  "multiple many several batch bulk",
  "size large largest big biggest small smallest",
  "elevation altitude height high",
  "place business restaurant cafe shop venue",
] as const;

let table: Map<string, Map<string, number>> | undefined;

/** Stem to related stems (not itself), each with the weight a match on it counts for. */
function related(): Map<string, Map<string, number>> {
  if (table) return table;
  table = new Map();
  for (const group of GROUPS) {
    const stems = [...new Set(group.split(" ").map(stem))];
    for (const a of stems) {
      const m = table.get(a) ?? new Map<string, number>();
      for (const b of stems) if (b !== a && !m.has(b)) m.set(b, SYNONYM_WEIGHT);
      table.set(a, m);
    }
  }
  return table;
}

/** How much a synonym's match counts against the query's own word. */
export const SYNONYM_WEIGHT = 0.6;

/**
 * One slot per distinct query term: the term itself at weight 1 and its synonyms lower. A tool
 * scores the best match of each slot, never the sum, so a text that lists every synonym of a
 * word gains nothing over one that uses the word once.
 */
export function expand(queryTerms: readonly string[]): Map<string, number>[] {
  const rel = related();
  return [...new Set(queryTerms)].map((t) => {
    const slot = new Map<string, number>([[t, 1]]);
    for (const [s, w] of rel.get(t) ?? []) if (!slot.has(s)) slot.set(s, w);
    return slot;
  });
}

// A question asks for information ("what issues are open", "who is on our workspace", "have the
// checks passed"): among the tools its words match, the ones that read, list or look up are its
// likely answer. Its words are stop words, so the raw query is read. Measured on the tuned set
// (weights 0.1 to 1; 0.5 best there), then checked on the held-out sets (docs/tool-search.md).
const QUESTION = /\b(?:what|which|who|whom|whose|where|when|how|any|did|does|has|have|is there|are there)\b/i;
const READING = ["get", "list", "read", "search", "show", "retrieve", "find"];
/** How much the question's reading verbs count against a word of the query. */
export const QUESTION_WEIGHT = 0.5;
let readSlot: Map<string, number> | undefined;

/**
 * For a question, a slot of reading verbs: it only re-orders the tools the query's own words
 * matched (a question finds no tool on its reading verbs alone).
 */
export function questionSlot(query: string): Map<string, number> | undefined {
  if (!QUESTION.test(query)) return undefined;
  readSlot ??= new Map(READING.map((v) => [stem(v), QUESTION_WEIGHT]));
  return readSlot;
}
