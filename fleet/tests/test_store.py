"""The store's commit rule and the driver's selection, without Ray or blecap.

    .build/fleet-venv/bin/python -m unittest discover -s fleet/tests
"""

import json
import os
import tempfile
import time
import unittest

import pyarrow as pa
import pyarrow.parquet as pq

from blecap_fleet.listing import batches, list_captures
from blecap_fleet.pipeline import Streamed, select
from blecap_fleet.schema import MANIFEST as MANIFEST_SCHEMA
from blecap_fleet.schema import arrow_schema, tables
from blecap_fleet.store import MANIFEST, Store, table_from_lines, to_table
from blecap_fleet.worker import batch_id


class LinesTests(unittest.TestCase):
    """blecap's lines parsed by pyarrow's reader give the table the parsed rows give."""

    @staticmethod
    def _value(t: pa.DataType, i: int):
        if pa.types.is_list(t):
            return [f"v{i}", f"w{i}"] if pa.types.is_string(t.value_type) else [i, i + 1]
        if pa.types.is_string(t):
            return f"s{i} \u00e9\"q\""
        if pa.types.is_boolean(t):
            return i % 2 == 0
        if pa.types.is_floating(t):
            return i  # an integral number in a float column, as JSON writes it
        return i * 1000

    def test_every_documented_table_reads_the_same_from_lines(self):
        for table, schema in tables().items():
            full = {c: self._value(t, 3) for c, t in schema.items()}
            nulls = {c: None for c in schema}
            partial = {c: self._value(t, 5) for i, (c, t) in enumerate(schema.items()) if i % 2}
            rows = [full, nulls, partial, dict(full, **{c: None for c in list(schema)[::3]})]
            compact = [json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in rows]
            spaced = [json.dumps(r).encode() for r in rows]  # another spelling, and no final newline
            want = to_table(rows, arrow_schema(table))
            for lines in (compact, spaced):
                got = table_from_lines(lines, arrow_schema(table))
                self.assertTrue(got.equals(want), f"{table}: {got.schema} != {want.schema}")

    def test_a_table_without_documented_columns_is_typed_as_to_table_types_it(self):
        rows = [{"a": {"x": 1}, "b": 2}, {"a": None, "b": 3.5}]
        lines = [json.dumps(r).encode() for r in rows]
        self.assertTrue(table_from_lines(lines, {}).equals(to_table(rows)))


class StoreTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.store = Store(self.dir.name)

    def tearDown(self):
        self.dir.cleanup()

    def _commit(self, bid, hashes, version="v1"):
        rows = [{"batch": bid, "uri": f"/x/{h}", "content_hash": h, "size": 1, "blecap_version": version,
                 "commands": "lint"} for h in hashes]
        self.store.write("capture", "2026-11-28", "s", bid, to_table([{"capture_id": h} for h in hashes]))
        self.store.write(MANIFEST, "2026-11-28", "s", bid, to_table(rows, MANIFEST_SCHEMA))

    def test_committed_is_what_the_manifest_names(self):
        self._commit("b1", ["h1", "h2"])
        self.assertEqual(self.store.committed(), {("h1", "v1"), ("h2", "v1")})

    def test_clean_removes_an_uncommitted_batch_and_temporaries_only(self):
        self._commit("b1", ["h1"])
        # A run killed after a batch's capture table and before its manifest, mid-write of another.
        self.store.write("capture", "2026-11-28", "s", "b2", to_table([{"capture_id": "h9"}]))
        folder = os.path.join(self.dir.name, "capture", "day=2026-11-28", "source=s")
        open(os.path.join(folder, ".tmp-b3-0"), "wb").close()
        self.assertEqual(self.store.clean(), 2)
        self.assertEqual(sorted(os.listdir(folder)), ["b1.parquet"])
        self.assertEqual(self.store.committed(), {("h1", "v1")})

    def test_a_column_null_in_every_row_keeps_its_type(self):
        t = to_table([{"a": None, "b": [1, 2]}], {"a": pa.int64(), "b": pa.list_(pa.int64())})
        self.assertEqual(t.schema.field("a").type, pa.int64())
        self.assertEqual(t.column("b").to_pylist(), [[1, 2]])

    def test_nested_values_without_a_schema_are_json_text(self):
        t = to_table([{"o": {"k": 1}}])
        self.assertEqual(t.column("o").to_pylist(), ['{"k":1}'])

    def test_write_is_whole_or_absent(self):
        self._commit("b1", ["h1"])
        path = os.path.join(self.dir.name, MANIFEST, "day=2026-11-28", "source=s", "b1.parquet")
        self.assertEqual(pq.read_table(path).num_rows, 1)
        self.assertEqual([n for n in os.listdir(os.path.dirname(path)) if n.startswith(".")], [])


class SelectionTests(unittest.TestCase):
    def test_committed_and_copies_are_not_analysed_again(self):
        hashed = [
            {"uri": "/b/2", "sha256": "h1", "size": 1, "day": "d", "source": "s"},
            {"uri": "/a/1", "sha256": "h1", "size": 1, "day": "d", "source": "s"},
            {"uri": "/c/3", "sha256": "h3", "size": 1, "day": "d", "source": "s"},
            {"uri": "/d/4", "sha256": "h4", "size": 1, "day": "d", "source": "s"},
        ]
        members, committed, copies = select(hashed, {("h3", "v1"), ("h4", "v0")}, "v1")
        self.assertEqual([m["uri"] for m in members], ["/a/1", "/d/4"])  # the first URI of a content
        self.assertEqual((committed, copies), (1, 1))
        # The earliest upload wins: by day before URI.
        later = [dict(hashed[1], day="e"), hashed[0]]
        self.assertEqual([m["uri"] for m in select(later, set(), "v1")[0]], ["/b/2"])

    def _fleet(self):
        """Captures over two days and two sources, with copies across days and a committed one."""
        caps = []
        for i in range(230):
            caps.append({"uri": f"/in/{i:04d}", "size": i, "day": "d1" if i % 3 else "d0",
                         "source": "s" if i % 5 else "t", "fs": ""})
        sha = {c["uri"]: f"h{int(c['uri'][-4:]) % 200}" for c in caps}  # 30 copies
        return caps, sha

    def test_streamed_batches_hold_what_select_and_make_batches_hold(self):
        caps, sha = self._fleet()
        done = {("h7", "v1"), ("h8", "v0")}
        hashed = [dict(c, sha256=sha[c["uri"]]) for c in caps]
        members, committed, copies = select(hashed, done, "v1")
        want = batches(members, 40, workers=2)
        calls = []

        def hash_chunk(chunk):
            calls.append(len(chunk))
            return [dict(c, sha256=sha[c["uri"]]) for c in chunk]

        known = {c["uri"]: sha[c["uri"]] for c in caps[:50]}  # seen at an earlier tick
        streamed = Streamed(caps, dict(known), hash_chunk, done, "v1", 40, 2, threads=3, chunk=16)
        got = list(streamed)
        self.assertEqual(sum(calls), len(caps) - len(known))
        self.assertEqual((streamed.committed, streamed.copies, streamed.batches), (committed, copies, len(got)))
        self.assertEqual([m["uri"] for m in streamed.members], [m["uri"] for m in members])
        flat = [(b["day"], b["source"], m["uri"], m["sha256"]) for b in got for m in b["members"]]
        self.assertEqual(flat, [(b["day"], b["source"], m["uri"], m["sha256"]) for b in want for m in b["members"]])
        self.assertTrue(all(0 < len(b["members"]) <= 40 for b in got))

    def test_streamed_batches_start_before_everything_is_hashed(self):
        caps, sha = self._fleet()
        hashed_so_far = []

        def hash_chunk(chunk):
            time.sleep(0.01)
            hashed_so_far.extend(chunk)
            return [dict(c, sha256=sha[c["uri"]]) for c in chunk]

        streamed = iter(Streamed(caps, {}, hash_chunk, set(), "v1", 40, 2, threads=1, chunk=8))
        first = next(streamed)
        self.assertLess(len(hashed_so_far), len(caps) // 2)
        order = sorted(caps, key=lambda c: (c["day"], c["source"], c["uri"]))
        self.assertEqual([m["uri"] for m in first["members"]], [c["uri"] for c in order[: len(first["members"])]])
        list(streamed)
        self.assertEqual(len(hashed_so_far), len(caps))

    def test_batches_stay_in_one_partition_and_respect_the_size(self):
        members = [{"uri": f"/{i}", "sha256": f"h{i}", "size": 1, "day": "d2" if i % 2 else "d1", "source": "s"}
                   for i in range(5)]
        b = batches(members, 2)
        self.assertEqual([(x["day"], len(x["members"])) for x in b], [("d1", 2), ("d1", 1), ("d2", 2)])

    def test_batches_are_even_and_a_multiple_of_the_workers(self):
        members = [{"uri": f"/{i:04d}", "sha256": f"h{i}", "size": 1, "day": "d", "source": "s"}
                   for i in range(2200)]
        b = batches(members, 200, workers=2)
        self.assertEqual(len(b), 12)  # 11 batches of 200 would leave one worker the last alone
        self.assertEqual(sorted({len(x["members"]) for x in b}), [183, 184])
        self.assertEqual([m["uri"] for x in b for m in x["members"]], [m["uri"] for m in members])
        self.assertEqual(len(batches(members[:3], 200, workers=4)), 3)  # never an empty batch
        self.assertEqual([len(x["members"]) for x in batches(members[:5], 2)], [2, 2, 1])

    def test_batch_id_ignores_member_order(self):
        self.assertEqual(batch_id("v", ("lint",), ["a", "b"]), batch_id("v", ("lint",), ["b", "a"]))
        self.assertNotEqual(batch_id("v", ("lint",), ["a"]), batch_id("w", ("lint",), ["a"]))

    def test_listing_skips_hidden_files_and_sorts(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "sub"))
            for n in ("b", "sub/a", ".hidden", "sub/.tmp"):
                open(os.path.join(d, n), "w").close()
            got = [os.path.relpath(c.uri, d) for c in list_captures(d)]
            self.assertEqual(got, ["b", "sub/a"])


if __name__ == "__main__":
    unittest.main()
