#!/usr/bin/env bash
# npm run conformance [-- runner options]: the official MCP conformance suite's client scenarios
# against conformance/client.mjs, through the shared runner, with the expected-failures baseline.
# Default selection: the 2025-11-25 and 2026-07-28 requirement sets with their unscored scenarios,
# auth/* and the OAuth extensions included (see conformance/README.md). Extra options go to the runner,
# e.g. `npm run conformance -- -s sse-retry` (one scenario) or `-- -o DIR` (keep results there).
set -euo pipefail
cd "$(dirname "$0")/.."

runner=${CONFORMANCE_RUNNER:-../shared/conformance/run-client-conformance.sh}
if [ ! -f "$runner" ]; then
  echo "error: no conformance runner at $runner: the project expects the shared folder beside its" >&2
  echo "       root (../shared/conformance/); or set CONFORMANCE_RUNNER to run-client-conformance.sh" >&2
  exit 2
fi

# Build when dist/ is missing or older than a source file.
if [ ! -f dist/index.js ] || [ -n "$(find src tsconfig.json tsconfig.build.json -newer dist/index.js -print -quit)" ]; then
  npm run build
fi

exec bash "$runner" --unscored --strict -e conformance/expected-failures.yaml "$@" \
  'node conformance/client.mjs'
