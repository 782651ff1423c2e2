# blecap: `make demo` installs what is missing, builds and decodes a bundled capture;
# `make test` runs the unit and end-to-end tests; `make install PREFIX=...` installs the
# release binary, shell completions and man pages (`make uninstall` removes them).
SWIFT ?= swift
DEMO_CAPTURE ?= captures/bumble/clean_heart_rate.central.btsnoop
APT_PACKAGES = libpcap-dev libbluetooth-dev libarchive-dev zlib1g-dev pkg-config
CONFORMANCE_PACKAGES = tshark bluez python3 python3-venv chromium
# blecap serve/watch against the Linux kernel's Bluetooth stack in a qemu virtual machine.
KERNEL_CHECK_PACKAGES = qemu-system-x86 linux-image-amd64 busybox-static bluez

.PHONY: deps demo build release test conformance fleet-check fleet-s3-check fuzz-smoke product-clients bench bench-capture-ll linklayer-check kernel-check clean man install uninstall check-install format format-check

# Installation layout: the conventional places bash-completion, zsh and fish look in.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(DESTDIR)$(PREFIX)/bin
SHAREDIR = $(DESTDIR)$(PREFIX)/share
BASH_COMPLETIONS = $(SHAREDIR)/bash-completion/completions
ZSH_COMPLETIONS = $(SHAREDIR)/zsh/site-functions
FISH_COMPLETIONS = $(SHAREDIR)/fish/vendor_completions.d
MAN1DIR = $(SHAREDIR)/man/man1
# Where swift-argument-parser's generate-manual plugin writes blecap's pages.
MAN_PAGES = .build/plugins/GenerateManual/outputs/blecap
# The man pages' date: the commit's, so the same commit gives the same pages.
MAN_DATE = $(shell git log -1 --format=%cd --date=format:%Y-%m-%d 2>/dev/null || date -u +%Y-%m-%d)

# Installs the system libraries blecap links against (Debian/Ubuntu), only if missing.
deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

# Release builds reach a generic type's metadata through its accessor, not its mangled name (each
# mangled name's requirements cost a scan of every conformance record at first use:
# docs/performance.md, "Issue 32's report and replay rows against 52d1168"). On the command line,
# not in Package.swift: SwiftPM refuses a library target with unsafeFlags to a package that
# requires blecap by version (scripts/check_products.py checks that none has them).
RELEASE_FLAGS ?= -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors

release: deps
	$(SWIFT) build -c release $(RELEASE_FLAGS)

demo: release
	.build/release/blecap info $(DEMO_CAPTURE)
	.build/release/blecap timeline $(DEMO_CAPTURE) | head -40
	.build/release/blecap lint --fail-on never captures/bumble/oversized_and_unchecked_writes.central.btsnoop
	.build/release/blecap replay captures/bumble/hr_short_notification.central.btsnoop

test: deps
	$(SWIFT) test
	scripts/check_install.sh

# Man pages (mdoc: blecap.1 and one page per subcommand, blecap.<subcommand>.1) from the
# commands' own help, by swift-argument-parser's plugin (it builds the package in release mode:
# a no-op after `release`). The plugin separates paragraphs with empty lines, which mdoc warns
# about; .Pp is mdoc's paragraph break and renders the same.
man: release
	rm -rf $(MAN_PAGES)
	$(SWIFT) package plugin generate-manual --multi-page --date $(MAN_DATE) --authors "blecap contributors"
	sed -i 's/^$$/.Pp/' $(MAN_PAGES)/*.1

install: release man
	install -d "$(BINDIR)" "$(BASH_COMPLETIONS)" "$(ZSH_COMPLETIONS)" "$(FISH_COMPLETIONS)" "$(MAN1DIR)"
	install -m 755 .build/release/blecap "$(BINDIR)/blecap"
	.build/release/blecap --generate-completion-script bash > "$(BASH_COMPLETIONS)/blecap"
	.build/release/blecap --generate-completion-script zsh > "$(ZSH_COMPLETIONS)/_blecap"
	.build/release/blecap --generate-completion-script fish > "$(FISH_COMPLETIONS)/blecap.fish"
	install -m 644 $(MAN_PAGES)/*.1 "$(MAN1DIR)/"

# Removes what install wrote, then each directory it may have created, if that is now empty
# (never the prefix itself, nor a directory something else still uses).
uninstall:
	rm -f "$(BINDIR)/blecap" "$(BASH_COMPLETIONS)/blecap" "$(ZSH_COMPLETIONS)/_blecap" \
	  "$(FISH_COMPLETIONS)/blecap.fish" "$(MAN1DIR)/blecap.1" "$(MAN1DIR)"/blecap.*.1
	@for d in "$(BINDIR)" "$(BASH_COMPLETIONS)" "$(SHAREDIR)/bash-completion" "$(ZSH_COMPLETIONS)" \
	  "$(SHAREDIR)/zsh" "$(FISH_COMPLETIONS)" "$(SHAREDIR)/fish" "$(MAN1DIR)" "$(SHAREDIR)/man" "$(SHAREDIR)"; do \
	  if [ -d "$$d" ]; then rmdir "$$d" 2>/dev/null || true; fi; \
	done

# Installs into a temporary prefix and checks the result, then uninstalls (also run by `make test`).
check-install:
	scripts/check_install.sh

# Differential tests against tshark over ../shared/captures (installs tshark).
conformance: release product-clients
	@missing=""; for p in $(CONFORMANCE_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi
	@python3 -c 'import jsonschema, sarif, junitparser' 2>/dev/null || python3 -m pip install -q jsonschema sarif-tools junitparser
	python3 scripts/conformance.py --blecap .build/release/blecap
	python3 scripts/fleet_check.py --blecap .build/release/blecap
	python3 scripts/fleet_check.py --blecap .build/release/blecap --running-cluster
	python3 scripts/fleet_s3_check.py --blecap .build/release/blecap

# The Ray pipeline (fleet/) against blecap's batch mode: same rows, idempotent, resumable after a
# kill; on a cluster of its own and, as a daily job on a long-lived cluster, joining one started
# first (--running-cluster). Part of conformance; Ray, pyarrow and DuckDB come from PyPI into .build/fleet-venv.
fleet-check: release
	python3 scripts/fleet_check.py --blecap .build/release/blecap
	python3 scripts/fleet_check.py --blecap .build/release/blecap --running-cluster

# The same pipeline with its captures and its store on S3 (moto's server on a loopback port, pinned
# in fleet/pyproject.toml's s3-check extra): same rows, idempotent, a killed run's leftovers
# removed, summary and query by the store's URI. About 30 s; part of conformance.
fleet-s3-check: release
	python3 scripts/fleet_s3_check.py --blecap .build/release/blecap

# Each library product usable alone: every type its public API names is nameable through its own
# import (scripts/check_products.py, over the release build's modules), and a package outside the
# targets that depends on each product alone builds (Tests/ProductClients). A build folder kept
# from before the package's targets gained files may not see them: a failed build is tried once
# more from a clean build folder.
product-clients: release
	python3 scripts/check_products.py .build/release
	cd Tests/ProductClients && ($(SWIFT) build || ($(SWIFT) package clean && $(SWIFT) build))

# Every libFuzzer target (Fuzz/) built, then run a few seconds each from the shipped corpus
# (FUZZ_SMOKE_SECONDS, default 5): a harness that stops building or traps on a shipped capture
# fails here instead of rotting until the next long fuzz run. Needs clang's libFuzzer (the Swift
# toolchain's).
fuzz-smoke:
	scripts/fuzz.sh smoke

# `blecap serve --transport vhci` and `blecap watch hci-monitor` against a real Linux kernel,
# booted under qemu (scripts/kernel/vm_check.sh says how and what it checks).
kernel-check: release
	@missing=""; for p in $(KERNEL_CHECK_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	BLECAP=$(CURDIR)/.build/release/blecap scripts/kernel/vm_check.sh

# `make bench BENCH_10M=1` also times blecap on a 10 M-frame capture (0.4 GB under bench-out/,
# deleted afterwards): the table's RSS 10M and s 10M columns.
BENCH_10M ?= 0
# `make bench BENCH_FLEET=1`: also the fleet rows (batch mode against Ray, scripts/fleet_bench.py).
BENCH_FLEET ?= 0
bench: release
	@missing=""; for p in tshark bluez time bc python3; do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi
	BENCH_10M=$(BENCH_10M) BENCH_BASELINE=$(BENCH_BASELINE) BENCH_FLEET=$(BENCH_FLEET) scripts/bench.sh

# The over-the-air corpus (captures/linklayer/): regenerating it must change nothing, and every file
# (plus a synthetic HCI capture's conversions) must pass the tshark checks. Needs tshark.
# captures/diagnose-air/ (make_diagnose_air.py) likewise, and tshark decodes none of its frames
# as malformed.
linklayer-check:
	python3 scripts/corpus/make_link_layer.py --corpus --check
	python3 scripts/corpus/check_link_layer.py --corpus --synthetic
	python3 scripts/corpus/make_diagnose_air.py --check
	@for f in captures/diagnose-air/*.pcap*; do \
	  n=$$(tshark -r "$$f" -Y _ws.malformed 2>/dev/null | wc -l); \
	  if [ "$$n" != 0 ]; then echo "$$f: $$n malformed frames"; exit 1; fi; \
	done; echo "captures/diagnose-air: no malformed frame"

# The 1 M-frame over-the-air benchmark capture: make_bench_capture.py's HCI capture (100 sessions x
# 10,000 notifications) turned into an nRF Sniffer file (link type 272, pcapng) by
# make_link_layer.py, which streams (constant memory). Written under .build/bench-ll/.
BENCH_LL_DIR = .build/bench-ll
BENCH_LL_HCI = $(BENCH_LL_DIR)/bench-100x10000.btsnoop
BENCH_LL = $(BENCH_LL_DIR)/bench-100x10000.nordic272.pcapng
bench-capture-ll: $(BENCH_LL)

$(BENCH_LL_HCI): scripts/corpus/make_bench_capture.py
	mkdir -p $(BENCH_LL_DIR)
	python3 scripts/corpus/make_bench_capture.py $@ --sessions 100 --notifications 10000

$(BENCH_LL): $(BENCH_LL_HCI) scripts/corpus/make_link_layer.py
	python3 scripts/corpus/make_link_layer.py $(BENCH_LL_HCI) $@ --linktype 272

clean:
	rm -rf .build

# The house style (.swift-format, applied by swift-format from the toolchain). CI runs format-check.
FORMAT_PATHS = Sources Tests Plugins Fuzz Package.swift
format:
	$(SWIFT) format format --in-place --recursive --parallel $(FORMAT_PATHS)

format-check:
	$(SWIFT) format lint --strict --recursive --parallel $(FORMAT_PATHS)
