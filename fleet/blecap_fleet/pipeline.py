"""The fleet run on Ray: list → hash → batches → a lane (Ray actor) per worker → Parquet.

Ray starts a local cluster on a laptop (`ray.init()` with no address), joins a running one with
`--ray-address auto` or `ray://head:10001`, and runs unchanged as a KubeRay RayJob (deploy/).
"""

from __future__ import annotations

import os
import sys
import time

from .listing import batch_member, batch_sizes
from .listing import batches as make_batches
from .listing import hash_captures, hash_captures_threaded, list_captures
from .store import Store
from .worker import DEFAULT_COMMANDS, Lane, blecap_version, process_batch


#: Listed captures per hash task: enough that a task's scheduling is small beside reading the
#: files, few enough that the workers share a fleet's listing evenly.
HASH_CHUNK = 256


def _bounded(ray, fn, items: list, workers: int, **kw) -> list:
    """`fn(item, **kw)` for every item as plain Ray tasks (one CPU each), at most `workers` in
    flight, results in the items' order. On a cluster with more CPUs than `workers`, the rest stay
    free for other jobs.

    Plain tasks, not Ray Data stages: each batch already writes and commits its own Parquet, so
    the pipeline uses nothing of Ray Data but its scheduling, and a Ray Data stage costs the
    driver and every worker process of the job an import of `ray.data` before its first block
    (2 to 3.5 s per job on an idle two-core machine; docs/performance.md)."""
    task = ray.remote(num_cpus=1)(fn)
    results: list = [None] * len(items)
    pending: dict = {}
    for i, item in enumerate(items):
        if len(pending) >= workers:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for r in ready:
                results[pending.pop(r)] = ray.get(r)
        pending[task.remote(item, **kw)] = i
    for r, i in pending.items():
        results[i] = ray.get(r)
    return results


def _hash_on_workers(ray, captures: list[dict], workers: int) -> list[dict]:
    """Every listed capture with its SHA-256, hashed on the workers (so that no one machine reads
    the whole fleet) in chunks of HASH_CHUNK, in listing order."""
    chunks = [captures[i : i + HASH_CHUNK] for i in range(0, len(captures), HASH_CHUNK)]
    return [h for part in _bounded(ray, hash_captures, chunks, workers) for h in part]


def arrival(c: dict) -> tuple[str, str, str]:
    """The order copies are decided in: by day, source, then URI (the earliest upload wins)."""
    return (c["day"], c["source"], c["uri"])


def select(hashed: list[dict], done: set[tuple[str, str]], version: str) -> tuple[list[dict], int, int]:
    """What to analyse: not committed for this blecap version, and one file per content (the first
    in `arrival` order; the same bug report uploaded twice is one capture). Returns the members,
    how many were committed already and how many were copies."""
    members, seen, committed, copies = [], set(), 0, 0
    for h in sorted(hashed, key=arrival):
        if (h["sha256"], version) in done:
            committed += 1
        elif h["sha256"] in seen:
            copies += 1
        else:
            seen.add(h["sha256"])
            members.append(h)
    return members, committed, copies


def _connect(ray, ray_address: str | None, workers: int) -> None:
    """Join the cluster at `ray_address`, or start a local one of `workers` CPUs for this process.
    `address="local"`: with no address `ray.init()` joins the last cluster `ray start` made on the
    machine, if one runs, and `num_cpus` is refused when joining one."""
    if ray_address:
        ray.init(address=ray_address, log_to_driver=False)
    else:
        ray.init(address="local", num_cpus=workers, include_dashboard=False, log_to_driver=False)


#: Calls queued on a lane at once: its next batch waits in the actor's queue and starts the moment
#: the one before returns, without the driver's round trip between them.
LANE_DEPTH = 2


def _on_lanes(ray, lanes: list, batches: list[dict], finish: str = "close", **kw) -> list[dict]:
    """Every batch on one of the lanes, the next batch to whichever lane returns first (so a slow
    lane takes fewer), LANE_DEPTH calls queued per lane; then each lane's last commit. A lane
    returns as soon as its batch's blecap has ended and its rows are read: the batch is written
    and committed while the lane's next blecap runs."""
    results: list[dict] = []
    source = iter(batches)  # a list, or a `Streamed` that hashes as it goes
    following = next(source, None)
    # Each lane once per free place, first places first: every lane has a batch before any has two.
    free = [lane for _ in range(LANE_DEPTH) for lane in reversed(lanes)]
    used: set[int] = set()
    pending: dict = {}
    while following is not None or pending:
        while free and following is not None:
            lane = free.pop()
            used.add(id(lane))
            pending[lane.run.remote(following, **kw)] = lane
            following = next(source, None)
        if not pending:
            continue
        ready, _ = ray.wait(list(pending), num_returns=1)
        for r in ready:
            free.append(pending.pop(r))
            results += ray.get(r)
    # Only the lanes that ran a batch: a call to one that never did would wait for its process to
    # start (a run with nothing new would wait for its lanes' processes for nothing). `close` also
    # ends each lane's blecap process; a watcher's lanes `flush`, keeping theirs for its next tick.
    for part in ray.get([getattr(lane, finish).remote() for lane in lanes if id(lane) in used]):
        results += part
    return results


def _prepare(out: str, sources: list[str], source_label: str | None, blecap: str, hash_here: bool) -> dict:
    """The driver's work before batches can be formed: clean the store, list the sources, ask
    blecap its version, read the committed manifests and, with `hash_here`, hash the listed
    files. Runs beside `import ray` and `ray.init` in a process of its own."""
    start = time.monotonic()
    store = Store(out)
    prep: dict = {"removed": store.clean(), "overlapped": {}}
    captures = []
    for s in sources:
        captures += [c.member() for c in list_captures(s, source_label)]
    prep["captures"] = captures
    prep["version"] = blecap_version(blecap)
    prep["done"] = store.committed()
    now = time.monotonic()
    prep["overlapped"]["list"] = round(now - start, 3)
    if hash_here:
        # One core fewer than the machine's: the driver's main thread is importing Ray meanwhile.
        prep["hashed"] = hash_captures_threaded(captures, (os.cpu_count() or 2) - 1)
        prep["overlapped"]["hash"] = round(time.monotonic() - now, 3)
    return prep


def run(
    sources: list[str],
    out: str,
    *,
    blecap: str,
    workers: int = 2,
    batch_size: int = 200,
    commands: tuple[str, ...] = DEFAULT_COMMANDS,
    extra: tuple[str, ...] = (),
    timeout: float = 3600.0,
    ray_address: str | None = None,
    use_ray: bool = True,
    source_label: str | None = None,
    timeline: list[dict] | None = None,
    disconnect: bool = True,
    hash_on: str = "auto",
) -> dict:
    """Two stages: hash every listed file, then analyse what is new in batches on the workers. The
    driver lists, deduplicates and forms batches.

    With Ray, the driver lists the sources, reads the store's manifests and (`hash_on` "driver",
    or "auto" with every source a local path) hashes the files in a forked process while it
    imports Ray and connects: those fixed costs ran one after another before. With `hash_on`
    "workers" (and "auto" with a URI among the sources, s3:// or gs://, where a driver reading
    the whole fleet would be the bottleneck) the files are hashed by Ray tasks after the
    connection, as before. Either way the hashes decide, before any analysis, what is committed
    already and which one copy of a content is analysed.

    The result says how long each phase took (`phases`, seconds): Ray's fixed costs (`ray_import`,
    `ray_init`, `ray_shutdown`: once per run, and on a running cluster only a connection) apart
    from the work that grows with the captures (`hash`: after the connection, the wait for the
    driver's hashing or the Ray hash stage; `analyse`). `overlapped` says how long the driver's
    listing and hashing took in that process, beside `ray_import` and `ray_init`. `timeline`,
    when given, gets one entry per batch: its process, wall-clock start, end of its blecap run
    and commit, and the CPU seconds blecap and the worker's own Python spent on it.

    `disconnect=False` leaves a connection to a running cluster (`ray_address`) open when the run
    ends, for a caller about to end its process: every batch is committed by then, and the
    cluster forgets a job whose driver is gone just as it does one that disconnected (a local
    cluster that this run started is always shut down)."""
    if hash_on not in ("auto", "driver", "workers"):
        raise ValueError(f"hash_on: {hash_on!r} is not auto, driver or workers")
    t0 = time.monotonic()
    phases: dict[str, float] = {}
    overlapped: dict[str, float] = {}

    def lap(name: str, since: float) -> float:
        now = time.monotonic()
        phases[name] = round(now - since, 3)
        return now

    in_driver = not use_ray or hash_on == "driver" or (hash_on == "auto" and all("://" not in s for s in sources))
    args = (out, sources, source_label, blecap, in_driver and use_ray)
    if use_ray:
        # A process, not a thread: the listing and the hashing loop are Python, and on a thread
        # they held the interpreter's lock against `import ray` (which took 0.1 to 0.2 s longer,
        # about what the hash stage had cost). Forked before Ray is imported.
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # Not when the caller has connected already: nothing to overlap, and no fork of a process
        # with Ray's threads running.
        connected = "ray" in sys.modules and sys.modules["ray"].is_initialized()
        preparing = None if connected else ProcessPoolExecutor(
            max_workers=1, mp_context=multiprocessing.get_context("fork"))
        prepared = preparing.submit(_prepare, *args) if preparing else None
        import ray

        t = lap("ray_import", t0)
        started_here = not ray.is_initialized()
        if started_here:
            _connect(ray, ray_address, workers)
        t = lap("ray_init", t)
        lane = ray.remote(num_cpus=1)(Lane)
        # A lane holds its CPU for the whole run and takes batches as it frees up: more lanes than
        # the cluster has CPUs would leave the extra ones' batches waiting for a CPU to the end.
        workers = max(1, min(workers, int(ray.cluster_resources().get("CPU", workers))))
        # Started now when the driver hashes, so that their processes start while it waits for its
        # hashes; after the hash tasks otherwise, whose CPUs the lanes would hold.
        lanes = [lane.remote() for _ in range(workers)] if in_driver else []
        prep = prepared.result() if prepared else _prepare(*args)
        if preparing:
            # Waited for: a run on a running cluster ends with os._exit (cli.py), and the forked
            # process, holding its own end of the pool's queue, would wait for work for ever (and
            # keep the caller's pipe to standard output open) had it not had its sentinel yet.
            preparing.shutdown(wait=True)
        overlapped.update(prep["overlapped"])
        captures, version, done = prep["captures"], prep["version"], prep["done"]
        kw = dict(out=out, blecap=blecap, version=version, commands=commands, extra=extra, timeout=timeout)
        if in_driver:
            hashed = prep["hashed"]
        else:
            hashed = _hash_on_workers(ray, captures, workers) if captures else []
            lanes = [lane.remote() for _ in range(workers)]
        t = lap("hash", t)
        members, committed, copies = select(hashed, done, version)
        batches = make_batches(members, batch_size, workers)
        results = _on_lanes(ray, lanes, batches, **kw)
        for lane in lanes:
            ray.kill(lane)
        t = lap("analyse", t)
        if started_here and (disconnect or not ray_address):
            ray.shutdown()
            t = lap("ray_shutdown", t)
    else:
        prep = _prepare(*args)
        captures, version, done = prep["captures"], prep["version"], prep["done"]
        kw = dict(out=out, blecap=blecap, version=version, commands=commands, extra=extra, timeout=timeout)
        t = lap("list", t0)
        members, committed, copies = select(hash_captures(captures), done, version)
        t = lap("hash", t)
        batches = make_batches(members, batch_size, workers)
        results = [process_batch(b, **kw) for b in batches]
        t = lap("analyse", t)
    if timeline is not None:
        timeline += sorted(results, key=lambda r: r["started"])
    return {
        "captures": len(captures),
        "committed_before": committed,
        "copies": copies,
        "batches": len(batches),
        "analysed": sum(r["analysed"] for r in results),
        "rows": sum(r["rows"] for r in results),
        "removed_uncommitted": prep["removed"],
        "seconds": round(time.monotonic() - t0, 3),
        "phases": phases,
        "overlapped": overlapped,
        "blecap_version": version,
    }


class Streamed:
    """`select` then `make_batches`, a batch at a time as the hashes come: the captures in
    `arrival` order, hashed chunk by chunk by `hash_chunk` (on a thread pool, ahead of what is
    taken), so that the first batch can start on the lanes while the rest are still hashed.

    The members and the copy kept are `select`'s; the batches have `make_batches`' sizes for the
    counts known before hashing (every capture not known committed counts), so a group whose
    files turn out committed or copies has a smaller last batch. The batches are only the unit of
    work and commit: rows do not depend on them."""

    def __init__(self, captures: list[dict], known: dict[str, str], hash_chunk, done: set[tuple[str, str]],
                 version: str, size: int, workers: int, threads: int, chunk: int = 64):
        self.order = sorted(captures, key=arrival)
        self.known, self.hash_chunk, self.done, self.version = known, hash_chunk, done, version
        self.size, self.workers, self.threads, self.chunk = size, workers, threads, chunk
        self.committed = self.copies = self.batches = 0
        self.members: list[dict] = []

    def _sizes(self) -> dict[tuple[str, str], list[int]]:
        """Each group's batch sizes, last first (popped as its batches fill)."""
        counts: dict[tuple[str, str], int] = {}
        for c in self.order:
            sha = self.known.get(c["uri"])
            if sha is None or (sha, self.version) not in self.done:
                counts[(c["day"], c["source"])] = counts.get((c["day"], c["source"]), 0) + 1
        return {group: batch_sizes(n, self.size, self.workers)[::-1] for group, n in counts.items()}

    def __iter__(self):
        from concurrent.futures import ThreadPoolExecutor

        sizes = self._sizes()
        todo = [c for c in self.order if c["uri"] not in self.known]
        chunks = [todo[i : i + self.chunk] for i in range(0, len(todo), self.chunk)]
        seen: set[str] = set()
        batch: dict | None = None
        with ThreadPoolExecutor(max_workers=max(1, self.threads), thread_name_prefix="blecap-fleet-hash") as pool:
            futures = iter([pool.submit(self.hash_chunk, c) for c in chunks])
            for c in self.order:
                if c["uri"] not in self.known:
                    for h in next(futures).result():
                        self.known[h["uri"]] = h["sha256"]
                sha = self.known[c["uri"]]
                if (sha, self.version) in self.done:
                    self.committed += 1
                    continue
                if sha in seen:
                    self.copies += 1
                    continue
                seen.add(sha)
                member = dict(c, sha256=sha)
                self.members.append(member)
                if batch is not None and (batch["day"], batch["source"]) != (c["day"], c["source"]):
                    self.batches += 1
                    yield batch
                    batch = None
                if batch is None:
                    batch = {"day": c["day"], "source": c["source"], "members": []}
                batch["members"].append(batch_member(member))
                group = sizes[(c["day"], c["source"])]
                if len(batch["members"]) >= group[-1]:
                    if len(group) > 1:
                        group.pop()
                    self.batches += 1
                    yield batch
                    batch = None
        if batch is not None:
            self.batches += 1
            yield batch


class Watcher:
    """A driver that stays: it connects to Ray, starts its lanes and reads the store's commits
    once, then analyses what is new under its sources each time `tick()` is called
    (`blecap-fleet watch`: every `--every` seconds, or at once on SIGUSR1).

    What a one-shot `run` pays every time is paid here once: the interpreter and `import ray`,
    the connection, the lanes' processes, the manifests' read. A tick lists the sources and hashes
    only the files it has not seen with the same size and modification time (on the driver's
    threads for local paths, on the lanes for URIs), then runs the new content's batches on the
    lanes exactly as `run` does: same batches, same rows, same commits. What it committed is added
    to the set it checks; after a tick that failed, that set is read from the store again."""

    def __init__(self, sources: list[str], out: str, *, blecap: str, workers: int = 2, batch_size: int = 200,
                 commands: tuple[str, ...] = DEFAULT_COMMANDS, extra: tuple[str, ...] = (), timeout: float = 3600.0,
                 ray_address: str | None = None, source_label: str | None = None):
        import ray

        self.ray = ray
        self.sources, self.source_label, self.batch_size = sources, source_label, batch_size
        self.started_here = not ray.is_initialized()
        if self.started_here:
            _connect(ray, ray_address, workers)
        self.workers = max(1, min(workers, int(ray.cluster_resources().get("CPU", workers))))
        self.lanes = [ray.remote(num_cpus=1)(Lane).remote() for _ in range(self.workers)]
        store = Store(out)
        self.removed = store.clean()
        self.store = store
        version = blecap_version(blecap)
        self.kw = dict(out=out, blecap=blecap, version=version, commands=commands, extra=extra, timeout=timeout)
        self.done = store.committed()
        self.hashes: dict[tuple[str, int, int], str] = {}
        self.ticks = 0
        self._ready()

    def _ready(self) -> None:
        """Every lane connected to and its blecap started before the first tick needs them."""
        self.ray.get([lane.ready.remote(**self.kw) for lane in self.lanes])

    def _hash(self, captures: list[dict]) -> list[dict]:
        new = [c for c in captures if (c["uri"], c["size"], c["mtime_ns"]) not in self.hashes]
        local = [c for c in new if "://" not in c["uri"]]
        remote = [c for c in new if "://" in c["uri"]]
        hashed = hash_captures_threaded(local, os.cpu_count() or 1) if local else []
        if remote:
            chunks = [remote[i : i + HASH_CHUNK] for i in range(0, len(remote), HASH_CHUNK)]
            refs = [self.lanes[i % len(self.lanes)].hash.remote(chunk) for i, chunk in enumerate(chunks)]
            hashed += [h for part in self.ray.get(refs) for h in part]
        for h in hashed:
            self.hashes[(h["uri"], h["size"], h["mtime_ns"])] = h["sha256"]
        return [dict(c, sha256=self.hashes[(c["uri"], c["size"], c["mtime_ns"])]) for c in captures]

    def tick(self, timeline: list[dict] | None = None) -> dict:
        """One run over the sources; returns its summary (the keys `run` returns, and `tick`)."""
        t0 = time.monotonic()
        phases: dict[str, float] = {}
        self.ticks += 1
        try:
            captures = []
            for s in self.sources:
                captures += [dict(c.member(), mtime_ns=c.mtime_ns) for c in list_captures(s, self.source_label)]
            version = self.kw["version"]
            if any("://" in c["uri"] for c in captures):
                hashed = self._hash(captures)
                t = time.monotonic()
                phases["hash"] = round(t - t0, 3)  # listing included
                members, committed, copies = select(hashed, self.done, version)
                batches = make_batches(members, self.batch_size, self.workers)
                batch_count = len(batches)
                results = _on_lanes(self.ray, self.lanes, batches, finish="flush", **self.kw)
            else:
                # Local files: hashed on the driver's threads as the batches are formed, the first
                # batch on its lane while the rest are hashed.
                t = time.monotonic()
                phases["list"] = round(t - t0, 3)
                known = {c["uri"]: self.hashes[k] for c in captures
                         if (k := (c["uri"], c["size"], c["mtime_ns"])) in self.hashes}
                streamed = Streamed(captures, known, hash_captures, self.done, version, self.batch_size,
                                    self.workers, os.cpu_count() or 1)
                results = _on_lanes(self.ray, self.lanes, streamed, finish="flush", **self.kw)
                for c in captures:
                    self.hashes[(c["uri"], c["size"], c["mtime_ns"])] = known[c["uri"]]
                members, committed, copies = streamed.members, streamed.committed, streamed.copies
                batch_count = streamed.batches
            phases["analyse"] = round(time.monotonic() - t, 3)
        except Exception:
            # A lane may have died with its batch: new lanes, and the commits as the store has them.
            for lane in self.lanes:
                self.ray.kill(lane)
            self.lanes = [self.ray.remote(num_cpus=1)(Lane).remote() for _ in range(self.workers)]
            self.done = self.store.committed()
            self._ready()
            raise
        self.done |= {(m["sha256"], version) for m in members}
        if timeline is not None:
            timeline += sorted(results, key=lambda r: r["started"])
        return {
            "tick": self.ticks,
            "captures": len(captures),
            "committed_before": committed,
            "copies": copies,
            "batches": batch_count,
            "analysed": sum(r["analysed"] for r in results),
            "rows": sum(r["rows"] for r in results),
            "removed_uncommitted": self.removed if self.ticks == 1 else 0,
            "seconds": round(time.monotonic() - t0, 3),
            "phases": phases,
            "blecap_version": version,
        }

    def close(self) -> None:
        try:
            self.ray.get([lane.close.remote() for lane in self.lanes])
        finally:
            for lane in self.lanes:
                self.ray.kill(lane)
            if self.started_here:
                self.ray.shutdown()
