#!/usr/bin/env bash
# The CPU of a live watch with archiving on against off, and the archive's
# bytes on disk per event against the trace's JSON.
#   scripts/archivebench.sh [SCENARIO] [ROUNDS]
# Builds firewatch, starts `firewatch serve` and watches the same run
# (plain output to /dev/null, 250ms polls) with FIREWATCH_ARCHIVE=off and
# with a fresh archive file, alternately, ROUNDS times each; prints each
# watch's user+sys CPU and the medians.
set -euo pipefail
cd "$(dirname "$0")/.."
SCEN=${1:-research}
ROUNDS=${2:-5}
tmp=$(mktemp -d)
trap 'kill $SP 2>/dev/null || true; rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/firewatch" .
export XDG_DATA_HOME="$tmp/xdg"
"$tmp/firewatch" serve --speed 4 --rate-limit -1 --scenario "$SCEN" > "$tmp/env" 2>/dev/null &
SP=$!
sleep 1
set -a; . "$tmp/env"; set +a
JOB=$(grep JOB_ID "$tmp/env" | head -1 | cut -d= -f2)
# Let the run finish first: every watch then sees the same polls.
"$tmp/firewatch" watch "$JOB" -o plain --archive off >/dev/null || true
cpu() { /usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.3f\n", $1+$2}'; }
off=(); on=()
for i in $(seq "$ROUNDS"); do
  off+=("$(cpu "$tmp/firewatch" watch "$JOB" -o plain --interval 250ms --archive off)")
  rm -f "$tmp/a.db"*
  on+=("$(cpu "$tmp/firewatch" watch "$JOB" -o plain --interval 250ms --archive "$tmp/a.db")")
done
med() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "archiving off: ${off[*]} s  (median $(med "${off[@]}"))"
echo "archiving on:  ${on[*]} s  (median $(med "${on[@]}"))"
trace=$(curl -s -H "Authorization: Bearer $FIRECRAWL_API_KEY" "$FIRECRAWL_API_URL/v2/agent/$JOB/trace" | wc -c)
events=$(sqlite3 "$tmp/a.db" "select events from fw_runs" 2>/dev/null || echo "?")
pollb=$(sqlite3 "$tmp/a.db" "select poll_bytes from fw_runs" 2>/dev/null || echo "?")
"$tmp/firewatch" version >/dev/null
sqlite3 "$tmp/a.db" "pragma wal_checkpoint(TRUNCATE)" >/dev/null 2>&1 || true
file=$(stat -c %s "$tmp/a.db")
echo "events $events; trace JSON $trace B ($((trace / events)) B/event); polls stored $pollb B ($((pollb / events)) B/event); archive file $file B ($((file / events)) B/event, pages included)"
