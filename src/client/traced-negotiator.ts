import type { Link, NegotiatedSession, Negotiator } from "../connection/types.js";
import { META } from "../shared/versions.js";
import type { OpenTelemetryBridge } from "../telemetry/open-telemetry.js";

/**
 * The negotiator with one OpenTelemetry span per handshake request (`server/discover`,
 * `initialize`): the requests the client's API does not send itself.
 */
export function tracedNegotiator<S extends NegotiatedSession>(
  inner: Negotiator<S>,
  otel: OpenTelemetryBridge,
): Negotiator<S> {
  const traced = (link: Link): Link => ({
    ...link,
    request: (method, params, timeout) => {
      const span = otel.startHandshakeRequest(method);
      const meta = params._meta as Record<string, unknown> | undefined;
      const version = method === "initialize" ? params.protocolVersion : meta?.[META.protocolVersion];
      if (typeof version === "string") span.protocolVersion(version);
      return link.request(method, params, timeout).then(
        (result) => {
          span.end({ result });
          return result;
        },
        (err: unknown) => {
          span.end({ error: err });
          throw err;
        },
      );
    },
  });
  return {
    negotiate: (link) => inner.negotiate(traced(link)),
    renegotiate: (link, supported) => inner.renegotiate(traced(link), supported),
    eraMiss: (error, kind) => inner.eraMiss?.(error, kind) ?? false,
  };
}
