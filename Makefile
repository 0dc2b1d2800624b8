# viper-settings: `make run` builds and runs the daemon with the bundled config; `make test` runs every test.
SWIFT ?= swift
STATE_DIR ?= $(CURDIR)/.state
# The daemon links the Swift runtime statically; settingsctl is a fully static executable, because it is run in
# shell loops and starts in about 1 ms that way (a separate build folder keeps the two sets of flags apart).
# settingsctl also gets type metadata through accessor functions rather than mangled names: a mangled name of a
# generic type, e.g. Dictionary<String, JSONValue>, makes the runtime look its conformances up by scanning every
# conformance record of the (FoundationEssentials-sized) binary, ~0.2 M instructions each, 2/3 of a `get`.
# settingsctl runs the common command lines itself and execs settingsctl-full (ArgumentParser) for the others: a
# static executable that links FoundationEssentials, as ArgumentParser does, starts ~0.2 ms later.
# Release builds leave the run-time exclusivity checks to the debug builds the tests run (`make test`): in the
# daemon they were ~5 % of the instructions of a durable set, most of them in NIO's event loop (callgrind, see
# docs/performance.md). The three products of the build folder share the flag, so that none rebuilds the others.
RELEASE_SWIFTC ?= -Xswiftc -enforce-exclusivity=unchecked
DAEMON_FLAGS ?= -c release --static-swift-stdlib $(RELEASE_SWIFTC) --product viper-settingsd
# The applier (viper-settings-apply.service) is built like the daemon, in the same build folder.
APPLY_FLAGS ?= -c release --static-swift-stdlib $(RELEASE_SWIFTC) --product viper-settings-apply
# The load generator of the benchmarks (scripts/compare.sh), also in the same build folder.
BENCH_FLAGS ?= -c release --static-swift-stdlib $(RELEASE_SWIFTC) --product settings-bench
CLI_FLAGS ?= -c release --scratch-path .build-static -Xswiftc -static-executable \
	-Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors

.PHONY: all setup build run test bench lint format clean install uninstall man

all: build

setup:
	scripts/setup.sh

# bin/ gets copies, written as `make install` (and a package manager) writes binaries: the linker writes its output
# through a shared mapping, which leaves the file in the page cache in 4 KiB pages, and a process started from it
# takes a page fault per 4 KiB where one from a copy maps a whole cached folio (`settingsctl get` ~1.3 vs ~0.9 ms on
# the benchmark machine; docs/performance.md). After a reboot both are read back from disk alike.
BIN_INSTALL = rm -f bin/$(2) && install -m 0755 "$$($(SWIFT) build $(1) --show-bin-path)/$(2)" bin/$(2)

## build: release binaries, copied into bin/
build:
	$(SWIFT) build $(DAEMON_FLAGS)
	$(SWIFT) build $(APPLY_FLAGS)
	$(SWIFT) build $(BENCH_FLAGS)
	$(SWIFT) build $(CLI_FLAGS) --product settingsctl
	$(SWIFT) build $(CLI_FLAGS) --product settingsctl-full
	mkdir -p bin
	$(call BIN_INSTALL,$(DAEMON_FLAGS),viper-settingsd)
	$(call BIN_INSTALL,$(APPLY_FLAGS),viper-settings-apply)
	$(call BIN_INSTALL,$(BENCH_FLAGS),settings-bench)
	$(call BIN_INSTALL,$(CLI_FLAGS),settingsctl)
	$(call BIN_INSTALL,$(CLI_FLAGS),settingsctl-full)

## run: install what is missing, build, and run viper-settingsd in the foreground with config/ and ./.state
run: setup build
	@echo "viper-settingsd starting; in another terminal: export PATH=\"$(CURDIR)/bin:\$$PATH\"; settingsctl modules"
	bin/viper-settingsd --config config/viper-settingsd.conf --state-dir $(STATE_DIR)

## test: install what the tests need and run every test
test:
	scripts/test.sh

## bench: settingsctl get/set against dconf read/write, side by side with hyperfine
bench:
	scripts/bench-cli.sh

## install: build release binaries and install them, the units, config/, completions and man pages (as root)
install: setup
	scripts/install.sh

## uninstall: remove what install put in place (configuration and state are kept)
uninstall:
	scripts/install.sh --uninstall

## man: regenerate man/*.1 with swift-argument-parser's generate-manual plugin (scripts/man.sh: blank lines become .Pp)
man:
	SWIFT="$(SWIFT)" scripts/man.sh

lint:
	$(SWIFT) format lint --strict -r Sources Tests Package.swift

format:
	$(SWIFT) format -i -r Sources Tests Package.swift

clean:
	rm -rf .build .build-static bin .state .venv
