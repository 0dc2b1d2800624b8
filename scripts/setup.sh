#!/usr/bin/env bash
# Installs what building, running and testing viper-settings needs on Debian 12.
# Safe to run again: installs only what is missing. Needs root (or sudo) for apt-get.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(socat python3-venv pkg-config libsystemd-dev nginx-light etcd-server etcd-client openssl)
if [ "${1:-}" = "--bench" ]; then
    packages+=(hyperfine dconf-cli dconf-service dbus strace)
fi
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "setup: installing ${missing[*]}"
    $sudo apt-get update -qq
    # Servers the tests start themselves (nginx, etcd) must not be started by their packages.
    policy=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        policy=/usr/sbin/policy-rc.d
        printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
        $sudo chmod +x "$policy"
    fi
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
    [ -z "$policy" ] || $sudo rm -f "$policy"
fi

# The Python reference Varlink client and pytest, for the interoperability tests.
if [ ! -x .venv/bin/pytest ] || ! .venv/bin/python -c "import varlink" 2>/dev/null; then
    echo "setup: creating .venv with varlink and pytest"
    python3 -m venv .venv
    .venv/bin/pip install -q --disable-pip-version-check varlink pytest
fi
