"""The Parquet store: one folder per table, hive-partitioned by day and source, one file per batch.

    OUT/<table>/day=YYYY-MM-DD/source=NAME/<batch>.parquet

A batch's files are named by the batch's id (a hash of blecap's version, the commands and the
content hashes it analysed), so writing a batch twice gives the same file. The `manifest` table is
written last: it is the commit. `committed()` reads it; `clean()` deletes what a killed run left
(files of batches without a manifest, temporary files).
"""

from __future__ import annotations

import io
import json
import os
import posixpath
import uuid

import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.fs as pafs
import pyarrow.json as pajson
import pyarrow.parquet as pq

from .listing import filesystem

MANIFEST = "manifest"

#: pyarrow filesystems (`type_name`) without folders, whose paths are only key prefixes.
OBJECT_STORES = ("s3", "gcs")

#: (process, store URI) whose root exists: see Store.write.
_ROOTS: set[tuple[int, str]] = set()


def _arrow_type(values: list) -> pa.DataType:
    kinds = {type(v) for v in values if v is not None}
    if not kinds:
        return pa.string()
    if kinds <= {bool}:
        return pa.bool_()
    if kinds <= {int}:
        return pa.int64()
    if kinds <= {int, float}:
        return pa.float64()
    return pa.string()


def _column(values: list, t: pa.DataType) -> list:
    """A column's values as Arrow takes them for type `t`."""
    if pa.types.is_string(t):
        # Nested objects and lists stay JSON text: the schema is blecap's, documented in
        # docs/fleet.md, and DuckDB reads JSON text with its json functions.
        return [v if v is None or isinstance(v, str) else json.dumps(v, sort_keys=True, separators=(",", ":"))
                for v in values]
    if pa.types.is_floating(t):
        return [float(v) if isinstance(v, int) else v for v in values]
    return values


def to_table(rows: list[dict], schema: dict[str, pa.DataType] | None = None) -> pa.Table:
    """Rows (dicts) as an Arrow table: columns in sorted order so that two batches of one table
    have the same layout; a column's type from `schema` where given, else from its values."""
    names = sorted({k for r in rows for k in r} | set(schema or {}))
    arrays = {}
    for n in names:
        values = [r.get(n) for r in rows]
        t = (schema or {}).get(n) or _arrow_type(values)
        # One test of the type per column, not per value: this runs on every row a batch writes.
        arrays[n] = pa.array(_column(values, t), type=t)
    return pa.table(arrays)


def table_from_lines(lines: list[bytes], schema: dict[str, pa.DataType]) -> pa.Table:
    """`to_table` of JSON lines as blecap wrote them, parsed by pyarrow's JSON reader: the same
    table (columns sorted, typed from `schema`) for a table whose columns docs/fleet.md types.
    A table without them goes through `to_table`, whose inference (nested values as JSON text) the
    reader does not share."""
    if not schema:
        return to_table([json.loads(x) for x in lines], schema)
    data = b"".join(x if x.endswith(b"\n") else x + b"\n" for x in lines)
    t = pajson.read_json(io.BytesIO(data),
                         read_options=pajson.ReadOptions(use_threads=False, block_size=max(1 << 20, len(data) + 1)),
                         parse_options=pajson.ParseOptions(explicit_schema=pa.schema(schema),
                                                           unexpected_field_behavior="infer"))
    return t.select(sorted(t.column_names))


class Store:
    def __init__(self, uri: str):
        self.uri = uri
        self.fs, self.root = filesystem(uri)
        self.local = isinstance(self.fs, pafs.LocalFileSystem)

    def _dir(self, table: str, day: str, source: str) -> str:
        return posixpath.join(self.root, table, f"day={day}", f"source={source}")

    def write(self, table: str, day: str, source: str, batch: str, t: pa.Table) -> None:
        folder = self._dir(table, day, source)
        final = posixpath.join(folder, f"{batch}.parquet")
        if self.local:
            self.fs.create_dir(folder, recursive=True)
            # Whole or absent: written beside its final name, then renamed over it.
            tmp = posixpath.join(folder, f".tmp-{batch}-{uuid.uuid4().hex}")
            pq.write_table(t, tmp, filesystem=self.fs)
            os.replace(tmp, final)
            return
        if self.fs.type_name not in OBJECT_STORES:
            self.fs.create_dir(folder, recursive=True)
        elif (os.getpid(), self.uri) not in _ROOTS:
            # An object store has no folders: pyarrow's create_dir writes an empty marker object
            # per level, which per table was three requests beside the one for the Parquet (120
            # for 40 objects on moto). The root once per process: that makes the bucket where the
            # URI allows it (allow_bucket_creation=true).
            self.fs.create_dir(self.root, recursive=True)
            _ROOTS.add((os.getpid(), self.uri))
        # Object stores make an object visible only when its upload completes.
        pq.write_table(t, final, filesystem=self.fs)

    def _files(self, table: str) -> list[pafs.FileInfo]:
        base = posixpath.join(self.root, table)
        if self.fs.get_file_info(base).type != pafs.FileType.Directory:
            return []
        sel = pafs.FileSelector(base, recursive=True)
        return [i for i in self.fs.get_file_info(sel) if i.type == pafs.FileType.File]

    def tables(self) -> list[str]:
        if self.fs.get_file_info(self.root).type != pafs.FileType.Directory:
            return []
        sel = pafs.FileSelector(self.root, recursive=False)
        return sorted(i.base_name for i in self.fs.get_file_info(sel) if i.type == pafs.FileType.Directory)

    def committed_batches(self) -> set[str]:
        return {
            i.base_name[: -len(".parquet")]
            for i in self._files(MANIFEST)
            if i.base_name.endswith(".parquet") and not i.base_name.startswith(".")
        }

    def committed(self) -> set[tuple[str, str]]:
        """(content hash, blecap version) of every capture a committed batch analysed."""
        files = [i.path for i in self._files(MANIFEST) if i.base_name.endswith(".parquet") and not i.base_name.startswith(".")]
        if not files:
            return set()
        t = pads.dataset(files, filesystem=self.fs, format="parquet").to_table(
            columns=["content_hash", "blecap_version"])
        return set(zip(t.column("content_hash").to_pylist(), t.column("blecap_version").to_pylist()))

    def clean(self) -> int:
        """Delete temporary files and every table's files of batches that never committed (a run
        killed between a batch's tables and its manifest). Returns how many were deleted."""
        keep = self.committed_batches()
        removed = 0
        for table in self.tables():
            for i in self._files(table):
                stem = i.base_name[: -len(".parquet")] if i.base_name.endswith(".parquet") else None
                if i.base_name.startswith(".tmp-") or (table != MANIFEST and stem not in keep):
                    self.fs.delete_file(i.path)
                    removed += 1
        return removed

    def glob(self, table: str) -> str:
        """The read_parquet pattern DuckDB needs for a table (local stores)."""
        return posixpath.join(self.root, table, "**", "*.parquet")
