#!/usr/bin/env bash
# Start-up CPU of `firewatch version` beside the official Firecrawl CLI's `firecrawl --version`, run
# interleaved in one loop so that both see the same machine; prints the median user+system CPU of each.
# Usage: scripts/startup.sh [-runs 30] [-cli PATH_TO_firecrawl] [-also NAME=BINARY ...]
# The CLI comes from npm: (cd /tmp/fccli && npm i firecrawl-cli) and -cli /tmp/fccli/node_modules/.bin/firecrawl
set -euo pipefail
cd "$(dirname "$0")/.."
runs=30; cli=$(command -v firecrawl || true); also=()
while [ $# -gt 0 ]; do
  case $1 in
    -runs) runs=$2; shift 2 ;;
    -cli) cli=$2; shift 2 ;;
    -also) also+=("$2"); shift 2 ;;
    *) echo "usage: $0 [-runs N] [-cli PATH] [-also NAME=BINARY]" >&2; exit 2 ;;
  esac
done
[ -n "$cli" ] || { echo "no firecrawl CLI: pass -cli PATH" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/firewatch" .
progs=("firewatch version=$tmp/firewatch version" "firecrawl --version=$cli --version")
for a in "${also[@]}"; do progs+=("${a%%=*}=${a#*=} version"); done
python3 - "$runs" "${progs[@]}" <<'PY'
import os, subprocess, sys, statistics
runs = int(sys.argv[1]); progs = [p.split("=", 1) for p in sys.argv[2:]]
cpu = {name: [] for name, _ in progs}
for _ in range(runs):
    for name, cmd in progs:
        p = subprocess.Popen(cmd.split(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, _, ru = os.wait4(p.pid, 0)
        cpu[name].append((ru.ru_utime + ru.ru_stime) * 1000)
base = statistics.median(cpu[progs[1][0]])
for name, _ in progs:
    m = statistics.median(cpu[name])
    print(f"{name:28s} median {m:7.1f} ms CPU  ({m / base:.3f}x the official CLI)")
PY
