"""The write-or-check step the Swift generators under scripts/ share (assigned numbers, ATT
PDUs): each generated file is written only when its text differs, so an unchanged file never
triggers a rebuild; with `check`, nothing is written and every file that differs is named on
standard error (the generation tests run `--check`)."""

from __future__ import annotations

import os
import sys


def write_or_check(root: str, files: dict[str, str], check: bool, source: str) -> int:
    """`files`: path relative to `root` -> the text the generator makes. `source` names what the
    text is made of, for the message. Returns the exit status."""
    stale = []
    for relative, text in files.items():
        path = os.path.join(root, relative)
        try:
            with open(path, encoding="utf-8") as f:
                current = f.read()
        except FileNotFoundError:
            current = None
        if current == text:
            continue
        stale.append(relative)
        if not check:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    if check:
        for relative in stale:
            print(f"{relative} differs from what {source}", file=sys.stderr)
        return 1 if stale else 0
    for relative in stale:
        print(f"wrote {relative}")
    return 0
