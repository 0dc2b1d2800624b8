#!/usr/bin/env bash
# bench-sync.sh: propagation lag of the etcd remote source, from an etcd put to the snapshot applied by the source.
# A benchmark that prints figures, not a test: it fails only when something cannot run.
#
# What runs
#   - One real etcd member (Debian package etcd-server, /usr/bin/etcd) on free loopback ports, a temporary data dir.
#   - EtcdRemoteSource (the same code the daemon uses: range read, then watch through the JSON gateway), 1 and then
#     10 instances watching the same prefix, each on its own watch connection.
#   - 200 sequential puts of bench/bench/recommended/lag.value; each lag is measured from just before the put is
#     sent to the moment a source's apply callback sees the new value (ContinuousClock). With 10 sources every put
#     gives 10 samples. The next put starts once every source saw the previous one.
#   The measurement lives in Tests/ViperSyncTests/EtcdPropagationBenchmark.swift, skipped unless VIPER_BENCH=1.
#   Not measured: the daemon's schema check, storage write and Varlink notification after apply (the daemon does
#   not wire the etcd source yet).
#
# Output: one line per run, e.g.
#   BENCH etcd propagation: sources=10 puts=200 samples=2000 p50=1.23 ms p99=4.56 ms max=7.89 ms
#   Target (issue 4): p99 <= 50 ms on loopback.
#
# Environment: PUTS (default 200), SCRATCH (SwiftPM scratch path, default .build).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/etcd ]; then
    echo "bench-sync: /usr/bin/etcd is missing: apt-get install etcd-server" >&2
    exit 1
fi
scratch=${SCRATCH:-.build}
swift build --scratch-path "$scratch" --build-tests >/dev/null
VIPER_BENCH=1 VIPER_BENCH_PUTS=${PUTS:-200} \
    swift test --scratch-path "$scratch" --skip-build --filter EtcdPropagationBenchmark 2>&1 \
    | tee /dev/stderr | grep '^BENCH' || {
    echo "bench-sync: the benchmark printed no figures" >&2
    exit 1
}
