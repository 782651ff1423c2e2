#!/usr/bin/env python3
"""Fleet throughput: blecap's batch mode against the Ray pipeline on the same generated bug reports.

  python3 scripts/fleet_bench.py --blecap .build/release/blecap [--count 2000] [--fleet DIR]
  (make bench BENCH_FLEET=1 runs it after the main table)

Every row gives wall seconds and CPU seconds. CPU seconds are the sum over the whole process tree
(blecap, the driver, Ray's daemons and workers: this script makes itself the tree's subreaper, so
nothing that exits is lost), which another job on the machine does not inflate the way it
inflates wall time; the load average is printed beside each row for the same reason.

Rows:
  decode        `blecap info --files-from -`: read, decompress, decode, summarize
  batch         `blecap lint`, `blecap diagnose` (`--format fleet --files-from -`, one process
                each) and their sum; `blecap lint --diagnose`, the two in one pass (each capture
                read and decoded once), which is what the pipeline runs per batch
  ray cold N    `blecap-fleet run --workers N` starting its own local Ray (N = 1, 2)
  ray warm N    the same against a running cluster (`ray start --head`, `--ray-address auto`)
  ray nothing   the warm run again over its committed store: the fixed cost of a run
  ray watch N   `blecap-fleet watch` on the running cluster (N lanes): connected, its lanes and
                the store's commits read at its start; the row is one tick, from SIGUSR1 to
                its summary line, after the fleet arrived in its (empty until then) folder

Each Ray run reports its phases (blecap_fleet.pipeline.run): `ray_import`, `ray_init`,
`ray_shutdown` are fixed costs (once per run; on a running cluster `ray_init` is a connection
and there is no shutdown), `hash` and `analyse` grow with the captures (`hash` is what remains
of hashing after the connection: the driver lists and hashes local files beside `import ray` and
`ray.init`, reported as `overlapped`). Its timeline says how many batches were in flight at once
(`overlap`: the batches' summed wall time, each from its start to the end of its blecap run, over
the span from the first start to the last end; 2.0 is two at a time throughout).

The ratios the fleet issue sets goals for: lint, diagnose / decode (≤ 1.3); Ray / (lint
--diagnose) (≤ 1.15), for the whole cold run, for the per-capture phases alone, and by CPU;
1 worker / 2 workers (≥ 1.7, on two otherwise idle cores).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "scripts"))
from fleet_check import KEY, Watching, arrive, venv_python  # noqa: E402

# A batch's exit status is its worst input's class (docs/exit-codes.md): the generated fleet holds
# damaged (3), log-less (4) and hostile (5) inputs on purpose, so those are results, not failures.
BATCH_CLASSES = (0, 1, 3, 4, 5)
TICK = os.sysconf("SC_CLK_TCK")


def become_subreaper() -> None:
    """Orphaned descendants (Ray's daemons and workers once their parent goes) are re-parented to
    this process instead of init, so their CPU time is still counted when they are reaped."""
    PR_SET_CHILD_SUBREAPER = 36
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def tree_cpu() -> float:
    """CPU seconds used so far by every descendant of this process, living or reaped."""
    reap()
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = r.ru_utime + r.ru_stime
    parent, ticks = {}, {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parent[int(d)] = int(fields[1])
        ticks[int(d)] = sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime
    me = os.getpid()
    for pid, t in ticks.items():
        p = parent.get(pid)
        while p is not None and p not in (0, 1, me):
            p = parent.get(p)
        if p == me:
            total += t / TICK
    return total


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def measured(cmd, ok=(0,), **kw) -> tuple[float, float, str, str]:
    """Wall seconds, CPU seconds of the whole tree, the load average at the end, standard output."""
    c, t = tree_cpu(), time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
    wall = time.monotonic() - t
    if r.returncode not in ok:
        sys.exit(f"fleet_bench: {' '.join(cmd)} exited {r.returncode}: {r.stderr.decode(errors='replace')[-400:]}")
    time.sleep(0.5)  # let a stopping Ray's processes exit and be reaped
    return wall, tree_cpu() - c, load(), r.stdout.decode()


def overlap(timeline: str) -> dict:
    """From a run's timeline: batches in flight on average (a batch from its start to the end of
    its blecap run: a lane commits it while the next batch's blecap runs), blecap's and the
    workers' Python CPU."""
    with open(timeline) as f:
        bs = [json.loads(x) for x in f if x.strip()]
    if not bs:
        return {"overlap": 0.0, "blecap_cpu": 0.0, "worker_cpu": 0.0, "processes": 0}
    end = [b.get("blecap_ended", b["ended"]) for b in bs]
    span = max(end) - min(b["started"] for b in bs)
    return {"overlap": round(sum(e - b["started"] for b, e in zip(bs, end)) / span, 2) if span > 0 else 0.0,
            "blecap_cpu": round(sum(b["blecap_cpu"] for b in bs), 2),
            "worker_cpu": round(sum(b["worker_cpu"] for b in bs), 2),
            "processes": len({b["pid"] for b in bs})}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--blecap", default=os.path.join(REPO, ".build", "release", "blecap"))
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--fleet", help="use the captures in this folder instead of generating a fleet")
    ap.add_argument("--batch-size", type=int, default=200, help="captures per batch in the Ray runs")
    a = ap.parse_args()
    become_subreaper()
    blecap = os.path.abspath(a.blecap)
    py = venv_python()
    ray_cli = [py, "-m", "ray.scripts.scripts"]
    env = dict(os.environ, BLECAP_PSEUDONYM_KEY=KEY, PYTHONPATH=os.path.join(REPO, "fleet"))
    tmp = tempfile.mkdtemp(prefix="blecap-fleet-bench-")
    try:
        src = os.path.abspath(a.fleet) if a.fleet else os.path.join(tmp, "fleet")
        if not a.fleet:
            subprocess.run([sys.executable, os.path.join(REPO, "scripts", "corpus", "make_fleet.py"), "--seed", "11",
                            "--count", str(a.count), src], check=True, capture_output=True)
        files = sorted(os.path.join(r, n) for r, _, ns in os.walk(src) for n in ns if not n.startswith("."))
        listing = "".join(f + "\n" for f in files)
        n = len(files)
        rows = []  # (name, wall, cpu, load, cores)
        for command in ("info", "lint", "diagnose"):
            wall, cpu, ld, _ = measured([blecap, command, "--format", "fleet", "--files-from", "-"], ok=BATCH_CLASSES,
                                        input=listing.encode(), env=env)
            rows.append((f"{'decode' if command == 'info' else 'batch'} {command} (1 process)", wall, cpu, ld, 1))
        by = {r[0].split()[1]: r for r in rows}
        rows.append(("batch lint + diagnose (2 processes)", by["lint"][1] + by["diagnose"][1],
                     by["lint"][2] + by["diagnose"][2], "", 1))
        # What the pipeline runs per batch: lint and diagnose in one pass (`lint --diagnose`), each
        # capture read and decoded once. Ray is measured against this.
        wall, cpu, ld, _ = measured([blecap, "lint", "--diagnose", "--format", "fleet", "--files-from", "-"],
                                    ok=BATCH_CLASSES, input=listing.encode(), env=env)
        rows.append(("batch lint --diagnose (1 process)", wall, cpu, ld, 1))
        batch_wall, batch_cpu = wall, cpu
        # The ceiling for any two-worker speed-up on this machine at this moment: the same work as
        # two plain processes at once (each `lint --diagnose` over one half), no Ray.
        halves = [listing.splitlines(keepends=True)[i::2] for i in (0, 1)]
        script = (f"{blecap} lint --diagnose --format fleet --files-from - < $1 > /dev/null; "
                  "s=$?; [ $s -le 5 ] && [ $s -ne 2 ] || exit $s")
        procs = []
        for i, h in enumerate(halves):
            with open(os.path.join(tmp, f"half{i}"), "w") as f:
                f.writelines(h)
            procs.append(["sh", "-c", script, "sh", os.path.join(tmp, f"half{i}")])
        c, t = tree_cpu(), time.monotonic()
        running = [subprocess.Popen(p, env=env) for p in procs]
        if any(p.wait() != 0 for p in running):
            sys.exit("fleet_bench: a half's blecap run failed")
        rows.append(("batch, 2 processes at once (halves)", time.monotonic() - t, tree_cpu() - c, load(), 2))

        def fleet(name, workers, store, *extra):
            tl = os.path.join(tmp, f"{name.replace(' ', '-')}.jsonl")
            wall, cpu, ld, out = measured([py, "-m", "blecap_fleet.cli", "run", src, "--out", store, "--blecap", blecap,
                                           "--workers", str(workers), "--batch-size", str(a.batch_size), "--timeline", tl, *extra],
                                          env=env)
            result = json.loads(out.strip().splitlines()[-1])
            rows.append((name, wall, cpu, ld, workers))
            return result, overlap(tl)

        def watching(name, workers, folder, store):
            """`blecap-fleet watch` on the running cluster: a tick over an empty folder (its
            start-up), then the fleet arrives (hard links: the same files, the same day) and a
            tick on SIGUSR1 analyses it. The row is the second tick: from the signal to its
            summary line."""
            tl = os.path.join(tmp, f"{name.replace(' ', '-')}.jsonl")
            os.makedirs(folder)
            with Watching(py, folder, store, blecap, env, "--workers", str(workers), "--batch-size", str(a.batch_size),
                          "--ray-address", "auto", "--timeline", tl, stderr=subprocess.DEVNULL) as w:
                if "error" in w.tick():
                    sys.exit(f"fleet_bench: {name}: the first tick failed")
                arrive(files, src, folder)
                t = time.monotonic()
                w.signal()
                result = w.tick()
                wall = time.monotonic() - t
                if "error" in result or result.get("analysed", 0) == 0:
                    sys.exit(f"fleet_bench: {name}: {result}")
                w.stop()
            rows.append((name, wall, float("nan"), load(), workers))
            return result, overlap(tl)

        runs = {}
        for w in (1, 2):
            runs[("cold", w)] = fleet(f"ray cold, {w} worker{'s' if w > 1 else ''}", w, os.path.join(tmp, f"cold{w}"))
            subprocess.run([*ray_cli, "stop", "--force"], capture_output=True)
        for w in (1, 2):
            # A cluster of exactly w CPUs, so that w workers is all of it, as in the cold runs.
            subprocess.run([*ray_cli, "start", "--head", f"--num-cpus={w}", "--include-dashboard=false",
                            "--disable-usage-stats"], env=env, check=True, capture_output=True)
            runs[("warm", w)] = fleet(f"ray warm, {w} worker{'s' if w > 1 else ''}", w, os.path.join(tmp, f"warm{w}"),
                                      "--ray-address", "auto")
            if w == 2:
                runs["nothing"] = fleet("ray warm, nothing new (2 workers)", 2, os.path.join(tmp, "warm2"),
                                        "--ray-address", "auto")
            runs[("watch", w)] = watching(f"ray watch, {w} worker{'s' if w > 1 else ''}", w,
                                          os.path.join(tmp, f"watched{w}"), os.path.join(tmp, f"watch{w}"))
            subprocess.run([*ray_cli, "stop", "--force"], capture_output=True)
        reap()

        print(f"fleet: {n} generated inputs (make_fleet.py --seed 11), {os.cpu_count()} cores; "
              "load = 1-minute load average at the row's end")
        print(f"{'row':<36} {'wall s':>8} {'CPU s':>7} {'load':>5} {'captures/s':>11} {'per core':>9}")
        for name, wall, cpu, ld, cores in rows:
            cpu_s = f"{cpu:>7.2f}" if cpu == cpu else f"{'-':>7}"  # a watch tick's CPU is the cluster's
            print(f"{name:<36} {wall:>8.2f} {cpu_s} {ld:>5} {n / wall:>11.1f} {n / wall / cores:>9.1f}")
        for k, (result, tl) in runs.items():
            print(f"{'nothing new' if k == 'nothing' else k[0] + ' ' + str(k[1])}: phases (s) "
                  + " ".join(f"{p}={v}" for p, v in sorted(result["phases"].items()))
                  + "; beside import and init " + " ".join(f"{p}={v}" for p, v in sorted(result.get("overlapped", {}).items()))
                  + "; batches " + " ".join(f"{p}={v}" for p, v in sorted(tl.items())))

        def per_capture(key):
            ph = runs[key][0]["phases"]
            return ph.get("hash", 0) + ph.get("analyse", 0)

        wall = {r[0]: r[1] for r in rows}
        cpu = {r[0]: r[2] for r in rows}
        ratios = {
            "lint_over_decode": round(by["lint"][1] / by["info"][1], 3),
            "diagnose_over_decode": round(by["diagnose"][1] / by["info"][1], 3),
            "lint_over_decode_cpu": round(by["lint"][2] / by["info"][2], 3),
            "diagnose_over_decode_cpu": round(by["diagnose"][2] / by["info"][2], 3),
            "one_pass_over_decode": round(batch_wall / by["info"][1], 3),
            "one_pass_over_decode_cpu": round(batch_cpu / by["info"][2], 3),
            "one_pass_over_two_processes": round(batch_wall / (by["lint"][1] + by["diagnose"][1]), 3),
            "ray1_cold_over_batch": round(wall["ray cold, 1 worker"] / batch_wall, 3),
            "ray1_warm_over_batch": round(wall["ray warm, 1 worker"] / batch_wall, 3),
            "ray1_per_capture_phases_over_batch": round(per_capture(("warm", 1)) / batch_wall, 3),
            "ray1_cold_cpu_over_batch_cpu": round(cpu["ray cold, 1 worker"] / batch_cpu, 3),
            "ray1_warm_cpu_over_batch_cpu": round(cpu["ray warm, 1 worker"] / batch_cpu, 3),
            "two_plain_processes_speedup": round(batch_wall / wall["batch, 2 processes at once (halves)"], 3),
            "ray1_analyse_cpu_over_batch_cpu": round((runs[("warm", 1)][1]["blecap_cpu"]
                                                      + runs[("warm", 1)][1]["worker_cpu"]) / batch_cpu, 3),
            "ray2_speedup_cold": round(wall["ray cold, 1 worker"] / wall["ray cold, 2 workers"], 3),
            "ray2_speedup_warm": round(wall["ray warm, 1 worker"] / wall["ray warm, 2 workers"], 3),
            "ray2_speedup_analyse_phase": round(runs[("warm", 1)][0]["phases"]["analyse"]
                                                / runs[("warm", 2)][0]["phases"]["analyse"], 3),
            "ray1_watch_over_batch": round(wall["ray watch, 1 worker"] / batch_wall, 3),
            "ray1_watch_cpu_over_batch_cpu": round((runs[("watch", 1)][1]["blecap_cpu"]
                                                    + runs[("watch", 1)][1]["worker_cpu"]) / batch_cpu, 3),
            "ray2_speedup_watch": round(wall["ray watch, 1 worker"] / wall["ray watch, 2 workers"], 3),
        }
        print(json.dumps(ratios, sort_keys=True))
        peak = max(float(r[3]) for r in rows if r[3])
        for key, goal, better in (("one_pass_over_decode", 1.3, "le"), ("ray1_watch_over_batch", 1.15, "le"),
                                  ("ray1_warm_over_batch", 1.15, "le"), ("ray1_cold_over_batch", 1.15, "le"),
                                  ("ray2_speedup_watch", 1.7, "ge"), ("ray2_speedup_warm", 1.7, "ge"),
                                  ("ray2_speedup_cold", 1.7, "ge")):
            met = ratios[key] <= goal if better == "le" else ratios[key] >= goal
            print(f"goal {key} {'<=' if better == 'le' else '>='} {goal}: {ratios[key]} {'met' if met else 'not met'}"
                  f" (highest 1-minute load in the run {peak:.1f}: wall-time ratios mean something on idle cores only)")
    finally:
        subprocess.run([*ray_cli, "stop", "--force"], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
