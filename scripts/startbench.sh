#!/bin/sh
# Start-up benchmark: the CPU `firewatch version` takes, built as `go build`
# builds it where a C compiler is installed (cgo: dynamically linked) and with
# CGO_ENABLED=0 (static), beside a Go hello world built the same way, run in
# turn in one run.
#   scripts/startbench.sh [-runs 60]
set -e
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local
out=${TMPDIR:-/tmp}/startbench.$$
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
go build -o "$out/startbench" ./scripts/startbench
go build -o "$out/firewatch" .
CGO_ENABLED=0 go build -o "$out/firewatch-static" .
CGO_ENABLED=0 go build -o "$out/hello" ./scripts/startbench/hello
# A file the linker has just written maps more slowly than the same bytes
# copied or read back from disk (the page cache's layout; about 1 ms a start
# on our test VM): measure copies, as a binary is after a copy or a reboot.
for b in firewatch firewatch-static hello; do cp "$out/$b" "$out/$b.tmp" && mv "$out/$b.tmp" "$out/$b"; done
"$out/startbench" "$@" -- "$out/hello" -- "$out/firewatch" version -- "$out/firewatch-static" version
