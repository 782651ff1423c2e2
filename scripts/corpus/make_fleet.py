#!/usr/bin/env python3
"""A synthetic fleet of Android bug reports for blecap's batch mode (docs/fleet.md).

    scripts/corpus/make_fleet.py --seed N --count N OUTDIR

Each bug report is a zip laid out as `adb bugreport` writes one, which is what CaptureArchive
looks for: `version.txt`, `main_entry.txt` naming the main text, the main text
`bugreport-<build>-<date>.txt` (dumpstate's header with `Build:` and `Build fingerprint: '…'`,
a system properties section with `[ro.product.model]: […]` and `[ro.product.manufacturer]: […]`,
and a `dumpsys package` section of `Package [name] (…):` entries with their `versionCode=` and
`versionName=` lines, the Bluetooth package's versionName being the stack's version), and the HCI snoop log at `FS/data/misc/bluetooth/logs/btsnoop_hci.log`, copied from one
of the shipped captures in captures/bumble/.

Most reports are good; some are damaged (the snoop log cut in the middle of a record), some hold
no Bluetooth log, some are hostile (a decompression bomb, a member name that climbs out of the
archive), and some files are not bug reports at all (garbage). OUTDIR/manifest.jsonl says, per
file, what it is and what it was made from, for checking what blecap's rows say.

Deterministic: the same seed and count give the same bytes (fixed zip timestamps, sorted
choices, Python's seeded Random), on the same zlib.
"""
import argparse
import json
import os
import random
import sys
import zipfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CAPTURES = os.path.join(ROOT, "captures", "bumble")
DATE = (2026, 11, 23, 10, 0, 0)

DEVICES = [
    ("Google", "Pixel 7", "google/panther/panther", "14/AP1A.240305.019/11445699"),
    ("Google", "Pixel 6a", "google/bluejay/bluejay", "14/UQ1A.240205.004/11269751"),
    ("samsung", "SM-S911B", "samsung/dm1qxxx/dm1q", "14/UP1A.231005.007/S911BXXS3BXA1"),
    ("OnePlus", "CPH2449", "OnePlus/CPH2449/OP5929L1", "13/TP1A.220905.001/R.1234567"),
    ("Xiaomi", "2201116SG", "Redmi/veux_global/veux", "13/TKQ1.221114.001/V14.0.4.0.TKCMIXM"),
    ("motorola", "moto g54 5G", "motorola/cancunf_g/cancunf", "13/T1TDS33.51-31-4/4b3c7"),
]
APPS = [
    "com.example.heartrate", "com.example.thermometer", "com.acme.fitband", "com.acme.scale",
    "com.vendor.hearingaid", "com.vendor.lock", "com.android.bluetooth", "com.google.android.gms",
]
KINDS = [("good", 80), ("damaged", 8), ("no_log", 5), ("bomb", 2), ("traversal", 2), ("garbage", 3)]


def entry(name):
    info = zipfile.ZipInfo(name, DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    return info


# The packages that are Android's Bluetooth stack (docs/fleet.md, "Device metadata").
BLUETOOTH = ("com.android.bluetooth", "com.google.android.bluetooth")


def bluetooth_stack(version):
    """The Bluetooth package's versionName for a build: its Android release, as AOSP's app has."""
    return version.split("/")[0]


def main_text(rng, device, build, packages):
    manufacturer, model, product, version = device
    lines = [
        "=" * 56,
        "== dumpstate: 2026-11-23 10:00:00",
        "=" * 56,
        "",
        "Build: %s" % build,
        "Build fingerprint: '%s:%s:user/release-keys'" % (product, version),
        "Bootloader: unknown-to-this-generator",
        "",
        "------ SYSTEM PROPERTIES (getprop) ------",
        "[ro.build.display.id]: [%s]" % build,
        "[ro.product.manufacturer]: [%s]" % manufacturer,
        "[ro.product.model]: [%s]" % model,
    ]
    lines += ["", "DUMP OF SERVICE package:", "Packages:"]
    for p in packages:
        lines.append("  Package [%s] (%08x):" % (p, rng.getrandbits(32)))
        lines.append("    versionCode=%d minSdk=26 targetSdk=34" % rng.randint(1, 400))
        lines.append("    versionName=%s" % bluetooth_stack(version) if p in BLUETOOTH else
                     "    versionName=1.%d" % rng.randint(0, 99))
    lines += ["", "DUMP OF SERVICE bluetooth_manager:", "Bluetooth Status", "  enabled: true", ""]
    return "\n".join(lines).encode()


def bug_report(path, rng, kind, capture_bytes, meta):
    build = meta["build"]
    text_name = "bugreport-%s-2026-11-23-10-00-00.txt" % build
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(entry("version.txt"), b"2.0")
        z.writestr(entry("main_entry.txt"), text_name.encode())
        z.writestr(entry(text_name), main_text(rng, meta["device"], build, meta["app_packages"]))
        log = "FS/data/misc/bluetooth/logs/btsnoop_hci.log"
        if kind == "good":
            z.writestr(entry(log), capture_bytes)
        elif kind == "damaged":
            # Cut inside the records (past the 16-byte header and the first record's header).
            cut = rng.randint(16 + 24 + 1, max(16 + 24 + 2, len(capture_bytes) - 1))
            z.writestr(entry(log), capture_bytes[:cut])
        elif kind == "no_log":
            z.writestr(entry("FS/data/misc/bluedroid/bt_config.conf"), b"[Info]\n")
        elif kind == "bomb":
            # 64 MiB of zeros behind a btsnoop header: deflate makes it ~64 KiB, ~1000:1.
            z.writestr(entry(log), capture_bytes[:16] + bytes(64 << 20))
        elif kind == "traversal":
            z.writestr(entry("FS/../../../tmp/btsnoop_hci.log"), capture_bytes)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("outdir")
    args = ap.parse_args()
    if args.count < 0:
        sys.exit("--count takes a number of bug reports, 0 or more")
    rng = random.Random(args.seed)
    captures = sorted(n for n in os.listdir(CAPTURES) if n.endswith(".btsnoop"))
    os.makedirs(args.outdir, exist_ok=True)
    kinds = [k for k, w in KINDS for _ in range(w)]
    with open(os.path.join(args.outdir, "manifest.jsonl"), "w") as manifest:
        for i in range(args.count):
            kind = rng.choice(kinds)
            source = rng.choice(captures)
            device = rng.choice(DEVICES)
            build = device[3].split("/")[1]
            packages = sorted(rng.sample(APPS, rng.randint(1, 4)))
            meta = {"device": device, "build": build, "app_packages": packages}
            if kind == "garbage":
                name = "fleet-%05d.zip" % i
                with open(os.path.join(args.outdir, name), "wb") as f:
                    f.write(bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 4096))))
            else:
                name = "bugreport-%05d.zip" % i
                with open(os.path.join(CAPTURES, source), "rb") as f:
                    capture_bytes = f.read()
                bug_report(os.path.join(args.outdir, name), rng, kind, capture_bytes, meta)
            manifest.write(json.dumps({
                "file": name, "kind": kind,
                "source": None if kind == "garbage" else "captures/bumble/" + source,
                "device_model": None if kind == "garbage" else device[1],
                "device_manufacturer": None if kind == "garbage" else device[0],
                "android_build_fingerprint": None if kind == "garbage"
                else "%s:%s:user/release-keys" % (device[2], device[3]),
                "app_packages": None if kind == "garbage" else packages,
                "bluetooth_stack": bluetooth_stack(device[3])
                if kind != "garbage" and any(p in BLUETOOTH for p in packages) else None,
            }, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
