#!/usr/bin/env python3
"""How close to the captured pace `blecap serve --speed realtime` plays a capture to an
unmodified Bumble host: each notification's offset from the subscription that started its
stream, as the virtual HCI carried it (the --out file, stamped when the controller wrote each
packet) against the captured one, and the controller's own lateness measure (the report's
"pace": every timed event against its absolute deadline).

    python3 scripts/bumble/serve_pace.py                       # a synthetic 10,000-notification session
    python3 scripts/bumble/serve_pace.py --notifications 2000  # shorter
    python3 scripts/bumble/serve_pace.py captures/bumble/hr_short_notification.central.btsnoop

Timings depend on the machine's load: this is a measurement, not a test (the unit tests assert
nothing about wall time). Prints one JSON object.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from serve_conformance import APP, bumble_python, captured  # noqa: E402


def timeline(blecap, path):
    out = subprocess.run([blecap, "timeline", path, "--format", "jsonl"], capture_output=True, text=True,
                         timeout=300).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def offsets(events):
    """Per connection: the notification times (s) after the first subscription."""
    start, out = {}, {}
    for e in events:
        c = e.get("connection")
        if e["type"] == "gatt.subscribe" and c not in start:
            start[c] = e["elapsed"]
        elif e["type"] in ("gatt.notification", "gatt.indication") and c in start:
            out.setdefault(c, []).append(e["elapsed"] - start[c])
    return [out[c] for c in sorted(out)]


def stats(values_us):
    if not values_us:
        return {}
    v = sorted(values_us)
    return {"count": len(v), "mean_us": round(sum(v) / len(v)), "p99_us": v[min(len(v) - 1, int(len(v) * 0.99))],
            "worst_us": v[-1]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--blecap", default=os.path.join(REPO, ".build", "debug", "blecap"))
    ap.add_argument("--notifications", type=int, default=10000)
    ap.add_argument("capture", nargs="?")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.capture
        if path is None:
            path = os.path.join(tmp, "bench.btsnoop")
            subprocess.run([sys.executable, os.path.join(REPO, "scripts", "corpus", "make_bench_capture.py"), path,
                            "--sessions", "1", "--notifications", str(args.notifications)], check=True,
                           capture_output=True)
        expected = captured(args.blecap, path)
        out_path = os.path.join(tmp, "served.btsnoop")
        serve = subprocess.Popen(
            [args.blecap, "serve", path, "--transport", "tcp-server:127.0.0.1:0", "--format", "json", "--speed",
             "realtime", "--linger", "1", "--accept-timeout", "30", "--out", out_path],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        port = None
        while port is None:
            line = serve.stderr.readline()
            if not line:
                sys.exit("blecap serve did not listen")
            m = re.search(r"tcp-client:127\.0\.0\.1:(\d+)", line)
            port = m.group(1) if m else None
        app_args = [bumble_python(), APP, "--transport", f"tcp-client:127.0.0.1:{port}"]
        for c in expected:
            duration = 3.0
            if c["subscribed_at"] is not None and c["last_value_at"] is not None:
                duration = c["last_value_at"] - c["subscribed_at"] + 5.0
            app_args += ["--address", c["peer"], "--mtu", str(c["mtu"] or 247), "--duration", f"{duration:.1f}",
                         "--count", str(len(c["notifications"]) or 0)]
        started = time.time()
        subprocess.run(app_args, capture_output=True, text=True, timeout=3600)
        elapsed = time.time() - started
        report = json.loads(serve.communicate(timeout=120)[0])
        load = os.getloadavg()
        late, early = [], []
        for cap, got in zip(offsets(timeline(args.blecap, path)), offsets(timeline(args.blecap, out_path))):
            for a, b in zip(cap, got):
                d = round((b - a) * 1e6)
                (late if d >= 0 else early).append(abs(d))
        print(json.dumps({
            "capture": os.path.basename(path), "app_seconds": round(elapsed, 1),
            "load_average": [round(x, 1) for x in load],
            "notifications_late_vs_captured_offset": stats(late),
            "notifications_early_vs_captured_offset": stats(early),
            "controller_pace": report.get("pace"),
        }, indent=1))


if __name__ == "__main__":
    main()
