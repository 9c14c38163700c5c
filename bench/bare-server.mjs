// The bare stdio peer: newline-delimited JSON-RPC on stdin/stdout with no library (the answers
// are in peer/answers.mjs). It writes the answers to one read chunk in one write. It exits when
// stdin ends. Usage: node bench/bare-server.mjs
import { answer } from "./peer/answers.mjs";

let rest = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  const text = rest + chunk;
  let out = "";
  let start = 0;
  let nl = text.indexOf("\n");
  while (nl !== -1) {
    if (nl > start) {
      const a = answer(JSON.parse(text.slice(start, nl)));
      if (a !== undefined) out += `${a}\n`;
    }
    start = nl + 1;
    nl = text.indexOf("\n", start);
  }
  rest = text.slice(start);
  if (out) process.stdout.write(out);
});
process.stdin.on("end", () => process.exit(0));
