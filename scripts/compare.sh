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
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "compare: installing ${missing[*]}"
    $sudo apt-get update -qq
    # The servers are started by compare.py on temporary folders and ports; their packages must not start them.
    policy=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        policy=/usr/sbin/policy-rc.d
        printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
        $sudo chmod +x "$policy"
    fi
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
    [ -z "$policy" ] || $sudo rm -f "$policy"
fi

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
