#!/usr/bin/env bash
# Benchmark: blecap against tshark and btmon on the same 1 M-frame capture, in one run, printed
# as one table (wall seconds, ratios, blecap's peak RSS), then lint DIR on 1, 2 and all cores
# beside what the machine itself gives (a process per file, as many at a time), heap
# allocations per frame, and the simulator's sessions per second. Timings belong here, in the
# README's speed section and in issue notes, never in tests.
#
#   scripts/bench.sh [--sessions N] [--notifications M] [--big] [--lint-files K] [--runs R]
#                    [--baseline BLECAP]
#
#   --big (or BENCH_10M=1)  also time blecap on a 10 M-frame capture (--sessions x10, about
#                           0.4 GB) and, for the one-connection replay rows, on one connection
#                           of 10 M notifications (both written under bench-out/ and deleted
#                           afterwards unless BENCH_KEEP=1): the "RSS 10M" and "s 10M" columns.
#                           Without it they read "-". tshark and btmon are timed at 1 M frames
#                           only.
#   --lint-files K          lint DIR over K captures of 1/K of the frames each (default 4).
#   --runs R (or BENCH_RUNS) every command, blecap's and tshark's alike, runs R times (default 3)
#                           and its row shows the fastest run (the one least disturbed by anything
#                           else on the machine) and the largest peak RSS.
#   --baseline BLECAP (or BENCH_BASELINE) an older blecap binary (a release build of the commit
#                           to compare against) timed in the same run, run for run in turn with
#                           the new one on every row it has the subcommand for: the table gains
#                           its seconds, new/base (below 1.0x is faster) and its peak RSS.
#   BENCH_FLEET=1           also the fleet rows: batch mode against the Ray pipeline (1 and 2
#                           workers) on BENCH_FLEET_COUNT (2000) generated bug reports.
set -euo pipefail
cd "$(dirname "$0")/.."
MAKE_CAPTURE=scripts/corpus/make_bench_capture.py
SESSIONS=100
NOTIFICATIONS=10000
BIG=${BENCH_10M:-0}
LINT_FILES=4
RUNS=${BENCH_RUNS:-3}
BASE=${BENCH_BASELINE:-}
while [ $# -gt 0 ]; do
  case "$1" in
    --sessions) SESSIONS=$2; shift 2 ;;
    --notifications) NOTIFICATIONS=$2; shift 2 ;;
    --big) BIG=1; shift ;;
    --lint-files) LINT_FILES=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --baseline) BASE=$2; shift 2 ;;
    *) echo "usage: $0 [--sessions N] [--notifications M] [--big] [--lint-files K] [--runs R] [--baseline BLECAP]" >&2; exit 2 ;;
  esac
done
OUT=bench-out
mkdir -p "$OUT"
capture() { [ -f "$1" ] || python3 "$MAKE_CAPTURE" "$@" >/dev/null; }
CAP="$OUT/bench-${SESSIONS}x${NOTIFICATIONS}.btsnoop"
NOCHAR="$OUT/bench-${SESSIONS}x${NOTIFICATIONS}-nochar.btsnoop"
capture "$CAP" --sessions "$SESSIONS" --notifications "$NOTIFICATIONS"
capture "$NOCHAR" --sessions "$SESSIONS" --notifications "$NOTIFICATIONS" --no-char-discovery
# Over the air: the same sessions as an nRF Sniffer capture (link type 272), the file
# `make bench-capture-ll` writes (reused from .build/bench-ll/ when it is there).
LL=".build/bench-ll/bench-${SESSIONS}x${NOTIFICATIONS}.nordic272.pcapng"
if [ ! -f "$LL" ]; then
  LL="$OUT/bench-${SESSIONS}x${NOTIFICATIONS}.nordic272.pcapng"
  [ -f "$LL" ] || python3 scripts/corpus/make_link_layer.py "$CAP" "$LL" --linktype 272 >/dev/null
fi
# One connection carrying all the notifications: what replay keeps per connection, not per session.
ONE="$OUT/bench-1x$((SESSIONS * NOTIFICATIONS)).btsnoop"
capture "$ONE" --sessions 1 --notifications "$((SESSIONS * NOTIFICATIONS))"
BIGCAP="$OUT/bench-$((SESSIONS * 10))x${NOTIFICATIONS}.btsnoop"
BIGONE="$OUT/bench-1x$((SESSIONS * NOTIFICATIONS * 10)).btsnoop"
# A connection of requests rather than notifications (about 3.1 frames a request): what replay
# keeps of a client's script and a server's answers. At 10 M frames, four such connections one
# after the other, each under replay's 2,000,000-PDU cap.
REQUESTS=$((SESSIONS * NOTIFICATIONS * 100 / 310))
REQ="$OUT/requests-1x${REQUESTS}.btsnoop"
BIGREQ="$OUT/requests-4x$((REQUESTS * 10 / 4)).btsnoop"
[ -f "$REQ" ] || python3 scripts/make_request_capture.py "$REQ" --requests "$REQUESTS" >/dev/null
if [ "$BIG" = 1 ]; then
  df -h "$OUT" | tail -n 1 | awk '{print "free space for the 10 M-frame captures: " $4}'
  capture "$BIGCAP" --sessions "$((SESSIONS * 10))" --notifications "$NOTIFICATIONS"
  capture "$BIGONE" --sessions 1 --notifications "$((SESSIONS * NOTIFICATIONS * 10))"
  [ -f "$BIGREQ" ] || python3 scripts/make_request_capture.py "$BIGREQ" --connections 4 \
    --requests "$((REQUESTS * 10 / 4))" >/dev/null
fi
BLECAP=.build/release/blecap
[ -x "$BLECAP" ] || swift build -c release --product blecap >/dev/null

if [ -n "$BASE" ]; then
  [ -x "$BASE" ] || { echo "--baseline $BASE: not an executable" >&2; exit 2; }
  echo "baseline: $BASE ($("$BASE" --version 2>/dev/null || echo "version unknown"))"
fi

# measure ID CMD... : the fastest wall seconds and the largest peak RSS (KB) of $RUNS runs, in
# SECS[ID] and RSS[ID]. measure_pair ID ARGS... does the same for blecap (ID) and the baseline
# (base-ID) in turn, run for run, so both meet the same machine.
declare -A SECS RSS
measure_once() {
  local id=$1; shift
  local log="$OUT/time-$id.txt" secs rss
  /usr/bin/time -f "%e %M" -o "$log" "$@" >/dev/null 2>"$OUT/stderr-$id.txt" || true
  read -r secs rss < <(tail -n 1 "$log")
  if [ -z "${SECS[$id]:-}" ] || [ "$(echo "$secs < ${SECS[$id]}" | bc)" = 1 ]; then SECS[$id]=$secs; fi
  if [ -z "${RSS[$id]:-}" ] || [ "$rss" -gt "${RSS[$id]}" ]; then RSS[$id]=$rss; fi
}
measure() {
  local run
  for run in $(seq 1 "$RUNS"); do measure_once "$@"; done
}
# The baseline is timed only on subcommands it has (an older binary may lack `diagnose`).
# (`BASE SUB --help` is no test: an unknown subcommand prints the root help and exits 0.)
base_has() { [ -n "$BASE" ] && "$BASE" --help 2>/dev/null | grep -qE "^  $1( |$)"; }  # (used in an if only)
measure_pair() {
  local id=$1; shift
  local run paired=0
  if base_has "$1"; then paired=1; fi
  for run in $(seq 1 "$RUNS"); do
    measure_once "$id" "$BLECAP" "$@"
    if [ "$paired" = 1 ]; then measure_once "base-$id" "$BASE" "$@"; fi
  done
}
have() { command -v "$1" >/dev/null; }

frames() { "$BLECAP" info --format json "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["frames"])'; }
echo "capture: $CAP ($(frames "$CAP") frames, $(stat -c %s "$CAP") bytes)"
echo "without characteristic discovery (btmon 5.66 crashes on it otherwise): $NOCHAR"
echo "over the air (nRF Sniffer, 272): $LL ($(frames "$LL") frames)"
echo "one connection: $ONE ($(frames "$ONE") frames); of requests: $REQ ($(frames "$REQ") frames)"
[ "$BIG" = 1 ] && echo "10 M: $BIGCAP ($(frames "$BIGCAP") frames, $(stat -c %s "$BIGCAP") bytes); one connection: $BIGONE; requests: $BIGREQ"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) before the run; $(date -u +%Y-%m-%dT%H:%MZ); best of $RUNS runs"

# Rows: ID | label | blecap arguments (FILE is the capture) | capture kind | tshark arguments | btmon?
# The tshark command is the one that does the row's work: every frame's fields for packets, the
# protocol hierarchy for info, the ATT frames for a timeline, the expert analysis for lint and
# the report; none for replay.
TSHARK_FIELDS="-T fields -e frame.number -e btatt.opcode -e btatt.handle"
TSHARK_ATT="-Y btatt -T fields -e frame.number -e btatt.opcode -e btatt.handle"
ROWS=(
  "packets|packets --format jsonl|packets --format jsonl|hci|$TSHARK_FIELDS|"
  "info|info|info|hci|-q -z io,phs|"
  "timeline|timeline --format jsonl|timeline --format jsonl|hci|$TSHARK_ATT|"
  "lint|lint|lint --fail-on never|hci|-q -z expert|"
  "diagnose|diagnose --format json|diagnose --format json|hci|-q -z expert|"
  "report|report (HTML)|report -o -|hci|-q -z expert -z io,phs|"
  "replay|replay|replay|hci||"
  "replay-max|replay --speed max|replay --speed max|hci||"
  "replay-one|replay, 1 connection|replay|one||"
  "replay-one-max|replay --speed max, 1 connection|replay --speed max|one||"
  "replay-one-out|replay --out, 1 connection|replay --out $OUT/replayed.btsnoop|one||"
  "replay-req|replay, 1 connection of requests|replay|req||"
  "replay-req-max|replay --speed max, requests|replay --speed max|req||"
  "timeline-ll|timeline, over the air (272)|timeline --format jsonl|ll|$TSHARK_ATT|"
  "packets-nochar|packets --format jsonl, nochar|packets --format jsonl|nochar|$TSHARK_FIELDS|btmon"
  "timeline-nochar|timeline --format jsonl, nochar|timeline --format jsonl|nochar|$TSHARK_ATT|btmon"
)
declare -A TSHARK_DONE
for row in "${ROWS[@]}"; do
  IFS='|' read -r id label args kind targs btmon <<<"$row"
  case $kind in hci) f=$CAP; big=$BIGCAP ;; one) f=$ONE; big=$BIGONE ;; req) f=$REQ; big=$BIGREQ ;; ll) f=$LL; big= ;; nochar) f=$NOCHAR; big= ;; esac
  # shellcheck disable=SC2086
  measure_pair "blecap-$id" $args "$f"
  if [ "$BIG" = 1 ] && [ -n "$big" ]; then
    # shellcheck disable=SC2086
    measure "blecap10-$id" "$BLECAP" $args "$big"
  fi
  if [ -n "$targs" ] && have tshark; then
    key="$f $targs"
    if [ -z "${TSHARK_DONE[$key]:-}" ]; then
      # shellcheck disable=SC2086
      measure "tshark-$id" tshark -r "$f" $targs
      TSHARK_DONE[$key]="tshark-$id"
    else
      SECS[tshark-$id]=${SECS[${TSHARK_DONE[$key]}]}; RSS[tshark-$id]=${RSS[${TSHARK_DONE[$key]}]}
    fi
  fi
  if [ -n "$btmon" ] && have btmon && [ -z "${SECS[btmon]:-}" ]; then measure btmon btmon -r "$f"; fi
done

s() { [ -n "${SECS[$1]:-}" ] && printf "%.2f" "${SECS[$1]}" || printf -- "-"; }
mb() { [ -n "${RSS[$1]:-}" ] && printf "%.0f MB" "$(echo "${RSS[$1]} / 1024" | bc -l)" || printf -- "-"; }
ratio() {
  if [ -n "${SECS[$1]:-}" ] && [ -n "${SECS[$2]:-}" ] && [ "$(echo "${SECS[$2]} > 0" | bc)" = 1 ]; then
    printf "%.1fx" "$(echo "${SECS[$1]} / ${SECS[$2]}" | bc -l)"
  else printf -- "-"; fi
}
ratio2() {
  if [ -n "${SECS[$1]:-}" ] && [ -n "${SECS[$2]:-}" ] && [ "$(echo "${SECS[$2]} > 0" | bc)" = 1 ]; then
    printf "%.2fx" "$(echo "${SECS[$1]} / ${SECS[$2]}" | bc -l)"
  else printf -- "-"; fi
}
echo
basecols() { if [ -n "$BASE" ]; then printf " %8s %9s %9s" "$@"; fi; }
printf "%-34s %9s %9s %8s %8s %8s %9s %9s %8s %10s%s\n" command "blecap s" "tshark s" "btmon s" "tshark/" "btmon/" \
  "RSS 1M" "RSS 10M" "s 10M" "tshark RSS" "$(basecols "base s" "new/base" "base RSS")"
for row in "${ROWS[@]}"; do
  IFS='|' read -r id label args kind targs btmon <<<"$row"
  bt="-"; br="-"
  if [ -n "$btmon" ]; then bt=$(s btmon); br=$(ratio btmon "blecap-$id"); fi
  printf "%-34s %9s %9s %8s %8s %8s %9s %9s %8s %10s%s\n" "$label" "$(s "blecap-$id")" "$(s "tshark-$id")" "$bt" \
    "$(ratio "tshark-$id" "blecap-$id")" "$br" "$(mb "blecap-$id")" "$(mb "blecap10-$id")" "$(s "blecap10-$id")" \
    "$(mb "tshark-$id")" "$(basecols "$(s "base-blecap-$id")" "$(ratio2 "blecap-$id" "base-blecap-$id")" "$(mb "base-blecap-$id")")"
done
echo "diagnose / lint wall time: $(ratio blecap-diagnose blecap-lint) (one capture pass each; diagnose reads events and connection ends only)"
echo "(seconds: the fastest of $RUNS runs; tshark/ and btmon/: their seconds over blecap's, higher is better for blecap; RSS: the largest peak resident set of the runs)"

# lint DIR: K captures of 1/K of the sessions each (variants: each a few notifications per session
# more than the last), about as many frames in all as the 1 M capture, linted with --jobs 1, 2 and
# one per core; the speed-up is the --jobs 1 time over each.
LINTDIR="$OUT/lint-dir-${LINT_FILES}"
mkdir -p "$LINTDIR"
for i in $(seq 1 "$LINT_FILES"); do
  capture "$LINTDIR/part-$i.btsnoop" --sessions "$((SESSIONS / LINT_FILES))" --notifications "$((NOTIFICATIONS + i))"
done
# Runs of a tenth of a second or two vary by more than the speed-up looked for: five times
# the runs here.
TABLE_RUNS=$RUNS
RUNS=$((RUNS * 5))
echo
echo "lint DIR: $LINT_FILES captures in $LINTDIR ($(for f in "$LINTDIR"/*.btsnoop; do frames "$f"; done | paste -sd+ | bc) frames in all), $(nproc) cores, best of $RUNS runs"
for j in $(printf "%s\n" 1 2 "$(nproc)" | sort -nu); do
  measure "lintdir-$j" "$BLECAP" lint --fail-on never --jobs "$j" "$LINTDIR"
  label="--jobs $j"; [ "$j" = "$(nproc)" ] && label="$label (all cores)"
  printf "  %-22s %6.2f s  %5s faster than --jobs 1  peak RSS %s\n" "$label" "${SECS[lintdir-$j]}" \
    "$(ratio lintdir-1 "lintdir-$j")" "$(mb "lintdir-$j")"
done
# What the machine itself gives: the same files linted by separate processes, one per file, J at
# a time. Nothing is shared between them but the hardware, so their speed-up is the one to hold
# --jobs J against (threads save the per-process start-up besides).
for j in $(printf "%s\n" 1 "$(nproc)" | sort -nu); do
  measure "lintprocs-$j" sh -c 'ls "$1"/*.btsnoop | xargs -P "$2" -n 1 "$3" lint --fail-on never' \
    sh "$LINTDIR" "$j" "$BLECAP"
done
printf "  %-22s %6.2f s, %s at a time %6.2f s: %5s (what the machine gives %s processes)\n" \
  "a process per file" "${SECS[lintprocs-1]}" "$(nproc)" "${SECS[lintprocs-$(nproc)]}" \
  "$(ratio lintprocs-1 "lintprocs-$(nproc)")" "$(nproc)"
RUNS=$TABLE_RUNS

# Heap allocations must not grow with the number of frames: count them on a small and on the
# large capture with an LD_PRELOAD counter.
SMALL="$OUT/bench-2x1000.btsnoop"
capture "$SMALL" --sessions 2 --notifications 1000
cc -shared -fPIC -O2 -o "$OUT/malloc_count.so" scripts/malloc_count.c -ldl
echo
for f in "$SMALL" "$CAP"; do
  n=$(frames "$f")
  for cmd in "info" "packets --format jsonl" "timeline --format jsonl"; do
    # shellcheck disable=SC2086
    allocs=$(LD_PRELOAD="$OUT/malloc_count.so" "$BLECAP" $cmd "$f" 2>&1 >/dev/null | sed -n 's/^heap allocations: //p' | tail -n 1)
    printf "heap allocations, blecap %-22s %9s frames: %s\n" "$cmd" "$n" "$allocs"
  done
done

if [ "$BIG" = 1 ] && [ "${BENCH_KEEP:-0}" != 1 ]; then rm -f "$BIGCAP" "$BIGONE" "$BIGREQ"; fi
rm -f "$OUT/replayed.btsnoop"

# Simulator sessions per second (optional: skipped when the bench binary was not built with
# `swift build -c release --product BLESimulatorBench`). Goal: >= 10,000 sessions/s.
SIMBENCH=.build/release/BLESimulatorBench
if [ -x "$SIMBENCH" ]; then echo; "$SIMBENCH" 10000 100; fi

# Fleet (optional, BENCH_FLEET=1: installs Ray, pyarrow and DuckDB from PyPI into .build/fleet-venv):
# captures per second for blecap's batch mode and for the Ray pipeline with 1 and 2 workers, on the
# same generated bug reports (scripts/fleet_bench.py).
if [ "${BENCH_FLEET:-0}" = 1 ]; then echo; python3 scripts/fleet_bench.py --blecap "$BLECAP" --count "${BENCH_FLEET_COUNT:-2000}"; fi
