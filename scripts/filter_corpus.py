#!/usr/bin/env python3
"""The filter corpus (Tests/BLEFilterTests/Corpus/filter-corpus.json): blecap filter expressions
over captures in captures/, each with the tshark display filter meaning the same thing and the
frame numbers tshark gives for it.

  scripts/filter_corpus.py --record            re-run tshark and write its frames into the corpus
  scripts/filter_corpus.py --blecap PATH       check: tshark's frames today == recorded == blecap's

FilterCorpusTests (swift test) holds blecap to the recorded frames without tshark; the
conformance check 'filter corpus' runs this script's check so that the recorded frames cannot rot.
"""
import argparse, json, os, subprocess, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
CORPUS = os.path.join(ROOT, "Tests", "BLEFilterTests", "Corpus", "filter-corpus.json")


def tshark_frames(capture, display_filter):
    out = subprocess.run(["tshark", "-r", os.path.join(ROOT, "captures", capture), "-Y", display_filter,
                          "-T", "fields", "-e", "frame.number"],
                         capture_output=True, text=True, check=True).stdout
    return [int(line) for line in out.split()]


def blecap_frames(blecap, command, capture, expression):
    out = subprocess.run([blecap, command, "-f", "jsonl", "-Y", expression, os.path.join(ROOT, "captures", capture)],
                         capture_output=True, text=True).stdout
    frames = []
    for line in out.splitlines():
        obj = json.loads(line)
        if obj.get("type") == "connection.summary":
            continue
        if not frames or frames[-1] != obj["frame"]:
            frames.append(obj["frame"])
    return frames


def check(blecap):
    """Problems (list of strings) and a summary, as conformance.py's checks return them."""
    with open(CORPUS) as f:
        corpus = json.load(f)
    problems = []
    for e in corpus["entries"]:
        t = tshark_frames(e["capture"], e["tshark"])
        if t != e["frames"]:
            problems.append(f"{e['capture']}: tshark -Y '{e['tshark']}' now gives {t}, recorded {e['frames']}")
        if blecap:
            b = blecap_frames(blecap, e.get("command", "packets"), e["capture"], e["blecap"])
            if b != e["frames"]:
                problems.append(f"{e['capture']}: blecap -Y '{e['blecap']}' gives {b}, recorded {e['frames']}")
    return problems, f"{len(corpus['entries'])} expressions"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--record", action="store_true", help="write tshark's frames into the corpus")
    ap.add_argument("--blecap", help="also check blecap's frames")
    args = ap.parse_args()
    if args.record:
        with open(CORPUS) as f:
            corpus = json.load(f)
        for e in corpus["entries"]:
            e["frames"] = tshark_frames(e["capture"], e["tshark"])
        with open(CORPUS, "w") as f:
            f.write("{\n  \"note\": " + json.dumps(corpus["note"]) + ",\n  \"entries\": [\n")
            f.write(",\n".join("    " + json.dumps(e, ensure_ascii=False) for e in corpus["entries"]))
            f.write("\n  ]\n}\n")
        return 0
    problems, summary = check(args.blecap)
    for p in problems:
        print(p)
    print(("FAIL " if problems else "ok   ") + summary)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
