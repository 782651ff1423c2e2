"""blecap-fleet run | watch | summary | query."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time

from .pipeline import run
from .worker import DEFAULT_COMMANDS


def _blecap_default() -> str:
    return os.environ.get("BLECAP") or shutil.which("blecap") or "blecap"


def build_parser() -> argparse.ArgumentParser:
    """The command line, apart from running it: fleet/tests/test_deploy.py parses the KubeRay
    manifest's entrypoint with it."""
    ap = argparse.ArgumentParser(prog="blecap-fleet", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)

    r = sub.add_parser("run", help="analyse captures on Ray and write Parquet")
    r.add_argument("sources", nargs="+", help="folders or URIs (s3://bucket/prefix …) to list")
    r.add_argument("--out", required=True, help="the Parquet store: a folder or a URI")
    r.add_argument("--blecap", default=_blecap_default(), help="the blecap binary (default: $BLECAP, then PATH)")
    r.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="concurrent batches")
    r.add_argument("--batch-size", type=int, default=200,
                   help="at most this many captures per blecap process (a batch starts blecap once: lint and diagnose "
                        "are one pass); a multiple of --workers batches, of even sizes")
    r.add_argument("--commands", default=",".join(DEFAULT_COMMANDS), help="blecap commands whose rows to keep")
    r.add_argument("--source", help="partition label (default: each source folder's name)")
    r.add_argument("--ray-address", help="join a running Ray cluster (e.g. auto, ray://head:10001)")
    r.add_argument("--no-ray", action="store_true", help="the same batches in this process, one after another")
    r.add_argument("--hash-on", choices=("auto", "driver", "workers"), default="auto",
                   help="where the listed files are hashed: by the driver, in a process of its own while Ray starts (driver), or "
                        "as Ray tasks once it has (workers); auto: the driver when every source is a local path")
    r.add_argument("--max-seconds", type=float, help="passed to blecap: per-capture time limit")
    r.add_argument("--max-memory", help="passed to blecap: per-capture memory limit")
    r.add_argument("--timeline", help="write one JSON line per analysed batch here (process, start, end, CPU seconds)")

    w = sub.add_parser("watch", help="stay connected and analyse what is new under the sources, again and again")
    w.add_argument("sources", nargs="+", help="folders or URIs to list at each tick")
    w.add_argument("--out", required=True, help="the Parquet store: a folder or a URI")
    w.add_argument("--blecap", default=_blecap_default(), help="the blecap binary (default: $BLECAP, then PATH)")
    w.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="lanes (concurrent batches)")
    w.add_argument("--batch-size", type=int, default=200, help="as for run")
    w.add_argument("--commands", default=",".join(DEFAULT_COMMANDS), help="blecap commands whose rows to keep")
    w.add_argument("--source", help="partition label (default: each source folder's name)")
    w.add_argument("--ray-address", help="join a running Ray cluster (e.g. auto, ray://head:10001)")
    w.add_argument("--every", type=float, default=300.0,
                   help="seconds from one tick's start to the next (default 300); SIGUSR1 starts one at once")
    w.add_argument("--ticks", type=int, help="end after this many ticks (default: until SIGTERM or SIGINT)")
    w.add_argument("--max-seconds", type=float, help="passed to blecap: per-capture time limit")
    w.add_argument("--max-memory", help="passed to blecap: per-capture memory limit")
    w.add_argument("--timeline", help="append one JSON line per analysed batch here")

    s = sub.add_parser("summary", help="answer the fleet questions (Markdown and HTML)")
    s.add_argument("store", help="the Parquet store written by run: a folder, or a URI (copied to a temporary folder first)")
    s.add_argument("--since", help="new signatures since this day (YYYY-MM-DD); default: the last day's")
    s.add_argument("--markdown", help="write Markdown here (default: standard output)")
    s.add_argument("--html", help="also write HTML here")

    q = sub.add_parser("query", help="run one of fleet/queries/*.sql (or a file) and print CSV")
    q.add_argument("store", help="as for summary")
    q.add_argument("name", help="query name (e.g. top_signatures) or a .sql path")
    q.add_argument("--since")
    return ap


def _limits(a: argparse.Namespace) -> tuple[str, ...]:
    extra = []
    if a.max_seconds is not None:
        extra += ["--max-seconds", str(a.max_seconds)]
    if a.max_memory is not None:
        extra += ["--max-memory", str(a.max_memory)]
    return tuple(extra)


def watch(a: argparse.Namespace) -> int:
    """`blecap-fleet watch`: a tick at start, then every `--every` seconds or on SIGUSR1; one JSON
    line per tick on standard output (an `error` line when a tick failed: the next tick retries
    what it did not commit). SIGTERM and SIGINT end the watch after the tick under way."""
    import signal
    import threading

    from .pipeline import Watcher

    watcher = Watcher(a.sources, a.out, blecap=a.blecap, workers=a.workers, batch_size=a.batch_size,
                      commands=tuple(x for x in a.commands.split(",") if x), extra=_limits(a),
                      ray_address=a.ray_address, source_label=a.source)
    # After the connection: ray.init installs handlers of its own for SIGTERM and SIGINT.
    wake, stop = threading.Event(), threading.Event()
    signal.signal(signal.SIGUSR1, lambda *_: wake.set())
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: (stop.set(), wake.set()))
    try:
        while not stop.is_set():
            wake.clear()
            started = time.monotonic()
            timeline: list[dict] = []
            try:
                line = watcher.tick(timeline)
            except Exception as e:  # a lane lost, a source gone: said, and the watch goes on
                line = {"tick": watcher.ticks, "error": f"{type(e).__name__}: {e}"[:500]}
            if a.timeline and timeline:
                with open(a.timeline, "a") as f:
                    f.writelines(json.dumps(b, sort_keys=True) + "\n" for b in timeline)
            print(json.dumps(line, sort_keys=True), flush=True)
            if a.ticks is not None and watcher.ticks >= a.ticks:
                break
            wake.wait(max(0.0, a.every - (time.monotonic() - started)))
    finally:
        watcher.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    a = build_parser().parse_args(argv)
    if a.cmd == "watch":
        return watch(a)
    if a.cmd == "run":
        extra = _limits(a)
        timeline: list[dict] = []
        result = run(a.sources, a.out, blecap=a.blecap, workers=a.workers, batch_size=a.batch_size,
                     commands=tuple(x for x in a.commands.split(",") if x), extra=extra,
                     ray_address=a.ray_address, use_ray=not a.no_ray, source_label=a.source, timeline=timeline,
                     disconnect=False, hash_on=a.hash_on)
        if a.timeline:
            with open(a.timeline, "w") as f:
                f.writelines(json.dumps(b, sort_keys=True) + "\n" for b in timeline)
        print(json.dumps(result, sort_keys=True))
        if a.ray_address and not a.no_ray:
            # Connected to a running cluster, with every batch committed and the result printed:
            # end here. ray.shutdown() took 0.27 s on an idle machine, and without it Ray's exit
            # hook sleeps 0.5 s before disconnecting (docs/performance.md).
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)
        return 0
    # summary and query need DuckDB; `run` does not wait for its import (0.1 to 0.25 s at load 15).
    from . import summary as summary_mod

    if a.cmd == "summary":
        md, html = summary_mod.render(a.store, since=a.since)
        if a.markdown:
            with open(a.markdown, "w") as f:
                f.write(md)
        else:
            sys.stdout.write(md)
        if a.html:
            with open(a.html, "w") as f:
                f.write(html)
        return 0
    if a.cmd == "query":
        cols, rows = summary_mod.query(a.store, a.name, since=a.since)
        import csv

        w = csv.writer(sys.stdout)
        w.writerow(cols)
        w.writerows(rows)
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
