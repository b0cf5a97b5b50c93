# labeld — build, run, test. `make help` lists the targets.
SWIFT      ?= swift
STATE_DIR  ?= $(CURDIR)/.state
CONFIG     ?= debug
BIN         = .build/$(CONFIG)
# Debian packages the build and the tests need (checked by `make deps`, installed if missing).
PACKAGES   ?= libsqlite3-dev pkg-config util-linux python3 python3-venv procps \
              libcairo2-dev libpango1.0-dev libzint-dev zlib1g-dev libpng-dev fonts-dejavu-core zbar-tools \
              libjpeg-dev libjpeg-turbo-progs libpoppler-glib-dev libcupsimage2-dev \
              systemd man-db \
              libusb-1.0-0-dev umockdev libumockdev-dev gir1.2-umockdev-1.0 python3-gi \
              libcups2-dev cups-daemon cups-client cups-ipp-utils cups-filters dbus lprint \
              printer-driver-dymo printer-driver-ptouch snmpd netcat-openbsd \
              libavahi-client-dev avahi-daemon avahi-utils iproute2 \
              libmicrohttpd-dev libgnutls28-dev openssl testssl.sh chromium chromium-driver \
              prometheus prometheus-alertmanager

# The demo printers of `make run`: a 2x1 in Zebra at 203 dpi, a 62 mm Brother QL and a
# Brother P-touch with 12 mm tape.
DEMO_PRINTERS = --simulate zebra=zpl,dpi=203,width=50.8,length=25.4,speed=120 \
                --simulate ql=brother-ql,dpi=300,width=62,length=0,speed=60 \
                --simulate tape=brother-pt,width=12,speed=60

.PHONY: order-file help all build run test deps peers bench soak images install install-files format lint clean hil fuzz

help:
	@echo "make run     build and run labeld in the foreground (simulated printers, demo data)"
	@echo "make test    install what is missing, build, run every test (the Python kit's too)"
	@echo "make deps    apt-install the Debian packages the tests need (idempotent)"
	@echo "make peers   install the peer implementations the tests compare with (PyPI venvs)"
	@echo "make bench   run the benchmarks and print a report (see docs/benchmarks.md);"
	@echo "             BENCH_ARGS='--only cups,fanout' runs some sections (--list names them)"
	@echo "make soak    mixed load on a release labeld for SOAK_MINUTES (default 30), a row every 30 s"
	@echo "             and a PASS/FAIL verdict; SOAK_SLOW=1 with printers slower than the submits"
	@echo "make order-file  relist the functions an idle labeld runs, linked together (needs valgrind)"
	@echo "make fuzz    fuzz the protocol for longer with a random seed (LABELD_FUZZ_SEED replays one,"
	@echo "             LABELD_FUZZ_ITERATIONS sets the count, FUZZ_TIMEOUT the seconds)"
	@echo "make hil     run the USB scenarios against a real printer (LABELD_HIL_DEVICE=usb:VVVV:PPPP:SERIAL)"
	@echo "make images  render the seed templates into docs/images/ (README pictures)"
	@echo "make install build for release and install (PREFIX=/usr/local, DESTDIR=)"
	@echo "make format  format the sources with swift format"
	@echo "make clean   remove build products and the demo state"

all: build

build:
	$(SWIFT) build -c $(CONFIG)

run: deps build
	@mkdir -p $(STATE_DIR)
	exec $(BIN)/labeld --state-dir $(STATE_DIR) --seed seeds $(DEMO_PRINTERS) $(ARGS)

deps:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	else echo "all packages present: $(PACKAGES)"; fi

# Peer implementations the tests compare our output with (PyPI, in a venv under .build):
# zpl-toolchain validates our ZPL, zplkit draws it as a printer would (barcodes are then
# read with zbarimg), brother-ql-next decodes our raster, labelle writes the LabelManager
# stream for the same bitmap as ours.
# zpl-toolchain ships only a CPython 3.12 wheel: use pyenv's 3.12 where python3.12 is
# not on PATH. Without it the peer tests skip and say so.
PEERS      = .build/peers
PY312     ?= $(shell for p in $$(ls -d $${PYENV_ROOT:-$$HOME/.pyenv}/versions/3.12*/bin/python3.12 2>/dev/null) python3.12; do \
                 $$p -c 'import sys' 2>/dev/null && { command -v $$p; break; }; done)

peers:
	@if [ ! -x $(PEERS)/zpl/bin/python ] && [ -n "$(PY312)" ]; then \
	  echo "creating $(PEERS)/zpl (zpl-toolchain)"; \
	  $(PY312) -m venv $(PEERS)/zpl && $(PEERS)/zpl/bin/pip install -q zpl-toolchain==0.1.16 \
	  || { echo "zpl-toolchain unavailable: the ZPL peer tests will skip"; rm -rf $(PEERS)/zpl; }; \
	fi
	@if [ ! -x $(PEERS)/ql/bin/python ]; then \
	  echo "creating $(PEERS)/ql (brother-ql-next)"; \
	  python3 -m venv $(PEERS)/ql && $(PEERS)/ql/bin/pip install -q brother-ql-next==0.12.0 \
	  || { echo "brother-ql-next unavailable: the Brother QL peer tests will skip"; rm -rf $(PEERS)/ql; }; \
	fi
	@if [ ! -x $(PEERS)/zplrender/bin/python ]; then \
	  echo "creating $(PEERS)/zplrender (zplkit, a ZPL renderer)"; \
	  python3 -m venv $(PEERS)/zplrender && $(PEERS)/zplrender/bin/pip install -q zplkit==0.3.2 \
	  || { echo "zplkit unavailable: the ZPL rendering tests will skip"; rm -rf $(PEERS)/zplrender; }; \
	fi
	@if [ ! -x $(PEERS)/labelle/bin/python ]; then \
	  echo "creating $(PEERS)/labelle (labelle, a DYMO LabelManager driver)"; \
	  python3 -m venv $(PEERS)/labelle && $(PEERS)/labelle/bin/pip install -q labelle==1.5.0 \
	  || { echo "labelle unavailable: the LabelManager labelle test will skip"; rm -rf $(PEERS)/labelle; }; \
	fi

# Temporary files of `make test` stay under .build and go at the end. The Swift toolchain
# leaves an empty TemporaryDirectory.* (holding only `.keep-directory`) in TMPDIR for every
# swiftc it starts, SwiftPM a few of its own: dozens per build and test command (Swift 6.3;
# swift-driver's ArgsResolver never removes its directory). Its commands get a TMPDIR of
# their own ($(TEST_TMP)/swift). The tests get another ($(TEST_TMP)/tests): the Swift suite
# is run as `swift test` runs it (the bundle, XCTest then Swift Testing), but without
# SwiftPM in between, so that what is left there is the tests' own; a TemporaryDirectory.*
# or an emulator's umockdev.* testbed left there fails the run.
TEST_TMP    = $(CURDIR)/.build/test-tmp
TEST_BUNDLE = $(BIN)/labeldPackageTests.xctest

test: deps peers
	@rm -rf $(TEST_TMP) && mkdir -p $(TEST_TMP)/swift $(TEST_TMP)/tests
	TMPDIR=$(TEST_TMP)/swift $(SWIFT) build --build-tests
	@# Examples/ProductEditor: an app's package that adds LabelKit by path (ExampleAppTests run it).
	TMPDIR=$(TEST_TMP)/swift $(SWIFT) build --package-path Examples/ProductEditor
	TMPDIR=$(TEST_TMP)/tests $(TEST_BUNDLE)
	TMPDIR=$(TEST_TMP)/tests $(TEST_BUNDLE) --testing-library swift-testing
	@# The tape emulators checked by themselves against the manuals' tables (no labeld).
	TMPDIR=$(TEST_TMP)/tests timeout -s KILL 120 /usr/bin/python3 Tests/Emulators/selftest_tapes.py
	@# The Python client kit (clients/python): mypy --strict and its tests against this labeld.
	TMPDIR=$(TEST_TMP)/tests clients/python/run-tests.sh $(BIN)/labeld
	@# The web endpoint from outside: chromium on the status page, Prometheus's parser, openssl.
	TMPDIR=$(TEST_TMP)/tests Tests/Web/run-tests.sh $(BIN)/labeld
	@# contrib/prometheus: promtool and amtool checks, the rules' unit tests, and Debian's
	@# prometheus scraping this labeld over TLS with a viewer token (docs/scaling.md).
	TMPDIR=$(TEST_TMP)/tests Tests/Prometheus/run-tests.sh $(BIN)/labeld
	@left=$$(cd $(TEST_TMP)/tests && ls -d TemporaryDirectory.* umockdev.* 2>/dev/null); \
	rm -rf $(TEST_TMP); \
	if [ -n "$$left" ]; then echo "make test: the tests left these in TMPDIR:" $$left; exit 1; fi

# The protocol fuzzer for longer than `make test` runs it, with a random seed that is
# printed first and again on a failure (LABELD_FUZZ_SEED=N replays it exactly).
FUZZ_TIMEOUT ?= 1800
fuzz: deps
	$(SWIFT) build --build-tests
	@seed=$${LABELD_FUZZ_SEED:-$$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}; \
	iterations=$${LABELD_FUZZ_ITERATIONS:-200000}; \
	echo "fuzz: seed $$seed, $$iterations requests, at most $(FUZZ_TIMEOUT) s"; \
	LABELD_FUZZ_SEED=$$seed LABELD_FUZZ_ITERATIONS=$$iterations timeout $(FUZZ_TIMEOUT) \
	  $(SWIFT) test --skip-build --filter ProtocolFuzzTests \
	  && echo "fuzz: seed $$seed passed" \
	  || { echo "fuzz: FAILED with seed $$seed (replay: make fuzz LABELD_FUZZ_SEED=$$seed LABELD_FUZZ_ITERATIONS=$$iterations)"; exit 1; }

# Hardware in the loop: the USB scenarios against a real, plugged-in printer.
hil: deps
	@if [ -z "$(LABELD_HIL_DEVICE)" ]; then \
	  echo "make hil needs a real printer: LABELD_HIL_DEVICE=usb:VVVV:PPPP:SERIAL make hil"; \
	  echo "(labelctl devices lists the ids; LABELD_HIL_INTERACTIVE=1 adds the cover-open scenario)"; \
	  exit 2; fi
	$(SWIFT) build --build-tests
	LABELD_HIL_DEVICE=$(LABELD_HIL_DEVICE) $(SWIFT) test --skip-build --filter HardwareInTheLoopTests

# Release builds link with lld (which, unlike ld, does not pass on glibc's link-time
# warning about mktemp in the static FoundationEssentials). labeld for release links the
# Swift runtime statically: the linker keeps only what it uses and nothing is relocated at
# start-up (idle RSS 27.2 -> 24.5 MB before lazy loading, docs/benchmarks.md).
# The functions labeld runs from start-up to idle are linked next to one another
# (scripts/labeld.order, `make order-file`), so an idle labeld maps fewer pages of code
# (16.2 -> 13.8 MB RSS); each function of ours has a section of its own
# (-function-sections), so the order can place private ones too. Functions the file does
# not name go after them: a stale file costs memory, never correctness.
# Relative relocations are packed (DT_RELR, glibc 2.36 or later: 941 KB of .rela.dyn, read
# at every start and kept mapped, become 8 KB), and labeld exports no symbols (the Swift
# driver's -export-dynamic listed 5,800 for nobody to look up): idle PSS 12.0 -> 10.0 MB.
RELEASE        = $(SWIFT) build -c release -Xswiftc -use-ld=lld \
                 -Xswiftc -Xfrontend -Xswiftc -function-sections
RELEASE_LABELD = $(RELEASE) --product labeld --static-swift-stdlib \
                 -Xlinker --symbol-ordering-file=$(CURDIR)/scripts/labeld.order \
                 -Xlinker --no-warn-symbol-ordering \
                 -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic
# labelctl too links the Swift runtime statically and imports FoundationEssentials only: a
# shell loop starts one per label, and the dynamic loader's work was most of its start
# (`labelctl --version` 8-11 ms before, 2-3 ms after; docs/benchmarks.md).
RELEASE_LABELCTL = $(RELEASE) --product labelctl --static-swift-stdlib \
                 -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic

bench: deps peers
	$(RELEASE)
	$(RELEASE) --product labeld-bench
	$(RELEASE_LABELD)
	$(RELEASE_LABELCTL)
	@# Every section has its own timeout (labeld-bench --list); this one bounds the whole run.
	timeout 3600 .build/release/labeld-bench --labeld .build/release/labeld $(BENCH_ARGS)

# Writes scripts/labeld.order from a release labeld run under valgrind's callgrind from
# start-up to idle (scripts/order-file.py; about 10 s, bounded at 2 minutes).
order-file: deps
	@command -v valgrind >/dev/null || { echo "make order-file needs valgrind: apt-get install valgrind"; exit 2; }
	$(RELEASE_LABELD)
	timeout 300 python3 scripts/order-file.py .build/release/labeld > scripts/labeld.order.new
	mv scripts/labeld.order.new scripts/labeld.order
	@# SwiftPM relinks on changed sources, not on a changed order file.
	rm -f .build/release/labeld
	@wc -l scripts/labeld.order

# The mixed load of issue #13 against a fresh release labeld for SOAK_MINUTES, a row every
# 30 s (requests/s, p99, RSS, descriptors, jobs in history, errors) and a verdict (see
# docs/benchmarks.md, "Soak"). SOAK_SLOW=1: printers at 600 labels/min, slower than the
# submits. SOAK_RATE=N offers N calls/s in all (paced, an open loop) instead of the closed
# loop's flat out: the rate a steady load holds, with the cost of a request (labeld's CPU
# per call) in the report. SOAK_ARGS passes more flags (labeld-bench --help). The soak has
# its own deadline (the minutes plus 5); this one bounds the whole run, build excluded.
SOAK_MINUTES ?= 30
SOAK_SLOW    ?=
SOAK_RATE    ?=
soak: deps
	$(RELEASE) --product labeld-bench
	$(RELEASE_LABELD)
	timeout $$(awk 'BEGIN { print int($(SOAK_MINUTES) * 60 + 600) }') \
	  .build/release/labeld-bench --labeld .build/release/labeld --soak \
	  --minutes $(SOAK_MINUTES) $(if $(SOAK_SLOW),--slow) $(if $(SOAK_RATE),--rate $(SOAK_RATE)) \
	  $(SOAK_ARGS)

# The README's pictures: the seed templates with seed products, rendered by a real labeld
# for the demo printers (the QL preview is exactly what that printer prints).
IMG_DIR = $(CURDIR)/.build/images-state
images: deps build
	@rm -rf $(IMG_DIR) && mkdir -p $(IMG_DIR) docs/images
	@$(BIN)/labeld --socket $(IMG_DIR)/s --state-dir $(IMG_DIR)/state --seed seeds --log-level error \
	  $(DEMO_PRINTERS) --simulate big=zpl,dpi=203,width=101.6,length=152.4 & pid=$$!; \
	for i in $$(seq 100); do [ -S $(IMG_DIR)/s ] && break; sleep 0.05; done; \
	export LABELD_SOCKET=$(IMG_DIR)/s; \
	$(BIN)/labelctl preview price-tag-62 --sku SKU-1001 --printer sim:ql -o docs/images/price-tag-62.png && \
	$(BIN)/labelctl preview shelf-2x1 --sku SKU-1004 --printer sim:zebra -o docs/images/shelf-2x1.png && \
	$(BIN)/labelctl preview shipping-4x6 --printer sim:big -o docs/images/shipping-4x6.png \
	  --data sender="Acme Labels Ltd, Unit 4, Leeds LS1 4AP" --data service="NEXT DAY" \
	  --data recipient="$$(printf 'Ada Lovelace\n12 St James'"'"'s Square\nLondon SW1Y 4JH')" \
	  --data tracking=1Z999AA10123456784; status=$$?; kill $$pid; wait $$pid; exit $$status

# Installation. `make install` builds for release and lays out every file under
# $(DESTDIR)$(PREFIX); `install-files` copies already built binaries (CONFIG=debug for
# the tests). The example configuration never overwrites an existing one.
PREFIX      ?= /usr/local
SYSCONFDIR  ?= /etc
BINDIR       = $(PREFIX)/bin
LIBDIR       = $(PREFIX)/lib
MANDIR       = $(PREFIX)/share/man
DOCDIR       = $(PREFIX)/share/doc/labeld

install:
	$(RELEASE_LABELCTL)
	$(RELEASE_LABELD)
	$(MAKE) install-files CONFIG=release

install-files:
	install -D -m 0755 $(BIN)/labeld $(DESTDIR)$(BINDIR)/labeld
	install -D -m 0755 $(BIN)/labelctl $(DESTDIR)$(BINDIR)/labelctl
	install -d $(DESTDIR)$(LIBDIR)/systemd/system
	sed 's|@BINDIR@|$(BINDIR)|g' systemd/labeld.service > $(DESTDIR)$(LIBDIR)/systemd/system/labeld.service
	install -m 0644 systemd/labeld.socket $(DESTDIR)$(LIBDIR)/systemd/system/labeld.socket
	install -D -m 0644 systemd/labeld.sysusers $(DESTDIR)$(LIBDIR)/sysusers.d/labeld.conf
	install -D -m 0644 systemd/labeld.tmpfiles $(DESTDIR)$(LIBDIR)/tmpfiles.d/labeld.conf
	@for rules in udev/*.rules; do [ -e "$$rules" ] || continue; \
	  echo "install $$rules"; install -D -m 0644 "$$rules" "$(DESTDIR)$(LIBDIR)/udev/rules.d/$$(basename $$rules)"; done
	install -D -m 0644 man/labeld.8 $(DESTDIR)$(MANDIR)/man8/labeld.8
	install -D -m 0644 man/labelctl.1 $(DESTDIR)$(MANDIR)/man1/labelctl.1
	install -D -m 0644 man/labeld.conf.5 $(DESTDIR)$(MANDIR)/man5/labeld.conf.5
	install -D -m 0644 docs/protocol.md $(DESTDIR)$(DOCDIR)/protocol.md
	install -D -m 0644 docs/security.md $(DESTDIR)$(DOCDIR)/security.md
	install -D -m 0644 docs/ipp.md $(DESTDIR)$(DOCDIR)/ipp.md
	install -D -m 0644 systemd/labeld.conf.example $(DESTDIR)$(DOCDIR)/labeld.conf.example
	@if [ ! -e $(DESTDIR)$(SYSCONFDIR)/labeld/labeld.conf ]; then \
	  install -D -m 0644 systemd/labeld.conf.example $(DESTDIR)$(SYSCONFDIR)/labeld/labeld.conf; \
	  echo "install $(DESTDIR)$(SYSCONFDIR)/labeld/labeld.conf"; fi

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

lint:
	$(SWIFT) format lint --recursive Sources Tests

clean:
	rm -rf .build $(STATE_DIR)
