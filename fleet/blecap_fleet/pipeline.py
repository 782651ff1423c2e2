"""The fleet run on Ray Data: list → batches → one task per batch → Parquet.

Ray starts a local cluster on a laptop (`ray.init()` with no address), joins a running one with
`--ray-address auto` or `ray://head:10001`, and runs unchanged as a KubeRay RayJob (deploy/).
"""

from __future__ import annotations

import time

from .listing import batches as make_batches
from .listing import hash_captures, list_captures
from .store import Store
from .worker import DEFAULT_COMMANDS, blecap_version, process_batch


class _Analyse:
    """A Ray Data actor: analyses batch after batch."""

    def __init__(self, out, blecap, version, commands, extra, timeout):
        self.kw = dict(out=out, blecap=blecap, version=version, commands=tuple(commands),
                       extra=tuple(extra), timeout=timeout)

    def __call__(self, row: dict) -> dict:
        r = process_batch(row["batch"], **self.kw)
        return {"batch": r["batch"], "analysed": r["analysed"], "rows": r["rows"]}


def _hash_rows(rows: dict) -> dict:
    """Ray Data's map_batches form of listing.hash_captures (columns in, columns out)."""
    captures = [dict(zip(rows, values)) for values in zip(*rows.values())]
    hashed = hash_captures(captures)
    return {k: [h[k] for h in hashed] for k in ("uri", "size", "day", "source", "sha256")}


def select(hashed: list[dict], done: set[tuple[str, str]], version: str) -> tuple[list[dict], int, int]:
    """What to analyse: not committed for this blecap version, and one file per content (the first
    URI in sorted order; the same bug report uploaded twice is one capture). Returns the members,
    how many were committed already and how many were copies."""
    members, seen, committed, copies = [], set(), 0, 0
    for h in sorted(hashed, key=lambda h: h["uri"]):
        if (h["sha256"], version) in done:
            committed += 1
        elif h["sha256"] in seen:
            copies += 1
        else:
            seen.add(h["sha256"])
            members.append(h)
    return members, committed, copies


def run(
    sources: list[str],
    out: str,
    *,
    blecap: str,
    workers: int = 2,
    batch_size: int = 50,
    commands: tuple[str, ...] = DEFAULT_COMMANDS,
    extra: tuple[str, ...] = (),
    timeout: float = 3600.0,
    ray_address: str | None = None,
    use_ray: bool = True,
    source_label: str | None = None,
) -> dict:
    """Two stages: hash every listed file (on the workers), then analyse what is new in batches
    (on the workers). The driver only lists, deduplicates and forms batches."""
    t0 = time.monotonic()
    store = Store(out)
    removed = store.clean()
    captures = []
    for s in sources:
        captures += [{"uri": c.uri, "size": c.size, "day": c.day, "source": c.source}
                     for c in list_captures(s, source_label)]
    version = blecap_version(blecap)
    done = store.committed()
    kw = dict(out=out, blecap=blecap, version=version, commands=commands, extra=extra, timeout=timeout)
    if use_ray:
        import ray

        if not ray.is_initialized():
            if ray_address:
                ray.init(address=ray_address, log_to_driver=False)
            else:
                ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        import ray.data

        ray.data.DataContext.get_current().enable_progress_bars = False
        hashed = []
        if captures:
            hashed = ray.data.from_items(captures).map_batches(
                _hash_rows, batch_size=64, batch_format="numpy", concurrency=workers, num_cpus=1).take_all()
            hashed = [{k: (v.item() if hasattr(v, "item") else v) for k, v in h.items()} for h in hashed]
        members, committed, copies = select(hashed, done, version)
        batches = make_batches(members, batch_size)
        results = []
        if batches:
            results = ray.data.from_items([{"batch": b} for b in batches], override_num_blocks=len(batches)).map(
                _Analyse, fn_constructor_kwargs=kw, concurrency=workers, num_cpus=1).take_all()
    else:
        members, committed, copies = select(hash_captures(captures), done, version)
        batches = make_batches(members, batch_size)
        analyse = _Analyse(**kw)
        results = [analyse({"batch": b}) for b in batches]
    return {
        "captures": len(captures),
        "committed_before": committed,
        "copies": copies,
        "batches": len(batches),
        "analysed": sum(r["analysed"] for r in results),
        "rows": sum(r["rows"] for r in results),
        "removed_uncommitted": removed,
        "seconds": round(time.monotonic() - t0, 3),
        "blecap_version": version,
    }
