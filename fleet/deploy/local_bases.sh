#!/usr/bin/env bash
# Build fleet/deploy/Containerfile without Docker Hub: local stand-ins for its two base images,
# made from a Debian bookworm rootfs (debootstrap, deb.debian.org) and PyPI, then the fleet image
# on top of them. For machines that reach Debian's mirrors and PyPI but not docker.io; with
# Docker Hub, build the Containerfile directly (its defaults are the real images).
#
#   fleet/deploy/local_bases.sh bases    # localhost/swift-standin:6.3-bookworm, localhost/ray-standin:2.60.0-py311
#   fleet/deploy/local_bases.sh image    # localhost/blecap-fleet:local: the Containerfile on those, HEAD's tree
#   fleet/deploy/local_bases.sh all      # both
#
# Stand-ins, not copies: the Swift one is bookworm with the package list of the official
# swift:6.3-bookworm image and this machine's toolchain ($SWIFT_TOOLCHAIN, default /opt/swift)
# laid out as that image has it (/usr/bin/swift, runtime under /usr/lib/swift/linux). GitHub is
# out of reach here too, so it carries a git mirror of swift-argument-parser (blecap's one package
# dependency) and a system gitconfig that sends github.com there ($SWIFT_PACKAGES, default
# /opt/swift-packages). The Ray one is bookworm's Python 3.11 in a virtual environment on PATH with
# ray[default] at fleet/pyproject.toml's pin, and a `ray` user (uid 1000, gid 100) as Ray's
# image has. Work files go to .build-container/ (git-ignored).
#
# Podman flags: $PODMAN (default `podman`). Where crun cannot run containers (cgroups v1+v2
# "hybrid" hosts, or no CAP_SYS_RESOURCE to raise rlimits), set for example
#   PODMAN="podman --runtime runc --cgroup-manager cgroupfs"
#   PODMAN_RUN_FLAGS="--ulimit nofile=4096:4096 --ulimit nproc=4096:4096"
# (docs/fleet.md, "Kubernetes", says what this machine needed).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${WORK:-$REPO/.build-container}
PODMAN=${PODMAN:-podman}
PODMAN_RUN_FLAGS=${PODMAN_RUN_FLAGS:-}
SWIFT_TOOLCHAIN=${SWIFT_TOOLCHAIN:-/opt/swift}
SWIFT_PACKAGES=${SWIFT_PACKAGES:-/opt/swift-packages}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SWIFT_STANDIN=localhost/swift-standin:6.3-bookworm
RAY_VERSION=$(sed -n 's/^ *"ray==\([0-9.]*\)".*/\1/p' "$REPO/fleet/pyproject.toml")
RAY_STANDIN=localhost/ray-standin:$RAY_VERSION-py311
IMAGE=${IMAGE:-localhost/blecap-fleet:local}

mkdir -p "$WORK"

# Where PyPI is reached through a TLS-inspecting proxy, pip inside the builds must trust what the
# host's pip trusts: $BUILD_CA_BUNDLE (default: $PIP_CERT, then $SSL_CERT_FILE, as the host's pip reads them) is mounted
# into the RUN steps with a pip.conf naming it. Nothing of it stays in an image.
BUILD_CA_BUNDLE=${BUILD_CA_BUNDLE-${PIP_CERT:-${SSL_CERT_FILE:-}}}
PIP_MOUNTS=()
if [ -n "$BUILD_CA_BUNDLE" ]; then
  printf '[global]\ncert = /run/build-ca.pem\n' >"$WORK/pip.conf"
  PIP_MOUNTS=(-v "$BUILD_CA_BUNDLE:/run/build-ca.pem:ro" -v "$WORK/pip.conf:/etc/pip.conf:ro")
fi

rootfs() {
  if [ ! -x "$WORK/rootfs-bookworm/bin/sh" ]; then
    rm -rf "$WORK/rootfs-bookworm"
    debootstrap --variant=minbase bookworm "$WORK/rootfs-bookworm" "$MIRROR" >"$WORK/debootstrap.log"
  fi
  if ! $PODMAN image exists localhost/bookworm-minbase:local; then
    tar -C "$WORK/rootfs-bookworm" -c . | $PODMAN import - localhost/bookworm-minbase:local
  fi
}

bases() {
  rootfs
  # The official image's build dependencies (swift-docker's debian/12 Dockerfile), the toolchain
  # at /usr, and GitHub answered from a local mirror.
  mkdir -p "$WORK/swift-ctx"
  cat >"$WORK/swift-ctx/Containerfile" <<'EOF'
FROM localhost/bookworm-minbase:local
RUN apt-get -q update && DEBIAN_FRONTEND=noninteractive apt-get -q install -y \
      binutils-gold libicu-dev libcurl4-openssl-dev libedit-dev libsqlite3-dev libncurses-dev \
      libpython3-dev libxml2-dev pkg-config uuid-dev tzdata git gcc libstdc++-12-dev ca-certificates \
    && rm -rf /var/lib/apt/lists/*
RUN cp -a /toolchain/usr/. /usr/ && swift --version
RUN mkdir -p /opt/swift-packages/apple \
    && git clone -q --mirror /mirror/swift-argument-parser.git /opt/swift-packages/apple/swift-argument-parser.git \
    && git config --system url./opt/swift-packages/.insteadOf https://github.com/
EOF
  $PODMAN build $PODMAN_RUN_FLAGS -t "$SWIFT_STANDIN" \
    -v "$SWIFT_TOOLCHAIN:/toolchain:ro" -v "$SWIFT_PACKAGES/apple:/mirror:ro" "$WORK/swift-ctx"

  mkdir -p "$WORK/ray-ctx"
  cat >"$WORK/ray-ctx/Containerfile" <<EOF
FROM localhost/bookworm-minbase:local
RUN apt-get -q update && DEBIAN_FRONTEND=noninteractive apt-get -q install -y python3 python3-venv ca-certificates \\
    && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /opt/ray-python && /opt/ray-python/bin/pip install -q --no-cache-dir "ray[default]==$RAY_VERSION"
ENV PATH=/opt/ray-python/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
RUN useradd -m -u 1000 -g 100 -s /bin/bash ray
USER ray
WORKDIR /home/ray
EOF
  $PODMAN build $PODMAN_RUN_FLAGS "${PIP_MOUNTS[@]}" -t "$RAY_STANDIN" "$WORK/ray-ctx"
}

# The image is built from a fresh clone of HEAD: committed work only, and a .git of its own, so
# that `blecap --version` in the image names the commit (a linked worktree's .git points outside
# the build context and would give "unknown", under which the fleet store cannot tell builds apart).
image() {
  rm -rf "$WORK/src"
  git clone -q --no-hardlinks "$REPO" "$WORK/src"
  $PODMAN build $PODMAN_RUN_FLAGS "${PIP_MOUNTS[@]}" -t "$IMAGE" -f "$WORK/src/fleet/deploy/Containerfile" \
    --build-arg SWIFT_IMAGE="$SWIFT_STANDIN" --build-arg RAY_IMAGE="$RAY_STANDIN" "$WORK/src"
}

case "${1:-all}" in
  bases) bases ;;
  image) image ;;
  all) bases; image ;;
  *) echo "usage: $0 bases|image|all" >&2; exit 2 ;;
esac
