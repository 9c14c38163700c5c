/**
 * One request on the wire as the parts of the transport track it: its body, era and generation,
 * and what happened to it so far (answered, cancelled, retried, resumed). Sending it is
 * exchange.ts's; the host (host.ts) tracks and routes by it.
 */
import type { McpClientError } from "../../shared/errors.js";
import type { JsonRpcMessage, JsonRpcRequest, RequestId } from "../../shared/jsonrpc.js";
import type { Secret } from "../../shared/secret.js";

/** One request on the wire, from its POST until its response (or failure). */
export class Exchange {
  readonly controller = new AbortController();
  done = false;
  cancelled = false;
  sessionRetried = false;
  /** Times the credential provider put new credentials in place for this request. */
  authRetries = 0;
  /** A request of the transport's own that must not wait behind the legacy gate. */
  bypassGate = false;
  sentSession: Secret | undefined;
  lastEventId: string | undefined;
  retryMs: number | undefined;
  resumes = 0;
  idleFired = false;
  /** Set for the transport's own requests: their answers stop here. */
  onResponse: ((m: JsonRpcMessage) => void) | undefined;
  onError: ((e: McpClientError) => void) | undefined;

  constructor(
    readonly id: RequestId,
    readonly message: JsonRpcRequest,
    readonly body: string,
    /** The modern protocol version in `_meta`, or undefined for the legacy shape. */
    readonly version: string | undefined,
    readonly gen: number,
  ) {}

  get method(): string {
    return this.message.method;
  }
}
