#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ (swiftc -sanitize=fuzzer,address) and runs each for SECONDS (default 45)
# from the seed corpus in Fuzz/corpus/TARGET/; fails on the first crash, leak, timeout or out-of-memory input,
# which is kept as .build-fuzz/artifacts/TARGET-crash-… (replay: .build-fuzz/debug/TARGET FILE).
#   scripts/fuzz.sh [SECONDS] [TARGET…]
# New inputs found go to .build-fuzz/corpus/TARGET/ (kept between runs), not to the committed seeds.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-45}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(FuzzVarlinkMessage FuzzModuleSchema FuzzRemoteDocument FuzzEtcdPayload FuzzStateFiles)
fi

scratch="$PWD/.build-fuzz"
# Each main.swift declares LLVMFuzzerTestOneInput and hands its command line to libFuzzer's driver.
(cd Fuzz && swift build --scratch-path "$scratch" -c debug \
    -Xswiftc -sanitize=fuzzer,address)
bin="$(cd Fuzz && swift build --scratch-path "$scratch" -c debug --show-bin-path)"

mkdir -p "$scratch/artifacts"
for target in "${targets[@]}"; do
    corpus="$scratch/corpus/$target"
    mkdir -p "$corpus"
    log="$scratch/$target.log"
    echo "fuzz: $target for ${seconds} s"
    if ! "$bin/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=16384 \
        -print_final_stats=1 -artifact_prefix="$scratch/artifacts/$target-" \
        "$corpus" "Fuzz/corpus/$target" >"$log" 2>&1; then
        tail -n 60 "$log"
        echo "fuzz: $target FAILED; the input is in $scratch/artifacts/ (log: $log)" >&2
        exit 1
    fi
    runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")"
    echo "fuzz: $target ok, ${runs:-?} executions, 0 crashes"
done
