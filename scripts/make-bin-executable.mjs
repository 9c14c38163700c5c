// npm links `bin` entries itself, but a plain `node dist/cli/main.js` and git checkouts of
// dist-less trees need the file mode too.
import { chmodSync, existsSync } from "node:fs";

const bin = new URL("../dist/cli/main.js", import.meta.url);
if (existsSync(bin)) chmodSync(bin, 0o755);
