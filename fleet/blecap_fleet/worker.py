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
import threading
import time
from collections.abc import Callable
from typing import BinaryIO
from dataclasses import dataclass, field

import pyarrow.fs as pafs

from .listing import hash_captures, member_filesystem
from .schema import arrow_schema
from .store import MANIFEST, Store, table_from_lines, to_table

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


def _anonymous_file() -> BinaryIO:
    """A file in memory with no name (a memfd), or an unlinked temporary file where there is none."""
    try:
        return os.fdopen(os.memfd_create("blecap-fleet", os.MFD_CLOEXEC), "w+b")
    except (AttributeError, OSError):
        return tempfile.TemporaryFile()


def _told(err: BinaryIO) -> str:
    """The start of what blecap wrote to its standard error (an anonymous file), for an error."""
    err.seek(0)
    return err.read(4096).decode(errors="replace").strip()[:500]


@dataclass
class Started:
    """A blecap process waiting for its list on standard input; its standard output and error go
    to anonymous files, read once it has ended."""

    popen: subprocess.Popen
    out: BinaryIO
    err: BinaryIO

    def discard(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
        self.popen.wait()
        self.popen.stdin.close()
        self.out.close()
        self.err.close()


def _spawn(argv: list[str]) -> Started:
    out, err = _anonymous_file(), _anonymous_file()
    return Started(subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=out, stderr=err), out, err)


class Coprocess:
    """One blecap process a lane keeps for batch after batch: `blecap COMMAND --format fleet
    --files-from - --marks`, each batch's paths written to its standard input and ended by a
    blank line, which blecap answers with `{"mark":N}` once the batch's rows are all out. A
    process per batch cost its start and its first captures' warming (12 ms a batch, 6 % of a
    lane's time on 2,001 generated bug reports; docs/performance.md). A batch over its time,
    or a process that ended, leaves no process behind: the next batch starts a new one."""

    def __init__(self, argv: list[str]):
        self.argv = list(argv)
        self.err = _anonymous_file()
        try:
            import fcntl

            # Appended, so that clearing it between batches keeps it small for a process that lives long.
            fcntl.fcntl(self.err.fileno(), fcntl.F_SETFL, fcntl.fcntl(self.err.fileno(), fcntl.F_GETFL) | os.O_APPEND)
        except OSError:
            pass
        self.popen = subprocess.Popen(self.argv + ["--marks"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=self.err)
        self.marks = 0

    def batch(self, paths: list[str], timeout: float, on_row: Callable, raw: bool) -> int:
        p = self.popen
        self.marks += 1
        mark = b'{"mark":%d}' % self.marks
        self.err.truncate(0)
        timed_out = threading.Event()

        def expire() -> None:
            timed_out.set()
            p.kill()

        def feed() -> None:
            try:
                p.stdin.write("".join(f"{x}\n" for x in paths).encode() + b"\n")
                p.stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                pass  # blecap ended: what it wrote says how far it came

        # The list on a thread of its own: blecap reads it as it goes, and a list longer than the
        # pipe holds would otherwise wait on blecap while blecap waits on its rows being read.
        feeder = threading.Thread(target=feed, daemon=True)
        feeder.start()
        timer = threading.Timer(timeout, expire)
        timer.start()
        count = 0
        try:
            for line in p.stdout:
                line = line.rstrip(b"\n")
                if line == mark:
                    return count
                if line.startswith(b'{"mark":'):
                    raise RuntimeError(f"blecap {self.argv[1]}: mark {line!r} where {mark!r} was due")
                if line.strip():
                    on_row(line if raw else json.loads(line))
                    count += 1
            # The rows ended without the mark: blecap is gone.
            p.wait()
            if timed_out.is_set():
                raise subprocess.TimeoutExpired(p.args, timeout)
            raise RuntimeError(f"blecap {self.argv[1]} ended (status {p.returncode}) before its batch's mark: "
                               f"{_told(self.err)}")
        finally:
            timer.cancel()
            feeder.join()

    @property
    def alive(self) -> bool:
        return self.popen.poll() is None

    def cpu(self) -> float:
        """CPU seconds the process has used so far (it is reaped only at the end, so the
        children's times of `os.times()` do not hold it yet)."""
        try:
            with open(f"/proc/{self.popen.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            return 0.0

    def close(self) -> None:
        try:
            self.popen.stdin.close()
        except OSError:
            pass
        try:
            self.popen.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()
        self.popen.stdout.close()
        self.err.close()


class Coprocesses:
    """A lane's blecap processes, one per command line, run as `run_blecap` is."""

    def __init__(self) -> None:
        self._by_argv: dict[tuple[str, ...], Coprocess] = {}

    def start(self, blecap: str, command: str, extra: list[str]) -> Coprocess:
        argv = (blecap, command, "--format", "fleet", "--files-from", "-", *extra)
        c = self._by_argv.get(argv)
        if c is None or not c.alive:
            if c is not None:
                c.close()
            c = self._by_argv[argv] = Coprocess(list(argv))
        return c

    def run(self, blecap: str, command: str, paths: list[str], extra: list[str], timeout: float,
            on_row: Callable, raw: bool = False) -> int:
        c = self.start(blecap, command, extra)
        argv = tuple(c.argv)
        try:
            return c.batch(paths, timeout, on_row, raw)
        except BaseException:
            del self._by_argv[argv]
            if c.alive:
                c.popen.kill()
            c.close()
            raise

    def cpu(self) -> float:
        return sum(c.cpu() for c in self._by_argv.values())

    def close(self) -> None:
        for c in self._by_argv.values():
            c.close()
        self._by_argv.clear()


def run_blecap(blecap: str, command: str, paths: list[str], extra: list[str], timeout: float,
               on_row: Callable[[dict], None], raw: bool = False) -> int:
    """`blecap COMMAND --format fleet --files-from -`: one JSON row per line, each handed to
    `on_row` once blecap has ended: parsed, or with `raw` the line's bytes as they are. blecap
    writes its rows to an anonymous file, not a pipe: through a pipe every row woke a reader
    thread in the lane, which then competed for the interpreter's lock with the commit of the
    batch before (two context switches a row; docs/performance.md). Exit status 1 (findings) and
    3 (a damaged member) are results, not failures: every member has its rows. Returns the rows'
    count. One process for the batch; a lane keeps one for batch after batch (`Coprocesses`)."""
    started = _spawn([blecap, command, "--format", "fleet", "--files-from", "-", *extra])
    p = started.popen
    timed_out = threading.Event()

    def expire() -> None:
        timed_out.set()
        p.kill()

    timer = threading.Timer(timeout, expire)
    timer.start()
    count = 0
    try:
        try:
            # blecap reads its list as it goes: a list longer than the pipe holds waits here.
            p.stdin.write("".join(f"{x}\n" for x in paths).encode())
            p.stdin.close()
        except (BrokenPipeError, OSError):
            pass  # blecap ended early (refused its options, killed): its status says why
        p.wait()
        timer.cancel()
        if timed_out.is_set():
            raise subprocess.TimeoutExpired(p.args, timeout)
        started.out.seek(0)
        for line in started.out.read().split(b"\n"):
            if line.strip():
                on_row(line if raw else json.loads(line))
                count += 1
        if p.returncode not in (0, 1, 3, 4, 5) and not count:
            raise RuntimeError(f"blecap {command} exit {p.returncode}: {_told(started.err)}")
    finally:
        timer.cancel()
        started.discard()
    return count


_TABLE_KEY = b'"table":"'


def _table_of(line: bytes) -> str | None:
    """The `table` of a fleet row as blecap writes it (`{"schema_version":1,"table":"capture",…`),
    read off its first bytes; any other spelling of the row is parsed."""
    i = line.find(_TABLE_KEY, 0, 64)
    if i >= 0:
        j = line.find(b'"', i + len(_TABLE_KEY))
        if j > 0:
            return line[i + len(_TABLE_KEY) : j].decode()
    try:
        table = json.loads(line).get("table")
    except (ValueError, AttributeError):
        return None
    return table if isinstance(table, str) else None


def _children_cpu() -> float:
    t = os.times()
    return t.children_user + t.children_system


@dataclass
class Analysed:
    """A batch whose blecap runs have ended: its rows by table, not yet written."""

    batch: dict
    bid: str
    by_table: dict[str, list]  # each table's rows: blecap's lines (bytes), or parsed (dicts)
    started: float
    blecap_ended: float
    blecap_cpu: float
    worker_cpu: float  # this thread's CPU: reading and parsing the rows
    pid: int = field(default_factory=os.getpid)


def analyse_batch(
    batch: dict,
    *,
    blecap: str,
    version: str,
    commands: tuple[str, ...] = DEFAULT_COMMANDS,
    extra: tuple[str, ...] = (),
    timeout: float = 3600.0,
    run: Callable[..., int] = run_blecap,
    process_cpu: Callable[[], float] = lambda: 0.0,
) -> Analysed:
    """Run blecap's batch mode on one batch (`{"day", "source", "members": [{"uri", "sha256",
    "size"}]}`, members already hashed, deduplicated and not yet committed) and gather its rows."""
    started, own = time.time(), time.thread_time()
    children = _children_cpu() + process_cpu()  # `run`'s processes: ended ones, and a lane's kept one
    tmp = None  # made for the first member that must be copied here
    try:
        local_of: dict[str, str] = {}  # path given to blecap -> listed URI
        for i, m in enumerate(batch["members"]):
            fs, path = member_filesystem(m)
            if isinstance(fs, pafs.LocalFileSystem):
                local_of[path] = m["uri"]
            else:
                tmp = tmp or tempfile.mkdtemp(prefix="blecap-fleet-")
                local = os.path.join(tmp, f"{i:06d}-{os.path.basename(path)}")
                with fs.open_input_stream(path) as src, open(local, "wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
                local_of[local] = m["uri"]
        by_table: dict[str, list] = {}
        owners: dict[str, str] = {}
        # Rows of local files are kept as blecap wrote them, by table, and parsed a table at a time
        # at the commit (pyarrow's JSON reader: a quarter of the CPU of parsing each row in Python,
        # docs/performance.md). Rows naming a temporary copy are parsed to name the listed URI.
        copied = any(path != uri for path, uri in local_of.items())
        for command, options in passes(commands):
            def keep(row, command: str = command) -> None:
                table = _table_of(row) if isinstance(row, bytes) else row.get("table")
                if not isinstance(table, str) or table == MANIFEST:
                    raise RuntimeError(f"blecap {command}: a row without a usable table: {row!r}"[:300])
                if owners.setdefault(table, command) != command:
                    return
                if isinstance(row, dict) and isinstance(row.get("input"), str) and row["input"] in local_of:
                    row["input"] = local_of[row["input"]]  # the listed URI, not a worker's temporary copy
                by_table.setdefault(table, []).append(row)

            run(blecap, command, list(local_of), options + list(extra), timeout, keep, raw=not copied)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    bid = batch_id(version, commands, [m["sha256"] for m in batch["members"]])
    return Analysed(batch, bid, by_table, started, time.time(), _children_cpu() + process_cpu() - children,
                    time.thread_time() - own)


def commit_batch(a: Analysed, *, out: str, version: str, commands: tuple[str, ...] = DEFAULT_COMMANDS) -> dict:
    """Write an analysed batch's tables to the store at `out`, then its manifest (the commit).
    Returns counts for the driver's summary line and the batch's entry in the run's timeline."""
    own = time.thread_time()
    store = Store(out)
    batch = a.batch
    for table in sorted(a.by_table):
        rows = a.by_table[table]
        t = table_from_lines(rows, arrow_schema(table)) if isinstance(rows[0], bytes) else to_table(rows, arrow_schema(table))
        store.write(table, batch["day"], batch["source"], a.bid, t)
    manifest = [
        {"batch": a.bid, "uri": m["uri"], "content_hash": m["sha256"], "size": m["size"],
         "blecap_version": version, "commands": ",".join(commands)}
        for m in batch["members"]
    ]
    store.write(MANIFEST, batch["day"], batch["source"], a.bid, to_table(manifest, arrow_schema(MANIFEST)))
    # Wall-clock times (epoch seconds) and the process: what shows whether batches overlap.
    # `blecap_ended` is when the batch's rows were all read; `ended` when it was committed.
    return {"batch": a.bid, "analysed": len(batch["members"]), "rows": sum(len(v) for v in a.by_table.values()),
            "pid": a.pid, "started": a.started, "blecap_ended": a.blecap_ended, "ended": time.time(),
            "blecap_cpu": a.blecap_cpu, "worker_cpu": a.worker_cpu + time.thread_time() - own}


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
    """Analyse one batch and commit it to the store at `out`: the two steps one after the other."""
    a = analyse_batch(batch, blecap=blecap, version=version, commands=commands, extra=extra, timeout=timeout)
    return commit_batch(a, out=out, version=version, commands=commands)


class Lane:
    """One worker's share of a run: batches one after another, each batch's Parquet written and
    committed on a thread of its own while the next batch's blecap runs. A batch's rows are
    converted and written after its blecap ends (to_table, Parquet, the manifest: 7 to 12 ms of
    CPU for 182 captures, 17 to 28 ms of wall on a busy machine); one after the other, no blecap
    ran meanwhile (docs/performance.md).

    Its blecap process stays for batch after batch (`Coprocesses`, blecap's `--marks`).

    `run(batch)` returns the batches committed by the time it returns (the one before it, if
    any); `flush()` waits for the last one, `close()` also ends the blecap process. A lane
    killed in between leaves at most one batch analysed and not committed, which the next run
    analyses again, as it does a killed task's."""

    def __init__(self):
        self._writer: threading.Thread | None = None
        self._done: list[dict] = []
        self._error: BaseException | None = None
        self._processes = Coprocesses()

    def run(self, batch: dict, *, out: str, blecap: str, version: str, commands: tuple[str, ...] = DEFAULT_COMMANDS,
            extra: tuple[str, ...] = (), timeout: float = 3600.0) -> list[dict]:
        a = analyse_batch(batch, blecap=blecap, version=version, commands=commands, extra=extra, timeout=timeout,
                          run=self._processes.run, process_cpu=self._processes.cpu)
        done = self.flush()

        def write() -> None:
            try:
                self._done.append(commit_batch(a, out=out, version=version, commands=commands))
            except BaseException as e:  # raised to the driver by the next run() or flush()
                self._error = e

        self._writer = threading.Thread(target=write, daemon=True)
        self._writer.start()
        return done

    def ready(self, *, blecap: str, commands: tuple[str, ...] = DEFAULT_COMMANDS, extra: tuple[str, ...] = (),
              **_: object) -> int:
        """Start the lane's blecap processes now, for batches to come; returns its pid. A watcher
        calls it once: a driver's first call to an actor waits for its connection to it (about
        0.15 s on an idle two-core machine), which a tick's first batch then does not."""
        for command, options in passes(commands):
            self._processes.start(blecap, command, options + list(extra))
        return os.getpid()

    def hash(self, captures: list[dict]) -> list[dict]:
        """`hash_captures` in this lane's process: a watcher's lanes hold their CPUs between runs,
        so the files of a URI source are hashed here rather than by tasks that would wait for one."""
        return hash_captures(captures)

    def close(self) -> list[dict]:
        """The last commit, and the blecap process ended."""
        self._processes.close()
        return self.flush()

    def flush(self) -> list[dict]:
        if self._writer is not None:
            self._writer.join()
            self._writer = None
        done, self._done = self._done, []
        if self._error is not None:
            e, self._error = self._error, None
            raise e
        return done
