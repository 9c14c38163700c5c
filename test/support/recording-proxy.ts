/**
 * A proxy on 127.0.0.1 in front of a real HTTP server that records every request's headers.
 * With `expectAuthorization`, it answers 401 (with a challenge) to requests whose Authorization
 * header differs; with `refuse`, it answers every request with what that returns instead of
 * forwarding it (a server that refuses, echoing what it was sent).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordingProxy {
  url: string;
  seen: http.IncomingHttpHeaders[];
  close(): Promise<void>;
}

export interface ProxyOptions {
  expectAuthorization?: string;
  refuse?: (headers: http.IncomingHttpHeaders) => { status: number; body: string };
}

export async function recordingProxy(upstream: string, o: ProxyOptions = {}): Promise<RecordingProxy> {
  const target = new URL(upstream);
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers);
    if (o.refuse) {
      req.resume();
      const { status, body } = o.refuse(req.headers);
      res.writeHead(status, { "content-type": "application/json" }).end(body);
      return;
    }
    if (o.expectAuthorization !== undefined && req.headers.authorization !== o.expectAuthorization) {
      req.resume();
      res
        .writeHead(401, { "www-authenticate": 'Bearer realm="test", error="invalid_token"' })
        .end('{"error":"invalid_token"}');
      return;
    }
    const forward = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: target.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on("error", () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
