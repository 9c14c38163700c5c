// A TCP proxy that adds a round-trip time: every chunk, either way, is passed on `rtt / 2` ms after
// it arrived (in order), so a request and its answer take one `rtt` more, as over a network, and a
// new connection pays its handshake's round trip too (the upstream connect is held as long).
// Run as its own process (startHttpServer in bare-peer.mjs): its timers cost the measured process
// nothing. Prints "LISTENING <port>"; exits when its stdin ends.
//
//   node bench/latency-proxy.mjs <upstream port> <rtt ms>
import net from "node:net";

const upstreamPort = Number(process.argv[2]);
const half = Number(process.argv[3]) / 2;

/** Passes `from`'s chunks to `to`, each `half` ms after it arrived; ends `to` likewise. */
function delayed(from, to) {
  from.on("data", (chunk) => setTimeout(() => to.destroyed || to.write(chunk), half));
  from.on("end", () => setTimeout(() => to.end(), half));
  from.on("error", () => to.destroy());
  from.on("close", () => setTimeout(() => to.destroy(), half));
}

const server = net.createServer((client) => {
  client.setNoDelay(true);
  client.pause();
  // The TCP handshake's round trip: the connection is made upstream only after it.
  setTimeout(() => {
    const upstream = net.connect({ port: upstreamPort, host: "127.0.0.1", noDelay: true }, () => {
      delayed(client, upstream);
      delayed(upstream, client);
      client.resume();
    });
    upstream.on("error", () => client.destroy());
  }, half * 2);
});
server.listen(0, "127.0.0.1", () => process.stdout.write(`LISTENING ${server.address().port}\n`));
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
