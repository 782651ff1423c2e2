#!/usr/bin/env bash
# Byte-for-byte proof that a change leaves blecap's outputs alone: run a blecap binary over the
# corpus (captures/** and ../shared/captures/**) and keep every output, then compare two such
# snapshots (e.g. a release build of the branch point and one of the change).
#
#   scripts/output_snapshot.sh take BLECAP DIR     # stdout, stderr and exit status of each command
#   scripts/output_snapshot.sh compare DIR1 DIR2   # exit 0 when identical ("Only in": a capture
#                                                  # one of the two corpora lacks)
#
# Commands: timeline --format jsonl, timeline (text), lint --format json, info --format json,
# report -o -, packets --format jsonl. Lint's wall time on stderr ("0.012 s") is masked, since it
# differs between any two runs.
set -uo pipefail
cd "$(dirname "$0")/.."
COMMANDS=("timeline --format jsonl" "timeline" "lint --format json --fail-on never" "info --format json" \
  "report -o -" "packets --format jsonl")
case "${1:-}" in
  take)
    [ $# -eq 3 ] || { echo "usage: $0 take BLECAP DIR" >&2; exit 2; }
    bin=$2 dir=$3
    rm -rf "$dir" && mkdir -p "$dir"
    find captures ../shared/captures -type f 2>/dev/null | sort > "$dir/files.txt"
    i=0
    while read -r f; do
      i=$((i + 1))
      # Outputs are named after the capture's path, not its place in the list, so that a
      # snapshot taken after captures were added still lines up with one taken before.
      key=$(echo "$f" | sed -e 's|^\.\./shared/|shared/|' -e 's|/|__|g')
      for c in "${COMMANDS[@]}"; do
        name=$(echo "$c" | tr ' ' '_')
        # shellcheck disable=SC2086
        "$bin" $c "$f" > "$dir/$key.$name.out" 2> "$dir/$key.$name.err"
        echo $? > "$dir/$key.$name.status"
        sed -i -E 's/, [0-9.]+ s(,|$)/, ? s\1/' "$dir/$key.$name.err"
      done
    done < "$dir/files.txt"
    echo "$i files, ${#COMMANDS[@]} commands each, in $dir"
    ;;
  compare)
    [ $# -eq 3 ] || { echo "usage: $0 compare DIR1 DIR2" >&2; exit 2; }
    if diff -rq "$2" "$3"; then echo "identical"; else echo "DIFFERENT"; exit 1; fi
    ;;
  *) echo "usage: $0 take BLECAP DIR | compare DIR1 DIR2" >&2; exit 2 ;;
esac
