#!/usr/bin/env bash
# The interact console in a real terminal: `firewatch serve` hosts a scrape,
# tmux at 120x40 runs `firewatch interact SCRAPE_ID` with NO_COLOR=1: a call's
# answer, the session's links with the interactive view's warning, a
# resize to 80x24, leaving with s (the session stopped, exit 0, said on
# stderr). No colour may reach the screen. Called from .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v tmux >/dev/null 2>&1; then
  echo "tmux not found: skipping the interact console test"
  exit 0
fi

tmp=$(mktemp -d)
sock="fw-ci-interact-$$"
t() { tmux -L "$sock" "$@"; }
serve_pid=""
cleanup() {
  t kill-server >/dev/null 2>&1 || true
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/firewatch" .
"$tmp/firewatch" serve --speed 50 --rate-limit -1 >"$tmp/serve.env" 2>/dev/null &
serve_pid=$!
for _ in $(seq 1 100); do grep -q '^SCRAPE_ID=' "$tmp/serve.env" 2>/dev/null && break; sleep 0.1; done
# shellcheck disable=SC1090
set -a; . "$tmp/serve.env"; set +a

name=interact-tmux
# shellcheck source=.ci/tmux-lib.sh
. .ci/tmux-lib.sh

t new-session -d -s ci -x 120 -y 40 \
  "env LANG=C.UTF-8 TERM=xterm-256color NO_COLOR=1 FIRECRAWL_API_URL=$FIRECRAWL_API_URL FIRECRAWL_API_KEY=$FIRECRAWL_API_KEY $tmp/firewatch interact $SCRAPE_ID 2>$tmp/stderr; echo \$? > $tmp/exit; sleep 600"
t set-option -t ci window-size manual >/dev/null
wait_for "The browser of scrape $SCRAPE_ID"
t send-keys -t ci 'await page.title()' Enter
wait_for "✓ exit 0"
wait_for "  Example | Pricing"
t send-keys -t ci C-l
wait_for "interactive live view"
wait_for "controls the browser"
t send-keys -t ci Escape
sleep 0.3
if t capture-pane -p -e -t ci | grep -qE $'\e\\[([0-9;]*;)?(3[0-8]|4[0-8]|9[0-7]|10[0-7])m'; then
  fail "colour on screen with NO_COLOR=1"
fi
t resize-window -t ci -x 80 -y 24
wait_for "enter send"
t send-keys -t ci C-c
wait_for "Leave the console?"
t send-keys -t ci s
for _ in $(seq 1 100); do [ -s "$tmp/exit" ] && break; sleep 0.1; done
[ "$(cat "$tmp/exit" 2>/dev/null)" = 0 ] || fail "exit $(cat "$tmp/exit" 2>/dev/null), want 0"
grep -q "session stopped" "$tmp/stderr" || { cat "$tmp/stderr"; fail "no 'session stopped' on stderr"; }
echo "interact-tmux: ok"
