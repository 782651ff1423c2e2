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
from blecap_fleet.worker import Lane, Prestarted, analyse_batch, process_batch, run_blecap

# A stand-in for `blecap COMMAND --format fleet --files-from -`: a capture row per listed path.
# With $FAKE_GATE set it writes the first row, then waits (up to 5 s) for that file to exist
# before writing the rest, so that a caller which reads rows only after the process ends is seen.
FAKE = textwrap.dedent("""\
    import json, os, sys, time
    if os.environ.get("FAKE_SLEEP"):
        time.sleep(float(os.environ["FAKE_SLEEP"]))
    if os.environ.get("FAKE_EXIT"):
        sys.stderr.write("fake: refused\\n")
        sys.exit(int(os.environ["FAKE_EXIT"]))
    began = time.time()
    paths = [l.strip() for l in sys.stdin if l.strip()]
    time.sleep(float(os.environ.get("FAKE_WORK", "0")))
    gate = os.environ.get("FAKE_GATE")
    for i, p in enumerate(paths):
        row = {"table": "capture", "input": p, "capture_id": "c" + str(i)}
        if os.environ.get("FAKE_WORK"):
            row.update(pid=os.getpid(), began=began)
        print(json.dumps(row), flush=True)
        if i == 0 and gate:
            deadline = time.monotonic() + 5
            while not os.path.exists(gate) and time.monotonic() < deadline:
                time.sleep(0.01)
            if not os.path.exists(gate):
                sys.exit(9)
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

    def test_rows_reach_the_caller_while_blecap_still_runs(self):
        gate = os.path.join(self.dir.name, "gate")
        os.environ["FAKE_GATE"] = gate
        seen = []

        def on_row(row):
            seen.append(row["input"])
            open(gate, "w").close()  # the stand-in writes its other rows only once this exists

        count = run_blecap(self.blecap, "lint", self.inputs, [], 30, on_row)
        self.assertEqual(count, 5)
        self.assertEqual(seen, self.inputs)

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

    def test_a_lanes_next_blecap_is_started_while_the_batch_before_it_runs(self):
        kw = dict(blecap=self.blecap, version="v1", commands=("lint",))
        lane = Lane()
        os.environ["FAKE_WORK"] = "0.4"  # each process works 0.4 s after reading its list
        try:
            lane.run(self._batch(self.inputs[:2]), out=os.path.join(self.dir.name, "store"), **kw)
            first_returned = time.time()
            lane.run(self._batch(self.inputs[2:]), out=os.path.join(self.dir.name, "store"), **kw)
        finally:
            del os.environ["FAKE_WORK"]
        lane.close()
        self.assertIsNone(lane._processes._spare)
        got = pq.read_table(os.path.join(self.dir.name, "store", "capture")).to_pylist()
        first = [r for r in got if r["input"] in self.inputs[:2]]
        second = [r for r in got if r["input"] in self.inputs[2:]]
        self.assertEqual((len(first), len(second)), (2, 3))
        self.assertNotEqual(first[0]["pid"], second[0]["pid"])
        # The second batch's process was running before the first batch's run returned.
        self.assertLess(second[0]["began"], first_returned - 0.2)


class PrestartedTests(unittest.TestCase):
    def test_each_spawn_hands_over_the_process_the_call_before_started(self):
        spawner = Prestarted()
        argv = [sys.executable, "-c", "import sys, os; sys.stdin.read(); print(os.getpid())"]
        procs = [spawner.spawn(argv) for _ in range(3)]
        spare = spawner._spare[1]
        outs = [p.communicate(b"")[0].decode().strip() for p in procs]
        self.assertEqual(outs, [str(p.pid) for p in procs])
        self.assertEqual(len(set(outs)), 3)
        self.assertIsNone(spare.poll())  # the next one, started and waiting
        spawner.close()
        self.assertIsNotNone(spare.poll())
        other = [sys.executable, "-c", "import sys; sys.stdin.read(); print('other')"]
        p = spawner.spawn(other)
        q = spawner.spawn(argv)  # another command: the spare started for `other` is not handed over
        self.assertEqual(p.communicate(b"")[0], b"other\n")
        self.assertEqual(q.communicate(b"")[0].decode().strip(), str(q.pid))
        spawner.close()


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
