# labeld — build, run, test. `make help` lists the targets.
SWIFT      ?= swift
STATE_DIR  ?= $(CURDIR)/.state
CONFIG     ?= debug
BIN         = .build/$(CONFIG)
# Debian packages the build and the tests need (checked by `make deps`, installed if missing).
PACKAGES   ?= libsqlite3-dev pkg-config util-linux python3 procps

# The demo printers of `make run`: a 2x1 in Zebra at 203 dpi and a 62 mm Brother QL.
DEMO_PRINTERS = --simulate zebra=zpl,dpi=203,width=50.8,length=25.4,speed=120 \
                --simulate ql=brother-ql,dpi=300,width=62,length=0,speed=60

.PHONY: help all build run test deps bench format lint clean

help:
	@echo "make run     build and run labeld in the foreground (simulated printers, demo data)"
	@echo "make test    install what is missing, build, run every test"
	@echo "make deps    apt-install the Debian packages the tests need (idempotent)"
	@echo "make bench   run the benchmarks and print a report (see docs/benchmarks.md)"
	@echo "make format  format the sources with swift format"
	@echo "make clean   remove build products and the demo state"

all: build

build:
	$(SWIFT) build -c $(CONFIG)

run: build
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

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

bench: deps
	$(SWIFT) build -c release
	$(SWIFT) build -c release --product labeld-bench
	.build/release/labeld-bench --labeld .build/release/labeld

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

lint:
	$(SWIFT) format lint --recursive Sources Tests

clean:
	rm -rf .build $(STATE_DIR)
