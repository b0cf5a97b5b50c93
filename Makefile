# labeld — build, run, test. `make help` lists the targets.
SWIFT      ?= swift
STATE_DIR  ?= $(CURDIR)/.state
CONFIG     ?= debug
BIN         = .build/$(CONFIG)
# Debian packages the build and the tests need (checked by `make deps`, installed if missing).
PACKAGES   ?= libsqlite3-dev pkg-config util-linux python3 python3-venv procps \
              libcups2-dev cups-daemon cups-client cups-ipp-utils dbus

# The demo printers of `make run`: a 2x1 in Zebra at 203 dpi and a 62 mm Brother QL.
DEMO_PRINTERS = --simulate zebra=zpl,dpi=203,width=50.8,length=25.4,speed=120 \
                --simulate ql=brother-ql,dpi=300,width=62,length=0,speed=60

.PHONY: help all build run test deps peers bench format lint clean

help:
	@echo "make run     build and run labeld in the foreground (simulated printers, demo data)"
	@echo "make test    install what is missing, build, run every test"
	@echo "make deps    apt-install the Debian packages the tests need (idempotent)"
	@echo "make peers   install the peer implementations the tests compare with (PyPI venvs)"
	@echo "make bench   run the benchmarks and print a report (see docs/benchmarks.md)"
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

# Peer implementations the tests compare our output with (PyPI, in a venv under .build).
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

test: deps peers
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

bench: deps peers
	$(SWIFT) build -c release
	$(SWIFT) build -c release --product labeld-bench
	.build/release/labeld-bench --labeld .build/release/labeld

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

lint:
	$(SWIFT) format lint --recursive Sources Tests

clean:
	rm -rf .build $(STATE_DIR)
