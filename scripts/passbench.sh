#!/usr/bin/env bash
# An archive pass beside a live watch on one key, the simulator's rate
# limit on (default 500 a minute): the pass's time, requests and 429s, the
# 429s the watch met and the longest it went without an answer; with
# -fail snapshots, every snapshot answering 500, how long the pass takes.
#   scripts/passbench.sh [BASE] [passbench flags: -runs 500 -window 1m -fail snapshots]
# BASE (optional) is a second build measured the same way: a firewatch
# binary, or a git revision of this repository built for the occasion.
# A -window shorter than a minute scales the measurement down in time
# (-window 6s -watch-interval 200ms: ten times quicker, the same ratios).
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local CGO_ENABLED=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/firewatch" .
go build -o "$tmp/passbench" ./scripts/passbench
bins="$(git rev-parse --abbrev-ref HEAD)=$tmp/firewatch"
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  BASE=$1
  shift
  if [ -f "$BASE" ] && [ -x "$BASE" ]; then
    cp "$BASE" "$tmp/base"
  else
    mkdir "$tmp/src"
    git archive "$BASE" | tar -x -C "$tmp/src"
    (cd "$tmp/src" && go build -o "$tmp/base" .)
  fi
  bins="$BASE=$tmp/base,$bins"
fi
"$tmp/passbench" -firewatch "$bins" "$@"
