# viper-settings: `make run` builds and runs the daemon with the bundled config; `make test` runs every test.
SWIFT ?= swift
STATE_DIR ?= $(CURDIR)/.state
RELEASE_FLAGS ?= -c release --static-swift-stdlib

.PHONY: all setup build run test bench lint format clean

all: build

setup:
	scripts/setup.sh

build:
	$(SWIFT) build $(RELEASE_FLAGS)

## run: install what is missing, build, and run viper-settingsd in the foreground with config/ and ./.state
run: setup build
	@echo "settingsctl: $$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/settingsctl"
	$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/viper-settingsd --config config/viper-settingsd.conf --state-dir $(STATE_DIR)

## test: install what the tests need and run every test
test:
	scripts/test.sh

## bench: settingsctl get/set against dconf read/write, side by side with hyperfine
bench: build
	scripts/bench-cli.sh

lint:
	$(SWIFT) format lint --strict -r Sources Tests Package.swift

format:
	$(SWIFT) format -i -r Sources Tests Package.swift

clean:
	rm -rf .build .state .venv
