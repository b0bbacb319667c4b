#!/usr/bin/env bash
# The CPU of live watches with archiving on against off, under the same
# load: `firewatch serve` runs research runs at once (speed 1: about a
# minute each) and firewatch watches each with the default 2s interval,
# PAIRS with the archive off, PAIRS into one archive file, all at the same
# time. Prints each round's sums of user+sys CPU (the kernel's accounting
# of each child, in microseconds) and, over the rounds, the mean and spread
# per watch and the ratio.
#   scripts/archivecpu.sh [PAIRS] [BASE]
# BASE (optional) is a second build measured in the same rounds, side by
# side: a firewatch binary, or a git revision of this repository (main)
# built for the occasion. ROUNDS=N (default 1) repeats the measurement;
# OWN=1 gives each archived watch an archive file of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local CGO_ENABLED=0
PAIRS=${1:-3}
BASE=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/firewatch" .
go build -o "$tmp/archivecpu" ./scripts/archivecpu
base=()
if [ -n "$BASE" ]; then
  if [ -f "$BASE" ] && [ -x "$BASE" ]; then
    cp "$BASE" "$tmp/base"
  else
    mkdir "$tmp/src"
    git archive "$BASE" | tar -x -C "$tmp/src"
    (cd "$tmp/src" && go build -o "$tmp/base" .)
  fi
  base=(-base "$tmp/base" -base-label "$BASE" -label "$(git rev-parse --abbrev-ref HEAD)")
fi
own=()
[ -n "${OWN:-}" ] && own=(-own)
"$tmp/archivecpu" -firewatch "$tmp/firewatch" -pairs "$PAIRS" -rounds "${ROUNDS:-1}" "${own[@]}" "${base[@]}"
