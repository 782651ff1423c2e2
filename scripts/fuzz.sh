#!/usr/bin/env bash
# Builds and runs blecap's libFuzzer targets (Fuzz/) with the repository's captures as seed corpus.
#
#   scripts/fuzz.sh [target|all|smoke] [seconds] [extra libFuzzer flags…]
#
# `smoke` (make fuzz-smoke, CI): builds every target, then runs each for FUZZ_SMOKE_SECONDS
# (default 5) from the shipped corpus only, in a scratch corpus folder, so a harness that no
# longer builds or that traps on a shipped capture fails CI instead of rotting.
#
# Targets: FuzzBTSnoop, FuzzPcap (HCI and link-layer link types), FuzzPacketLogger (a reader
# each, then the whole pipeline), FuzzDecoders (synthesized HCI and Link Layer records →
# FrameDecoder → describe → timeline → writers) and FuzzServe (host bytes → the virtual HCI
# controller of `blecap serve`), FuzzArchive (archives, bug reports, btsnooz sections through
# CaptureArchive's opener with small limits, then the pipeline) and FuzzRadioHost (a controller's
# H4 stream → blecap as its host, `blecap replay --controller`, on a virtual clock). Default: all,
# 120 s each. Crashes, hangs (-timeout) and broken invariants (the harness traps) leave their
# input in .build-fuzz/artifacts/; reproduce one with
#   .build-fuzz/debug/FuzzPcap .build-fuzz/artifacts/FuzzPcap-crash-…
#
# How it links: SwiftPM links an executable with `--defsym main=<Module>_main`, which ld.gold
# cannot reconcile with libFuzzer's own main. Each target therefore defines <Module>_main
# (calling LLVMFuzzerRunDriver) as well as LLVMFuzzerTestOneInput, and links with lld. The
# targets exist only when BLECAP_FUZZ is set, so plain `swift build` / `swift test` never see
# them. FUZZ_CONFIG=release builds optimized (faster, slower to build).
set -euo pipefail
cd "$(dirname "$0")/.."

target=${1:-all}
seconds=${2:-120}
shift $(( $# > 2 ? 2 : $# )) || true
config=${FUZZ_CONFIG:-debug}
captures=${BLECAP_FUZZ_SEEDS:-$(pwd)/captures}
build=.build-fuzz
all=(FuzzBTSnoop FuzzPcap FuzzPacketLogger FuzzDecoders FuzzServe FuzzArchive FuzzRadioHost)
smoke=0
if [[ $target == smoke ]]; then
  smoke=1
  target=all
  seconds=${FUZZ_SMOKE_SECONDS:-5}
fi
[[ $target == all ]] && targets=("${all[@]}") || targets=("$target")

flags=(-c "$config" --build-path "$build"
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing -Xswiftc -use-ld=lld
  -Xcc -fsanitize=fuzzer-no-link,address)
for t in "${targets[@]}"; do
  BLECAP_FUZZ=1 swift build "${flags[@]}" --product "$t"
done
corpus=$build/corpus
# A smoke run starts from the shipped corpus alone, and keeps what it finds out of the real one.
if (( smoke )); then corpus=$build/smoke-corpus; rm -rf "$corpus"; fi
bin=$(BLECAP_FUZZ=1 swift build "${flags[@]}" --show-bin-path)

# Seed corpora: every capture in captures/, sorted by container (content, not name), cut to 16 KiB;
# for the decoders, the H4 btsnoop captures re-encoded as [kind][len16][payload] records.
python3 - "$captures" "$corpus" <<'EOF'
import base64, gzip, os, re, struct, sys
src, dst = sys.argv[1], sys.argv[2]
limit = 16384
for t in ("FuzzBTSnoop", "FuzzPcap", "FuzzPacketLogger", "FuzzDecoders", "FuzzServe", "FuzzArchive", "FuzzRadioHost"):
    os.makedirs(os.path.join(dst, t), exist_ok=True)
def put(target, name, data):
    with open(os.path.join(dst, target, name), "wb") as f:
        # Archives are kept whole: a zip cut short loses its central directory.
        f.write(data if target == "FuzzArchive" else data[:limit])
# FuzzRadioHost's seeds are what a controller sent blecap as its host in real exchanges (the
# received packets of a `blecap replay --controller --out` btsnoop, as one H4 stream): no
# capture in captures/ has blecap's own command sequence.
seeds = os.path.join(os.getcwd(), "Fuzz", "FuzzRadioHost", "Seeds")
for name in sorted(os.listdir(seeds)):
    put("FuzzRadioHost", name, open(os.path.join(seeds, name), "rb").read())
summary = re.compile(rb"--- BEGIN:BTSNOOP_LOG_SUMMARY[^\n]*\n(.*?)--- END:BTSNOOP_LOG_SUMMARY", re.S)
for folder in sorted(os.listdir(src)):
    d = os.path.join(src, folder)
    if not os.path.isdir(d):
        continue
    for name in sorted(os.listdir(d)):
        if name.endswith(".md") or not os.path.isfile(os.path.join(d, name)):
            continue
        data = open(os.path.join(d, name), "rb").read()
        seed = f"{folder}-{name}"
        if data[:2] == b"PK" or data[:2] == b"\x1f\x8b" or data[:6] == b"\xfd7zXZ\0" or b"BTSNOOP_LOG_SUMMARY" in data:
            put("FuzzArchive", seed, data)
            # A bug report's btsnooz section as FuzzArchive's '#' input: its base64 alone.
            m = summary.search(data)
            if m:
                put("FuzzArchive", seed + "-section", b"#" + m.group(1))
            continue
        if data[:8] == b"btsnoop\0":
            put("FuzzBTSnoop", seed, data)
            # Small btsnoop captures, gzip-compressed (no name, no time: the same bytes each run).
            if len(data) <= 16384:
                put("FuzzArchive", seed + ".gz", gzip.compress(data, mtime=0))
            if struct.unpack(">I", data[12:16])[0] != 1002:
                continue
            # H4 records → decoder seeds, 32 records each (small inputs run faster); what a
            # central capture's host sent → host input for the virtual controller.
            kinds = {1: 0, 4: 1, 2: 2, 3: 4, 5: 5}
            out, count, part, off = bytearray(), 0, 0, 16
            if ".central." in name:
                host, o = bytearray(), 16
                while o + 24 <= len(data):
                    incl, fl = struct.unpack(">I", data[o + 4:o + 8])[0], struct.unpack(">I", data[o + 8:o + 12])[0]
                    if not fl & 1:
                        host += data[o + 24:o + 24 + incl]
                    o += 24 + incl
                put("FuzzServe", seed, bytes(host))
            while off + 24 <= len(data):
                incl, flags = struct.unpack(">I", data[off + 4:off + 8])[0], struct.unpack(">I", data[off + 8:off + 12])[0]
                body = data[off + 24:off + 24 + incl]
                off += 24 + incl
                if len(body) < 1 or body[0] not in kinds:
                    continue
                kind = kinds[body[0]] | (0x08 if flags & 1 else 0)
                out += bytes([kind]) + struct.pack("<H", len(body) - 1) + body[1:]
                count += 1
                if count == 32:
                    put("FuzzDecoders", f"{seed}-{part}", bytes(out))
                    out, count, part = bytearray(), 0, part + 1
            if out:
                put("FuzzDecoders", f"{seed}-{part}", bytes(out))
        elif data[:4] in (b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\xc3\xd4", b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d", b"\x0a\x0d\x0d\x0a"):
            put("FuzzPcap", seed, data)
            # Little-endian classic pcap of link type 256 (sniffers): its packets, without the
            # 10-byte pseudo-header, as Link Layer decoder records (kind bit 6; FuzzHarness).
            if data[:4] == b"\xd4\xc3\xb2\xa1" and struct.unpack("<I", data[20:24])[0] == 256:
                out, count, part, off = bytearray(), 0, 0, 24
                while off + 16 <= len(data):
                    incl = struct.unpack("<I", data[off + 8:off + 12])[0]
                    body = data[off + 16:off + 16 + incl]
                    off += 16 + incl
                    if len(body) < 16:
                        continue
                    flags = struct.unpack("<H", body[8:10])[0]
                    kind = 0x40 | (0x08 if (flags >> 7) & 7 == 3 else 0) | (0x10 if flags & 0x0800 else 0)
                    kind |= 0x20 if body[10:14] == b"\xd6\xbe\x89\x8e" else 0
                    out += bytes([kind]) + struct.pack("<H", len(body) - 10) + body[10:]
                    count += 1
                    if count == 32:
                        put("FuzzDecoders", f"{seed}-ll-{part}", bytes(out))
                        out, count, part = bytearray(), 0, part + 1
                if out:
                    put("FuzzDecoders", f"{seed}-ll-{part}", bytes(out))
        elif name.endswith(".pklg"):
            put("FuzzPacketLogger", seed, data)
EOF

# A smoke run starts from a few seeds of each target, evenly spread over the sorted corpus
# (FUZZ_SMOKE_SEEDS, default 24): libFuzzer runs every seed before it looks at the clock, and
# thousands of decoder seeds under ASan take minutes, not seconds.
if (( smoke )); then
  for t in "${all[@]}"; do
    mapfile -t seeds < <(ls "$corpus/$t" | sort)
    keep=${FUZZ_SMOKE_SEEDS:-24}
    n=${#seeds[@]}
    if (( n > keep )); then
      for i in "${!seeds[@]}"; do
        (( (i * keep / n) != ((i + 1) * keep / n) )) || rm -f "$corpus/$t/${seeds[$i]}"
      done
    fi
  done
fi
# Hangs: 10 s for an input, except in a smoke run (60 s): CI machines are shared, debug ASan is
# slow, and a smoke run is there to catch harnesses that rot, not to time decoders.
(( smoke )) && timeout=${FUZZ_TIMEOUT:-60} || timeout=${FUZZ_TIMEOUT:-10}
mkdir -p "$build/artifacts"
status=0
for t in "${targets[@]}"; do
  # Decoder inputs are records without a container: short ones reach every decoder.
  case $t in
    FuzzDecoders) max_len=${FUZZ_MAX_LEN:-2048} ;;
    FuzzArchive) max_len=${FUZZ_MAX_LEN:-65536} ;;
    *) max_len=${FUZZ_MAX_LEN:-8192} ;;
  esac
  echo "== $t: ${seconds}s, corpus $corpus/$t ($(ls "$corpus/$t" | wc -l) files)"
  # libFuzzer handles the crash signal itself (the Swift backtracer would swallow it).
  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} \
    "$bin/$t" "$corpus/$t" -max_len="$max_len" -timeout="$timeout" -rss_limit_mb=4096 \
    -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" "$@" \
    || status=$?
done
exit $status
