#!/usr/bin/env python3
"""watch-bench.py: how fast viper-settingsd tells its watchers about a change, and what an idle watcher costs.

Usage: scripts/watch-bench.py [--bin-dir DIR] [--sets N] [--watchers 1,100,1000] [--keep]

Starts its own viper-settingsd (a temporary state directory and socket, the bundled schemas and configuration with
the connection limits raised for the watchers, the descriptor limit raised to its hard limit), then:

  * memory: the daemon's VmRSS after a warm-up, then with 1000 idle watchers connected (each a raw Varlink
    connection with Watch, more: true, on network.proxy.port, read up to `ready`): KiB per idle watcher; also
    with 1000 idle plain connections (one Get each), to tell the cost of a connection from that of a Watch;
  * latency, for each number of watchers W: N sets of network.proxy.port, one at a time, each a raw Set call on a
    connection of its own; the time is taken just before the Set is sent, and for each watcher when its `change`
    event has arrived (one thread reads every watcher with epoll). Reported: p50/p99 of every notification
    (notification - send), p50/p99 of the slowest watcher of each set, p50/p99 of the Set reply, and the p50 of
    the reader's own time per set.

The reading client is one Python thread: with 1000 watchers its own work (1000 recv calls per set, the "reader"
column) is part of the figures: an arrival is seen up to that much late, mostly in the slowest-watcher column. A benchmark, not a test: it prints figures and exits 0 unless
something failed (a call refused, a stream broken, a deadline of 60 s per step passed).
Targets from the issue: p99 <= 5 ms with 1000 watchers; <= 16 KiB per idle watcher (release build).
"""

import argparse
import json
import os
import resource
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
CONFIG_FILE = REPO_ROOT / "config" / "viper-settingsd.conf"
MODULES_DIR = REPO_ROOT / "config" / "modules"
KEY = "network.proxy.port"
DEADLINE = 60.0
IDLE_WATCHERS = 1000


class BenchError(Exception):
    pass


def default_bin_dir():
    for candidate in (REPO_ROOT / "bin", REPO_ROOT / ".build" / "release", REPO_ROOT / ".build" / "debug"):
        if (candidate / "viper-settingsd").exists():
            return candidate
    return REPO_ROOT / ".build" / "debug"


def raise_descriptor_limit(needed):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = hard
    elif soft < needed and hard == resource.RLIM_INFINITY:
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
        soft = needed
    # The daemon keeps 128 descriptors for itself below its limit (DescriptorLimit.reserved); it inherits ours.
    if soft != resource.RLIM_INFINITY and soft < needed + 128 + 64:
        raise BenchError(f"the descriptor limit is {soft}; {needed + 192} are needed (raise the hard limit: ulimit -Hn)")
    return soft


def write_config(path, connections):
    """The bundled configuration with absolute paths and the connection limits raised."""
    lines = []
    for line in CONFIG_FILE.read_text().splitlines():
        key = line.split("=", 1)[0].strip() if "=" in line and not line.lstrip().startswith("#") else None
        if key in ("modules-dir", "max-connections-per-uid", "max-connections"):
            continue
        lines.append(line)
    lines += [
        f"modules-dir = {MODULES_DIR}",
        f"max-connections-per-uid = {connections}",
        f"max-connections = {connections}",
    ]
    path.write_text("\n".join(lines) + "\n")


class Daemon:
    def __init__(self, bin_dir, root, connections):
        self.root = root
        self.socket_path = str(root / "io.viper.settings")
        self.config = root / "viper-settingsd.conf"
        self.log_path = root / "viper-settingsd.log"
        write_config(self.config, connections)
        self.argv = [
            str(bin_dir / "viper-settingsd"),
            "--config", str(self.config),
            "--state-dir", str(root / "state"),
            "--socket", self.socket_path,
        ]
        self.process = None

    def start(self):
        self.log = open(self.log_path, "ab")
        self.process = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log)
        end = time.monotonic() + DEADLINE
        while time.monotonic() < end:
            if self.process.poll() is not None:
                raise BenchError(f"viper-settingsd exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                probe.connect(self.socket_path)
                probe.close()
                return
            except OSError:
                probe.close()
                time.sleep(0.01)  # polling interval: the loop ends when connect() succeeds
        raise BenchError(f"viper-settingsd did not listen within {DEADLINE} s")

    def rss_kib(self):
        with open(f"/proc/{self.process.pid}/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))

    def descriptors(self):
        return len(os.listdir(f"/proc/{self.process.pid}/fd"))

    def stop(self):
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=DEADLINE)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        status = self.process.returncode
        self.process = None
        self.log.close()
        return status

    def log_tail(self, lines=10):
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


class Connection:
    """A raw Varlink connection: JSON messages followed by NUL."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        # A blocking connect waits for room in the listen backlog; with a timeout (a non-blocking socket) a
        # burst of connections gets EAGAIN once the backlog is full.
        self.sock.connect(path)
        self.sock.settimeout(DEADLINE)
        self.buffer = bytearray()

    def fileno(self):
        return self.sock.fileno()

    def send(self, method, parameters, more=False):
        message = {"method": "io.viper.settings." + method, "parameters": parameters}
        if more:
            message["more"] = True
        self.sock.sendall(json.dumps(message).encode() + b"\0")

    def receive(self):
        """Reads what is there (the socket is readable); False at EOF."""
        chunk = self.sock.recv(65536)
        if not chunk:
            return False
        self.buffer += chunk
        return True

    def frames(self):
        """Complete frames in the buffer, removed from it."""
        result = []
        while True:
            end = self.buffer.find(b"\0")
            if end < 0:
                return result
            result.append(bytes(self.buffer[:end]))
            del self.buffer[: end + 1]

    def reply(self):
        """Blocks for the next reply (parameters); raises on an error reply."""
        while b"\0" not in self.buffer:
            if not self.receive():
                raise BenchError("the daemon closed a connection")
        end = self.buffer.find(b"\0")
        reply = json.loads(bytes(self.buffer[:end]))
        del self.buffer[: end + 1]
        if "error" in reply:
            raise BenchError(f"error reply: {reply}")
        return reply

    def close(self):
        self.sock.close()


def open_watchers(daemon, count):
    """count connections with Watch on KEY, each read up to its `ready` (all at once, through epoll)."""
    watchers = []
    for _ in range(count):
        watcher = Connection(daemon.socket_path)
        watcher.send("Watch", {"keys": [KEY]}, more=True)
        watchers.append(watcher)
    pending = {watcher.fileno(): watcher for watcher in watchers}
    poller = select.epoll()
    for fd in pending:
        poller.register(fd, select.EPOLLIN)
    end = time.monotonic() + DEADLINE
    try:
        while pending:
            if time.monotonic() > end:
                raise BenchError(f"{len(pending)} watchers did not get ready within {DEADLINE} s")
            for fd, _ in poller.poll(1.0):
                watcher = pending.get(fd)
                if watcher is None:
                    continue
                if not watcher.receive():
                    raise BenchError("the daemon closed a watcher before ready")
                for frame in watcher.frames():
                    reply = json.loads(frame)
                    if "error" in reply:
                        raise BenchError(f"Watch refused: {reply}")
                    if reply["parameters"]["event"] == "ready":
                        poller.unregister(fd)
                        del pending[fd]
    finally:
        poller.close()
    return watchers


def percentile(values, fraction):
    """Nearest-rank percentile."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = max(0, min(len(ordered) - 1, int(round(fraction * len(ordered) + 0.5)) - 1))
    return ordered[index]


def measure(daemon, watchers, sets, warmup):
    """sets Set calls one at a time; returns (notification latencies, slowest per set, Set replies, the reader's
    own processing time per set), all in ms."""
    setter = Connection(daemon.socket_path)
    setter.sock.setblocking(False)
    by_fd = {watcher.fileno(): watcher for watcher in watchers}
    for watcher in watchers:
        watcher.sock.setblocking(False)
    poller = select.epoll(sizehint=len(watchers) + 1)
    poller.register(setter.fileno(), select.EPOLLIN)
    for fd in by_fd:
        poller.register(fd, select.EPOLLIN)
    notifications, slowest, replies, reader = [], [], [], []
    value = daemon.current_value
    clock = time.perf_counter_ns
    try:
        for round_index in range(warmup + sets):
            value = value % 60000 + 1
            expected = value
            waiting = set(by_fd)
            arrived = {}
            reply_time = None
            busy = 0  # the reader's own time on this set: an arrival is seen up to that much late
            message = json.dumps(
                {"method": "io.viper.settings.Set", "parameters": {"key": KEY, "value": expected}}
            ).encode() + b"\0"
            sent = clock()
            setter.sock.sendall(message)
            end = time.monotonic() + DEADLINE
            while waiting or reply_time is None:
                events = poller.poll(1.0)
                now = clock()
                if not events and time.monotonic() > end:
                    raise BenchError(
                        f"set {round_index}: {len(waiting)} watchers not notified, reply "
                        f"{'received' if reply_time else 'missing'} after {DEADLINE} s"
                    )
                for fd, _ in events:
                    if fd == setter.fileno():
                        if not setter.receive():
                            raise BenchError("the daemon closed the Set connection")
                        for frame in setter.frames():
                            reply = json.loads(frame)
                            if "error" in reply:
                                raise BenchError(f"Set failed: {reply}")
                            reply_time = now
                        continue
                    watcher = by_fd[fd]
                    if not watcher.receive():
                        raise BenchError("the daemon closed a watcher")
                    frames = watcher.frames()
                    for frame in frames:
                        if fd not in waiting:
                            raise BenchError(f"a watcher got more than one event for one set: {frame[:200]!r}")
                        arrived[fd] = (now, frame)
                        waiting.discard(fd)
                busy += clock() - now
            # Checked after the round, not while timing it.
            for fd, (_, frame) in arrived.items():
                event = json.loads(frame)["parameters"]
                if event.get("event") != "change" or event.get("value") != expected:
                    raise BenchError(f"unexpected event for value {expected}: {event}")
            if round_index < warmup:
                continue
            latencies = [(at - sent) / 1e6 for at, _ in arrived.values()]
            notifications += latencies
            if latencies:
                slowest.append(max(latencies))
            replies.append((reply_time - sent) / 1e6)
            reader.append(busy / 1e6)
    finally:
        poller.close()
        setter.close()
        for watcher in watchers:
            watcher.sock.setblocking(True)
            watcher.sock.settimeout(DEADLINE)
    daemon.current_value = value
    return notifications, slowest, replies, reader


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin-dir", type=Path, default=None,
                        help="folder of viper-settingsd (default: bin/, else .build/release, else .build/debug)")
    parser.add_argument("--sets", type=int, default=200, help="sets measured per number of watchers (default 200)")
    parser.add_argument("--watchers", default="1,100,1000", help="numbers of watchers, comma-separated")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (state, log)")
    args = parser.parse_args()
    bin_dir = (args.bin_dir or default_bin_dir()).resolve()
    counts = [int(word) for word in args.watchers.split(",") if word]
    if not (bin_dir / "viper-settingsd").exists():
        raise BenchError(f"no viper-settingsd in {bin_dir}")
    most = max(counts + [IDLE_WATCHERS])
    connections = most + 64
    limit = raise_descriptor_limit(connections + 16)
    warmup = max(5, min(20, args.sets // 10))

    root = Path(tempfile.mkdtemp(prefix="viper-watch-bench-", dir="/tmp"))
    daemons = []
    failed = True

    def start(name):
        (root / name).mkdir()
        daemon = Daemon(bin_dir, root / name, connections)
        daemons.append(daemon)
        daemon.start()
        daemon.current_value = 3128
        # A warm-up: the first calls and writes allocate what every later one reuses.
        measure(daemon, [], 50, 0)
        return daemon

    def stopped(daemon):
        status = daemon.stop()
        if status != 0:
            raise BenchError(f"viper-settingsd ({daemon.root.name}) exited with status {status} after SIGTERM")

    try:
        # Memory, each on a fresh daemon: 1000 idle watchers, then (for comparison) 1000 idle plain connections.
        daemon = start("watchers")
        print(f"viper-settingsd: {daemon.argv[0]}; descriptor limit {limit}; "
              f"max-connections and max-connections-per-uid {connections}", flush=True)
        rss_before = daemon.rss_kib()
        idle = open_watchers(daemon, IDLE_WATCHERS)
        rss_watchers = daemon.rss_kib()
        descriptors = daemon.descriptors()
        for watcher in idle:
            watcher.close()
        stopped(daemon)

        daemon = start("plain")
        rss_plain_before = daemon.rss_kib()
        plain = []
        for _ in range(IDLE_WATCHERS):
            connection = Connection(daemon.socket_path)
            connection.send("Get", {"key": KEY})
            plain.append(connection)
        for connection in plain:
            connection.reply()
        rss_plain = daemon.rss_kib()
        for connection in plain:
            connection.close()
        stopped(daemon)

        # Latency.
        daemon = start("latency")
        rows = []
        watchers = []
        for count in sorted(counts):
            watchers += open_watchers(daemon, count - len(watchers))
            notifications, slowest, replies, reader = measure(daemon, watchers, args.sets, warmup)
            rows.append((count, args.sets, notifications, slowest, replies, reader, daemon.rss_kib()))
        for watcher in watchers:
            watcher.close()
        stopped(daemon)

        print()
        print(f"set -> watcher notified, {args.sets} sets one at a time after {warmup} warm-up sets (ms)")
        header = ("watchers", "sets", "notified p50", "notified p99", "slowest p50", "slowest p99",
                  "Set reply p50", "Set reply p99", "reader p50", "RSS after (MiB)")
        print("  ".join(f"{title:>{max(len(title), 8)}}" for title in header))
        for count, sets, notifications, slowest, replies, reader, rss in rows:
            cells = [str(count), str(sets)] + [
                f"{percentile(values, fraction):.3f}"
                for values in (notifications, slowest, replies) for fraction in (0.5, 0.99)
            ] + [f"{percentile(reader, 0.5):.3f}", f"{rss / 1024:.1f}"]
            print("  ".join(f"{cell:>{max(len(title), 8)}}" for cell, title in zip(cells, header)))
        print("reader: this script's own time per set reading the watchers (one thread); a notification is seen up "
              "to that much late")
        print()
        per_watcher = (rss_watchers - rss_before) / IDLE_WATCHERS
        per_plain = (rss_plain - rss_plain_before) / IDLE_WATCHERS
        print(f"daemon RSS: {rss_before / 1024:.1f} MiB after warm-up, {rss_watchers / 1024:.1f} MiB with "
              f"{IDLE_WATCHERS} idle watchers ({descriptors} descriptors open): {per_watcher:.1f} KiB per idle "
              f"watcher (target <= 16 KiB)")
        print(f"  for comparison, {IDLE_WATCHERS} idle plain connections (one Get each) on a fresh daemon: "
              f"{per_plain:.1f} KiB each")
        top = max(rows, key=lambda row: row[0])
        print(f"  p99 notification with {top[0]} watchers: {percentile(top[2], 0.99):.3f} ms (target <= 5 ms)")
        failed = False
    finally:
        for daemon in daemons:
            daemon.stop()
        for daemon in daemons:
            if failed:
                print(f"{daemon.root.name}: log tail:\n{daemon.log_tail()}", file=sys.stderr)
        if args.keep or failed:
            print(f"kept {root}", file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except BenchError as error:
        print(f"watch-bench: {error}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
