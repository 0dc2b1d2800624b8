#!/usr/bin/env bash
# Installs what the tests need, builds, and runs every test: the Swift unit and integration tests, then the
# interoperability tests with the Python reference Varlink client and raw frames sent with socat.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
swift build --build-tests
swift test --skip-build --parallel --num-workers 2
VIPER_BIN_DIR="$(swift build --show-bin-path)" .venv/bin/pytest -q Tests/interop
scripts/fuzz.sh "${VIPER_FUZZ_SECONDS:-20}"
