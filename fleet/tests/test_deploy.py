"""The Kubernetes files (fleet/deploy) against the runner they deploy, without Kubernetes:
the RayJob's entrypoint is a command line the real parser accepts, the Ray version is the one
pinned everywhere, every pod runs the one image, and the image puts blecap where the runner looks.

    .build/fleet-venv/bin/python -m unittest discover -s fleet/tests
"""

import os
import re
import shlex
import unittest

import yaml

from blecap_fleet.cli import build_parser

FLEET = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEPLOY = os.path.join(FLEET, "deploy")


def _read(*parts):
    with open(os.path.join(*parts)) as f:
        return f.read()


def _quantity(q):
    """A Kubernetes quantity (2, "2", "500m", "4Gi", "4G") as a number."""
    q = str(q)
    units = {"m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
             "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
    m = re.fullmatch(r"([0-9.]+)([A-Za-z]*)", q)
    assert m, q
    return float(m.group(1)) * units.get(m.group(2), 1)


class RayJobTests(unittest.TestCase):
    MANIFEST, COMMAND = "rayjob.yaml", "run"

    def setUp(self):
        self.job = yaml.safe_load(_read(DEPLOY, self.MANIFEST))
        self.spec = self.job["spec"]
        cluster = self.spec["rayClusterSpec"]
        self.head = cluster["headGroupSpec"]
        self.groups = cluster["workerGroupSpecs"]
        self.containerfile = _read(DEPLOY, "Containerfile")
        self.pin = re.search(r'"ray==([0-9.]+)"', _read(FLEET, "pyproject.toml")).group(1)

    def _containers(self):
        yield from self.head["template"]["spec"]["containers"]
        for g in self.groups:
            yield from g["template"]["spec"]["containers"]

    def _run_args(self):
        argv = shlex.split(self.spec["entrypoint"])
        self.assertEqual(argv[0], "blecap-fleet")  # the console script the Containerfile's pip install makes
        return build_parser().parse_args(argv[1:])

    def test_kind_and_api(self):
        self.assertEqual((self.job["apiVersion"], self.job["kind"]), ("ray.io/v1", "RayJob"))

    def test_entrypoint_is_a_run_the_real_parser_accepts_and_joins_the_cluster(self):
        a = self._run_args()
        self.assertEqual(a.cmd, self.COMMAND)
        # Without --ray-address the driver would start a second Ray inside the head pod.
        self.assertEqual(a.ray_address, "auto")
        self.assertFalse(getattr(a, "no_ray", False))

    def test_ray_version_is_the_pin_everywhere(self):
        self.assertEqual(self.spec["rayClusterSpec"]["rayVersion"], self.pin)
        default = re.search(r"^ARG RAY_IMAGE=\S+:([0-9.]+)-py\d+$", self.containerfile, re.M)
        self.assertIsNotNone(default, "the Containerfile names Ray's image in ARG RAY_IMAGE")
        self.assertEqual(default.group(1), self.pin)

    def test_every_pod_runs_the_one_image_with_the_secrets(self):
        containers = list(self._containers())
        self.assertEqual(len({c["image"] for c in containers}), 1)
        for c in containers:
            secrets = {e["secretRef"]["name"] for e in c.get("envFrom", [])}
            self.assertIn("fleet-pseudonym-key", secrets, c["name"])

    def test_workers_fit_the_cluster_and_a_batch_at_its_memory_limit_fits_its_pod(self):
        a = self._run_args()
        cpus = sum(_quantity(c["resources"]["limits"]["cpu"]) for c in self.head["template"]["spec"]["containers"])
        for g in self.groups:
            self.assertLessEqual(g["minReplicas"], g["replicas"])
            self.assertLessEqual(g["replicas"], g["maxReplicas"])
            for c in g["template"]["spec"]["containers"]:
                limits = c["resources"]["limits"]
                cpus += g["maxReplicas"] * _quantity(limits["cpu"])
                # One batch (one blecap) per CPU, each bounded by --max-memory.
                self.assertGreaterEqual(_quantity(limits["memory"]), _quantity(limits["cpu"]) * int(a.max_memory))
        self.assertLessEqual(a.workers, cpus)


class RayJobWatchTests(RayJobTests):
    """The watcher's manifest: the same cluster and image, `watch` as the job, retried if it fails."""

    MANIFEST, COMMAND = "rayjob-watch.yaml", "watch"

    def test_a_failed_watcher_is_submitted_again(self):
        self.assertGreater(self.spec.get("backoffLimit", 0), 0)
        self.assertGreater(self._run_args().every, 0)


class ContainerfileTests(unittest.TestCase):
    def setUp(self):
        self.text = _read(DEPLOY, "Containerfile")

    def test_bases_are_build_arguments_defaulting_to_the_public_images(self):
        self.assertRegex(self.text, r"(?m)^ARG SWIFT_IMAGE=docker\.io/library/swift:6\.3-bookworm$")
        self.assertRegex(self.text, r"(?m)^ARG RAY_IMAGE=docker\.io/rayproject/ray:[0-9.]+-py311$")
        self.assertEqual(re.findall(r"(?m)^FROM (\S+)", self.text), ["${SWIFT_IMAGE}", "${RAY_IMAGE}"])

    def test_the_schema_document_is_where_the_installed_runner_reads_it(self):
        # schema.DOC is docs/fleet.md two folders above the package: in the image, beside the
        # folder pip installs from. Without it the runner wrote arrays as JSON text.
        fleet_dir = re.search(r"(?m)^COPY fleet (\S+)$", self.text).group(1)
        self.assertRegex(self.text, r"(?m)^RUN pip install .*-e " + re.escape(fleet_dir) + "$")
        doc = os.path.normpath(os.path.join(fleet_dir, "..", "docs", "fleet.md"))
        self.assertRegex(self.text, r"(?m)^COPY docs/fleet\.md " + re.escape(doc) + "$")

    def test_blecap_is_where_the_runner_looks(self):
        env = re.search(r"(?m)^ENV BLECAP=(\S+)$", self.text).group(1)
        self.assertRegex(self.text, r"(?m)^COPY --from=build /blecap " + re.escape(env) + "$")


class SchemaDocumentTests(unittest.TestCase):
    def test_a_runner_without_the_schema_document_refuses_instead_of_writing_untyped_columns(self):
        from blecap_fleet import schema

        saved = schema.DOC
        schema.tables.cache_clear()
        try:
            schema.DOC = os.path.join(FLEET, "no-such-docs", "fleet.md")
            with self.assertRaises(FileNotFoundError):
                schema.arrow_schema("capture")
        finally:
            schema.DOC = saved
            schema.tables.cache_clear()
        self.assertEqual(str(schema.arrow_schema("capture")["app_packages"]), "list<item: string>")


if __name__ == "__main__":
    unittest.main()
