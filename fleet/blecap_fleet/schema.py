"""Arrow types of the fleet tables, from the schema blecap documents (docs/fleet.md).

Every batch writes a table with the same column types, whatever its values: a column that is
null in every row of one batch is still typed, so DuckDB and pyarrow read all batches as one
table. The types come from docs/fleet.md's column table, the one a Swift test holds blecap's
output to.
"""

from __future__ import annotations

import functools
import os
import re

import pyarrow as pa

DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "docs", "fleet.md")

_TYPES = {
    "string": pa.string(),
    "integer": pa.int64(),
    "number": pa.float64(),
    "boolean": pa.bool_(),
    "array<string>": pa.list_(pa.string()),
    "array<integer>": pa.list_(pa.int64()),
}

#: The store's own table (the batch's commit record), not one of blecap's.
MANIFEST = {
    "batch": pa.string(),
    "blecap_version": pa.string(),
    "commands": pa.string(),
    "content_hash": pa.string(),
    "size": pa.int64(),
    "uri": pa.string(),
}


@functools.cache
def tables() -> dict[str, dict[str, pa.DataType]]:
    """{table: {column: type}} parsed from docs/fleet.md's column table, whose rows read
    | `table` | `column` | `type` | meaning |."""
    out: dict[str, dict[str, pa.DataType]] = {"manifest": dict(MANIFEST)}
    if not os.path.exists(DOC):
        # Without it every column would go out untyped (lists as JSON text), and such batches do
        # not read as one table with typed ones: a copy of fleet/ without docs/ must fail here.
        raise FileNotFoundError(f"{DOC}: the fleet tables' column types are read from it; install "
                                "blecap-fleet from blecap's source tree (pip install -e fleet)")
    row = re.compile(r"^\|\s*`([a-z_]+)`\s*\|\s*`([a-z_0-9]+)`\s*\|\s*`([a-z<>]+)`\s*\|")
    with open(DOC) as f:
        for line in f:
            m = row.match(line)
            if m and m.group(3) in _TYPES:
                cols = out.setdefault(m.group(1), {"schema_version": pa.int64(), "table": pa.string()})
                cols[m.group(2)] = _TYPES[m.group(3)]
    return out


def arrow_schema(table: str) -> dict[str, pa.DataType]:
    return tables().get(table, {})


def empty_relation(table: str) -> str:
    """A DuckDB relation with the table's columns and no rows, for a table no batch wrote."""
    cols = arrow_schema(table)
    duck = {pa.string(): "VARCHAR", pa.int64(): "BIGINT", pa.float64(): "DOUBLE", pa.bool_(): "BOOLEAN",
            pa.list_(pa.string()): "VARCHAR[]", pa.list_(pa.int64()): "BIGINT[]"}
    items = [f"CAST(NULL AS {duck.get(t, 'VARCHAR')}) AS \"{c}\"" for c, t in cols.items()]
    items += ["CAST(NULL AS VARCHAR) AS day", "CAST(NULL AS VARCHAR) AS source"]
    return "(SELECT " + ", ".join(items) + ")"
