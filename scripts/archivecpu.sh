#!/usr/bin/env bash
# The CPU of live watches with archiving on against off, under the same
# load: `firewatch serve` runs 2*PAIRS research runs at once (speed 1:
# about a minute each) and firewatch watches each with the default 2s
# interval, half with FIREWATCH_ARCHIVE=off, half into one archive file,
# all at the same time. Prints each watch's user+sys CPU and the sums.
#   scripts/archivecpu.sh [PAIRS]
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${1:-3}
tmp=$(mktemp -d)
trap 'kill $SP 2>/dev/null || true; rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/firewatch" .
export XDG_DATA_HOME="$tmp/xdg"
args=(); for i in $(seq $((2 * PAIRS))); do args+=(--scenario research); done
"$tmp/firewatch" serve --speed 1 --rate-limit -1 "${args[@]}" > "$tmp/env" 2>/dev/null &
SP=$!
sleep 1
set -a; . "$tmp/env"; set +a
mapfile -t JOBS < <(grep JOB_ID "$tmp/env" | cut -d= -f2)
i=0
for j in "${JOBS[@]}"; do
  mode=off; [ $((i % 2)) = 1 ] && mode="$tmp/a.db"
  ( /usr/bin/time -f "%U %S" -o "$tmp/cpu-$i" "$tmp/firewatch" watch "$j" -o plain --archive "$mode" >/dev/null 2>&1 || true ) &
  i=$((i + 1))
done
wait $(jobs -p | grep -v "^$SP$") 2>/dev/null || true
off=0; on=0
for k in $(seq 0 $((i - 1))); do
  c=$(awk '{printf "%.2f", $1+$2}' "$tmp/cpu-$k")
  if [ $((k % 2)) = 1 ]; then echo "on  $c s"; on=$(echo "$on + $c" | bc); else echo "off $c s"; off=$(echo "$off + $c" | bc); fi
done
echo "sum off $off s, on $on s, ratio $(echo "scale=2; $on / $off" | bc)"
