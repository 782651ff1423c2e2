"""Listing captures: a local folder or any filesystem pyarrow opens (s3://, gs://, hdfs://)."""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
from dataclasses import dataclass

import pyarrow.fs as pafs


@dataclass(frozen=True, order=True)
class Capture:
    """One input file as listed: where it is and what the partitioning needs to know."""

    uri: str  # what the rows and the manifest name: a local path, or scheme://bucket/key
    size: int
    day: str  # YYYY-MM-DD (UTC) of the file's modification time: the day it arrived
    source: str  # the partition's source label
    mtime_ns: int = 0  # the modification time as listed: with the size, what a watcher's hash cache checks
    fs: str = ""  # the source URI whose filesystem opens `uri` ("" for a local path)

    def member(self) -> dict:
        """The capture as the driver hands it to hashing and batches (a plain dict for Ray)."""
        return {"uri": self.uri, "size": self.size, "day": self.day, "source": self.source, "fs": self.fs}


#: Filesystems by (process, URI): pyarrow's S3 filesystem for a URI without `region=` asks S3
#: for the bucket's region when it is made, one request per file if every file made its own.
#: Per process because an S3 client does not survive a fork (the driver forks its preparation).
_FILESYSTEMS: dict[tuple[int, str], tuple[pafs.FileSystem, str]] = {}


def filesystem(uri: str) -> tuple[pafs.FileSystem, str]:
    """pyarrow's filesystem for a URI; a plain path is the local filesystem."""
    if "://" not in uri:
        return pafs.LocalFileSystem(), os.path.abspath(uri)
    key = (os.getpid(), uri)
    if key not in _FILESYSTEMS:
        _FILESYSTEMS[key] = pafs.FileSystem.from_uri(uri)
    return _FILESYSTEMS[key]


def member_filesystem(member: dict) -> tuple[pafs.FileSystem, str]:
    """The filesystem and path a listed capture is read from. A capture listed under a URI is
    opened with its source URI's filesystem, so with that URI's options (an S3 endpoint, region
    or credentials given in its query or authority), which its own `uri` leaves out: that is
    what the rows and the manifest record, without an endpoint or a secret in it."""
    uri = member["uri"]
    if "://" not in uri:
        return pafs.LocalFileSystem(), uri
    fs, _ = filesystem(member.get("fs") or uri)
    return fs, uri.split("://", 1)[1]


def _join(uri: str, fs: pafs.FileSystem, path: str) -> str:
    if "://" not in uri:
        return path
    scheme = uri.split("://", 1)[0]
    return f"{scheme}://{path}"


def list_captures(uri: str, source: str | None = None) -> list[Capture]:
    """Every regular file under `uri`, recursively, sorted by URI (a listing is deterministic, so
    the same inputs always make the same batches). Hidden files (a leading dot) are skipped: they
    are editors' and sync tools' droppings, never captures."""
    fs, root = filesystem(uri)
    label = source or os.path.basename(root.rstrip("/")) or "root"
    info = fs.get_file_info(root)
    if info.type == pafs.FileType.File:
        infos = [info]
    elif info.type == pafs.FileType.Directory:
        infos = fs.get_file_info(pafs.FileSelector(root, recursive=True))
    else:
        raise FileNotFoundError(uri)
    out = []
    for i in infos:
        if i.type != pafs.FileType.File or os.path.basename(i.path).startswith("."):
            continue
        mtime = i.mtime or _dt.datetime.fromtimestamp(0, _dt.timezone.utc)
        if mtime.tzinfo is None:
            mtime = mtime.replace(tzinfo=_dt.timezone.utc)
        day = mtime.astimezone(_dt.timezone.utc).strftime("%Y-%m-%d")
        out.append(Capture(_join(uri, fs, i.path), i.size or 0, day, label, fs=uri if "://" in uri else "",
                           mtime_ns=i.mtime_ns or 0))
    return sorted(out)


def batches(members: list[dict], size: int, workers: int = 1) -> list[dict]:
    """Hashed captures (`{"uri", "day", "source", "size", "sha256"}`) grouped by (day, source) and
    cut into batches of at most `size`: every batch writes into one partition. A batch is a plain
    dict, passed to its Ray task as it is.

    A group's batches are as many as `size` needs, rounded up to a multiple of `workers` (never
    more than its captures), and their sizes differ by at most one: 2,200 captures at 200 on two
    workers are 12 batches of 183 or 184, not 11 of 200 that leave one worker a whole batch alone
    at the end."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for m in sorted(members, key=lambda m: m["uri"]):
        groups.setdefault((m["day"], m["source"]), []).append(m)
    out = []
    for (day, source), group in sorted(groups.items()):
        start = 0
        for n in batch_sizes(len(group), size, workers):
            out.append({"day": day, "source": source, "members": [batch_member(m) for m in group[start : start + n]]})
            start += n
    return out


def batch_sizes(n: int, size: int, workers: int) -> list[int]:
    """The sizes `batches` cuts a group of `n` into: as many batches as `size` needs, rounded up to
    a multiple of `workers` (never more than `n`), their sizes within one of each other."""
    count = -(-n // size)
    count = min(n, -(-count // workers) * workers)
    return [n // count + (1 if i < n % count else 0) for i in range(count)]


def batch_member(m: dict) -> dict:
    """A hashed capture as a batch carries it to its lane."""
    return {"uri": m["uri"], "sha256": m["sha256"], "size": m["size"], "fs": m.get("fs", "")}


def hash_captures(captures: list[dict]) -> list[dict]:
    """Each listed capture with its content's SHA-256, in the listing's order."""
    out = []
    for c in captures:
        fs, path = member_filesystem(c)
        out.append(dict(c, sha256=sha256_file(fs, path)))
    return out


def hash_captures_threaded(captures: list[dict], threads: int, chunk: int = 64) -> list[dict]:
    """`hash_captures` on `threads` threads, chunk by chunk: reading a file and hashlib's SHA-256
    of a block larger than 2 kB release the interpreter's lock, so the threads hash in parallel
    (the driver's preparation, beside its `import ray` and connection, docs/performance.md)."""
    from concurrent.futures import ThreadPoolExecutor

    chunks = [captures[i : i + chunk] for i in range(0, len(captures), chunk)]
    with ThreadPoolExecutor(max_workers=max(1, threads), thread_name_prefix="blecap-fleet-hash") as pool:
        return [h for part in pool.map(hash_captures, chunks) for h in part]


def sha256_file(fs: pafs.FileSystem, path: str) -> str:
    h = hashlib.sha256()
    with fs.open_input_stream(path) as f:
        while True:
            block = f.read(1 << 20)
            if not block:
                break
            h.update(block)
    return h.hexdigest()
