#!/bin/sh
# Hub benchmark: firewatch hub against firewatch serve with live runs (-runs) of
# 10 000 events (the large scenario), watched by 1, 10 and 50 SSH sessions
# (PTY 120x40): the trace requests a minute the service sees, the hub's CPU
# and resident memory, and the bytes each session is sent per event.
#   scripts/hubbench.sh [hubbench flags: -sessions 1,10,50 -events 10000 -speed 1 -runs 1 -postgres DSN]
set -e
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local
out=${TMPDIR:-/tmp}/hubbench.$$
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
go build -o "$out/firewatch" .
go build -o "$out/hubbench" ./scripts/hubbench
exec "$out/hubbench" -firewatch "$out/firewatch" "$@"
