// The bare HTTP peer: node:http on 127.0.0.1, POST /mcp answered with a JSON body (both eras;
// the answers are in peer/answers.mjs), 202 for notifications, 405 for GET and DELETE. No
// sessions. Prints "LISTENING <port>" and exits when its stdin ends, so it cannot outlive the
// benchmark. Usage: node bench/bare-http-server.mjs
import http from "node:http";
import { answer } from "./peer/answers.mjs";

const server = http.createServer((req, res) => {
  if (req.method !== "POST") {
    res.writeHead(405, { allow: "POST" }).end();
    return;
  }
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const body = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString("utf8");
    const a = answer(JSON.parse(body));
    if (a === undefined) res.writeHead(202).end();
    else res.writeHead(200, { "content-type": "application/json" }).end(a);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => process.stdout.write(`LISTENING ${server.address().port}\n`));
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
