// The build starts from an empty dist/: a file left by an older build (a source map, a module
// since removed) would otherwise be packed and shipped.
import { rmSync } from "node:fs";

rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true });
