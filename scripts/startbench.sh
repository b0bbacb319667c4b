#!/bin/sh
# Start-up benchmark: the CPU `firewatch version` takes, built as `go build`
# builds it where a C compiler is installed (cgo: dynamically linked) and with
# CGO_ENABLED=0 (static, as the README installs it), beside yardsticks built
# the same two ways, run in turn in one run:
#   hello        a Go hello world (static): what any Go program costs to start;
#   hello+net    the same with package net, with cgo: what linking the C library
#                adds to any Go program (firewatch links it for the same reason);
#   std          a program that imports every standard-library package firewatch
#                imports and does nothing else, both ways: the floor firewatch
#                starts from before its libraries and its own code.
#   scripts/startbench.sh [-runs 60] [-clock rusage|perf]
set -e
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local
out=${TMPDIR:-/tmp}/startbench.$$
mkdir -p "$out/stdsrc"
trap 'rm -rf "$out"' EXIT
go build -o "$out/startbench" ./scripts/startbench
go build -o "$out/firewatch" .
CGO_ENABLED=0 go build -o "$out/firewatch-static" .
CGO_ENABLED=0 go build -o "$out/hello" ./scripts/startbench/hello
go build -o "$out/hello+net" ./scripts/startbench/hellonet
# The std yardstick, generated from firewatch's own imports.
{
	printf 'package main\n\nimport (\n\t"os"\n'
	go list -deps -f '{{if .Standard}}{{.ImportPath}}{{end}}' . |
		grep -v -e internal -e '^vendor/' -e '^runtime/cgo$' -e '^unsafe$' -e '^os$' |
		sed 's/.*/\t_ "&"/'
	printf ')\n\nfunc main() { os.Stdout.WriteString("firewatch dev\\n") }\n'
} >"$out/stdsrc/main.go"
printf 'module startbenchstd\n\ngo 1.26\n' >"$out/stdsrc/go.mod"
(cd "$out/stdsrc" && go build -o ../std && CGO_ENABLED=0 go build -o ../std-static)
# A file the linker has just written maps more slowly than the same bytes
# copied or read back from disk (the page cache's layout; about 1 ms a start
# on our test VM): measure copies, as a binary is after a copy or a reboot.
for b in firewatch firewatch-static hello hello+net std std-static; do
	cp "$out/$b" "$out/$b.tmp" && mv "$out/$b.tmp" "$out/$b"
done
"$out/startbench" "$@" -- "$out/hello" -- "$out/hello+net" -- "$out/std-static" -- "$out/std" \
	-- "$out/firewatch-static" version -- "$out/firewatch" version
