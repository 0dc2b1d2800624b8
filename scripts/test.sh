#!/usr/bin/env bash
# Installs what the tests need, builds, and runs every test: the Swift unit and integration tests, then the
# interoperability tests with the Python reference Varlink client and raw frames sent with socat.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
swift build --build-tests
# Swift Testing starts every test at once unless told otherwise: ~850 tests, many of which start daemons and other
# processes, on 2 cores; under load (a busy CI machine) a test that polls or waits for a timer then waited behind
# hundreds of others for a minute. Eight at a time: the run takes about as long, and no test starves.
SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-8}" \
    swift test --skip-build --parallel --num-workers 2
VIPER_BIN_DIR="$(swift build --show-bin-path)" .venv/bin/pytest -q Tests/interop
scripts/fuzz.sh "${VIPER_FUZZ_SECONDS:-20}"
