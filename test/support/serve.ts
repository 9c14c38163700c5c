// The official client (@modelcontextprotocol/client) as the host in front of `serve`: over HTTP
// in either era, with an optional bearer token and elicitation answers.
import { Client as SdkClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

export type HostEra = "modern" | "legacy";

export interface HostOptions {
  token?: string;
  /** Answers elicitations (declares the capability). */
  elicit?: (params: Record<string, unknown>) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /** Answers sampling requests (declares the capability). */
  sample?: (params: Record<string, unknown>) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /** Hears each tools list_changed (after the SDK's own debounce). */
  onToolsChanged?: () => void;
  /** Hears each prompts list_changed. */
  onPromptsChanged?: () => void;
  /** Hears each resources list_changed. */
  onResourcesChanged?: () => void;
}

export async function httpHost(url: string, era: HostEra, o: HostOptions = {}): Promise<SdkClient> {
  const client = new SdkClient(
    { name: `host-${era}`, version: "1.0.0" },
    {
      capabilities: {
        ...(o.elicit ? { elicitation: { form: {} } } : {}),
        ...(o.sample ? { sampling: {} } : {}),
      },
      ...(era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}),
      listChanged: {
        ...(o.onToolsChanged
          ? { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => o.onToolsChanged?.() } }
          : {}),
        ...(o.onPromptsChanged
          ? { prompts: { autoRefresh: false, debounceMs: 0, onChanged: () => o.onPromptsChanged?.() } }
          : {}),
        ...(o.onResourcesChanged
          ? { resources: { autoRefresh: false, debounceMs: 0, onChanged: () => o.onResourcesChanged?.() } }
          : {}),
      },
    },
  );
  if (o.elicit) {
    const answer = o.elicit;
    client.setRequestHandler(
      "elicitation/create",
      async (req) => answer(req.params as Record<string, unknown>) as never,
    );
  }
  if (o.sample) {
    const answer = o.sample;
    client.setRequestHandler(
      "sampling/createMessage",
      async (req) => answer(req.params as Record<string, unknown>) as never,
    );
  }
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    ...(o.token ? { requestInit: { headers: { authorization: `Bearer ${o.token}` } } } : {}),
  });
  await client.connect(transport);
  return client;
}

export const textOf = (r: { content?: unknown }) =>
  ((r.content as Array<{ text?: string }>) ?? []).map((c) => c.text ?? "").join("");

/** Closes a host as a well-behaved one does: it ends its session (DELETE) first. */
export async function closeHost(client: SdkClient): Promise<void> {
  const t = client.transport as StreamableHTTPClientTransport | undefined;
  await t?.terminateSession().catch(() => {});
  await client.close();
}
