# blecap: `make demo` installs what is missing, builds and decodes a bundled capture;
# `make test` runs the unit and end-to-end tests.
SWIFT ?= swift
DEMO_CAPTURE ?= captures/bumble/clean_heart_rate.central.btsnoop
APT_PACKAGES = libpcap-dev libbluetooth-dev pkg-config
CONFORMANCE_PACKAGES = tshark bluez python3 chromium

.PHONY: deps demo build release test conformance bench clean

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

release: deps
	$(SWIFT) build -c release

demo: release
	.build/release/blecap info $(DEMO_CAPTURE)
	.build/release/blecap timeline $(DEMO_CAPTURE) | head -40
	.build/release/blecap lint --fail-on never captures/bumble/oversized_and_unchecked_writes.central.btsnoop
	.build/release/blecap replay captures/bumble/hr_short_notification.central.btsnoop

test: deps
	$(SWIFT) test

# Differential tests against tshark over ../shared/captures (installs tshark).
conformance: release
	@missing=""; for p in $(CONFORMANCE_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi
	@python3 -c 'import jsonschema, sarif, junitparser' 2>/dev/null || python3 -m pip install -q jsonschema sarif-tools junitparser
	python3 scripts/conformance.py --blecap .build/release/blecap

bench: release
	@missing=""; for p in tshark bluez time bc python3; do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi
	scripts/bench.sh

clean:
	rm -rf .build
