#!/usr/bin/env bash
# The watch screen's frame rate, measured in a real terminal: for each FPS, a build with that cap runs
# `firewatch demo --speed 20` in tmux at 120x40 and reports
#   - bytes/event: every byte the UI wrote during the whole run (pipe-pane) over the run's events;
#   - idle wake-ups/s: context switches of all the process's threads over 10 s once the run is over;
#   - key ms: time from send-keys '?' until the help shows in capture-pane (median and max of N tries);
#     the polling loop itself takes a few ms, so the figures are upper bounds.
# Usage: scripts/fpsbench.sh [-fps "10 15 20 30 60"] [-tries 20]
set -euo pipefail
cd "$(dirname "$0")/.."
fpss="10 15 20 30 60"; tries=20
while [ $# -gt 0 ]; do
  case $1 in
    -fps) fpss=$2; shift 2 ;;
    -tries) tries=$2; shift 2 ;;
    *) echo "usage: $0 [-fps LIST] [-tries N]" >&2; exit 2 ;;
  esac
done
tmp=$(mktemp -d)
sock="fw-fps-$$"
t() { tmux -L "$sock" "$@"; }
trap 't kill-server >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
screen() { t capture-pane -p -t b; }
wait_for() { local d=$((SECONDS + ${2:-60})); until screen | grep -qF -- "$1"; do [ $SECONDS -lt $d ] || { echo "timed out waiting for $1" >&2; screen >&2; exit 1; }; sleep 0.05; done; }
ctxsw() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/ctxt_switches/ { n += $2 } END { print n + 0 }'; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

printf '%-5s %12s %16s %10s %10s\n' fps bytes/event idle-wakeups/s key-med-ms key-max-ms
for fps in $fpss; do
  go build -ldflags "-X github.com/firewatch/firewatch/ui/internal/program.fps=$fps" -o "$tmp/fw-$fps" .
  rm -f "$tmp/bytes" "$tmp/go" "$tmp/summary.json"
  t new-session -d -s b -x 120 -y 40 \
    "while [ ! -f $tmp/go ]; do sleep 0.05; done; exec env LANG=C.UTF-8 TERM=xterm-256color $tmp/fw-$fps demo --speed 20 --summary $tmp/summary.json; sleep 600"
  t set-option -t b window-size manual >/dev/null
  t pipe-pane -t b -o "cat >> $tmp/bytes"
  touch "$tmp/go"
  wait_for "watch ended" 120
  sleep 1
  bytes=$(wc -c < "$tmp/bytes")
  pid=$(t list-panes -t b -F '#{pane_pid}')
  c0=$(ctxsw "$pid"); sleep 10; c1=$(ctxsw "$pid")
  lat=()
  for _ in $(seq "$tries"); do
    s=$(now_ms); t send-keys -t b '?'
    until screen | grep -qF "Symbols"; do :; done
    lat+=($(( $(now_ms) - s )))
    t send-keys -t b Escape
    until ! screen | grep -qF "Symbols"; do :; done
    sleep 0.1
  done
  t send-keys -t b q
  for _ in $(seq 100); do [ -s "$tmp/summary.json" ] && break; sleep 0.1; done
  events=$(sed -n 's/.*"eventCount": *\([0-9]*\).*/\1/p' "$tmp/summary.json" | head -1)
  sorted=$(printf '%s\n' "${lat[@]}" | sort -n)
  med=$(echo "$sorted" | sed -n "$(( (tries + 1) / 2 ))p"); max=$(echo "$sorted" | tail -1)
  printf '%-5s %12s %16s %10s %10s\n' "$fps" $((bytes / events)) "$(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.1f", (b - a) / 10 }')" "$med" "$max"
  t kill-session -t b 2>/dev/null || true
done
