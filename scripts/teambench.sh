#!/usr/bin/env bash
# One poll per run across a team: the trace requests per minute the service
# sees with 1, 3 and 10 firewatch processes following one live run, with
# no archive (each polls on its own) and with a shared one (SQLite; and
# PostgreSQL when FIREWATCH_TEST_POSTGRES is set, in a schema of its own),
# and each follower's delay in showing an event against the leaseholder
# (median and worst over every event and follower).
#   scripts/teambench.sh [SPEED] [INTERVAL]
# `firewatch serve` hosts one research run per configuration (SPEED 2:
# about 30 s each), all at once; every process is `watch -o json
# --interval INTERVAL` (default 1s), each line stamped when it arrives.
set -euo pipefail
cd "$(dirname "$0")/.."
SPEED=${1:-2}
INTERVAL=${2:-1s}
tmp=$(mktemp -d)
SCHEMA=""
cleanup() {
  kill "$SP" 2>/dev/null || true
  if [ -n "$SCHEMA" ]; then psql "$FIREWATCH_TEST_POSTGRES" -qc "DROP SCHEMA $SCHEMA CASCADE" >/dev/null 2>&1 || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
CGO_ENABLED=0 go build -o "$tmp/firewatch" .
export XDG_DATA_HOME="$tmp/xdg"

modes=(off sqlite)
if [ -n "${FIREWATCH_TEST_POSTGRES:-}" ]; then
  SCHEMA="fw_teambench_$$"
  psql "$FIREWATCH_TEST_POSTGRES" -qc "CREATE SCHEMA $SCHEMA" >/dev/null
  sep='?'; case "$FIREWATCH_TEST_POSTGRES" in *\?*) sep='&';; esac
  PGDSN="$FIREWATCH_TEST_POSTGRES${sep}search_path=$SCHEMA"
  modes+=(postgres)
fi
configs=()
for m in "${modes[@]}"; do for n in 1 3 10; do configs+=("$m:$n"); done; done

args=(); for _ in "${configs[@]}"; do args+=(--scenario research); done
"$tmp/firewatch" serve --speed "$SPEED" --rate-limit -1 "${args[@]}" > "$tmp/env" 2> "$tmp/sim.log" &
SP=$!
for _ in $(seq 50); do grep -q JOB_ID "$tmp/env" 2>/dev/null && [ "$(grep -c JOB_ID "$tmp/env")" = "${#configs[@]}" ] && break; sleep 0.1; done
set -a; . "$tmp/env"; set +a
mapfile -t JOBS < <(grep JOB_ID "$tmp/env" | cut -d= -f2)

stamp() { perl -MTime::HiRes=time -ne '$|=1; printf "%.3f %s", time, $_'; }
pids=()
i=0
for c in "${configs[@]}"; do
  m=${c%%:*}; n=${c##*:}; job=${JOBS[$i]}; d="$tmp/$m-$n"; mkdir -p "$d"
  case $m in off) dsn=off;; sqlite) dsn="$d/team.db";; postgres) dsn="$PGDSN";; esac
  for p in $(seq "$n"); do
    ( "$tmp/firewatch" watch "$job" -o json --interval "$INTERVAL" --archive "$dsn" --debug "$d/debug-$p.log" 2>"$d/err-$p" | stamp > "$d/out-$p" ) &
    pids+=($!)
  done
  echo "$c $job" >> "$tmp/configs"
  i=$((i + 1))
done
wait "${pids[@]}" || true

python3 - "$tmp" <<'EOF'
import json, os, re, statistics, sys
from datetime import datetime
tmp = sys.argv[1]
log = open(os.path.join(tmp, "sim.log")).read().splitlines()
def t(s): return datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()
print(f"{'config':14} {'traces':>6} {'minutes':>7} {'trace req/min':>13}  follower delay (median / worst, ms)")
for line in open(os.path.join(tmp, "configs")):
    conf, job = line.split()
    mode, n = conf.split(":")
    times = [t(l.split()[0]) for l in log if f"/v2/agent/{job}/trace" in l]
    mins = (max(times) - min(times)) / 60 if len(times) > 1 else 0
    d = os.path.join(tmp, f"{mode}-{n}")
    arrivals = {}
    for p in range(1, int(n) + 1):
        seen = {}
        for l in open(os.path.join(d, f"out-{p}")):
            at, _, rest = l.partition(" ")
            try:
                e = json.loads(rest)
            except ValueError:
                continue
            if "eventId" in e:
                seen.setdefault(e["eventId"], float(at))
        arrivals[p] = seen
    delay = "-"
    if mode != "off" and int(n) > 1:
        holder = None
        for p in range(1, int(n) + 1):
            if re.search(r"lease: took the lease of run", open(os.path.join(d, f"debug-{p}.log")).read()):
                holder = p
                break
        if holder:
            ds = [1000 * (s[e] - arrivals[holder][e]) for p, s in arrivals.items() if p != holder for e in s if e in arrivals[holder]]
            if ds:
                delay = f"{statistics.median(ds):.0f} / {max(ds):.0f} (holder {holder}, {len(ds)} events)"
    rate = f"{len(times) / mins:.1f}" if mins else "-"
    print(f"{conf:14} {len(times):6} {mins:7.2f} {rate:>13}  {delay}")
EOF
