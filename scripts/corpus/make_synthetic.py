#!/usr/bin/env python3
"""Writes captures/synthetic/: small files derived from the repository's own corpus, for the cases
no capture we may redistribute shows. Deterministic: running it again changes nothing.

  monitor-metadata-only.btsnoop  btsnoop 2001 (Linux monitor) holding only metadata — New Index,
                                 Open Index, System Note — and no HCI traffic, as `btmon -w`
                                 leaves when nothing happens: the header and first three records
                                 of formats/clean_heart_rate.central.monitor.btsnoop.
  unknown-raw-h4-stream.bin      HCI packets with no container at all (a raw H4 byte stream, as a
                                 UART logger writes it): the first eight packets of
                                 formats/clean_heart_rate.central.h4.btsnoop, concatenated.

Usage: scripts/corpus/make_synthetic.py [--check]   (--check: exit 1 if a file would change)
"""
import os, struct, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "captures")


def btsnoop_records(data):
    """(offset, end, payload) of each btsnoop record."""
    off, out = 16, []
    while off + 24 <= len(data):
        olen, ilen = struct.unpack(">II", data[off:off + 8])
        end = off + 24 + ilen
        out.append((off, end, data[off + 24:end]))
        off = end
    return out


def outputs():
    monitor = open(os.path.join(ROOT, "formats", "clean_heart_rate.central.monitor.btsnoop"), "rb").read()
    recs = btsnoop_records(monitor)
    yield "monitor-metadata-only.btsnoop", monitor[:recs[2][1]]
    h4 = open(os.path.join(ROOT, "formats", "clean_heart_rate.central.h4.btsnoop"), "rb").read()
    yield "unknown-raw-h4-stream.bin", b"".join(p for _, _, p in btsnoop_records(h4)[:8])


def main():
    return write_or_check(os.path.join(ROOT, "synthetic"), outputs(), "--check" in sys.argv[1:], "make_synthetic.py")


def write_or_check(out_dir, outputs, check, writer):
    """Writes each (name, bytes) of `outputs` into `out_dir` where it differs, or with `check`
    only lists the files that differ (exit status 1): a generated corpus that must not drift
    from its generator. Shared by the corpus generators in this folder."""
    changed = []
    for name, data in outputs:
        path = os.path.join(out_dir, name)
        old = open(path, "rb").read() if os.path.exists(path) else None
        if old != data:
            changed.append(name)
            if not check:
                os.makedirs(out_dir, exist_ok=True)
                open(path, "wb").write(data)
    if check and changed:
        print(f"{os.path.relpath(out_dir, os.path.dirname(ROOT))} differs from what {writer} writes:", ", ".join(changed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
