#!/usr/bin/env bash
# Installs what building, running and testing viper-settings needs on Debian 12.
# Safe to run again: installs only what is missing. Needs root (or sudo) for apt-get.
set -euo pipefail
cd "$(dirname "$0")/.."

# zsh and fish: the interop tests type TAB in each shell that settingsctl writes a completion script for.
packages=(socat python3-venv pkg-config libsystemd-dev nginx-light etcd-server etcd-client openssl zsh fish)
if [ "${1:-}" = "--bench" ]; then
    packages+=(hyperfine dconf-cli dconf-service dbus strace)
fi
scripts/apt-install.sh --label setup "${packages[@]}"

# The Python reference Varlink client and pytest, for the interoperability tests.
if [ ! -x .venv/bin/pytest ] || ! .venv/bin/python -c "import varlink" 2>/dev/null; then
    echo "setup: creating .venv with varlink and pytest"
    python3 -m venv .venv
    .venv/bin/pip install -q --disable-pip-version-check varlink pytest
fi
