#!/usr/bin/env bash
# The runs screen in a real terminal: tmux at 120x40 runs the built binary's
# `demo --history 45` (the runs screen of the in-process simulator): the
# list shows the processing run first and says more pages are below; j j
# moves to the third run; enter opens it in the watch screen; esc comes back
# to the list with the selection on the same run; tab shows the team tab
# with the crawls' options (a v1 leftover flagged); q quits with 0. Then at
# 80x24 with NO_COLOR. Called from .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v tmux >/dev/null 2>&1; then
  echo "tmux not found: skipping the runs screen test"
  exit 0
fi

tmp=$(mktemp -d)
sock="fw-runs-$$"
t() { tmux -L "$sock-$size" "$@"; }
size=""
cleanup() { for s in 120x40 80x24; do tmux -L "$sock-$s" kill-server >/dev/null 2>&1 || true; done; rm -rf "$tmp"; }
trap cleanup EXIT

go build -o "$tmp/firewatch" .

name=runs-tmux
# shellcheck source=.ci/tmux-lib.sh
. .ci/tmux-lib.sh
# selected: the id in the details pane (the line after the rule).
selected() { screen | grep -A1 -- '────' | tail -1 | tr -d ' '; }

for size in 120x40 80x24; do
  w=${size%x*} h=${size#*x}
  env=""
  [ "$size" = 80x24 ] && env="NO_COLOR=1"
  t new-session -d -s ci -x "$w" -y "$h" \
    "env LANG=C.UTF-8 TERM=xterm-256color $env $tmp/firewatch demo --history 45 --scenario cancel; echo \$? > $tmp/exit-$size; sleep 600"
  wait_for "more below" 20
  wait_for "status   ● processing" 10
  screen | sed -n 3p | grep -qF "● processing" || fail "the processing run is not first"
  t send-keys -t ci j j
  sleep 0.5
  sel=$(selected)
  [ ${#sel} -eq 36 ] || fail "no run id in the details pane ($sel)"
  t send-keys -t ci Enter
  wait_for "Agents" 20
  wait_for "esc runs" 5
  t send-keys -t ci Escape
  wait_for "more below" 20
  sleep 0.5
  [ "$(selected)" = "$sel" ] || fail "back on $(selected), want $sel"
  t send-keys -t ci Tab
  wait_for "Active crawls (4)" 10
  wait_for "tokens left" 5
  t send-keys -t ci j j j
  wait_for "renamed: v1" 5
  t send-keys -t ci q
  deadline=$((SECONDS + 10))
  until [ -s "$tmp/exit-$size" ]; do
    [ $SECONDS -lt $deadline ] || fail "q did not quit"
    sleep 0.1
  done
  [ "$(cat "$tmp/exit-$size")" = 0 ] || fail "exit $(cat "$tmp/exit-$size")"
  t kill-server >/dev/null 2>&1 || true
  echo "runs-tmux: $size ok (list, open $sel, back on it, team tab)"
done
