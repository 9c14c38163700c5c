/**
 * The reasons each error kind is made with: a table the compiler checks. `new McpClientError(kind,
 * "some_code")` compiles only when `"some_code"` is listed under `kind` here, so a misspelt or
 * unlisted code fails `tsc`. A reason computed at run time (typed `string`, or a template such as
 * `` `token ${string}` ``) cannot be checked and passes. A reason is always a string code; the
 * structured details of some (a JSON-RPC code, who refused) are the error's `detail`.
 * docs/errors.md lists the same codes with what produces them.
 *
 * The table is also where the kinds are spelled: `ErrorKind` and `ERROR_KINDS` are its keys, so a
 * new kind is one new row here (and `shared/errors.ts` imports this file, never the reverse).
 */

export const ERROR_REASONS = {
  timeout: [
    "auth_request_timeout",
    "deadline_exceeded",
    "internal_request_timeout",
    "not_acknowledged",
    "not_ready",
    "request_timeout",
    "sse_endpoint_timeout",
  ],
  transport: [
    "already_started",
    "bad_content_encoding",
    "cd_not_a_directory",
    "closed_while_starting",
    "command_not_executable",
    "command_not_found",
    "connection_lost",
    "connection_replaced",
    "dns_failed",
    "event_stream_lost",
    "health_check_failed",
    "http_dependencies_missing",
    "in_process_start_failed",
    "junk_output",
    "listen_cancelled_by_server",
    "listen_idle_timeout",
    "network_error",
    "no_response",
    "not_connected",
    "official_server_missing",
    "reconnecting",
    "redirect_not_followed",
    "request_failed",
    "server_closed",
    "server_exited",
    "spawn_failed",
    "sse_bad_endpoint",
    "sse_endpoint_cross_origin",
    "sse_no_endpoint",
    "sse_stream_ended",
    "sse_stream_failed",
    "stderr_file_unwritable",
    "stdout_closed",
    "stream_ended_without_response",
    "transport_closed",
    "unexpected_content_type",
    "unsupported_content_encoding",
  ],
  protocol: [
    "accepted_without_response",
    "handshake_failed",
    "invalid_complete_result",
    "invalid_cursor",
    "invalid_discover_result",
    "invalid_initialize_result",
    "invalid_input_request",
    "invalid_input_request_key",
    "invalid_input_required",
    "invalid_json_body",
    "invalid_list_result",
    "invalid_prompt_result",
    "invalid_read_result",
    "invalid_result_type",
    "invalid_session_id",
    "invalid_task_result",
    "invalid_tool_result",
    "jsonrpc_error",
    "legacy_server",
    "listen_ended",
    "listen_replaced",
    "listing_failed",
    "malformed_response",
    "max_depth_exceeded",
    "no_mutual_version",
    "output_schema_mismatch",
    "probe_failed",
    "strict_schema_unsupported",
    "subscription_not_acknowledged",
    "subscriptions_not_supported",
    "task_failed",
    "task_id_mismatch",
    "unexpected_input_required",
    "unsupported_protocol_version",
  ],
  denied: [
    "approval_required",
    "denied_by_approver",
    "denied_by_hook",
    "denied_by_policy",
    "server_url_policy",
  ],
  not_found: [
    "not_cached",
    "tool_rejected",
    "tool_withdrawn",
    "unknown_prompt",
    "unknown_resource",
    "unknown_server",
    "unknown_tool",
  ],
  hook: ["invalid_arguments", "malformed", "schema_unusable", "threw", "timeout"],
  unavailable: [
    "dependency_missing",
    "not_ready",
    "server_down",
    "store_unavailable",
    "task_cancelled",
    "task_era_changed",
  ],
  closed: ["client_closed", "hub_closed", "listen_closed", "server_removed", "stopped"],
  overloaded: ["max_in_flight", "max_queued", "write_queue_full"],
  input_handler: ["handler_refused", "handler_threw", "handler_timeout"],
  auth: [
    "auth_function_failed",
    "authorization_denied",
    "callback_url_mismatch",
    "client_not_registered_for_issuer",
    "client_secret_missing",
    "dpop_key_missing",
    "forbidden",
    "insecure_endpoint_url",
    "invalid_assertion",
    "invalid_authorization_response",
    "invalid_callback_url",
    "invalid_endpoint_url",
    "invalid_id_token",
    "invalid_private_key",
    "invalid_registration_response",
    "invalid_resource_metadata",
    "invalid_token",
    "invalid_token_response",
    "iss_mismatch",
    "iss_missing",
    "issuer_mismatch",
    "login_required",
    "no_authorization_code",
    "no_authorization_server_metadata",
    "no_client_registration",
    "no_resource_metadata",
    "oauth_dependencies_missing",
    "oauth_failed",
    "pkce_s256_not_supported",
    "private_key_missing",
    "redirect_failed",
    "redirect_timeout",
    "registration_failed",
    "resource_mismatch",
    "step_up_limit",
    "task_credentials_changed",
    "token_request_failed",
    "unauthorized",
    "unexpected_issued_token_type",
    "unsafe_authorization_endpoint",
    "unsafe_issuer",
    "unsafe_registration_endpoint",
    "unsafe_resource_metadata_url",
    "unsafe_token_endpoint",
    "unsupported_token_type",
  ],
  rate_limited: ["http_429", "input_rate_limit", "rate_limit"],
  session_expired: ["renewal_failed", "renewal_refused", "session_expired"],
  mrtr_round_limit: ["max_input_requests", "max_request_state", "max_rounds"],
  pagination_cycle: ["cursor_too_long", "max_items", "max_pages", "repeated_cursor"],
  message_too_large: [
    "line_over_max_message_bytes",
    "message_over_max_message_bytes",
    "over_max_message_bytes",
  ],
  connection_down: [],
} as const satisfies Record<string, readonly string[]>;

/** Every way a request can fail. Match on it; the message is for logs. */
export type ErrorKind = keyof typeof ERROR_REASONS;

/** Every kind, in the table's order. */
export const ERROR_KINDS = Object.keys(ERROR_REASONS) as readonly ErrorKind[];

/** An HTTP status the transport names a failure by (`http_503`). */
type HttpStatusCode = `http_${number}`;
/** A failure of another kind on the way to a token, as OAuth reports it (`oauth_timeout`). */
type OAuthWrapped = `oauth_${ErrorKind}`;

type Listed = { [K in ErrorKind]: (typeof ERROR_REASONS)[K][number] };

/**
 * The string codes of `kind`. A `closed` client keeps the reason of the failure that closed it
 * (any code, or the failure's kind when it had none), so `closed` takes every code.
 */
export type ReasonCode<K extends ErrorKind = ErrorKind> = K extends "closed"
  ? Listed[ErrorKind] | ErrorKind | HttpStatusCode | OAuthWrapped
  : K extends "transport"
    ? Listed[K] | HttpStatusCode
    : K extends "auth"
      ? Listed[K] | OAuthWrapped
      : Listed[K];

/**
 * `R` when it is a reason `kind` may be made with: a listed code, a string only known at run
 * time, or another error's reason passed on (typed as any reason); `never` (a
 * compile error at the call) for an unlisted literal.
 */
export type CheckedReason<K extends ErrorKind, R> = [ReasonCode] extends [R] ? R : EachChecked<K, R>;

/** Each member of `R`: a literal must be listed; `string` or a pattern (`token ${string}`) cannot be checked. */
type EachChecked<K extends ErrorKind, R> = R extends string
  ? {} extends Record<R, 1>
    ? R
    : R extends ReasonCode<K>
      ? R
      : never
  : R;
