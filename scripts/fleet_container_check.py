#!/usr/bin/env python3
"""The fleet image (fleet/deploy/Containerfile) run for real, against blecap's batch mode outside it.

  python3 scripts/fleet_container_check.py --image localhost/blecap-fleet:local \
      [--blecap .build/release/blecap] [--seed 1] [--count 50] [--podman "podman …"] [--run-flags "…"]

1. In the image: `blecap --version`, `ldd /usr/local/bin/blecap` (no library missing) and
   `blecap-fleet run --help`.
2. A synthetic fleet (scripts/corpus/make_fleet.py) and the reference rows: the host's blecap in
   batch mode (as scripts/fleet_check.py makes them).
3. `blecap-fleet run FLEET --out OUT --workers 2` in a container (its own local Ray cluster, as
   on a laptop): the Parquet it writes must hold exactly the reference rows.
4. As KubeRay runs it: a container started with `ray start --head --block` (what KubeRay's head
   pod runs), then the job in it with `--ray-address auto`: the same rows again.
5. Two containers: a head with no CPUs and a worker node joining it over podman's network, the
   job on the head: every batch runs in the other container, and the rows are the same again
   (the store is one folder mounted in both, where KubeRay would use an object store).

The fleet and the stores are mounted at the same paths inside as outside, so that the rows' paths
agree. Needs podman (fleet/deploy/local_bases.sh builds the image where Docker Hub is out of reach).
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "scripts"))
import fleet_check  # noqa: E402  (the reference rows and the stored-row reader, shared)



def own(path: str) -> None:
    """The image ends as Ray's `ray` user (uid 1000, gid 100): the store it writes must be its."""
    if os.geteuid() == 0:
        os.chown(path, 1000, 100)


def wait_for(podman: list[str], name: str, ready, seconds: float = 180) -> None:
    """Until `ray status` in the container satisfies ready (a loaded two-core host needs tens of
    seconds for a head to come up)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        p = subprocess.run(podman + ["exec", name, "ray", "status"], capture_output=True, text=True)
        if p.returncode == 0 and ready(p.stdout):
            return
        time.sleep(2)
    raise TimeoutError(f"{name}: ray status not ready after {seconds} s")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--image", default="localhost/blecap-fleet:local")
    ap.add_argument("--blecap", default=os.path.join(REPO, ".build", "release", "blecap"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=50)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--podman", default=os.environ.get("PODMAN", "podman"))
    ap.add_argument("--run-flags", default=os.environ.get("PODMAN_RUN_FLAGS", ""),
                    help="extra `podman run` flags (e.g. --ulimit … where the host needs them)")
    ap.add_argument("--keep", help="keep the work folder here")
    a = ap.parse_args()
    podman = shlex.split(a.podman)
    run_flags = shlex.split(a.run_flags) + ["--shm-size=1g"]  # Ray's object store lives in /dev/shm
    py = fleet_check.venv_python()
    env = dict(os.environ, BLECAP_PSEUDONYM_KEY=fleet_check.KEY, PYTHONPATH=os.path.join(REPO, "fleet"))
    tmp = os.path.abspath(a.keep or tempfile.mkdtemp(prefix="blecap-fleet-container-"))
    os.makedirs(tmp, exist_ok=True)
    problems: list[str] = []

    def inside(*cmd: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run(podman + ["run", "--rm", *run_flags, a.image, *cmd], capture_output=True, text=True,
                              check=check)

    version = inside("blecap", "--version").stdout.strip()
    host_version = subprocess.run([a.blecap, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"image blecap --version: {version} (host: {host_version})")
    ldd = inside("ldd", "/usr/local/bin/blecap").stdout
    missing = [line.strip() for line in ldd.splitlines() if "not found" in line]
    print(f"image ldd /usr/local/bin/blecap: {len(ldd.splitlines())} libraries, {len(missing)} not found")
    problems += [f"ldd: {m}" for m in missing]
    helptext = inside("blecap-fleet", "run", "--help").stdout
    print(f"image blecap-fleet run --help: {len(helptext.splitlines())} lines, usage: {helptext.splitlines()[0]}")

    src = os.path.join(tmp, "fleet")
    shutil.rmtree(src, ignore_errors=True)
    subprocess.run([sys.executable, os.path.join(REPO, "scripts", "corpus", "make_fleet.py"), "--seed", str(a.seed),
                    "--count", str(a.count), src], check=True, capture_output=True)
    files = sorted(os.path.join(r, n) for r, _, ns in os.walk(src) for n in ns)
    ref = fleet_check.canonical(py, fleet_check.reference_rows(a.blecap, files, ["lint", "diagnose"], env))
    print(f"reference: host blecap batch mode over {len(files)} inputs: "
          + ", ".join(f"{t} {len(r)}" for t, r in sorted(ref.items())))

    def compare(label: str, store: str) -> None:
        got = fleet_check.stored_rows(py, store)
        bad = [t for t in sorted(set(ref) | set(got)) if ref.get(t, []) != got.get(t, [])]
        for t in bad:
            problems.append(f"{label}: table {t}: batch mode {len(ref.get(t, []))} rows, Parquet {len(got.get(t, []))}")
        if not bad:
            print(f"{label}: Parquet rows equal blecap's batch-mode rows in every table "
                  f"({sum(len(r) for r in got.values())} rows)")

    mounts = ["-v", f"{src}:{src}:ro", "-e", f"BLECAP_PSEUDONYM_KEY={fleet_check.KEY}"]
    job = ["blecap-fleet", "run", src, "--workers", str(a.workers), "--batch-size", "10", "--source", "check"]

    # As on a laptop: the run starts its own Ray inside the container.
    local = os.path.join(tmp, "store-local")
    shutil.rmtree(local, ignore_errors=True)
    os.makedirs(local)
    own(local)
    t0 = time.monotonic()
    p = subprocess.run(podman + ["run", "--rm", *run_flags, *mounts, "-v", f"{local}:{local}", a.image,
                                 *job, "--out", local], capture_output=True, text=True)
    print(f"container run (own Ray): exit {p.returncode} in {time.monotonic() - t0:.1f} s: "
          f"{p.stdout.strip().splitlines()[-1] if p.stdout.strip() else p.stderr.strip()[-400:]}")
    if p.returncode != 0:
        problems.append(f"container run exit {p.returncode}: {p.stderr.strip()[-600:]}")
    else:
        compare("container run (own Ray)", local)

    # As KubeRay runs it: `ray start --head` is the container's process, the job joins it.
    joined = os.path.join(tmp, "store-joined")
    shutil.rmtree(joined, ignore_errors=True)
    os.makedirs(joined)
    own(joined)
    name = f"blecap-fleet-head-{os.getpid()}"
    subprocess.run(podman + ["run", "-d", "--name", name, *run_flags, *mounts, "-v", f"{joined}:{joined}", a.image,
                             "ray", "start", "--head", f"--num-cpus={a.workers}", "--block"],
                   check=True, capture_output=True)
    try:
        for _ in range(120):
            if subprocess.run(podman + ["exec", name, "ray", "status"], capture_output=True).returncode == 0:
                break
            time.sleep(1)
        t0 = time.monotonic()
        p = subprocess.run(podman + ["exec", "-e", f"BLECAP_PSEUDONYM_KEY={fleet_check.KEY}", name, *job,
                                     "--out", joined, "--ray-address", "auto"], capture_output=True, text=True)
        print(f"container run (joins `ray start --head`): exit {p.returncode} in {time.monotonic() - t0:.1f} s: "
              f"{p.stdout.strip().splitlines()[-1] if p.stdout.strip() else p.stderr.strip()[-400:]}")
        if p.returncode != 0:
            problems.append(f"joined run exit {p.returncode}: {p.stderr.strip()[-600:]}")
        else:
            compare("container run (joins ray start --head)", joined)
    finally:
        subprocess.run(podman + ["rm", "-f", name], capture_output=True)

    # Two nodes, as a KubeRay cluster has: a head with no CPUs (so that every batch must go to the
    # other container) and a worker that joins it over the container network.
    two = os.path.join(tmp, "store-two-nodes")
    shutil.rmtree(two, ignore_errors=True)
    os.makedirs(two)
    own(two)
    head, worker = f"blecap-fleet-head2-{os.getpid()}", f"blecap-fleet-worker-{os.getpid()}"
    node_mounts = mounts + ["-v", f"{two}:{two}"]
    try:
        subprocess.run(podman + ["run", "-d", "--name", head, *run_flags, *node_mounts, a.image,
                                 "ray", "start", "--head", "--num-cpus=0", "--block"], check=True, capture_output=True)
        wait_for(podman, head, lambda out: "Active:" in out)
        ip = subprocess.run(podman + ["inspect", head, "--format", "{{.NetworkSettings.IPAddress}}"],
                            capture_output=True, text=True, check=True).stdout.strip()
        subprocess.run(podman + ["run", "-d", "--name", worker, *run_flags, *node_mounts, a.image,
                                 "ray", "start", f"--address={ip}:6379", f"--num-cpus={a.workers}", "--block"],
                       check=True, capture_output=True)
        wait_for(podman, head, lambda out: out.count(" node_") >= 2)
        t0 = time.monotonic()
        p = subprocess.run(podman + ["exec", "-e", f"BLECAP_PSEUDONYM_KEY={fleet_check.KEY}", head, *job,
                                     "--out", two, "--ray-address", "auto"], capture_output=True, text=True)
        print(f"two containers (head 0 CPUs, worker {a.workers}): exit {p.returncode} in "
              f"{time.monotonic() - t0:.1f} s: "
              f"{p.stdout.strip().splitlines()[-1] if p.stdout.strip() else p.stderr.strip()[-400:]}")
        if p.returncode != 0:
            problems.append(f"two-node run exit {p.returncode}: {p.stderr.strip()[-600:]}")
        else:
            compare("two containers", two)
    except (subprocess.CalledProcessError, TimeoutError) as e:
        problems.append(f"two-node cluster did not start: {e}")
    finally:
        subprocess.run(podman + ["rm", "-f", head, worker], capture_output=True)

    for m in problems:
        print(f"PROBLEM: {m}")
    print(f"fleet container check: {'ok' if not problems else f'{len(problems)} problem(s)'} ({tmp})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
