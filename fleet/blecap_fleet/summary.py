"""The fleet questions, answered with DuckDB over the Parquet store (fleet/queries/*.sql)."""

from __future__ import annotations

import contextlib
import html
import os
import posixpath
import re
import tempfile
from collections.abc import Iterator

import duckdb

QUERIES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "queries")

#: Ends that are no failure: a link still up when the capture ended, or one either side closed on
#: purpose. Everything else diagnose names (a timeout, a refused key, 0x3E …) counts.
NORMAL_ENDS = ("still_open", "local_host_terminated", "remote_user_terminated")

#: (query, title) in the order the summary shows them.
SECTIONS = (
    ("top_signatures", "Top failure signatures"),
    ("new_signatures", "New signatures since {since}"),
    ("signature_by_model", "Signatures by phone model and OS build"),
    ("findings_by_app", "Rule findings by app package"),
    ("failed_captures", "Captures that failed to analyse"),
)

TABLES = ("capture", "connection", "finding", "verdict", "error", "manifest")


def _source(store: str, table: str) -> str:
    pattern = posixpath.join(os.path.abspath(store), table, "**", "*.parquet")
    # union_by_name: a column all null in one batch is typed from the schema, but a table
    # written by an older blecap may lack a column a newer one adds.
    return f"read_parquet('{pattern}', hive_partitioning = true, union_by_name = true)"


def _sql(store: str, name: str, since: str | None) -> str:
    path = name if name.endswith(".sql") else os.path.join(QUERIES, f"{name}.sql")
    with open(path) as f:
        text = f.read()
    present = {t for t in TABLES if os.path.isdir(os.path.join(store, t))}
    subs = {}
    for t in TABLES:
        # A table no batch wrote (no findings anywhere yet) is an empty relation, not an error.
        subs[t] = _source(store, t) if t in present else f"(SELECT * FROM {_empty(t)} WHERE false)"
    subs["since"] = since or "0000-00-00"
    subs["normal_ends"] = "(" + ", ".join(f"'{x}'" for x in NORMAL_ENDS) + ")"
    return text.format(**subs)


def _empty(table: str) -> str:
    from .schema import empty_relation

    return empty_relation(table)


@contextlib.contextmanager
def local_store(store: str) -> Iterator[str]:
    """A local folder holding the store: the store itself, or for a URI (s3://bucket/prefix?…) a
    temporary copy of its files, removed after. DuckDB reads an object store only through its
    httpfs extension, which it downloads when first used; the copy goes through pyarrow, as the
    run's writes did, with the same URI. It is the whole store: for a large one, sync it to a
    folder once and query that."""
    if "://" not in store:
        yield store
        return
    import pyarrow.fs as pafs

    from .store import Store

    s = Store(store)
    with tempfile.TemporaryDirectory(prefix="blecap-fleet-store-") as d:
        if s.tables():
            pafs.copy_files(s.root, d, source_filesystem=s.fs, destination_filesystem=pafs.LocalFileSystem())
        yield d


def _shown(store: str) -> str:
    """The store as the summary names it: a URI without its query and credentials."""
    return re.sub(r"^([a-z0-9+.-]+://)[^/@]*@", r"\1", store.split("?", 1)[0])


def query(store: str, name: str, since: str | None = None) -> tuple[list[str], list[tuple]]:
    with local_store(store) as path:
        con = duckdb.connect()
        cur = con.execute(_sql(path, name, since))
        cols = [d[0] for d in cur.description]
        return cols, cur.fetchall()


def _last_day(store: str) -> str | None:
    if not os.path.isdir(os.path.join(store, "manifest")):
        return None
    con = duckdb.connect()
    (day,) = con.execute(f"SELECT max(day) FROM {_source(store, 'manifest')}").fetchone()
    return str(day) if day is not None else None


def _cell(v) -> str:
    return "" if v is None else str(v)


def render(store: str, since: str | None = None) -> tuple[str, str]:
    """The summary as Markdown and as one self-contained HTML page."""
    with local_store(store) as path:
        return _render(path, _shown(store), since)


def _render(store: str, shown: str, since: str | None) -> tuple[str, str]:
    since = since or _last_day(store) or "0000-00-00"
    md = [f"# Fleet summary\n\nStore: `{shown}`\n"]
    body = [f"<h1>Fleet summary</h1><p>Store: <code>{html.escape(shown)}</code></p>"]
    for name, title in SECTIONS:
        title = title.format(since=since)
        cols, rows = query(store, name, since)
        md.append(f"\n## {title}\n")
        body.append(f"<h2>{html.escape(title)}</h2>")
        if not rows:
            md.append("\nNone.\n")
            body.append("<p>None.</p>")
            continue
        md.append("\n| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n")
        for r in rows:
            md.append("| " + " | ".join(_cell(v).replace("|", "\\|") for v in r) + " |\n")
        body.append("<table><tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in cols) + "</tr>")
        for r in rows:
            body.append("<tr>" + "".join(f"<td>{html.escape(_cell(v))}</td>" for v in r) + "</tr>")
        body.append("</table>")
    page = (
        "<!doctype html><html><head><meta charset=utf-8><title>Fleet summary</title><style>"
        "body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}th{background:#f4f4f4}"
        "</style></head><body>" + "".join(body) + "</body></html>\n"
    )
    return "".join(md), page
