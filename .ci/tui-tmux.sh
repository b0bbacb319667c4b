#!/usr/bin/env bash
# The terminal UI in a real terminal: tmux at 120x40 runs the built binary's
# `demo`, the screen is checked as a person would read it, `?` shows the
# help, enter opens a tool call's details, w the waterfall (and a row's
# details from it), a the result artifact with its fetched content; a
# resize to 80x24 gives the compact layout (and 50x10 the size note), q
# quits with the run's exit code. The cancel scenario is cancelled with c
# and y, followed to "cancelled", and exits 3. It also counts every byte the
# UI wrote, to report the bytes per event (budget: 300). Called from .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v tmux >/dev/null 2>&1; then
  echo "tmux not found: skipping the terminal UI test (CI machines have it)"
  exit 0
fi

tmp=$(mktemp -d)
# One tmux server per window (start): killing the last session ends its
# server, and a new one started on the same socket at once races it
# ("server exited unexpectedly").
base="fw-ci-$$"
sock="$base"
socks=()
t() { tmux -L "$sock" "$@"; }
cleanup() {
  for s in "${socks[@]}"; do tmux -L "$s" kill-server >/dev/null 2>&1 || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/firewatch" .

name=tui-tmux
# shellcheck source=.ci/tmux-lib.sh
. .ci/tmux-lib.sh
expect() { screen | grep -qF -- "$1" || fail "expected \"$1\" on screen"; }
# start NAME ARGS...: a 120x40 window whose program waits for $tmp/go-NAME,
# so that pipe-pane records from the first byte the UI writes.
start() {
  local name=$1; shift
  sock="$base-$name"
  socks+=("$sock")
  t new-session -d -s ci -x 120 -y 40 \
    "while [ ! -f $tmp/go-$name ]; do sleep 0.05; done; env LANG=C.UTF-8 TERM=xterm-256color $tmp/firewatch $*; echo \$? > $tmp/exit-$name; sleep 600"
  t set-option -t ci window-size manual >/dev/null
  t pipe-pane -t ci -o "cat >> $tmp/bytes-$name"
  touch "$tmp/go-$name"
}
wait_exit() {
  local deadline=$((SECONDS + 20))
  until [ -s "$tmp/exit-$1" ]; do
    [ $SECONDS -lt $deadline ] || fail "the UI did not exit"
    sleep 0.1
  done
  cat "$tmp/exit-$1"
}

# 1. A whole demo run at 120x40.
start run demo --speed 20 --summary "$tmp/summary.json"
wait_for "Run succeeded" 60
wait_for "watch ended" 30
sleep 0.3
bytes=$(wc -c < "$tmp/bytes-run") # the whole run, first paint included, before any key
for s in firewatch "succeeded" "Agents" "Browser sessions" "Tool calls" "Timeline" "Artifacts" \
  "orchestrator" "planning" "finalizing" "? help" "q quit"; do
  expect "$s"
done
lines=$(screen | wc -l)
[ "$lines" -eq 40 ] || fail "$lines lines at 120x40"

# 2. Help.
t send-keys -t ci '?'
wait_for "pause polling" 5
expect "next error"
expect "Symbols"
t send-keys -t ci Escape
wait_for "Timeline" 5

# 2b. A tool call's details: shift+tab from the timeline is Tool calls.
t send-keys -t ci BTab
wait_for "─ Tool calls" 5
t send-keys -t ci Enter
wait_for "─ Tool call mcp__tools__" 5
for s in "Parameters" "Result" "Start event" "Finish event" "started" "into the run" "esc back"; do
  expect "$s"
done
t send-keys -t ci Tab Tab # past the result: the raw tool_call.started
wait_for '"type": "tool_call.started"' 5
t send-keys -t ci Escape
wait_for "Timeline" 5

# 2c. The waterfall, and a row's details from it.
t send-keys -t ci w
wait_for "─ Waterfall" 5
expect "time"
expect "orchestrator"
expect "zoom in"
t send-keys -t ci +
wait_for "time ×2" 5
t send-keys -t ci 0
t send-keys -t ci Enter
wait_for "─ Agent orchestrator" 5
expect "Tool calls"
t send-keys -t ci Escape
wait_for "─ Waterfall" 5
t send-keys -t ci Escape
wait_for "Timeline" 5

# 2d. The result artifact from the banner: its versions and the snapshot
# fetched from the service.
expect "a shows the result"
t send-keys -t ci a
wait_for "─ Versions 8" 5
wait_for '"vendors"' 10
t send-keys -t ci d
wait_for "v7 → v8" 10
t send-keys -t ci Escape
sleep 0.3
t send-keys -t ci Escape
wait_for "Timeline" 5

# 3. Resize to 80x24: the compact layout, one pane at a time with tabs.
t resize-window -t ci -x 80 -y 24
wait_for "Tools  Timeline" 5
expect "Run succeeded"
# Cells per line: UTF-8 continuation bytes dropped, every symbol is one cell.
width=$(screen | LC_ALL=C tr -d '\200-\277' | LC_ALL=C awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }')
[ "$width" -le 80 ] || fail "a line is $width wide at 80x24"
t send-keys -t ci Tab
wait_for "artifact" 5
# The waterfall fits 80 columns too.
t send-keys -t ci w
wait_for "─ Waterfall" 5
width=$(screen | LC_ALL=C tr -d '\200-\277' | LC_ALL=C awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }')
[ "$width" -le 80 ] || fail "a waterfall line is $width wide at 80x24"
t send-keys -t ci Escape
wait_for "Tools  Timeline" 5
# Too small: the screen says which size it needs; back to 80x24.
t resize-window -t ci -x 50 -y 10
wait_for "at least 60x16" 5
t resize-window -t ci -x 80 -y 24
wait_for "Tools  Timeline" 5

# 4. Quit: the run succeeded, so the exit code is 0.
t send-keys -t ci q
code=$(wait_exit run)
[ "$code" = 0 ] || fail "exit code $code after a succeeded run, want 0"
events=$(sed -n 's/.*"eventCount": *\([0-9]*\).*/\1/p' "$tmp/summary.json" | head -1)
echo "tui-tmux: demo --speed 20 at 120x40: $bytes bytes for $events events: $((bytes / events)) bytes/event"
[ $((bytes / events)) -le 300 ] || fail "more than 300 bytes per event"
t kill-session -t ci

# 5. Quitting before the run finished exits 130.
start early demo --scenario cancel
wait_for "running" 30
t send-keys -t ci q
code=$(wait_exit early)
[ "$code" = 130 ] || fail "exit code $code after quitting a running run, want 130"

t kill-session -t ci

# 6. Cancel a run: c asks, y sends it, the service's answer is shown, the
# badge follows the trace to "cancelled", and the exit code is 3.
start cancel demo --scenario cancel --speed 4
wait_for "● running" 30
wait_for "result.json" 30
t send-keys -t ci c
wait_for "Cancel run" 5
wait_for "yes, cancel the run" 5 # the answers show once they are taken
t send-keys -t ci y
wait_for "cancel accepted by the service" 10
wait_for "Run cancelled" 30
expect "cancelled"
t send-keys -t ci c
wait_for "yes, cancel the run" 5
t send-keys -t ci y
wait_for "already cancelled (409)" 10
t send-keys -t ci q
code=$(wait_exit cancel)
[ "$code" = 3 ] || fail "exit code $code after cancelling the run, want 3"

echo "tui-tmux: ok"
