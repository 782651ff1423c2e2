#!/usr/bin/env python3
"""The fleet pipeline against an object store: moto's S3 server on a loopback port.

  python3 scripts/fleet_s3_check.py --blecap .build/release/blecap [--count 60] [--workers 2] [--python PY]

1. The fleet unit tests, fleet/tests/test_s3.py among them (moto installed).
2. moto's S3 server (`python -m moto.server`) on a free loopback port, a process of its own,
   ended when the check ends.
3. A synthetic fleet (scripts/corpus/make_fleet.py, seeded) uploaded to s3://fleet/captures/.
4. blecap's batch mode in one process over the same files, locally: the reference rows, each
   row's `input` the object's URI (scripts/fleet_check.py's comparison, shared).
5. `blecap-fleet run s3://fleet/captures?… --out s3://store/…?…` without Ray (--no-ray) and on
   Ray (--hash-on auto: a URI source is hashed by Ray tasks): the store's rows equal the
   reference; a second run analyses nothing and adds or changes no object. `blecap-fleet watch`
   over the same source (its lanes hash the URIs), two ticks: the same rows, then nothing.
6. A killed run's leftovers on S3 (a batch's table without its manifest, a temporary object):
   the next run removes exactly those and the rows stay the reference's.
7. `blecap-fleet summary` and `query` given the S3 store's URI answer what they answer over a
   local store written from the same S3 source.

Every Ray run starts a local Ray of its own (RAY_ADDRESS=local): the check never joins, starts
or stops a cluster that outlives it. The endpoint goes in each URI's query, as a deployment
gives it: `endpoint_override=127.0.0.1:PORT&scheme=http`, plus `allow_delayed_open=true`, with
which pyarrow writes an object smaller than an upload part (every object here) with one
PutObject: moto 5.2.1 answers a completed multipart upload with a root element
(CompleteMultipartUploadResponse) that pyarrow takes for an error embedded in a 200 response.

moto (fleet/pyproject.toml's `s3-check` extra, pinned) is installed with Ray, pyarrow and DuckDB
into .build/fleet-venv, as scripts/fleet_check.py does; --python uses another interpreter that
has them all.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fleet_check import KEY, REPO, canonical, reference_rows, stored_rows, venv_python  # noqa: E402

BUCKET_PREFIX = "fleet/captures"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_moto(py: str, log: str) -> tuple[subprocess.Popen, int]:
    port = free_port()
    p = subprocess.Popen([py, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                         stdout=open(log, "w"), stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if p.poll() is not None:
            raise RuntimeError(f"moto server exited {p.returncode}: {open(log).read()[-500:]}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1).read()
            return p, port
        except OSError:
            time.sleep(0.1)
    p.kill()
    raise RuntimeError("moto server did not answer within 60 s")


def venv_code(py: str, code: str, *args: str) -> str:
    return subprocess.run([py, "-c", code, *args], capture_output=True, text=True, check=True).stdout


UPLOAD = r"""
import sys, pyarrow.fs as pafs
s3, _ = pafs.FileSystem.from_uri(sys.argv[2] + '&allow_bucket_creation=true')
s3.create_dir(sys.argv[3].split('/')[0])
pafs.copy_files(sys.argv[1], sys.argv[3], destination_filesystem=s3)
"""

#: Every object under a store (path, size, modification time): what a second run must not change.
OBJECTS = r"""
import json, sys
from blecap_fleet.store import Store
import pyarrow.fs as pafs
s = Store(sys.argv[1])
infos = s.fs.get_file_info(pafs.FileSelector(s.root, recursive=True, allow_not_found=True))
print(json.dumps(sorted([i.path, i.size, str(i.mtime)] for i in infos if i.type == pafs.FileType.File)))
"""

#: A killed run's leftovers: one batch's capture table without its manifest, and a temporary object.
LEFTOVERS = r"""
import sys
from blecap_fleet.store import Store, to_table
s, day = Store(sys.argv[1]), sys.argv[2]
s.write('capture', day, 'check', 'f' * 24, to_table([{'capture_id': 'leftover'}]))
with s.fs.open_output_stream(s.root + '/capture/day=' + day + '/source=check/.tmp-leftover-0') as f:
    f.write(b'partial')
"""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--blecap", default=os.path.join(REPO, ".build", "release", "blecap"))
    ap.add_argument("--count", type=int, default=60)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--python", help="a Python with fleet's pins and moto (default: .build/fleet-venv, installed on first use)")
    ap.add_argument("--keep", help="keep the work folder here")
    a = ap.parse_args()
    started = time.monotonic()
    blecap = os.path.abspath(a.blecap)
    py = a.python or venv_python("s3-check")
    # Credentials moto accepts (any), and no instance-metadata lookups for them.
    os.environ.update(BLECAP_PSEUDONYM_KEY=KEY, PYTHONPATH=os.path.join(REPO, "fleet"), AWS_ACCESS_KEY_ID="fleet-check",
                      AWS_SECRET_ACCESS_KEY="fleet-check", AWS_DEFAULT_REGION="us-east-1", AWS_EC2_METADATA_DISABLED="true",
                      RAY_ADDRESS="local")
    env = dict(os.environ)
    tmp = a.keep or tempfile.mkdtemp(prefix="blecap-fleet-s3-check-")
    os.makedirs(tmp, exist_ok=True)
    problems: list[str] = []
    unit = subprocess.run([py, "-m", "unittest", "discover", "-s", os.path.join(REPO, "fleet", "tests")],
                          capture_output=True, text=True, env=env)
    skipped = "skipped" in unit.stderr.strip().splitlines()[-1] if unit.stderr.strip() else False
    print(f"fleet unit tests: {unit.stderr.strip().splitlines()[-1] if unit.stderr.strip() else unit.returncode}")
    if unit.returncode != 0 or skipped:
        problems.append(f"fleet unit tests failed or skipped (moto missing?): {unit.stderr.strip()[-800:]}")
    moto = None
    try:
        moto, port = start_moto(py, os.path.join(tmp, "moto.log"))
        options = f"endpoint_override=127.0.0.1:{port}&scheme=http&allow_delayed_open=true"
        print(f"moto S3 server on 127.0.0.1:{port} (pid {moto.pid})")

        src = os.path.join(tmp, "fleet")
        shutil.rmtree(src, ignore_errors=True)
        subprocess.run([sys.executable, os.path.join(REPO, "scripts", "corpus", "make_fleet.py"), "--seed", "11",
                        "--count", str(a.count), src], check=True, capture_output=True)
        files = sorted(os.path.join(r, n) for r, _, ns in os.walk(src) for n in ns)
        venv_code(py, UPLOAD, src, f"s3://{BUCKET_PREFIX}?{options}", BUCKET_PREFIX)
        source = f"s3://{BUCKET_PREFIX}?{options}"

        raw = reference_rows(blecap, files, ["lint", "diagnose"], env)
        for rows in raw.values():
            for r in rows:
                if isinstance(r.get("input"), str) and r["input"].startswith(src + os.sep):
                    r["input"] = f"s3://{BUCKET_PREFIX}/" + os.path.relpath(r["input"], src).replace(os.sep, "/")
        ref = canonical(py, raw)
        print(f"reference: blecap batch mode over {len(files)} inputs: "
              + ", ".join(f"{t} {len(r)}" for t, r in sorted(ref.items())))

        def run(store: str, *extra: str) -> dict:
            cmd = [py, "-m", "blecap_fleet.cli", "run", source, "--out", store, "--blecap", blecap, "--workers",
                   str(a.workers), "--batch-size", "10", "--source", "check", *extra]
            t0 = time.monotonic()
            p = subprocess.run(cmd, capture_output=True, text=True, env=env)
            if p.returncode != 0:
                raise RuntimeError(f"run {' '.join(extra)} exit {p.returncode}: {p.stderr.strip()[-800:]}")
            result = json.loads(p.stdout.strip().splitlines()[-1])
            result["wall"] = round(time.monotonic() - t0, 1)
            return result

        def compare(label: str, store: str) -> bool:
            got = stored_rows(py, store)
            bad = [t for t in sorted(set(ref) | set(got)) if ref.get(t, []) != got.get(t, [])]
            for t in bad:
                a_, b_ = set(ref.get(t, [])), set(got.get(t, []))
                problems.append(f"{label}: table {t}: batch mode {len(ref.get(t, []))} rows, store {len(got.get(t, []))}; "
                                f"{len(a_ - b_)} only in batch mode, {len(b_ - a_)} only in the store")
            return not bad

        stores = {"no-ray": f"s3://store/no-ray?{options}&allow_bucket_creation=true",
                  "ray": f"s3://store/ray?{options}&allow_bucket_creation=true"}
        for label, store in stores.items():
            extra = ("--no-ray",) if label == "no-ray" else ("--hash-on", "auto")
            first = run(store, *extra)
            if first["captures"] != len(files) or first["analysed"] + first["copies"] != len(files):
                problems.append(f"{label}: listed {first['captures']}, analysed {first['analysed']} of {len(files)}")
            if label == "ray" and "hash" in first["overlapped"]:
                problems.append("ray: --hash-on auto with an s3:// source hashed on the driver, not in Ray tasks")
            if compare(label, store):
                how = " (hashed in Ray tasks)" if label == "ray" else ""
                print(f"{label}: analysed {first['analysed']} in {first['batches']} batches{how} ({first['wall']} s); "
                      "the S3 store's rows equal blecap's batch-mode rows in every table")
            before = venv_code(py, OBJECTS, store)
            second = run(store, *extra)
            if second["analysed"] != 0 or venv_code(py, OBJECTS, store) != before:
                problems.append(f"{label}: second run analysed {second['analysed']} or changed the store's objects")
            else:
                print(f"{label} again: analysed 0, committed before {second['committed_before']}, "
                      f"{len(json.loads(before))} objects unchanged ({second['wall']} s)")

        # `watch` over the same source: its tick hashes the URIs on its lanes; two ticks, the second
        # finding nothing.
        watched = f"s3://store/watch?{options}&allow_bucket_creation=true"
        p = subprocess.run([py, "-m", "blecap_fleet.cli", "watch", source, "--out", watched, "--blecap", blecap,
                            "--workers", str(a.workers), "--batch-size", "10", "--source", "check", "--every", "0",
                            "--ticks", "2"], capture_output=True, text=True, env=env)
        ticks = [json.loads(x) for x in p.stdout.splitlines() if x.strip()]
        if p.returncode != 0 or [t.get("analysed") for t in ticks] != [len(files) - ticks[0].get("copies", 0), 0]:
            problems.append(f"watch: exit {p.returncode}, ticks {ticks}: {p.stderr.strip()[-600:]}")
        elif compare("watch", watched):
            print(f"watch: ticks analysed {ticks[0]['analysed']} then 0; the S3 store's rows equal blecap's batch-mode "
                  f"rows in every table (tick seconds {[t['seconds'] for t in ticks]})")

        store = stores["no-ray"]
        day = json.loads(venv_code(py, OBJECTS, store))[0][0].split("/day=")[1].split("/")[0]
        venv_code(py, LEFTOVERS, store, day)
        resumed = run(store, "--no-ray")
        if resumed["removed_uncommitted"] != 2 or resumed["analysed"] != 0:
            problems.append(f"leftovers: removed {resumed['removed_uncommitted']} (want 2), analysed {resumed['analysed']}")
        elif compare("leftovers", store):
            print("leftovers of a killed run on S3: the next run removed exactly those 2 objects; rows unchanged")

        local = os.path.join(tmp, "store-local")
        shutil.rmtree(local, ignore_errors=True)
        run(local, "--no-ray")
        cli = [py, "-m", "blecap_fleet.cli"]
        answers = {}
        for where in (store, local):
            md = subprocess.run([*cli, "summary", where], capture_output=True, text=True, env=env)
            q = subprocess.run([*cli, "query", where, "top_signatures"], capture_output=True, text=True, env=env)
            if md.returncode or q.returncode:
                problems.append(f"summary/query {where}: exit {md.returncode}/{q.returncode}: {(md.stderr + q.stderr)[-500:]}")
            lines = [x for x in md.stdout.splitlines() if not x.startswith("Store: ")]
            answers[where] = (lines, q.stdout)
        if answers[store] != answers[local]:
            problems.append("summary/query over the S3 store differ from those over a local store of the same rows")
        elif len(answers[store][1].splitlines()) < 2:
            problems.append("query top_signatures over the S3 store: no rows")
        else:
            print(f"summary and query top_signatures ({len(answers[store][1].splitlines()) - 1} rows) over the S3 store "
                  "equal those over a local store written from the same source")
    except (RuntimeError, subprocess.CalledProcessError) as e:
        detail = getattr(e, "stderr", None) or ""
        problems.append(f"{e} {detail[-500:]}")
    finally:
        if moto is not None:
            moto.terminate()
            try:
                moto.wait(10)
            except subprocess.TimeoutExpired:
                moto.kill()
                moto.wait()
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    for pr in problems:
        print(f"FAIL {pr}")
    print(f"fleet S3 check: {'FAIL' if problems else 'ok'} ({time.monotonic() - started:.1f} s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
