#!/usr/bin/env bash
# soak.sh [SECONDS]: run the release viper-settingsd with the bundled config on a throwaway state directory and
# hold it under mixed get/set traffic for SECONDS (default 600), then print calls, errors, and RSS and open
# descriptors at the start and the end (scripts/soak.py). Exits 1 on any failed call or growth above 10 %.
# Environment: VIPER_BIN_DIR (use these binaries, skip the build), CONNECTIONS (default 8), SET_RATIO (0.2).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}

if [ -n "${VIPER_BIN_DIR:-}" ]; then
    bin=$VIPER_BIN_DIR
else
    make build >/dev/null
    bin=$(pwd)/bin
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/viper-soak.XXXXXX")
socket="$work/io.viper.settings"
"$bin/viper-settingsd" --config config/viper-settingsd.conf --state-dir "$work/state" --socket "$socket" \
    --log-level warning 2>"$work/daemon.log" &
daemon=$!
trap 'kill "$daemon" 2>/dev/null; wait "$daemon" 2>/dev/null; rm -rf "$work"' EXIT

for _ in $(seq 600); do
    [ -S "$socket" ] && break
    kill -0 "$daemon" 2>/dev/null || { echo "soak: the daemon exited:"; cat "$work/daemon.log"; exit 1; }
    sleep 0.1
done
[ -S "$socket" ] || { echo "soak: the daemon did not open $socket"; exit 1; }

status=0
python3 scripts/soak.py "$socket" "$daemon" --seconds "$seconds" --connections "${CONNECTIONS:-8}" \
    --set-ratio "${SET_RATIO:-0.2}" || status=$?
kill -0 "$daemon" 2>/dev/null || { echo "soak: the daemon died"; status=1; }
if [ -s "$work/daemon.log" ]; then
    echo "soak: the daemon logged $(wc -l <"$work/daemon.log") warning or error lines; the first:"
    head -5 "$work/daemon.log"
fi
exit "$status"
