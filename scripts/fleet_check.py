#!/usr/bin/env python3
"""The fleet pipeline against blecap's own batch mode (conformance; needs PyPI for Ray).

  python3 scripts/fleet_check.py --blecap .build/release/blecap [--count 300] [--workers 2] [--running-cluster] [--hash-on workers]

1. A synthetic fleet (scripts/corpus/make_fleet.py, seeded) of bug reports and captures, some
   damaged, some hostile.
2. blecap's batch mode in one process (`lint` and `diagnose`, `--format fleet --files-from -`): the
   reference rows.
3. `blecap-fleet run` on a local Ray cluster (2 workers): its Parquet must hold exactly the
   reference rows, table by table, value by value.
4. The same run again: nothing analysed, no file added or changed.
5. A run killed (SIGKILL, process group) once its first batches have committed, then resumed:
   the same rows as the uninterrupted run, none twice.
6. With --running-cluster, `blecap-fleet watch` over a folder that fills in two steps: a tick at
   start, one on SIGUSR1 after the rest arrived, one more that finds nothing; the same rows.

With --running-cluster every run joins one cluster (`ray start --head`, then `--ray-address auto`)
that outlives them, as a daily job on a long-lived cluster does: each run then ends without
ray.shutdown(), and the killed run's cluster goes on to serve the resumed one.

Ray, DuckDB and pyarrow come from PyPI at the versions fleet/pyproject.toml pins, in a virtual
environment under .build/fleet-venv (created on first use).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(REPO, ".build", "fleet-venv")
KEY = "fleet-check-key-0123456789abcdef"  # any fixed key: the check compares two runs under it


def venv_python(extra: str | None = None) -> str:
    """The fleet venv's Python, with fleet/ installed (and its optional dependencies `extra`, as
    fleet/pyproject.toml pins them: `s3-check` is moto's S3 server)."""
    py = os.path.join(VENV, "bin", "python")
    stamp = os.path.join(VENV, f".installed-{extra}" if extra else ".installed")
    pyproject = os.path.join(REPO, "fleet", "pyproject.toml")
    if not os.path.exists(stamp) or os.path.getmtime(stamp) < os.path.getmtime(pyproject):
        if not os.path.exists(py):
            subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        target = os.path.join(REPO, "fleet") + (f"[{extra}]" if extra else "")
        subprocess.run([py, "-m", "pip", "install", "-q", "-e", target], check=True)
        open(stamp, "w").close()
    return py


def reference_rows(blecap: str, files: list[str], commands: list[str], env: dict) -> dict[str, list[dict]]:
    """What `blecap-fleet` must store: each command's rows, a table owned by the first command
    that emits it (the worker's rule)."""
    out: dict[str, list[dict]] = {}
    owners: dict[str, str] = {}
    for c in commands:
        p = subprocess.run([blecap, c, "--format", "fleet", "--files-from", "-"], input="".join(f + "\n" for f in files),
                           capture_output=True, text=True, env=env)
        for line in p.stdout.splitlines():
            row = json.loads(line)
            if owners.setdefault(row["table"], c) == c:
                out.setdefault(row["table"], []).append(row)
    return out


def stored_rows(py: str, store: str) -> dict[str, list[str]]:
    """Every stored row (partition columns and the manifest left out) as canonical JSON, read
    back with pyarrow in the venv, through the store's own filesystem (a folder or a URI)."""
    code = r"""
import json, sys, pyarrow.fs as pafs, pyarrow.parquet as pq
from blecap_fleet.store import Store, MANIFEST
s = Store(sys.argv[1]); out = {}
for t in s.tables():
    if t == MANIFEST: continue
    rows = []
    for i in s.fs.get_file_info(pafs.FileSelector(s.root + '/' + t, recursive=True)):
        if i.type == pafs.FileType.File and i.base_name.endswith('.parquet') and not i.base_name.startswith('.'):
            rows += pq.read_table(i.path, filesystem=s.fs).to_pylist()
    out[t] = sorted(json.dumps(r, sort_keys=True, default=str) for r in rows)
print(json.dumps(out))
"""
    p = subprocess.run([py, "-c", code, store], capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


def canonical(py: str, rows: dict[str, list[dict]]) -> dict[str, list[str]]:
    """The reference rows put through the store's own Arrow typing, as canonical JSON."""
    code = r"""
import json, sys
from blecap_fleet.store import to_table
from blecap_fleet.schema import arrow_schema
rows = json.load(sys.stdin); out = {}
for t, rs in rows.items():
    out[t] = sorted(json.dumps(r, sort_keys=True, default=str) for r in to_table(rs, arrow_schema(t)).to_pylist())
print(json.dumps(out))
"""
    p = subprocess.run([py, "-c", code], input=json.dumps(rows), capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


def snapshot(store: str) -> dict[str, tuple[int, float]]:
    out = {}
    for root, _, names in os.walk(store):
        for n in names:
            p = os.path.join(root, n)
            st = os.stat(p)
            out[os.path.relpath(p, store)] = (st.st_size, st.st_mtime)
    return out


#: Extra `blecap-fleet run` arguments for every run (`--ray-address auto` with --running-cluster).
RUN_EXTRA: list[str] = []


def fleet_run(py: str, blecap: str, src: str, store: str, workers: int, env: dict, **kw) -> subprocess.Popen:
    cmd = [py, "-m", "blecap_fleet.cli", "run", src, "--out", store, "--blecap", blecap,
           "--workers", str(workers), "--batch-size", "10", "--source", "check", *RUN_EXTRA]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, **kw)


class Watching:
    """A `blecap-fleet watch` process for a check or a bench: `tick()` reads the next tick's
    summary line (the first is the one at its start), `signal()` asks for a tick at once, `stop()`
    ends it with SIGTERM and gives its exit status; leaving the `with` block kills it if need be."""

    def __init__(self, py: str, folder: str, store: str, blecap: str, env: dict, *args: str, stderr=subprocess.PIPE):
        self.p = subprocess.Popen([py, "-m", "blecap_fleet.cli", "watch", folder, "--out", store, "--blecap", blecap,
                                   "--every", "3600", *args], env=env, stdout=subprocess.PIPE, stderr=stderr, text=True)

    def __enter__(self) -> "Watching":
        return self

    def __exit__(self, *exc) -> None:
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()

    def tick(self) -> dict:
        return json.loads(self.p.stdout.readline() or '{"error": "no line: the watcher ended"}')

    def signal(self) -> None:
        self.p.send_signal(signal.SIGUSR1)

    def stop(self) -> int:
        self.p.send_signal(signal.SIGTERM)
        return self.p.wait(timeout=60)


def arrive(files: list[str], src: str, folder: str) -> None:
    """Hard links to `files` (under `src`) in `folder`, as new captures landing there: the same
    modification time, so the same day partition."""
    for f in files:
        dest = os.path.join(folder, os.path.relpath(f, src))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        os.link(f, dest)


def check_watch(py: str, blecap: str, files: list[str], tmp: str, workers: int, env: dict,
                expected: dict[str, list[str]], src: str, distinct: int) -> list[str]:
    """`blecap-fleet watch` on the running cluster over a folder that fills in two steps: its first
    tick analyses the first half, a tick on SIGUSR1 the half added since, one more nothing; the
    store then holds exactly the reference rows (their paths moved to the watched folder)."""
    problems: list[str] = []
    watched, store = os.path.join(tmp, "watched"), os.path.join(tmp, "store-watch")
    shutil.rmtree(watched, ignore_errors=True)
    shutil.rmtree(store, ignore_errors=True)

    half = len(files) // 2
    arrive(files[:half], src, watched)
    ticks = []
    with Watching(py, watched, store, blecap, env, "--workers", str(workers), "--batch-size", "10", "--source",
                  "check", *RUN_EXTRA) as w:
        ticks.append(w.tick())
        arrive(files[half:], src, watched)
        for _ in range(2):
            w.signal()
            ticks.append(w.tick())
        status = w.stop()
        stderr = w.p.stderr.read()
    analysed = [t.get("analysed") for t in ticks]
    if status != 0 or len(ticks) != 3 or any("error" in t for t in ticks) or analysed[2] != 0 \
            or sum(a or 0 for a in analysed) != distinct:
        problems.append(f"watch: exit {status}, ticks {ticks}; {stderr.strip()[-400:]}")
        return problems
    moved = {t: sorted(r.replace(src + "/", watched + "/") for r in rows) for t, rows in expected.items()}
    if stored_rows(py, store) != moved:
        problems.append("watch: the store's rows differ from blecap's batch-mode rows")
    else:
        print(f"watch: ticks analysed {analysed[0]}, then {analysed[1]} (on SIGUSR1), then 0; "
              f"rows equal blecap's batch-mode rows; tick seconds {[t['seconds'] for t in ticks]}")
    return problems


def ray_stop(py: str) -> None:
    subprocess.run([os.path.join(os.path.dirname(py), "ray"), "stop", "--force"], capture_output=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--blecap", default=os.path.join(REPO, ".build", "release", "blecap"))
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--keep", help="keep the work folder here")
    ap.add_argument("--fleet", help="use the captures in this folder instead of generating a fleet")
    ap.add_argument("--running-cluster", action="store_true",
                    help="start one Ray cluster first and join it from every run (--ray-address auto)")
    ap.add_argument("--hash-on", choices=("auto", "driver", "workers"),
                    help="passed to every run: where the files are hashed (default: the runner's, auto)")
    a = ap.parse_args()
    if a.hash_on:
        RUN_EXTRA.extend(["--hash-on", a.hash_on])
    blecap = os.path.abspath(a.blecap)
    py = venv_python()
    env = dict(os.environ, BLECAP_PSEUDONYM_KEY=KEY, PYTHONPATH=os.path.join(REPO, "fleet"))
    tmp = a.keep or tempfile.mkdtemp(prefix="blecap-fleet-check-")
    os.makedirs(tmp, exist_ok=True)
    problems: list[str] = []
    unit = subprocess.run([py, "-m", "unittest", "discover", "-s", os.path.join(REPO, "fleet", "tests")],
                          capture_output=True, text=True, env=env)
    print(f"fleet unit tests: {unit.stderr.strip().splitlines()[-1] if unit.stderr.strip() else unit.returncode}")
    if unit.returncode != 0:
        problems.append(f"fleet unit tests failed: {unit.stderr.strip()[-800:]}")
    try:
        src = os.path.abspath(a.fleet) if a.fleet else os.path.join(tmp, "fleet")
        if not a.fleet:
            shutil.rmtree(src, ignore_errors=True)
            subprocess.run([sys.executable, os.path.join(REPO, "scripts", "corpus", "make_fleet.py"), "--seed", "7",
                            "--count", str(a.count), src], check=True, capture_output=True)
        files = sorted(os.path.join(r, n) for r, _, ns in os.walk(src) for n in ns)
        if a.running_cluster:
            ray_stop(py)
            subprocess.run([os.path.join(os.path.dirname(py), "ray"), "start", "--head", f"--num-cpus={a.workers}",
                            "--include-dashboard=false", "--disable-usage-stats"], env=env, check=True, capture_output=True)
            RUN_EXTRA.extend(["--ray-address", "auto"])
        t0 = time.monotonic()
        ref = canonical(py, reference_rows(blecap, files, ["lint", "diagnose"], env))
        t_batch = time.monotonic() - t0
        print(f"reference: blecap batch mode over {len(files)} inputs in {t_batch:.1f} s: "
              + ", ".join(f"{t} {len(r)}" for t, r in sorted(ref.items())))

        store = os.path.join(tmp, "store")
        shutil.rmtree(store, ignore_errors=True)
        t0 = time.monotonic()
        p = fleet_run(py, blecap, src, store, a.workers, env)
        out, err = p.communicate()
        t_ray = time.monotonic() - t0
        if p.returncode != 0:
            problems.append(f"fleet run exit {p.returncode}: {err.strip()[-600:]}")
        else:
            first = json.loads(out.strip().splitlines()[-1])
            print(f"ray run: {json.dumps(first, sort_keys=True)} ({t_ray:.1f} s with start-up)")
            got = stored_rows(py, store)
            for t in sorted(set(ref) | set(got)):
                if ref.get(t, []) != got.get(t, []):
                    a_, b_ = set(ref.get(t, [])), set(got.get(t, []))
                    problems.append(f"table {t}: batch mode {len(ref.get(t, []))} rows, Parquet {len(got.get(t, []))}; "
                                    f"{len(a_ - b_)} only in batch mode, {len(b_ - a_)} only in Parquet")
            if not problems:
                print("ray run: Parquet rows equal blecap's batch-mode rows in every table")

            before = snapshot(store)
            p = fleet_run(py, blecap, src, store, a.workers, env)
            out, err = p.communicate()
            second = json.loads(out.strip().splitlines()[-1]) if p.returncode == 0 else {}
            if p.returncode != 0 or second.get("analysed") != 0 or snapshot(store) != before:
                problems.append(f"second run changed the store or analysed again: {second} {err.strip()[-300:]}")
            else:
                print(f"second run: analysed 0, committed before {second['committed_before']}, store unchanged")

            killed = os.path.join(tmp, "store-killed")
            shutil.rmtree(killed, ignore_errors=True)
            p = fleet_run(py, blecap, src, killed, a.workers, env)
            deadline = time.monotonic() + 600
            manifest = os.path.join(killed, "manifest")
            while time.monotonic() < deadline and p.poll() is None:
                done = sum(len(ns) for _, _, ns in os.walk(manifest)) if os.path.isdir(manifest) else 0
                if done >= 1:
                    break
                time.sleep(0.2)
            was_running = p.poll() is None
            if was_running:
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            if not a.running_cluster:
                ray_stop(py)  # the killed driver's own cluster
            partial = sum(len(ns) for _, _, ns in os.walk(manifest)) if os.path.isdir(manifest) else 0
            p = fleet_run(py, blecap, src, killed, a.workers, env)
            out, err = p.communicate()
            if p.returncode != 0:
                problems.append(f"resumed run exit {p.returncode}: {err.strip()[-300:]}")
            else:
                resumed = json.loads(out.strip().splitlines()[-1])
                if stored_rows(py, killed) != got:
                    problems.append("killed and resumed run: rows differ from the uninterrupted run")
                else:
                    print(f"killed run ({'killed' if was_running else 'had already finished'} with {partial} batches "
                          f"committed), resumed: analysed {resumed['analysed']}, committed before {resumed['committed_before']}, "
                          f"removed {resumed['removed_uncommitted']} uncommitted files; rows equal the uninterrupted run's")
            if a.running_cluster:
                problems += check_watch(py, blecap, files, tmp, a.workers, env, got, src, first["analysed"])
    finally:
        ray_stop(py)
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    for pr in problems:
        print(f"FAIL {pr}")
    print("fleet check:", "FAIL" if problems else "ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
