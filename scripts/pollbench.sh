#!/bin/sh
# Poll benchmark: firewatch against the plain standard-library watcher and,
# if the official JS SDK is installed in $SDK_DIR (npm i @mendable/firecrawl-js
# there), the SDK polling getAgentTrace. One command, one run, side by side.
#   scripts/pollbench.sh [pollbench flags: -events 20000 -grow 10 -polls 100 -interval 100ms ...]
set -e
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local
out=${TMPDIR:-/tmp}/pollbench.$$
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
go build -o "$out/firewatch" .
go build -o "$out/pollbench" ./scripts/pollbench
sdk=
if [ -n "$SDK_DIR" ] && [ -d "$SDK_DIR/node_modules/@mendable/firecrawl-js" ]; then sdk=$SDK_DIR; fi
exec "$out/pollbench" -firewatch "$out/firewatch" -sdk "$sdk" "$@"
