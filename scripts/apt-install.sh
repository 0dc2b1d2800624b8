#!/usr/bin/env bash
# apt-install.sh [--label NAME] PACKAGE...: installs the Debian packages of the list that are missing (one
# `apt-get update` first, only when something is missing). Services the packages ship are not started: the tests
# and benchmarks start the servers they need themselves, on their own folders and ports. Needs root or sudo.
set -euo pipefail

label=setup
if [ "${1:-}" = "--label" ]; then
    label=$2
    shift 2
fi
missing=()
for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -gt 0 ] || exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "$label: installing ${missing[*]}"
$sudo apt-get update -qq
policy=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
    $sudo chmod +x "$policy"
fi
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
[ -z "$policy" ] || $sudo rm -f "$policy"
