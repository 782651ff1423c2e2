#!/usr/bin/env python3
"""Fleet throughput: blecap's batch mode against the Ray pipeline on the same generated bug reports.

  python3 scripts/fleet_bench.py --blecap .build/release/blecap [--count 2000]
  (make bench BENCH_FLEET=1 runs it after the main table)

Rows, each with captures per second and per second per core:
  decode       `blecap info --files-from -`: read, decompress, decode (the floor)
  batch        `blecap lint`, `blecap diagnose`, `--format fleet --files-from -`, one process
               each (each is one pass over every capture), and their sum, which is what the
               pipeline runs
  ray 1        `blecap-fleet run --workers 1` (local Ray cluster, its start-up included)
  ray 2        `blecap-fleet run --workers 2`
and the ratios the fleet issue sets goals for: each batch command / decode (≤ 1.3), ray 1 /
(lint + diagnose) (Ray's overhead, ≤ 1.15), ray 1 / ray 2 (≥ 1.7 on two cores). Ray's start-up is also given on its own
(the run's time with nothing to analyse), since on a long-lived cluster it is paid once.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "scripts"))
from fleet_check import KEY, venv_python  # noqa: E402


# A batch's exit status is its worst input's class (docs/exit-codes.md): the generated fleet holds
# damaged (3), log-less (4) and hostile (5) inputs on purpose, so those are results, not failures.
BATCH_CLASSES = (0, 1, 3, 4, 5)


def timed(cmd, ok=(0,), **kw) -> float:
    t = time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kw)
    if r.returncode not in ok:
        sys.exit(f"fleet_bench: {' '.join(cmd)} exited {r.returncode}: {r.stderr.decode(errors='replace')[-400:]}")
    return time.monotonic() - t


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--blecap", default=os.path.join(REPO, ".build", "release", "blecap"))
    ap.add_argument("--count", type=int, default=2000)
    a = ap.parse_args()
    blecap = os.path.abspath(a.blecap)
    py = venv_python()
    env = dict(os.environ, BLECAP_PSEUDONYM_KEY=KEY, PYTHONPATH=os.path.join(REPO, "fleet"))
    tmp = tempfile.mkdtemp(prefix="blecap-fleet-bench-")
    try:
        src = os.path.join(tmp, "fleet")
        subprocess.run([sys.executable, os.path.join(REPO, "scripts", "corpus", "make_fleet.py"), "--seed", "11",
                        "--count", str(a.count), src], check=True, capture_output=True)
        files = sorted(os.path.join(r, n) for r, _, ns in os.walk(src) for n in ns)
        listing = "".join(f + "\n" for f in files)
        n = len(files)
        rows = []
        def batch_run(command):
            return timed([blecap, command, "--format", "fleet", "--files-from", "-"], ok=BATCH_CLASSES,
                         input=listing.encode(), env=env)

        decode = batch_run("info")
        rows.append(("decode (info, 1 process)", decode, 1))
        lint = batch_run("lint")
        rows.append(("batch lint (1 process)", lint, 1))
        diagnose = batch_run("diagnose")
        rows.append(("batch diagnose (1 process)", diagnose, 1))
        # The pipeline runs both commands over every batch (--commands lint,diagnose).
        batch = lint + diagnose
        rows.append(("batch lint + diagnose", batch, 1))
        runs = {}
        for w in (1, 2):
            store = os.path.join(tmp, f"store{w}")
            cmd = [py, "-m", "blecap_fleet.cli", "run", src, "--out", store, "--blecap", blecap, "--workers", str(w),
                   "--batch-size", "50"]
            runs[w] = timed(cmd, env=env)
            subprocess.run([os.path.join(os.path.dirname(py), "ray"), "stop", "--force"], capture_output=True)
            rows.append((f"ray, {w} worker{'s' if w > 1 else ''}", runs[w], w))
        # Start-up alone: the same run again over a committed store analyses nothing.
        startup = timed([py, "-m", "blecap_fleet.cli", "run", src, "--out", os.path.join(tmp, "store2"), "--blecap",
                         blecap, "--workers", "2"], env=env)
        subprocess.run([os.path.join(os.path.dirname(py), "ray"), "stop", "--force"], capture_output=True)
        print(f"fleet: {n} generated inputs (make_fleet.py --seed 11), {os.cpu_count()} cores")
        print(f"{'row':<36} {'s':>8} {'captures/s':>11} {'per core':>9}")
        for name, t, cores in rows:
            print(f"{name:<36} {t:>8.2f} {n / t:>11.1f} {n / t / cores:>9.1f}")
        print(f"{'ray start-up and listing, nothing new':<36} {startup:>8.2f}")
        print(json.dumps({
            "lint_over_decode": round(lint / decode, 3),
            "diagnose_over_decode": round(diagnose / decode, 3),
            "ray1_over_batch": round(runs[1] / batch, 3),
            "ray1_over_batch_without_startup": round((runs[1] - startup) / batch, 3),
            "ray2_speedup": round(runs[1] / runs[2], 3),
        }, sort_keys=True))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
