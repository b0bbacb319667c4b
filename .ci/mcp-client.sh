#!/usr/bin/env bash
# firewatch mcp through a client nobody here wrote: the official TypeScript
# SDK of the Model Context Protocol (npm @modelcontextprotocol/sdk, pinned in
# .ci/mcpclient/package.json) spawns the server over stdio against
# `firewatch serve`: locally (firewatch mcp), and through a hub as a viewer
# (ssh HUB mcp: no acting tools) and as an operator (ssh HUB mcp
# --allow-actions: the acting tools), the three at once on one live run.
# Each lists the tools, calls list_runs, get_run, wait_for_run on the live
# run and get_events to the end. Called from .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
name=mcp-client

for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "$name: $tool not found: skipping"
    exit 0
  fi
done
if [ ! -d .ci/mcpclient/node_modules/@modelcontextprotocol/sdk ]; then
  (cd .ci/mcpclient && npm ci --no-audit --no-fund --silent) || { echo "$name: npm ci failed"; exit 1; }
fi

tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" >/dev/null 2>&1 || true; done
  wait >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/firewatch" .

# The service: one research run, live for about 30 s.
"$tmp/firewatch" serve --addr 127.0.0.1:0 --scenario research --speed 2 --history 3 >"$tmp/serve.env" 2>"$tmp/serve.log" &
pids+=($!)
for _ in $(seq 100); do grep -q '^JOB_ID=' "$tmp/serve.env" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/^FIRECRAWL_API_URL=//p' "$tmp/serve.env")
key=$(sed -n 's/^FIRECRAWL_API_KEY=//p' "$tmp/serve.env")
[ -n "$url" ] && [ -n "$key" ] || { cat "$tmp/serve.log"; echo "$name: firewatch serve did not start"; exit 1; }

client() { node .ci/mcpclient/mcpclient.mjs "$@"; }
runs=()
FIRECRAWL_API_URL="$url" FIRECRAWL_API_KEY="$key" XDG_DATA_HOME="$tmp/local" \
  client -- "$tmp/firewatch" mcp --interval 1s >"$tmp/local.out" 2>&1 &
runs+=("local:$!")

if command -v ssh >/dev/null 2>&1 && command -v ssh-keygen >/dev/null 2>&1; then
  ssh-keygen -q -t ed25519 -N '' -C alice -f "$tmp/alice"
  ssh-keygen -q -t ed25519 -N '' -C bob -f "$tmp/bob"
  cp "$tmp/alice.pub" "$tmp/operators"
  cp "$tmp/bob.pub" "$tmp/viewers"
  printf '%s\n' "$key" >"$tmp/key"
  chmod 600 "$tmp/key" "$tmp/operators" "$tmp/viewers"
  env -u FIRECRAWL_API_KEY -u FIRECRAWL_API_URL XDG_DATA_HOME="$tmp/data" "$tmp/firewatch" hub --listen 127.0.0.1:0 \
    --api-url "$url" --key-file "$tmp/key" --interval 1s --authorized-keys "$tmp/viewers" --operators "$tmp/operators" 2>"$tmp/hub.log" &
  pids+=($!)
  for _ in $(seq 100); do grep -q 'listening on' "$tmp/hub.log" && break; sleep 0.1; done
  port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$tmp/hub.log")
  [ -n "$port" ] || { cat "$tmp/hub.log"; echo "$name: the hub did not start"; exit 1; }
  echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$tmp/data/firewatch/hub_ed25519.pub")" >"$tmp/known_hosts"
  sshargs=(-p "$port" -o IdentitiesOnly=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile="$tmp/known_hosts" -o LogLevel=ERROR)
  env -u FIRECRAWL_API_KEY node .ci/mcpclient/mcpclient.mjs --expect-no-actions -- ssh "${sshargs[@]}" -i "$tmp/bob" 127.0.0.1 mcp --allow-actions >"$tmp/viewer.out" 2>&1 &
  runs+=("hub viewer:$!")
  env -u FIRECRAWL_API_KEY node .ci/mcpclient/mcpclient.mjs --expect-actions -- ssh "${sshargs[@]}" -i "$tmp/alice" 127.0.0.1 mcp --allow-actions --budget 10 >"$tmp/operator.out" 2>&1 &
  runs+=("hub operator:$!")
else
  echo "$name: ssh not found: the hub's part is skipped"
fi

status=0
for r in "${runs[@]}"; do
  what=${r%%:*} pid=${r##*:}
  if wait "$pid"; then echo "$name: $what: passed"; else echo "$name: $what: FAILED"; status=1; fi
done
for f in local viewer operator; do
  [ -f "$tmp/$f.out" ] || continue
  echo "--- $f"; cat "$tmp/$f.out"
  if grep -qF "$key" "$tmp/$f.out"; then echo "$name: $f: the key in the output"; status=1; fi
done
[ "$status" = 0 ] || { echo "--- hub log:"; cat "$tmp/hub.log" 2>/dev/null || true; }
exit "$status"
