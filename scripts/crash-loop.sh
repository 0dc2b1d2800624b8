#!/usr/bin/env bash
# Crash loop: concurrent writers against the real viper-settingsd, SIGKILL at random moments, restart, and check
# that every acknowledged write is there (or superseded by a later one), that every state file parses and that no
# revision goes back. `make test` runs 10 cycles; this runs 200, or CYCLES.
#   scripts/crash-loop.sh            # 200 cycles, debug build
#   CYCLES=1000 scripts/crash-loop.sh
set -euo pipefail
cd "$(dirname "$0")/.."

swift build --build-tests
VIPER_CRASH_CYCLES="${CYCLES:-200}" swift test --skip-build --filter 'CrashLoopTests'
