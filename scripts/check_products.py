#!/usr/bin/env python3
"""Every type in a library product's public API is nameable by a client of that product alone.

A client that depends on one product (say BLESimulator) and imports only its module can name a
type from another of the package's modules (BDAddr from BLEBytes) only if the product's module
re-exports that module (`@_exported import`, directly or through a module it re-exports).
Without it the client compiles only through SwiftPM's implicit transitive imports, which a
newer toolchain may close.

For each library product of Package.swift this extracts the public symbol graph of its module
from a finished build (swift symbolgraph-extract), collects the modules of every type its
public declarations name, and fails when one of the package's own modules among them is not
visible through the product's re-exports. The client package in Tests/ProductClients is the
same check as a compiler sees it, on a few types each.

It also fails when a target a library product reaches (the product's target and the package
targets it depends on, transitively) declares `unsafeFlags`: SwiftPM refuses such a target in a
package required by version ("contains unsafe build flags"), so a client could not depend on
the product at all. Tests/ProductClients depends on the package by path, where SwiftPM allows
them, so only this check sees it. Release-only compiler flags go on the build's command line
(the Makefile's `release`), executables may keep linker flags.

    scripts/check_products.py [BUILD_DIR]     # default .build/debug (after `swift build`)
"""
import glob
import json
import os
import platform
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def products():
    text = open(os.path.join(ROOT, "Package.swift")).read()
    return re.findall(r'\.library\(name: "(\w+)", targets: \["(\w+)"\]\)', text)


def package_modules():
    return {d for d in os.listdir(os.path.join(ROOT, "Sources")) if os.path.isdir(os.path.join(ROOT, "Sources", d))}


def reexports(module):
    found = set()
    for path in glob.glob(os.path.join(ROOT, "Sources", module, "**", "*.swift"), recursive=True):
        found |= set(re.findall(r"^@_exported import (\w+)", open(path).read(), re.M))
    return found


def visible(module):
    """The module and everything it re-exports, transitively."""
    seen, todo = set(), [module]
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo += sorted(reexports(m))
    return seen


def usr_module(usr):
    """The module of a Swift USR: `s:8BLEBytes6BDAddrV` -> BLEBytes."""
    m = re.match(r"s:(\d+)", usr)
    if not m:
        return None
    n = int(m.group(1))
    return usr[2 + len(m.group(1)) : 2 + len(m.group(1)) + n]


def named_modules(graph):
    """Modules of the types named by the graph's public declarations: {module: example symbol}."""
    named = {}
    for symbol in graph["symbols"]:
        fragments = list(symbol.get("declarationFragments", []))
        signature = symbol.get("functionSignature", {})
        fragments += signature.get("returns", [])
        for parameter in signature.get("parameters", []):
            fragments += parameter.get("declarationFragments", [])
        for f in fragments:
            if f.get("kind") == "typeIdentifier" and "preciseIdentifier" in f:
                m = usr_module(f["preciseIdentifier"])
                if m:
                    named.setdefault(m, "%s (%s)" % (".".join(symbol["pathComponents"]), f["spelling"]))
    return named


def unsafe_flag_targets():
    """Per library product, its targets (itself and the package targets it reaches) that declare
    unsafeFlags, from `swift package dump-package`."""
    dump = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, capture_output=True,
                                     text=True, check=True).stdout)
    targets = {t["name"]: t for t in dump["targets"]}

    def deps(name):
        for d in targets[name].get("dependencies", []):
            for kind in ("byName", "target"):
                if kind in d and d[kind][0] in targets:
                    yield d[kind][0]

    found = {}
    for product in dump["products"]:
        if "library" not in product["type"]:
            continue
        seen, todo = set(), list(product["targets"])
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo += deps(name)
        found[product["name"]] = sorted(
            n for n in seen if any("unsafeFlags" in s.get("kind", {}) for s in targets[n].get("settings", [])))
    return found


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "debug"))
    triple_dir = os.path.realpath(build)
    modules_dir = os.path.join(triple_dir, "Modules")
    if not os.path.isdir(modules_dir):
        print("check_products: no built modules in %s (run swift build first)" % modules_dir, file=sys.stderr)
        return 2
    ours = package_modules()
    # The C system-library and helper modules the Swift modules import, by their module maps.
    clang = []
    for name in ("CPcap", "CBluetooth", "CArchive", "CZlib"):
        clang += ["-Xcc", "-fmodule-map-file=" + os.path.join(ROOT, "Sources", name, "module.modulemap")]
    # The package's own C targets (CCaptureSupport, CSHA256): SwiftPM writes their module maps.
    for name in ("CCaptureSupport", "CSHA256"):
        support = os.path.join(triple_dir, name + ".build", "module.modulemap")
        clang += ["-Xcc", "-fmodule-map-file=" + support, "-Xcc", "-I" + os.path.join(ROOT, "Sources", name, "include")]
    passed = failed = 0
    unsafe = unsafe_flag_targets()
    for product, names in sorted(unsafe.items()):
        if names:
            failed += 1
            print("FAIL %s: reaches targets with unsafeFlags (%s): SwiftPM refuses them in a package required by "
                  "version" % (product, ", ".join(names)))
    if not any(unsafe.values()):
        passed += 1
        print("ok   no library product reaches a target with unsafeFlags")
    with tempfile.TemporaryDirectory() as out:
        for product, module in products():
            command = ["swift", "symbolgraph-extract", "-module-name", module, "-I", modules_dir,
                       "-target", platform.machine() + "-unknown-linux-gnu", "-minimum-access-level", "public",
                       "-output-dir", out] + clang
            run = subprocess.run(command, capture_output=True, text=True)
            if run.returncode != 0:
                print("FAIL %s: symbolgraph-extract: %s" % (product, run.stderr.strip()[:400]))
                failed += 1
                continue
            named = {}
            for path in glob.glob(os.path.join(out, module + ".symbols.json")) + glob.glob(
                os.path.join(out, module + "@*.symbols.json")
            ):
                for m, example in named_modules(json.load(open(path))).items():
                    named.setdefault(m, example)
            missing = {m: e for m, e in named.items() if m in ours and m not in visible(module)}
            if missing:
                failed += 1
                for m, example in sorted(missing.items()):
                    print("FAIL %s: its public API names %s's types (e.g. %s) but does not re-export %s" % (product, m, example, m))
            else:
                passed += 1
                reached = sorted(m for m in named if m in ours and m != module)
                print("ok   %s: names %s" % (product, ", ".join(reached) if reached else "only its own types"))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
