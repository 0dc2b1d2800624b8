#!/usr/bin/env bash
# compare.sh: installs what scripts/compare.py needs, builds the release binaries, then runs it.
# viper-settingsd side by side with redis-server, etcd and dconf: GET/SET throughput and latency, CLI wall time,
# idle memory, cold start, key-count scaling and watch latency. See scripts/compare.py --help.
#
# Usage: scripts/compare.sh [--quick] [--duration S] [--only SECTION,...] [--out DIR] [--publish] [--keep]
#
# Installs from Debian only the packages that are missing (redis-server, redis-tools, etcd-server, etcd-client,
# dconf-cli, dconf-service, dbus, hyperfine, python3-matplotlib), with a policy-rc.d that stops their packages
# from starting the services: compare.py starts and stops every server itself. Then `make build`, unless
# VIPER_BIN_DIR names a folder with the binaries already built (passed on as --bin-dir).
# compare.py runs under Debian's /usr/bin/python3, the one that sees python3-matplotlib.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(redis-server redis-tools etcd-server etcd-client dconf-cli dconf-service dbus hyperfine python3-matplotlib)
scripts/apt-install.sh --label compare "${packages[@]}"

args=()
if [ -n "${VIPER_BIN_DIR:-}" ]; then
    args+=(--bin-dir "$VIPER_BIN_DIR")
else
    echo "compare: building the release binaries (make build)"
    make build
fi
dir=${VIPER_BIN_DIR:-bin}
for tool in viper-settingsd settingsctl settings-bench; do
    [ -x "$dir/$tool" ] || { echo "compare: $dir/$tool is missing" >&2; exit 1; }
done

exec /usr/bin/python3 scripts/compare.py "${args[@]}" "$@"
