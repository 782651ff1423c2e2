#!/bin/sh
# build-commit.sh ROOT OUTDIR: writes OUTDIR/BuildCommit.swift naming the commit of the git
# checkout at ROOT — 12 hex digits, "-dirty" when tracked files differ from it, "unknown"
# outside a git checkout (a source tarball, or no git installed).
#
# Run by the BuildCommit plugin (Plugins/BuildCommit) whenever git's HEAD, reflog or index or a
# source file of the package changed, so it must be cheap and must not touch the checkout: git
# runs without optional locks (no index refresh written, which would also rerun this), and the
# file is replaced only when its content changes, which keeps an unchanged commit from
# recompiling anything.
set -u
root=$1
out=$2

commit=unknown
export GIT_OPTIONAL_LOCKS=0
# Only ROOT's own repository counts: a tarball unpacked inside some other checkout is "unknown".
if top=$(git -C "$root" rev-parse --show-toplevel 2>/dev/null) \
    && [ "$(cd "$top" && pwd -P)" = "$(cd "$root" && pwd -P)" ] \
    && head=$(git -C "$root" rev-parse --verify -q HEAD 2>/dev/null); then
    commit=$(printf '%s' "$head" | cut -c1-12)
    if [ -n "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
        commit="$commit-dirty"
    fi
fi

mkdir -p "$out" || exit 1
file="$out/BuildCommit.swift"
new="$out/.BuildCommit.swift.new"
cat > "$new" <<SWIFT
// Written by scripts/build-commit.sh (BuildCommit plugin) into .build; not in the source tree.

/// The commit this binary was built from: 12 hex digits, "-dirty" if tracked files had
/// uncommitted changes, or "unknown" outside a git checkout.
let buildCommit = "$commit"
SWIFT
if cmp -s "$new" "$file"; then
    rm -f "$new"
else
    mv -f "$new" "$file"
fi
