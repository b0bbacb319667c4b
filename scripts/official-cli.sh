#!/usr/bin/env bash
# The official Firecrawl CLI (npm firecrawl-cli) against `firewatch serve --history 30`:
# `firecrawl --status` and `firecrawl credit-usage` must exit 0 and show the balance
# `firewatch cost --team` shows. Skips (exit 0, said) when node or npm is missing or the
# CLI cannot be installed; FIRECRAWL_CLI=/path/to/firecrawl uses an installed one.
# Usage: scripts/official-cli.sh [VERSION]   (default: the version pinned below)
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:-1.23.3}
tmp=$(mktemp -d); trap 'kill "${srv:-}" 2>/dev/null || true; rm -rf "$tmp"' EXIT
cli=${FIRECRAWL_CLI:-}
if [ -z "$cli" ]; then
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "official-cli: skipped: node or npm is not installed"; exit 0
  fi
  if ! (cd "$tmp" && npm install --silent --no-audit --no-fund "firecrawl-cli@$version" >/dev/null 2>&1); then
    echo "official-cli: skipped: npm could not install firecrawl-cli@$version"; exit 0
  fi
  cli="$tmp/node_modules/.bin/firecrawl"
fi
GOTOOLCHAIN=local GOFLAGS="${GOFLAGS:-} -mod=mod" go build -o "$tmp/firewatch" .
# Speed 1000: the runs and the active crawls are over at once, so the balance stands still.
"$tmp/firewatch" serve --history 30 --speed 1000 --rate-limit -1 >"$tmp/env" 2>"$tmp/serve.log" &
srv=$!
for _ in $(seq 100); do grep -q '^SEED=' "$tmp/env" 2>/dev/null && break; sleep 0.1; done
set -a; . "$tmp/env"; set +a
sleep 1
export HOME="$tmp/home" XDG_DATA_HOME="$tmp/data" XDG_CONFIG_HOME="$tmp/config" NO_COLOR=1 FIRECRAWL_NO_UPDATE_NOTICE=1
mkdir -p "$HOME"
fail=0
status=$("$cli" --status 2>&1) || { echo "official-cli: firecrawl --status exited $?:"; echo "$status"; fail=1; }
usage=$("$cli" credit-usage 2>&1) || { echo "official-cli: firecrawl credit-usage exited $?:"; echo "$usage"; fail=1; }
# The CLI colours its --status whatever NO_COLOR says: compare the text.
status=$(printf '%s' "$status" | sed 's/\x1b\[[0-9;]*m//g')
ours=$("$tmp/firewatch" cost --team -o json)
figure() { printf '%s' "$ours" | python3 -c 'import json,sys; print("{:,}".format(int(json.load(sys.stdin)["team"]["period"][sys.argv[1]])))' "$1"; }
remaining=$(figure remainingCredits)
plan=$(figure planCredits)
grep -qF "Credits: $remaining / $plan" <<<"$status" || { echo "official-cli: --status does not show $remaining / $plan:"; echo "$status"; fail=1; }
grep -qF "Remaining Credits: $remaining" <<<"$usage" || { echo "official-cli: credit-usage does not show $remaining:"; echo "$usage"; fail=1; }
grep -qF "Plan Credits: $plan" <<<"$usage" || { echo "official-cli: credit-usage does not show the plan $plan:"; echo "$usage"; fail=1; }
if [ "$fail" = 0 ]; then
  echo "official-cli: firecrawl --status and credit-usage exit 0 and show $remaining of $plan credits, as cost --team does"
fi
exit "$fail"
