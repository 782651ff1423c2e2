#!/usr/bin/env bash
# Runs two blecap binaries over every capture in captures/ and compares what they print,
# byte for byte: a refactoring that must not change any output is checked with
#
#   scripts/compare_outputs.sh OLD_BLECAP NEW_BLECAP
#
# Per capture: packets (text, text --verbose, json, jsonl), timeline, gatt and info (text,
# json, jsonl), lint in every --format, replay (text, json, jsonl) and the btsnoop that
# `replay --out` writes. Standard output, standard error and the exit status are compared.
# When two JSON/JSONL/SARIF outputs differ as bytes but parse to equal documents (python3
# `json`), or two lint reports differ only in the elapsed time they print, the case counts as
# "equal once parsed or times masked" and is listed, not failed. (The HTML report embeds its
# data as JSON whose key order changes from run to run of the same binary: it is compared
# parsed.)
#
# The simulator benchmark's `--dump` (its trace and the FNV-1a hash of its btsnoop export) is
# compared too, from BLESimulatorBench next to each blecap, or from OLD_BENCH / NEW_BENCH in
# the environment; it is skipped (and said so) when either is missing.
#
# Prints one line per difference and a summary; exits 1 on any difference, 2 on bad usage.
set -u

if [ $# -ne 2 ] || [ ! -x "$1" ] || [ ! -x "$2" ]; then
    echo "usage: $0 OLD_BLECAP NEW_BLECAP (both executable)" >&2
    exit 2
fi
old=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
new=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
old_bench=${OLD_BENCH:-$(dirname "$old")/BLESimulatorBench}
new_bench=${NEW_BENCH:-$(dirname "$new")/BLESimulatorBench}

cd "$(dirname "$0")/.." || exit 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cases=0 same=0 json_same=0 differ=0
json_listed=""

# same KIND A B: 0 when the files are identical; 3 when they are equal once parsed (KIND json:
# one document; jsonl: one per line; html: the page with its embedded JSON data parsed) or
# once wall-clock durations are masked (KIND lint: ", 0.001 s" after the frame count, JUnit
# time="…"; the linter reports how long it took, which no two runs share); 1 otherwise.
same() {
    cmp -s "$2" "$3" && return 0
    python3 - "$1" "$2" "$3" <<'PY'
import json, re, sys
kind, a, b = sys.argv[1:4]
def text(p):
    return open(p, encoding="utf-8", errors="surrogateescape").read()
def mask(t):
    t = re.sub(r"(frames?, )[0-9]+\.[0-9]+ s", r"\1<elapsed> s", t)
    return re.sub(r'time="[0-9.]+"', 'time="<elapsed>"', t)
def load(p):
    t = text(p)
    if kind == "jsonl":
        return [json.loads(l) for l in t.splitlines() if l.strip()]
    if kind == "json":
        return json.loads(t)
    if kind == "html":
        t = mask(t)
        data = re.findall(r'(<script id="blecap-data" type="application/json">)(.*?)(</script>)', t, re.S)
        rest = re.sub(r'(<script id="blecap-data" type="application/json">)(.*?)(</script>)', r"\1\3", t, flags=re.S)
        return rest, [json.loads(d[1]) for d in data]
    return mask(t)
try:
    sys.exit(3 if load(a) == load(b) else 1)
except Exception:
    sys.exit(1)
PY
}

# check NAME KIND (text|json|jsonl) -- ARGS...: runs both binaries with ARGS in the same
# directory (so paths they print agree) and compares. A file named by `--out` is compared too.
check() {
    local name=$1 kind=$2
    shift 3
    cases=$((cases + 1))
    local out_file=""
    local prev=""
    for a in "$@"; do
        [ "$prev" = "--out" ] && out_file=$a
        prev=$a
    done
    for side in old new; do
        local bin=$old
        [ $side = new ] && bin=$new
        rm -f "$out_file" 2>/dev/null
        "$bin" "$@" >"$work/$side.out" 2>"$work/$side.err" </dev/null
        echo $? >"$work/$side.rc"
        if [ -n "$out_file" ]; then
            if [ -f "$out_file" ]; then mv "$out_file" "$work/$side.file"; else : >"$work/$side.file"; fi
        fi
    done
    local problem="" json_note="" r
    cmp -s "$work/old.rc" "$work/new.rc" || problem="$problem exit($(cat "$work/old.rc")->$(cat "$work/new.rc"))"
    local err_kind=text
    case "$name" in *" lint "*) err_kind=lint ;; esac
    same $err_kind "$work/old.err" "$work/new.err"
    r=$?
    [ $r = 1 ] && problem="$problem stderr"
    [ $r = 3 ] && json_note=yes
    if [ -n "$out_file" ] && ! cmp -s "$work/old.file" "$work/new.file"; then problem="$problem out-file"; fi
    same "$kind" "$work/old.out" "$work/new.out"
    r=$?
    [ $r = 1 ] && problem="$problem stdout"
    [ $r = 3 ] && json_note=yes
    if [ -n "$problem" ]; then
        differ=$((differ + 1))
        echo "DIFF  $name:$problem"
        if [[ "$problem" == *stdout* ]]; then
            diff <(head -c 200000 "$work/old.out") <(head -c 200000 "$work/new.out") | head -8 | cut -c1-240 | sed 's/^/      /'
        fi
    elif [ -n "$json_note" ]; then
        json_same=$((json_same + 1))
        json_listed="$json_listed\n      $name"
    else
        same=$((same + 1))
    fi
}

captures=$(find captures -type f \( -name '*.btsnoop' -o -name '*.log' -o -name '*.pcap' -o -name '*.pcapng' \
    -o -name '*.pklg' -o -name '*magicintheair*' \) | sort)
n=0
for c in $captures; do
    n=$((n + 1))
    check "$c packets text" text -- packets "$c"
    check "$c packets text -v" text -- packets "$c" --verbose
    check "$c packets json" json -- packets "$c" --format json
    check "$c packets jsonl" jsonl -- packets "$c" --format jsonl
    for cmd in timeline gatt info replay; do
        check "$c $cmd text" text -- $cmd "$c"
        check "$c $cmd json" json -- $cmd "$c" --format json
        check "$c $cmd jsonl" jsonl -- $cmd "$c" --format jsonl
    done
    check "$c replay --out" text -- replay "$c" --out "$work/replay.btsnoop"
    for f in text json sarif junit github markdown html; do
        k=lint
        [ $f = json ] || [ $f = sarif ] && k=json
        [ $f = html ] && k=html
        check "$c lint $f" $k -- lint "$c" --format $f
    done
done

bench_note="BLESimulatorBench --dump: skipped (missing $old_bench or $new_bench)"
if [ -x "$old_bench" ] && [ -x "$new_bench" ]; then
    "$old_bench" --dump >"$work/bench.old" 2>&1
    "$new_bench" --dump >"$work/bench.new" 2>&1
    cases=$((cases + 1))
    hash_old=$(grep -i 'fnv\|hash' "$work/bench.old" | tail -1)
    hash_new=$(grep -i 'fnv\|hash' "$work/bench.new" | tail -1)
    if cmp -s "$work/bench.old" "$work/bench.new"; then
        same=$((same + 1))
        bench_note="BLESimulatorBench --dump: identical ($hash_new)"
    elif [ "$hash_old" = "$hash_new" ] && grep '^{' "$work/bench.old" >"$work/b.old" && grep '^{' "$work/bench.new" >"$work/b.new" \
        && { same jsonl "$work/b.old" "$work/b.new"; [ $? != 1 ]; }; then
        json_same=$((json_same + 1))
        bench_note="BLESimulatorBench --dump: equal as JSON, same hash ($hash_new)"
    else
        differ=$((differ + 1))
        bench_note="BLESimulatorBench --dump: DIFFERENT (old: $hash_old; new: $hash_new)"
        echo "DIFF  $bench_note"
    fi
fi

echo
echo "captures: $n; cases: $cases; identical: $same; equal once parsed or elapsed times masked: $json_same; different: $differ"
[ $json_same -gt 0 ] && printf "equal once parsed / times masked:%b\n" "$json_listed"
echo "$bench_note"
[ $differ -eq 0 ]
