"""The worker's blecap runs and its lanes, against a stand-in blecap (a script writing fleet rows),
and the driver's threaded hashing; without Ray.

    .build/fleet-venv/bin/python -m unittest discover -s fleet/tests
"""

import hashlib
import os
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

import pyarrow.parquet as pq

from blecap_fleet.listing import hash_captures, hash_captures_threaded, list_captures
from blecap_fleet.store import MANIFEST
from blecap_fleet.worker import Lane, process_batch, run_blecap

# A stand-in for `blecap COMMAND --format fleet --files-from -`: a capture row per listed path,
# and with --marks a `{"mark":N}` line for each blank line, read as they come (a lane's process).
# $FAKE_WORK: seconds it works after reading its list (its rows then carry its pid and start time);
# $FAKE_PAD: characters of padding per row; $FAKE_HANG_ON / $FAKE_DIE_ON: a path at which it hangs /
# exits 7.
FAKE = textwrap.dedent("""\
    import json, os, sys, time
    if os.environ.get("FAKE_SLEEP"):
        time.sleep(float(os.environ["FAKE_SLEEP"]))
    if os.environ.get("FAKE_EXIT"):
        sys.stderr.write("fake: refused\\n")
        sys.exit(int(os.environ["FAKE_EXIT"]))
    began = time.time()

    def row(p):
        r = {"table": "capture", "input": p, "capture_id": "c" + os.path.basename(p)}
        if os.environ.get("FAKE_WORK"):
            r.update(pid=os.getpid(), began=began)
        if os.environ.get("FAKE_PAD"):
            r["pad"] = "x" * int(os.environ["FAKE_PAD"])
        return json.dumps(r)

    if "--marks" in sys.argv:
        marks = 0
        for line in sys.stdin:
            p = line.strip()
            if not p:
                marks += 1
                print(json.dumps({"mark": marks}, separators=(",", ":")), flush=True)
                continue
            if p == os.environ.get("FAKE_HANG_ON"):
                time.sleep(60)
            if p == os.environ.get("FAKE_DIE_ON"):
                sys.stderr.write("fake: died at " + p + "\\n")
                sys.exit(7)
            time.sleep(float(os.environ.get("FAKE_WORK", "0")))
            print(row(p), flush=True)
        sys.exit(0)
    paths = [l.strip() for l in sys.stdin if l.strip()]
    time.sleep(float(os.environ.get("FAKE_WORK", "0")))
    for p in paths:
        print(row(p), flush=True)
""")


def _sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class WorkerTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.blecap = os.path.join(self.dir.name, "blecap")
        with open(self.blecap, "w") as f:
            f.write(f"#!{sys.executable}\n" + FAKE)
        os.chmod(self.blecap, 0o755)
        self.inputs = []
        for i in range(5):
            path = os.path.join(self.dir.name, "in", f"{i}.btsnoop")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(bytes([i]) * (3000 + i))
            self.inputs.append(path)
        self.env = dict(os.environ)

    def tearDown(self):
        os.environ.clear()
        os.environ.update(self.env)
        self.dir.cleanup()

    def test_rows_larger_than_a_pipe_holds_are_read_whole_and_in_order(self):
        # 5 rows of 100 kB: through a pipe nobody read until the end, blecap would block on its
        # first 64 kB and the batch hang; its anonymous file takes them all.
        os.environ["FAKE_PAD"] = "100000"
        try:
            seen = []
            count = run_blecap(self.blecap, "lint", self.inputs, [], 30, seen.append)
        finally:
            del os.environ["FAKE_PAD"]
        self.assertEqual(count, 5)
        self.assertEqual([r["input"] for r in seen], self.inputs)
        self.assertTrue(all(len(r["pad"]) == 100000 for r in seen))

    def test_a_run_over_its_time_is_killed(self):
        os.environ["FAKE_SLEEP"] = "30"
        t = time.monotonic()
        with self.assertRaises(subprocess.TimeoutExpired):
            run_blecap(self.blecap, "lint", self.inputs, [], 0.5, lambda row: None)
        self.assertLess(time.monotonic() - t, 10)

    def test_a_failed_run_without_rows_is_an_error_with_its_stderr(self):
        os.environ["FAKE_EXIT"] = "2"
        with self.assertRaisesRegex(RuntimeError, "exit 2: fake: refused"):
            run_blecap(self.blecap, "lint", self.inputs, [], 30, lambda row: None)

    def _batch(self, members):
        return {"day": "2026-11-29", "source": "s", "members": [{"uri": p, "sha256": _sha(p), "size": 1} for p in members]}

    def test_a_lane_commits_each_batch_while_the_next_runs_and_writes_what_process_batch_writes(self):
        kw = dict(blecap=self.blecap, version="v1", commands=("lint",))
        b1, b2 = self._batch(self.inputs[:3]), self._batch(self.inputs[3:])
        lane_out, plain_out = os.path.join(self.dir.name, "lane"), os.path.join(self.dir.name, "plain")
        lane = Lane()
        self.assertEqual(lane.run(b1, out=lane_out, **kw), [])  # b1 is being committed
        first = lane.run(b2, out=lane_out, **kw)
        self.assertEqual([r["analysed"] for r in first], [3])
        last = lane.close()
        self.assertEqual([r["analysed"] for r in last], [2])
        self.assertEqual(lane.flush(), [])
        for r in first + last:
            self.assertLessEqual(r["started"], r["blecap_ended"])
            self.assertLessEqual(r["blecap_ended"], r["ended"])
        plain = [process_batch(b, out=plain_out, **kw) for b in (b1, b2)]
        self.assertEqual([r["batch"] for r in first + last], [r["batch"] for r in plain])

        def files(root):
            return sorted(os.path.relpath(os.path.join(d, n), root) for d, _, ns in os.walk(root) for n in ns)

        self.assertEqual(files(lane_out), files(plain_out))
        self.assertEqual(len([f for f in files(lane_out) if f.startswith(MANIFEST)]), 2)
        for f in files(lane_out):
            self.assertEqual(pq.read_table(os.path.join(lane_out, f)), pq.read_table(os.path.join(plain_out, f)))

    def test_a_lane_reports_a_failed_commit_to_its_next_call(self):
        out = os.path.join(self.dir.name, "store")
        open(out, "w").close()  # a file where the store's folder should be: every write fails
        lane = Lane()
        lane.run(self._batch(self.inputs[:2]), out=out, blecap=self.blecap, version="v1", commands=("lint",))
        with self.assertRaises(OSError):
            lane.close()

    def _rows(self, store):
        return pq.read_table(os.path.join(store, "capture")).to_pylist()

    def test_a_lanes_batches_go_through_one_blecap_process_ended_by_close(self):
        kw = dict(blecap=self.blecap, version="v1", commands=("lint",))
        store = os.path.join(self.dir.name, "store")
        lane = Lane()
        os.environ["FAKE_WORK"] = "0.01"  # the rows carry the process's pid
        try:
            lane.run(self._batch(self.inputs[:2]), out=store, **kw)
            lane.run(self._batch(self.inputs[2:]), out=store, **kw)
            lane.flush()
            pid = {r["pid"] for r in self._rows(store)}
            self.assertEqual(len(pid), 1)
            os.kill(pid.pop(), 0)  # still there between batches
            lane.close()
        finally:
            del os.environ["FAKE_WORK"]
        self.assertEqual(sorted(r["input"] for r in self._rows(store)), sorted(self.inputs))
        self.assertEqual(lane._processes._by_argv, {})

    def test_a_lane_batch_over_its_time_is_killed_and_the_next_gets_a_new_process(self):
        kw = dict(blecap=self.blecap, version="v1", commands=("lint",))
        store = os.path.join(self.dir.name, "store")
        lane = Lane()
        os.environ.update(FAKE_WORK="0.01", FAKE_HANG_ON=self.inputs[1])
        try:
            lane.run(self._batch(self.inputs[:1]), out=store, **kw)
            started = time.monotonic()
            with self.assertRaises(subprocess.TimeoutExpired):
                lane.run(self._batch(self.inputs[1:3]), out=store, timeout=1, **kw)
            self.assertLess(time.monotonic() - started, 20)
            lane.run(self._batch(self.inputs[3:]), out=store, **kw)
            lane.close()
        finally:
            for k in ("FAKE_WORK", "FAKE_HANG_ON"):
                del os.environ[k]
        rows = self._rows(store)
        self.assertEqual(sorted(r["input"] for r in rows), sorted(self.inputs[:1] + self.inputs[3:]))
        first = {r["pid"] for r in rows if r["input"] in self.inputs[:1]}
        last = {r["pid"] for r in rows if r["input"] in self.inputs[3:]}
        self.assertEqual(len(first | last), 2)

    def test_a_lane_process_that_ends_mid_batch_is_an_error_with_its_stderr_and_the_lane_goes_on(self):
        kw = dict(blecap=self.blecap, version="v1", commands=("lint",))
        store = os.path.join(self.dir.name, "store")
        lane = Lane()
        os.environ["FAKE_DIE_ON"] = self.inputs[2]
        try:
            with self.assertRaisesRegex(RuntimeError, "before its batch's mark: fake: died at"):
                lane.run(self._batch(self.inputs[:3]), out=store, **kw)
            lane.run(self._batch(self.inputs[3:]), out=store, **kw)
            lane.close()
        finally:
            del os.environ["FAKE_DIE_ON"]
        self.assertEqual(sorted(r["input"] for r in self._rows(store)), sorted(self.inputs[3:]))


class HashTests(unittest.TestCase):
    def test_threaded_hashing_gives_the_listing_order_and_the_same_hashes(self):
        with tempfile.TemporaryDirectory() as d:
            for i in range(23):
                with open(os.path.join(d, f"{i:02d}"), "wb") as f:
                    f.write(os.urandom(100 + 997 * i))
            caps = [{"uri": c.uri, "size": c.size, "day": c.day, "source": c.source} for c in list_captures(d)]
            self.assertEqual(hash_captures_threaded(caps, 3, chunk=4), hash_captures(caps))
            self.assertEqual(hash_captures_threaded(caps, 3, chunk=4)[7]["sha256"], _sha(caps[7]["uri"]))


if __name__ == "__main__":
    unittest.main()
