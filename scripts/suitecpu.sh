#!/usr/bin/env bash
# Where `go test ./...` spends its time: the suite's wall time and CPU
# (user+sys of go and everything it starts), the CPU of each package's
# test binary with the processes it waits for (a test's firewatch
# processes, e2e's build of the binary), and what is left for building
# and linking. Each test binary is run through /usr/bin/time (go test
# -exec), which adds about a millisecond per package.
#   scripts/suitecpu.sh [go test flags, e.g. -race]
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/exec" <<EOF
#!/bin/sh
exec /usr/bin/time -a -o "$tmp/runs" -f "%U %S %e \$(basename "\$1" .test)" "\$@"
EOF
chmod +x "$tmp/exec"
/usr/bin/time -o "$tmp/suite" -f "%e %U %S" go test -count=1 -exec "$tmp/exec" "$@" ./... > "$tmp/out" 2>&1 || {
  cat "$tmp/out"
  exit 1
}
read -r wall user sys < "$tmp/suite"
awk -v wall="$wall" -v user="$user" -v sys="$sys" -v cores="$(nproc)" '
  { cpu[$4] += $1 + $2; el[$4] = $3; runs += $1 + $2 }
  END {
    total = user + sys
    printf "go test ./...: %.1f s wall, %.1f s CPU on %d cores (at least %.1f s of wall with every core busy)\n", wall, total, cores, total / cores
    printf "  test binaries and what they start: %.1f s CPU; building and linking: %.1f s\n", runs, total - runs
    n = 0
    for (p in cpu) order[++n] = p
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (cpu[order[j]] > cpu[order[i]]) { t = order[i]; order[i] = order[j]; order[j] = t }
    printf "  %-14s %8s %8s\n", "package", "CPU s", "wall s"
    for (i = 1; i <= n && i <= 15; i++) printf "  %-14s %8.1f %8.1f\n", order[i], cpu[order[i]], el[order[i]]
  }' "$tmp/runs"
