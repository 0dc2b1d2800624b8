#!/usr/bin/env bash
# bench-cli.sh: wall time of `settingsctl get`/`set` against `dconf read`/`write`, side by side, in one
# hyperfine run. A benchmark that prints figures, not a test: it fails only when something cannot run.
#
# What runs
#   - A private D-Bus session bus and dconf on a temporary HOME/XDG_CONFIG_HOME/XDG_RUNTIME_DIR, so dconf writes
#     to a throwaway profile ($XDG_CONFIG_HOME/dconf/user), through dconf-service activated on that bus.
#   - viper-settingsd (release build, static Swift stdlib; settingsctl a static executable, as `make build` makes them) with the bundled config on a temporary state
#     directory and socket. Both state stores live in the same temporary folder, hence on the same file system.
#   - hyperfine -N (no shell, so no shell start-up is measured) with four commands:
#       settingsctl get network.proxy.port      dconf read /org/viper/port
#       settingsctl set network.proxy.port 2    dconf write /org/viper/port 2
#
# How every timed write really changes the value
#   dconf (and viper-settingsd: `changed: false`, no file touched) skip a write that stores the value already
#   there, so timing `set ... 2` over and over would measure a no-op from the second run on. hyperfine's
#   --prepare runs before EACH timing run (warm-up runs included) and is not timed: the write benchmarks
#   are prepared with `settingsctl set network.proxy.port 1` and `dconf write /org/viper/port 1`, so each
#   timed write changes 1 -> 2. The reads get `true` as their (no-op) preparation, since --prepare is given
#   once per command. After the run the script checks it: the network module's revision (a counter of changes
#   of effective values) must have grown by 2 per prepared+timed pair, and both stores must read 2.
#
# Output: hyperfine's own report, then a table of mean/median in ms and the ratios
#   settingsctl get / dconf read and settingsctl set / dconf write (target: <= 0.5).
#
# Environment: RUNS (default 300), WARMUP (default 20), VIPER_BIN_DIR (use these binaries, skip the build),
#   BENCH_JSON (keep hyperfine's JSON export at this path).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

runs=${RUNS:-300}
warmup=${WARMUP:-20}

scripts/setup.sh --bench

if [ -n "${VIPER_BIN_DIR:-}" ]; then
    bin=$VIPER_BIN_DIR
else
    echo "bench: building the release binaries (make build: static settingsctl, daemon with a static Swift runtime)"
    make build
    bin=$PWD/bin
fi
for tool in viper-settingsd settingsctl; do
    [ -x "$bin/$tool" ] || { echo "bench: $bin/$tool is missing" >&2; exit 1; }
done

work=$(mktemp -d /tmp/viper-bench.XXXXXX)
daemon_pid=""
bus_pid=""
cleanup() {
    status=$?
    if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then
        kill -TERM "$daemon_pid" 2>/dev/null || true
        wait "$daemon_pid" 2>/dev/null || true
    fi
    if [ -n "$bus_pid" ] && kill -0 "$bus_pid" 2>/dev/null; then
        # dconf-service exits by itself when its bus goes away.
        kill -TERM "$bus_pid" 2>/dev/null || true
    fi
    if [ "$status" -ne 0 ] && [ -f "$work/daemon.log" ]; then
        echo "bench: viper-settingsd log:" >&2
        tail -n 40 "$work/daemon.log" >&2 || true
    fi
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A throwaway desktop session for dconf: its own HOME, config, runtime dir and session bus.
export HOME="$work/home"
export XDG_CONFIG_HOME="$work/home/.config"
export XDG_CACHE_HOME="$work/home/.cache"
export XDG_RUNTIME_DIR="$work/runtime"
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME"
mkdir -m 0700 "$XDG_RUNTIME_DIR"
unset DCONF_PROFILE
bus_info=$(dbus-daemon --session --fork --nopidfile --address="unix:path=$XDG_RUNTIME_DIR/bus" \
    --print-address=1 --print-pid=1)
export DBUS_SESSION_BUS_ADDRESS=$(printf '%s\n' "$bus_info" | sed -n 1p)
bus_pid=$(printf '%s\n' "$bus_info" | sed -n 2p)
[ -n "$DBUS_SESSION_BUS_ADDRESS" ] && [ -n "$bus_pid" ] || { echo "bench: no session bus" >&2; exit 1; }

# viper-settingsd on its own state directory and socket; ready when the socket accepts connections.
socket_path="$work/run/io.viper.settings"
"$bin/viper-settingsd" --config "$repo/config/viper-settingsd.conf" --state-dir "$work/state" \
    --socket "$socket_path" --log-level warning 2>"$work/daemon.log" &
daemon_pid=$!
python3 - "$socket_path" "$daemon_pid" <<'EOF'
import os, socket, sys, time
path, pid = sys.argv[1], int(sys.argv[2])
deadline = time.monotonic() + 20
while time.monotonic() < deadline:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        sys.exit("bench: viper-settingsd exited during start-up")
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path)
        sys.exit(0)
    except OSError:
        time.sleep(0.01)
    finally:
        s.close()
sys.exit("bench: viper-settingsd did not listen within 20 s")
EOF

ctl="$bin/settingsctl --socket $socket_path"
key=network.proxy.port
dkey=/org/viper/port

# The module's revision, read with a raw Varlink call (no client under test involved).
revision() {
    python3 - "$socket_path" <<'EOF'
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect(sys.argv[1])
s.sendall(json.dumps({"method": "io.viper.settings.Get", "parameters": {"key": "network.proxy.port"}}).encode() + b"\0")
data = b""
while not data.endswith(b"\0"):
    chunk = s.recv(65536)
    if not chunk:
        sys.exit("bench: connection closed")
    data += chunk
print(json.loads(data[:-1])["parameters"]["revision"])
EOF
}

# Both stores hold a value before the reads are timed; this also activates dconf-service on the bus.
$ctl set $key 2 >/dev/null
dconf write $dkey 2
[ "$(dconf read $dkey)" = 2 ] || { echo "bench: dconf does not work on the private bus" >&2; exit 1; }
[ "$($ctl get $key)" = 2 ] || { echo "bench: settingsctl get does not read back 2" >&2; exit 1; }
revision_before=$(revision)

json_out=${BENCH_JSON:-$work/hyperfine.json}
echo "bench: hyperfine -N, $warmup warm-up runs, $runs runs per command; state on $(stat -f -c %T "$work")"
hyperfine -N --warmup "$warmup" --runs "$runs" --export-json "$json_out" \
    --prepare true --command-name "settingsctl get" "$ctl get $key" \
    --prepare true --command-name "dconf read" "dconf read $dkey" \
    --prepare "$ctl set $key 1" --command-name "settingsctl set" "$ctl set $key 2" \
    --prepare "dconf write $dkey 1" --command-name "dconf write" "dconf write $dkey 2"

# Proof that the writes changed the value each time: 1 -> 2 per warm-up and timed run, two changes each.
revision_after=$(revision)
expected=$((2 * (warmup + runs)))
changes=$((revision_after - revision_before))
final_viper=$($ctl get $key)
final_dconf=$(dconf read $dkey)
if [ "$changes" -lt "$expected" ] || [ "$final_viper" != 2 ] || [ "$final_dconf" != 2 ]; then
    echo "bench: the writes did not change the value every run: revision +$changes (expected >= $expected)," \
        "settingsctl get: $final_viper, dconf read: $final_dconf" >&2
    exit 1
fi
echo "bench: network revision +$changes over the run (>= $expected: every timed write changed the value)"

python3 - "$json_out" <<'EOF'
import json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
print()
print(f"{'command':<18}{'mean ms':>10}{'median ms':>11}{'stddev ms':>11}{'min ms':>9}{'max ms':>9}")
for name in ("settingsctl get", "dconf read", "settingsctl set", "dconf write"):
    r = results[name]
    print(f"{name:<18}{r['mean'] * 1e3:>10.3f}{r['median'] * 1e3:>11.3f}{r['stddev'] * 1e3:>11.3f}"
          f"{r['min'] * 1e3:>9.3f}{r['max'] * 1e3:>9.3f}")
print()
print(f"{'ratio':<34}{'mean':>8}{'median':>9}  target")
for ours, theirs in (("settingsctl get", "dconf read"), ("settingsctl set", "dconf write")):
    mean = results[ours]["mean"] / results[theirs]["mean"]
    median = results[ours]["median"] / results[theirs]["median"]
    verdict = "met" if mean <= 0.5 and median <= 0.5 else "NOT met"
    print(f"{ours + ' / ' + theirs:<34}{mean:>8.3f}{median:>9.3f}  <= 0.5 {verdict}")
EOF
