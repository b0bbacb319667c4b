#!/usr/bin/env bash
# The hub through a real ssh client: `firewatch serve` is the service,
# `firewatch hub` serves it, and OpenSSH's ssh in tmux logs in. At 120x40
# as an operator: the runs screen appears, enter shows the processing run,
# esc comes back, q ends the session with 0 and the pane shows the shell
# again. At 80x24 as a viewer with NO_COLOR sent: c is refused, q quits.
# Then command sessions (runs -o json, --help), refused ones (exit 2), and the
# hub's log: one line per login and logout. Called from .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in tmux ssh ssh-keygen; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "$tool not found: skipping the hub test"
    exit 0
  fi
done

tmp=$(mktemp -d)
# One tmux server per terminal size: killing a server and starting another
# on the same socket at once races ("server exited unexpectedly").
base="fw-hub-$$"
sock="$base"
t() { tmux -L "$sock" "$@"; }
pids=()
cleanup() {
  for s in 120x40 80x24; do tmux -L "$base-$s" kill-server >/dev/null 2>&1 || true; done
  for p in "${pids[@]}"; do kill "$p" >/dev/null 2>&1 || true; done
  wait >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/firewatch" .

name=hub-tmux
# shellcheck source=.ci/tmux-lib.sh
. .ci/tmux-lib.sh
hubfail() { echo "--- hub log:"; cat "$tmp/hub.log"; fail "$@"; }

# The service.
"$tmp/firewatch" serve --addr 127.0.0.1:0 --scenario cancel --history 5 >"$tmp/serve.env" 2>"$tmp/serve.log" &
pids+=($!)
for _ in $(seq 100); do grep -q '^JOB_ID=' "$tmp/serve.env" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/^FIRECRAWL_API_URL=//p' "$tmp/serve.env")
key=$(sed -n 's/^FIRECRAWL_API_KEY=//p' "$tmp/serve.env")
job=$(sed -n 's/^JOB_ID=//p' "$tmp/serve.env" | head -1)
[ -n "$url" ] && [ -n "$key" ] && [ -n "$job" ] || { cat "$tmp/serve.log"; echo "$name: firewatch serve did not start"; exit 1; }

# The people: alice an operator, bob a viewer.
ssh-keygen -q -t ed25519 -N '' -C alice -f "$tmp/alice"
ssh-keygen -q -t ed25519 -N '' -C bob -f "$tmp/bob"
cp "$tmp/alice.pub" "$tmp/operators"
cp "$tmp/bob.pub" "$tmp/viewers"
printf '%s\n' "$key" >"$tmp/key"
chmod 600 "$tmp/key" "$tmp/operators" "$tmp/viewers"

# The hub, its service and key from its flags alone, its host key made now.
env -u FIRECRAWL_API_KEY -u FIRECRAWL_API_URL XDG_DATA_HOME="$tmp/data" "$tmp/firewatch" hub --listen 127.0.0.1:0 \
  --api-url "$url" --key-file "$tmp/key" --interval 1s --authorized-keys "$tmp/viewers" --operators "$tmp/operators" 2>"$tmp/hub.log" &
hub=$!
pids+=("$hub")
for _ in $(seq 100); do grep -q 'listening on' "$tmp/hub.log" && break; sleep 0.1; done
port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$tmp/hub.log")
[ -n "$port" ] || { cat "$tmp/hub.log"; echo "$name: the hub did not start"; exit 1; }
hostkey="$tmp/data/firewatch/hub_ed25519"
[ "$(stat -c %a "$hostkey")" = 600 ] || { echo "$name: host key mode $(stat -c %a "$hostkey")"; exit 1; }
fp=$(ssh-keygen -lf "$hostkey.pub" | awk '{print $2}')
grep -qF "host key $fp" "$tmp/hub.log" || { cat "$tmp/hub.log"; echo "$name: the printed fingerprint is not $fp"; exit 1; }
echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$hostkey.pub")" >"$tmp/known_hosts"

sshargs="-p $port -o IdentitiesOnly=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile=$tmp/known_hosts -o LogLevel=ERROR"

# A shell in tmux whose prompt tells it is back.
prompt() { screen | grep -c '^hubci\$' || true; }
session() { # WxH
  t kill-server >/dev/null 2>&1 || true
  sock="$base-$1"
  t new-session -d -s ci -x "${1%x*}" -y "${1#*x}" "env PS1='hubci\$ ' bash --norc --noprofile"
  wait_for 'hubci$' 10
}
back_to_shell() { # the pane shows the shell again, and ssh exited 0
  local before=$1 deadline=$((SECONDS + 10))
  until [ "$(prompt)" -gt "$before" ]; do
    [ $SECONDS -lt $deadline ] || hubfail "the shell did not come back"
    sleep 0.2
  done
  t send-keys -t ci 'echo ssh-exit=$?' Enter
  wait_for "ssh-exit=0" 5
}

# 120x40, alice (operator).
session 120x40
t send-keys -t ci "ssh $sshargs -i $tmp/alice -o SetEnv=LANG=C.UTF-8 127.0.0.1" Enter
wait_for "loaded" 20
wait_for "● processing" 10
before=$(prompt)
t send-keys -t ci Enter
wait_for "Agents" 20
wait_for "esc runs" 5
t send-keys -t ci Escape
wait_for "loaded" 20
t send-keys -t ci q
back_to_shell "$before"
echo "hub-tmux: 120x40 operator ok (runs screen, $job opened, back, q gave the shell back)"

# 80x24, bob (viewer), NO_COLOR.
session 80x24
t send-keys -t ci "ssh $sshargs -i $tmp/bob -o SetEnv='LANG=C.UTF-8 NO_COLOR=1' 127.0.0.1" Enter
wait_for "loaded" 20
before=$(prompt)
t send-keys -t ci c
wait_for "only the hub's operators" 5
t send-keys -t ci q
back_to_shell "$before"
echo "hub-tmux: 80x24 viewer ok (c refused, q gave the shell back)"

# Sessions without a PTY.
ssh $sshargs -i "$tmp/bob" 127.0.0.1 runs -o json >"$tmp/runs.json" || hubfail "runs -o json: exit $?"
[ "$(wc -l <"$tmp/runs.json")" -eq 6 ] || hubfail "runs -o json: $(wc -l <"$tmp/runs.json") lines, want 6"
set +e
ssh $sshargs -i "$tmp/bob" 127.0.0.1 watch "$job" --record /tmp/x 2>"$tmp/refused"
code=$?
set -e
[ "$code" = 2 ] || hubfail "watch --record: exit $code, want 2"
grep -q "writes a file on the hub's host" "$tmp/refused" || hubfail "watch --record said: $(cat "$tmp/refused")"
set +e
ssh $sshargs -i "$tmp/bob" 127.0.0.1 watch "$job" --interval 500ms 2>"$tmp/refused"
code=$?
set -e
[ "$code" = 2 ] || hubfail "watch --interval 500ms: exit $code, want 2"
grep -q "no faster than the hub, every 1s" "$tmp/refused" || hubfail "watch --interval 500ms said: $(cat "$tmp/refused")"
ssh $sshargs -i "$tmp/bob" 127.0.0.1 runs --help >"$tmp/help" 2>&1 || hubfail "runs --help: exit $?: $(cat "$tmp/help")"
grep -q "^Usage:" "$tmp/help" || hubfail "runs --help printed no usage: $(cat "$tmp/help")"
ssh $sshargs -i "$tmp/bob" 127.0.0.1 watch -h >"$tmp/help" 2>&1 || hubfail "watch -h: exit $?: $(cat "$tmp/help")"
echo "hub-tmux: commands ok (runs -o json; runs --help and watch -h exit 0; --record and an --interval under the hub's refused with 2)"

# The log: logins and logouts, by name; never the key.
for want in 'login alice (operator' 'logout alice (operator' 'login bob (viewer' 'logout bob (viewer'; do
  grep -qF "$want" "$tmp/hub.log" || hubfail "the hub's log has no \"$want\""
done
if grep -qF "$key" "$tmp/hub.log"; then hubfail "the hub's log holds the key"; fi

# SIGTERM: the hub stops with 0.
kill -TERM "$hub"
set +e
wait "$hub"
code=$?
set -e
[ "$code" = 0 ] || hubfail "the hub exited $code on SIGTERM"
echo "hub-tmux: SIGTERM stopped the hub with 0"
