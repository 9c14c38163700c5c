/**
 * What waits for the person at the page: approvals (a policy's `ask`), and servers' elicitation
 * and sampling requests. Each is a pending item the page sees over the event stream and answers
 * by POST; an item whose request is aborted (deadline, cancel, lost connection) goes away.
 * The desk also gives the hub's clients their input handler and the governance approver.
 */
import type { InputContext, InputHandler, InputRefusal } from "../client/input/options.js";
import type { ApprovalAnswer, ApprovalRequest } from "../governance/types.js";
import type { JsonObject } from "../shared/guards.js";
import { clean, type Feed } from "./feed.js";

export type PendingKind = "approval" | "elicitation" | "sampling";

interface Pending {
  kind: PendingKind;
  view: Record<string, unknown>;
  settle: (answer: unknown) => void;
}

/** At most this many items wait at once; more are refused at once (a flood from a server). */
const MAX_PENDING = 32;

export class Desk {
  readonly #items = new Map<string, Pending>();
  #next = 0;
  #feed: Feed | null = null;

  /** Where new and settled items are announced (set once the server runs). */
  attach(feed: Feed): void {
    this.#feed = feed;
  }

  /** What the page shows on load. */
  list(): Array<Record<string, unknown>> {
    return [...this.#items.entries()].map(([id, p]) => ({ id, kind: p.kind, ...p.view }));
  }

  /** Settles item `id` with the page's `answer`; false when there is no such item or the answer is malformed. */
  answer(id: string, answer: unknown): boolean {
    const item = this.#items.get(id);
    if (!item || !validAnswer(item.kind, answer)) return false;
    this.#items.delete(id);
    item.settle(answer);
    this.#feed?.send("settled", { id });
    return true;
  }

  /** The governance `approve` callback: the page is the approver. */
  readonly approve = (r: ApprovalRequest): Promise<ApprovalAnswer> =>
    this.#wait<{ allow: boolean }>(
      "approval",
      {
        serverId: r.serverId,
        tool: clean(r.tool.name, 300),
        description: clean(r.definition.description ?? "", 1000),
        arguments: clean(JSON.stringify(r.arguments) ?? "", 4000),
        reason: clean(r.reason ?? "", 300),
        changed: r.previous !== null,
      },
      undefined,
    ).then((a) => (a === null ? { deny: "no answer" } : a.allow ? true : { deny: "refused on the page" }));

  /** The hub's clients' input handler: forms, links and sampling go to the page; logs and notifications to the feed. */
  handler(): InputHandler {
    return {
      elicitationModes: ["form", "url"],
      elicitation: async (params, ctx) => {
        const view =
          ctx.mode === "url"
            ? {
                mode: "url",
                url: clean(ctx.url ?? "", 2000),
                host: clean(ctx.host ?? "", 300),
                idn: Boolean(ctx.idn),
                originMismatch: Boolean(ctx.originMismatch),
              }
            : { mode: "form", schema: params.requestedSchema ?? null };
        const a = await this.#wait<JsonObject>(
          "elicitation",
          { serverId: ctx.serverId, message: clean(params.message ?? "", 2000), ...view },
          ctx,
        );
        return a ?? { action: "cancel" };
      },
      sampling: async (params, ctx) => {
        const a = await this.#wait<{ text?: string }>(
          "sampling",
          { serverId: ctx.serverId, messages: clean(JSON.stringify(params.messages) ?? "", 4000) },
          ctx,
        );
        if (!a || typeof a.text !== "string") return refused("declined on the page");
        return {
          role: "assistant",
          content: { type: "text", text: a.text },
          model: "conduit-mcp-inspect",
          stopReason: "endTurn",
        };
      },
      notification: (method, params, ctx) => {
        this.#feed?.send("notification", {
          serverId: ctx.serverId,
          method: clean(method, 128),
          params: clean(JSON.stringify(params), 2000),
        });
      },
      log: (level, params, ctx) => {
        this.#feed?.send("log", {
          serverId: ctx.serverId,
          level: clean(level, 16),
          logger: clean(params.logger ?? "", 128),
          data: clean(typeof params.data === "string" ? params.data : JSON.stringify(params.data), 2000),
        });
      },
    };
  }

  /** Refuses everything still waiting (the inspector is stopping). */
  close(): void {
    for (const [id, item] of this.#items) {
      this.#items.delete(id);
      item.settle(null);
    }
  }

  #wait<T>(
    kind: PendingKind,
    view: Record<string, unknown>,
    ctx: InputContext | undefined,
  ): Promise<T | null> {
    if (this.#items.size >= MAX_PENDING) return Promise.resolve(null);
    const id = `p${++this.#next}`;
    return new Promise<T | null>((resolve) => {
      const onAbort = () => {
        if (!this.#items.delete(id)) return;
        this.#feed?.send("settled", { id });
        resolve(null);
      };
      this.#items.set(id, {
        kind,
        view,
        settle: (a) => {
          ctx?.signal.removeEventListener("abort", onAbort);
          resolve(a as T | null);
        },
      });
      ctx?.signal.addEventListener("abort", onAbort, { once: true });
      this.#feed?.send("pending", { id, kind, ...view });
    });
  }
}

function refused(message: string): InputRefusal {
  return { error: { code: -1, message } };
}

function validAnswer(kind: PendingKind, a: unknown): boolean {
  if (typeof a !== "object" || a === null || Array.isArray(a)) return false;
  const o = a as Record<string, unknown>;
  if (kind === "approval") return typeof o.allow === "boolean";
  if (kind === "sampling") return o.text === undefined || typeof o.text === "string";
  return (
    (o.action === "accept" || o.action === "decline" || o.action === "cancel") &&
    (o.content === undefined ||
      (typeof o.content === "object" && o.content !== null && !Array.isArray(o.content)))
  );
}
