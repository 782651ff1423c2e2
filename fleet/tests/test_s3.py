"""Listing, hashing, a worker's batch and the store on an object store: moto's S3 server, run in
this process on a loopback port. Skipped where moto is not installed (scripts/fleet_s3_check.py
installs `moto[server]` into its virtual environment and runs these).

    .build/fleet-venv/bin/python -m unittest discover -s fleet/tests
"""

import hashlib
import logging
import os
import sys
import tempfile
import unittest
import urllib.request
import xml.etree.ElementTree as ET

import pyarrow.fs as pafs
import pyarrow.parquet as pq

from blecap_fleet.listing import hash_captures, list_captures
from blecap_fleet.store import MANIFEST, Store, to_table
from blecap_fleet.summary import query
from blecap_fleet.worker import process_batch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_worker import FAKE  # noqa: E402

try:
    from moto.server import ThreadedMotoServer
except ImportError:
    ThreadedMotoServer = None

# moto 5.2.1 answers a completed multipart upload with a root element pyarrow takes for an error
# embedded in a 200 response (it retries, then fails); with `allow_delayed_open` pyarrow writes an
# object smaller than its upload part with one PutObject instead. Real S3 needs neither.
MOTO_OPTIONS = "scheme=http&allow_delayed_open=true"


@unittest.skipIf(ThreadedMotoServer is None, "moto[server] is not installed")
class S3Tests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.env = dict(os.environ)
        os.environ.update(AWS_ACCESS_KEY_ID="fleet", AWS_SECRET_ACCESS_KEY="fleet", AWS_DEFAULT_REGION="us-east-1",
                          AWS_EC2_METADATA_DISABLED="true")
        logging.getLogger("werkzeug").setLevel(logging.ERROR)  # a line per request otherwise
        cls.server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        cls.server.start()
        host, port = cls.server.get_host_and_port()
        cls.options = f"endpoint_override={host}:{port}&{MOTO_OPTIONS}"
        cls.fs, _ = pafs.FileSystem.from_uri(f"s3://fleet?{cls.options}&allow_bucket_creation=true")
        cls.fs.create_dir("fleet")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        os.environ.clear()
        os.environ.update(cls.env)

    def _put(self, key, data):
        with self.fs.open_output_stream(f"fleet/{key}") as f:
            f.write(data)

    def _uri(self, prefix):
        return f"s3://fleet/{prefix}?{self.options}"

    def test_listed_objects_are_hashed_through_the_source_uris_endpoint_and_named_without_it(self):
        self._put("list/in/x/1.bin", b"one")
        self._put("list/in/2.bin", b"two")
        self._put("list/in/.partial", b"skipped")
        listed = list_captures(self._uri("list/in"))
        self.assertEqual([c.uri for c in listed], ["s3://fleet/list/in/2.bin", "s3://fleet/list/in/x/1.bin"])
        self.assertEqual([c.source for c in listed], ["in", "in"])
        hashed = hash_captures([c.member() for c in listed])
        self.assertEqual([h["sha256"] for h in hashed], [hashlib.sha256(b"two").hexdigest(),
                                                          hashlib.sha256(b"one").hexdigest()])

    def _keys(self, prefix):
        """The bucket's object keys under `prefix`, as S3 lists them (pyarrow shows a marker
        object and a prefix alike, as a directory)."""
        host, port = self.server.get_host_and_port()
        with urllib.request.urlopen(f"http://{host}:{port}/fleet?list-type=2&prefix={prefix}") as r:
            listing = ET.fromstring(r.read())
        return sorted(e.text for e in listing.iter() if e.tag.endswith("}Key"))

    def test_a_batch_table_is_one_object_without_folder_markers(self):
        store = Store(self._uri("markers/store"))
        store.write("capture", "2026-11-29", "in", "b1", to_table([{"capture_id": "x"}]))
        store.write("verdict", "2026-11-29", "in", "b1", to_table([{"capture_id": "x"}]))
        self.assertEqual(self._keys("markers/store/capture"), ["markers/store/capture/day=2026-11-29/source=in/b1.parquet"])
        self.assertEqual(store.tables(), ["capture", "verdict"])

    def test_a_batch_of_objects_is_analysed_committed_and_cleaned_on_the_store(self):
        with tempfile.TemporaryDirectory() as d:
            blecap = os.path.join(d, "blecap")
            with open(blecap, "w") as f:
                f.write(f"#!{sys.executable}\n" + FAKE)
            os.chmod(blecap, 0o755)
            for i in range(3):
                self._put(f"batch/in/{i}.btsnoop", bytes([i]) * 100)
            hashed = hash_captures([c.member() for c in list_captures(self._uri("batch/in"))])
            members = [{k: h[k] for k in ("uri", "sha256", "size", "fs")} for h in hashed]
            out = self._uri("batch/store")
            r = process_batch({"day": "2026-11-29", "source": "in", "members": members}, out=out, blecap=blecap,
                              version="v1", commands=("lint",))
        self.assertEqual(r["analysed"], 3)
        store = Store(out)
        folder = f"fleet/batch/store/capture/day=2026-11-29/source=in"
        rows = pq.read_table(f"{folder}/{r['batch']}.parquet", filesystem=self.fs).to_pylist()
        # The rows name each object's URI, not the worker's local copy blecap read.
        self.assertEqual(sorted(x["input"] for x in rows), [m["uri"] for m in members])
        self.assertEqual(store.committed(), {(m["sha256"], "v1") for m in members})
        # A killed run's leftovers: a batch's table without its manifest, and a temporary file.
        store.write("capture", "2026-11-29", "in", "uncommitted", to_table([{"capture_id": "x"}]))
        self._put(f"batch/store/capture/day=2026-11-29/source=in/.tmp-x-0", b"")
        self.assertEqual(store.clean(), 2)
        left = [i.base_name for i in self.fs.get_file_info(pafs.FileSelector(folder)) if i.type == pafs.FileType.File]
        self.assertEqual(left, [f"{r['batch']}.parquet"])
        self.assertEqual(store.tables(), ["capture", MANIFEST])
        self.assertEqual(store.committed(), {(m["sha256"], "v1") for m in members})
        # DuckDB's questions over the store, given by its URI (a temporary local copy).
        with tempfile.NamedTemporaryFile("w", suffix=".sql") as sql:
            sql.write("SELECT input, source FROM {capture} ORDER BY input")
            sql.flush()
            self.assertEqual(query(out, sql.name), (["input", "source"], [(m["uri"], "in") for m in members]))


if __name__ == "__main__":
    unittest.main()
