#!/usr/bin/env bash
# Benchmark: blecap against tshark and btmon on the same 1 M-frame capture, in one run.
# Prints wall time, peak RSS and ratios. Timings belong here and in issue notes, never in tests.
#   scripts/bench.sh [--sessions N] [--notifications M]
set -euo pipefail
cd "$(dirname "$0")/.."
MAKE_CAPTURE=scripts/corpus/make_bench_capture.py
SESSIONS=100
NOTIFICATIONS=10000
while [ $# -gt 0 ]; do
  case "$1" in
    --sessions) SESSIONS=$2; shift 2 ;;
    --notifications) NOTIFICATIONS=$2; shift 2 ;;
    *) echo "usage: $0 [--sessions N] [--notifications M]" >&2; exit 2 ;;
  esac
done
OUT=bench-out
mkdir -p "$OUT"
CAP="$OUT/bench-${SESSIONS}x${NOTIFICATIONS}.btsnoop"
NOCHAR="$OUT/bench-${SESSIONS}x${NOTIFICATIONS}-nochar.btsnoop"
[ -f "$CAP" ] || python3 "$MAKE_CAPTURE" "$CAP" --sessions "$SESSIONS" --notifications "$NOTIFICATIONS"
[ -f "$NOCHAR" ] || python3 "$MAKE_CAPTURE" "$NOCHAR" --sessions "$SESSIONS" --notifications "$NOTIFICATIONS" --no-char-discovery
BLECAP=.build/release/blecap
[ -x "$BLECAP" ] || swift build -c release >/dev/null

# run NAME CMD... : prints "NAME seconds peakKB" and records them.
declare -A SECS RSS
run() {
  local name=$1; shift
  local log="$OUT/time-$name.txt"
  /usr/bin/time -f "%e %M" -o "$log" "$@" >/dev/null 2>"$OUT/stderr-$name.txt" || true
  read -r s kb < <(tail -n 1 "$log")
  SECS[$name]=$s; RSS[$name]=$kb
  printf "%-28s %8.2f s %9.1f MB\n" "$name" "$s" "$(echo "$kb/1024" | bc -l)"
}

echo "capture: $CAP ($(stat -c %s "$CAP") bytes)"
run blecap-packets-jsonl "$BLECAP" packets --format jsonl "$CAP"
run blecap-packets-text "$BLECAP" packets "$CAP"
run blecap-info "$BLECAP" info "$CAP"
run blecap-timeline-jsonl "$BLECAP" timeline --format jsonl "$CAP"
run blecap-lint "$BLECAP" lint --fail-on never "$CAP"
run tshark-fields tshark -r "$CAP" -T fields -e frame.number -e btatt.opcode -e btatt.handle
echo "capture without characteristic discovery (btmon 5.66 crashes on it otherwise): $NOCHAR"
run blecap-packets-jsonl-nochar "$BLECAP" packets --format jsonl "$NOCHAR"
run blecap-timeline-jsonl-nochar "$BLECAP" timeline --format jsonl "$NOCHAR"
run btmon-nochar btmon -r "$NOCHAR"
run tshark-fields-nochar tshark -r "$NOCHAR" -T fields -e frame.number -e btatt.opcode -e btatt.handle

# Heap allocations must not grow with the number of frames: count them on a small and on the
# large capture with an LD_PRELOAD counter.
SMALL="$OUT/bench-2x1000.btsnoop"
[ -f "$SMALL" ] || python3 "$MAKE_CAPTURE" "$SMALL" --sessions 2 --notifications 1000 >/dev/null
cc -shared -fPIC -O2 -o "$OUT/malloc_count.so" scripts/malloc_count.c -ldl
echo
for f in "$SMALL" "$CAP"; do
  frames=$("$BLECAP" info --format json "$f" | python3 -c 'import json,sys; print(json.load(sys.stdin)["frames"])')
  for cmd in "info" "packets --format jsonl" "timeline --format jsonl"; do
    allocs=$(LD_PRELOAD="$OUT/malloc_count.so" "$BLECAP" $cmd "$f" 2>&1 >/dev/null | sed -n 's/^heap allocations: //p' | tail -n 1)
    printf "heap allocations, blecap %-22s %9s frames: %s\n" "$cmd" "$frames" "$allocs"
  done
done

# Over the air: the same 1 M-notification session set as an nRF Sniffer capture (link type 272) made
# by make_link_layer.py (`make bench-capture-ll`); blecap timeline against tshark's ATT fields.
LL="$OUT/bench-${SESSIONS}x${NOTIFICATIONS}.nordic272.pcapng"
[ -f "$LL" ] || python3 scripts/corpus/make_link_layer.py "$CAP" "$LL" --linktype 272 >/dev/null
echo
echo "over-the-air capture: $LL ($(stat -c %s "$LL") bytes)"
run blecap-timeline-jsonl-ll "$BLECAP" timeline --format jsonl "$LL"
run tshark-btatt-fields-ll tshark -r "$LL" -Y btatt -T fields -e frame.number -e btatt.opcode -e btatt.handle

ratio() { echo "scale=1; ${SECS[$1]} / ${SECS[$2]}" | bc -l 2>/dev/null || echo "n/a"; }
echo
echo "tshark / blecap packets --format jsonl: $(ratio tshark-fields blecap-packets-jsonl)x"
echo "tshark / blecap info:                  $(ratio tshark-fields blecap-info)x"
echo "tshark / blecap timeline --format jsonl: $(ratio tshark-fields blecap-timeline-jsonl)x"
echo "tshark / blecap lint:                  $(ratio tshark-fields blecap-lint)x"
echo "btmon / blecap timeline (nochar):      $(ratio btmon-nochar blecap-timeline-jsonl-nochar)x"
echo "btmon / blecap packets (nochar):       $(ratio btmon-nochar blecap-packets-jsonl-nochar)x"
echo "tshark / blecap packets (nochar):      $(ratio tshark-fields-nochar blecap-packets-jsonl-nochar)x"
echo "tshark -Y btatt / blecap timeline (over the air): $(ratio tshark-btatt-fields-ll blecap-timeline-jsonl-ll)x"

# Simulator sessions per second (optional: skipped when the bench binary was not built with
# `swift build -c release --product BLESimulatorBench`). Goal: >= 10,000 sessions/s.
SIMBENCH=.build/release/BLESimulatorBench
if [ -x "$SIMBENCH" ]; then echo; "$SIMBENCH" 10000 100; fi
