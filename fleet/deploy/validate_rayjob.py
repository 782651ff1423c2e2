#!/usr/bin/env python3
"""fleet/deploy/rayjob.yaml (or rayjob-watch.yaml) against KubeRay's RayJob CustomResourceDefinition,
without a cluster.

  python3 fleet/deploy/validate_rayjob.py --crd ray.io_rayjobs.yaml [fleet/deploy/rayjob-watch.yaml]

The CRD is not in this repository: take it from the cluster that will run the job
(`kubectl get crd rayjobs.ray.io -o yaml > ray.io_rayjobs.yaml`, the version its operator
serves), or from KubeRay's release (ray-operator/config/crd/bases/ray.io_rayjobs.yaml).

Two checks, both what the API server would do on `kubectl apply`:
- the manifest against the openAPIV3Schema of the CRD version its apiVersion names (types,
  enums, required fields), with jsonschema;
- no field the schema does not know: Kubernetes prunes unknown fields of a structural schema
  silently, so a misspelt field (`shutdownAfterJobFinish`) would be dropped, not refused.
Exit 0 when both pass, 1 with the problems listed.
"""

from __future__ import annotations

import argparse
import os
import sys

import jsonschema
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))


def version_schema(crd: dict, api_version: str) -> dict:
    group, _, version = api_version.partition("/")
    if crd.get("spec", {}).get("group") != group:
        raise SystemExit(f"the CRD is for group {crd.get('spec', {}).get('group')!r}, the manifest names {group!r}")
    for v in crd["spec"]["versions"]:
        if v["name"] == version:
            return v["schema"]["openAPIV3Schema"]
    raise SystemExit(f"the CRD serves no version {version!r}: {[v['name'] for v in crd['spec']['versions']]}")


def unknown_fields(value, schema: dict, path: str = "") -> list[str]:
    """Fields a structural schema would prune: keys of an object whose schema lists properties,
    allows no additional ones and does not preserve unknown fields."""
    out: list[str] = []
    if isinstance(value, dict):
        if schema.get("x-kubernetes-preserve-unknown-fields"):
            return out
        props = schema.get("properties")
        extra = schema.get("additionalProperties")
        for k, v in value.items():
            if props is not None and k in props:
                out += unknown_fields(v, props[k], f"{path}.{k}")
            elif isinstance(extra, dict):
                out += unknown_fields(v, extra, f"{path}.{k}")
            elif props is not None and not extra:
                out.append(f"{path}.{k}")
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, v in enumerate(value):
            out += unknown_fields(v, schema["items"], f"{path}[{i}]")
    return out


def problems(manifest: dict, crd: dict) -> list[str]:
    schema = version_schema(crd, manifest.get("apiVersion", ""))
    found = [f"{'.'.join(str(p) for p in e.absolute_path) or '(top)'}: {e.message}"
             for e in jsonschema.Draft7Validator(schema).iter_errors(manifest)]
    # metadata is Kubernetes' ObjectMeta, which the CRD's schema leaves open (type: object).
    found += [f"{p[1:]}: not in the schema (Kubernetes would drop it)" for p in unknown_fields(manifest, schema)
              if not p.startswith(".metadata.")]
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--crd", required=True, help="the RayJob CRD (YAML)")
    ap.add_argument("manifest", nargs="?", default=os.path.join(HERE, "rayjob.yaml"))
    a = ap.parse_args()
    with open(a.crd) as f:
        crd = next(d for d in yaml.safe_load_all(f) if d)
    with open(a.manifest) as f:
        manifest = yaml.safe_load(f)
    found = problems(manifest, crd)
    for p in found:
        print(f"{a.manifest}: {p}")
    print(f"{a.manifest} against {crd['metadata']['name']} {manifest.get('apiVersion')}: "
          + ("valid" if not found else f"{len(found)} problem(s)"))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
