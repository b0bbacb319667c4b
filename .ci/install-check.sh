#!/usr/bin/env bash
# Installs firewatch the way a user does, `go install github.com/firewatch/firewatch@VERSION`, from a
# module zip of HEAD served by a file-based GOPROXY in front of the real one, with an empty GOPATH and
# module cache (the build cache is shared, so it stays quick). The real dependencies are still verified
# against the checksum database: only our own module is exempt (GONOSUMDB), since it is not published.
set -euo pipefail
cd "$(dirname "$0")/.."
mod=github.com/firewatch/firewatch
stamp=$(TZ=UTC git log -1 --date=format-local:%Y%m%d%H%M%S --format=%cd HEAD)
version="v0.0.0-$stamp-$(git rev-parse --short=12 HEAD)"
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
(cd .ci/modzip && GOFLAGS= go run . -repo "$(git rev-parse --show-toplevel)" -module "$mod" -version "$version" -out "$work/proxy")
real_proxy=$(go env GOPROXY)
mkdir -p "$work/gopath" "$work/modcache" "$work/bin" "$work/elsewhere"
(cd "$work/elsewhere" &&
  env GOFLAGS= GOPATH="$work/gopath" GOMODCACHE="$work/modcache" GOBIN="$work/bin" \
    GOPROXY="file://$work/proxy,$real_proxy" GONOSUMDB="$mod" GOTOOLCHAIN=local \
    go install "$mod@$version")
"$work/bin/firewatch" version
echo "installed $mod@$version with go install"
