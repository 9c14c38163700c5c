// A stdio relay that adds RELAY_MS (default 5) each way between a client and the server it starts
// (`node stdio-relay.mjs server.mjs ...`): a server reached through ssh or docker exec, where a
// pipe's round trip is no longer a fraction of a millisecond. Used by first-call.mjs --stdio-delay.
import { spawn } from "node:child_process";

const DELAY = Number(process.env.RELAY_MS ?? "5");
const child = spawn(process.execPath, process.argv.slice(2), { stdio: ["pipe", "pipe", "inherit"] });
process.stdin.on("data", (chunk) => setTimeout(() => child.stdin.write(chunk), DELAY));
process.stdin.on("end", () => setTimeout(() => child.stdin.end(), DELAY));
child.stdout.on("data", (chunk) => setTimeout(() => process.stdout.write(chunk), DELAY));
child.on("exit", (code) => setTimeout(() => process.exit(code ?? 0), DELAY + 5));
