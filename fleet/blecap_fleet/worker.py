"""One batch on one worker: run blecap's batch mode on its members, write Parquet, commit.

This is plain Python with no Ray in it, so the same function runs in a Ray task, in a test, or in
a loop on a laptop, and gives the same files.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time

import pyarrow.fs as pafs

from .listing import filesystem
from .schema import arrow_schema
from .store import MANIFEST, Store, to_table

#: Tables each command contributes. The first command that emits a table owns it; the same table
#: from a later command (e.g. `capture` rows from both lint and diagnose) is not written twice.
DEFAULT_COMMANDS = ("lint", "diagnose")


def blecap_version(blecap: str) -> str:
    p = subprocess.run([blecap, "--version"], capture_output=True, text=True, check=True)
    return p.stdout.strip()


def batch_id(version: str, commands: tuple[str, ...], hashes: list[str]) -> str:
    h = hashlib.sha256()
    h.update(version.encode())
    h.update(b"\0" + ",".join(commands).encode())
    for x in sorted(hashes):
        h.update(b"\0" + x.encode())
    return h.hexdigest()[:24]


def passes(commands: tuple[str, ...]) -> list[tuple[str, list[str]]]:
    """The blecap processes a batch runs for `commands`, each with its own options: lint and
    diagnose together are one `lint --diagnose` pass, which reads and decodes each capture once and
    gives both commands' rows (the same rows as the two commands run one after the other)."""
    if "lint" in commands and "diagnose" in commands:
        rest = [c for c in commands if c not in ("lint", "diagnose")]
        return [("lint", ["--diagnose"])] + [(c, []) for c in rest]
    return [(c, []) for c in commands]


def run_blecap(blecap: str, command: str, paths: list[str], extra: list[str], timeout: float) -> list[dict]:
    """`blecap COMMAND --format fleet --files-from -`: one JSON row per line on stdout. Exit status
    1 (findings) and 3 (a damaged member) are results, not failures: every member has its rows."""
    p = subprocess.run(
        [blecap, command, "--format", "fleet", "--files-from", "-", *extra],
        input="".join(f"{x}\n" for x in paths),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    rows = []
    for line in p.stdout.splitlines():
        if line.strip():
            rows.append(json.loads(line))
    if p.returncode not in (0, 1, 3, 4, 5) and not rows:
        raise RuntimeError(f"blecap {command} exit {p.returncode}: {p.stderr.strip()[:500]}")
    return rows


def _own_cpu() -> float:
    t = os.times()
    return t.user + t.system


def _children_cpu() -> float:
    t = os.times()
    return t.children_user + t.children_system


def process_batch(
    batch: dict,
    *,
    out: str,
    blecap: str,
    version: str,
    commands: tuple[str, ...] = DEFAULT_COMMANDS,
    extra: tuple[str, ...] = (),
    timeout: float = 3600.0,
) -> dict:
    """Analyse one batch (`{"day", "source", "members": [{"uri", "sha256", "size"}]}`, members
    already hashed, deduplicated and not yet committed) and commit it to the store at `out`.
    Returns counts for the driver's summary line."""
    started, cpu = time.time(), os.times()
    store = Store(out)
    tmp = tempfile.mkdtemp(prefix="blecap-fleet-")
    try:
        local_of: dict[str, str] = {}  # path given to blecap -> listed URI
        for i, m in enumerate(batch["members"]):
            fs, path = filesystem(m["uri"])
            if isinstance(fs, pafs.LocalFileSystem):
                local_of[path] = m["uri"]
            else:
                local = os.path.join(tmp, f"{i:06d}-{os.path.basename(path)}")
                with fs.open_input_stream(path) as src, open(local, "wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
                local_of[local] = m["uri"]
        bid = batch_id(version, commands, [m["sha256"] for m in batch["members"]])
        by_table: dict[str, list[dict]] = {}
        owners: dict[str, str] = {}
        for command, options in passes(commands):
            for row in run_blecap(blecap, command, list(local_of), options + list(extra), timeout):
                table = row.get("table")
                if not isinstance(table, str) or table == MANIFEST:
                    raise RuntimeError(f"blecap {command}: a row without a usable table: {row!r}"[:300])
                if owners.setdefault(table, command) != command:
                    continue
                if isinstance(row.get("input"), str) and row["input"] in local_of:
                    row["input"] = local_of[row["input"]]  # the listed URI, not a worker's temporary copy
                by_table.setdefault(table, []).append(row)
        for table in sorted(by_table):
            store.write(table, batch["day"], batch["source"], bid, to_table(by_table[table], arrow_schema(table)))
        manifest = [
            {"batch": bid, "uri": m["uri"], "content_hash": m["sha256"], "size": m["size"],
             "blecap_version": version, "commands": ",".join(commands)}
            for m in batch["members"]
        ]
        store.write(MANIFEST, batch["day"], batch["source"], bid, to_table(manifest, arrow_schema(MANIFEST)))
        # Wall-clock times (epoch seconds) and the process: what shows whether batches overlap.
        return {"batch": bid, "analysed": len(batch["members"]), "rows": sum(len(v) for v in by_table.values()),
                "pid": os.getpid(), "started": started, "ended": time.time(),
                "blecap_cpu": _children_cpu() - (cpu.children_user + cpu.children_system),
                "worker_cpu": _own_cpu() - (cpu.user + cpu.system)}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
