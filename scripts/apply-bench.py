#!/usr/bin/env python3
"""apply-bench.py: how long a set takes to reach the file viper-settings-apply renders.

Usage: scripts/apply-bench.py [--bin-dir DIR] [--sets N] [--keep]

Starts its own viper-settingsd and viper-settings-apply (temporary state, sockets, and `--root` folder) with the
bundled targets of config/apply.d, their reload commands removed (this machine's systemd is not the subject).
Then, for each of two targets, N sets (200 unless told), one at a time:

  * resolved (network.dns.servers -> etc/systemd/resolved.conf.d/50-viper.conf): no check command;
  * apt-proxy (network.proxy.port, with the mode manual -> etc/apt/apt.conf.d/50viper-proxy): checked with
    `APT_CONFIG=apt-check.conf apt-config -c FILE dump` before it replaces the file.

Each sample is the time from just before the Set call is sent on a raw Varlink connection to the inotify event
(IN_MOVED_TO) of the destination's rename. Prints p50, p99 and the slowest. Target from the issue: p99 <= 50 ms.
A benchmark, not a test: it exits 0 unless something failed (a set refused, a file that never came, 60 s per step).
"""

import argparse
import ctypes
import ctypes.util
import json
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
CONFIG_FILE = REPO_ROOT / "config" / "viper-settingsd.conf"
TARGETS_DIR = REPO_ROOT / "config" / "apply.d"
DEADLINE = 60.0
IN_MOVED_TO = 0x00000080


class BenchError(Exception):
    pass


def default_bin_dir():
    for candidate in (REPO_ROOT / "bin", REPO_ROOT / ".build" / "release", REPO_ROOT / ".build" / "debug"):
        if (candidate / "viper-settingsd").exists() and (candidate / "viper-settings-apply").exists():
            return candidate
    return REPO_ROOT / ".build" / "debug"


class Inotify:
    def __init__(self):
        self.libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0:
            raise BenchError(f"inotify_init1: {os.strerror(ctypes.get_errno())}")

    def watch(self, directory):
        if self.libc.inotify_add_watch(self.fd, str(directory).encode(), IN_MOVED_TO) < 0:
            raise BenchError(f"inotify_add_watch {directory}: {os.strerror(ctypes.get_errno())}")

    def wait_for(self, name, deadline):
        """Returns the time the next IN_MOVED_TO of `name` arrived."""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BenchError(f"{name} was not replaced within {DEADLINE} s")
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                continue
            now = time.perf_counter()
            data = os.read(self.fd, 65536)
            offset = 0
            while offset < len(data):
                _, mask, _, length = struct.unpack_from("iIII", data, offset)
                event_name = data[offset + 16:offset + 16 + length].rstrip(b"\0").decode()
                offset += 16 + length
                if mask & IN_MOVED_TO and event_name == name:
                    return now


class Varlink:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(DEADLINE)
        self.sock.connect(path)
        self.buffer = b""

    def call(self, method, parameters):
        self.sock.sendall(json.dumps({"method": method, "parameters": parameters}).encode() + b"\0")
        while b"\0" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise BenchError("the daemon closed the connection")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        reply = json.loads(message)
        if "error" in reply:
            raise BenchError(f"{method} failed: {reply}")
        return reply.get("parameters", {})


def wait_for_socket(process, path, log):
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        if process.poll() is not None:
            raise BenchError(f"{process.args[0]} exited with {process.returncode}: see {log}")
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(path)
            return
        except OSError:
            time.sleep(0.01)  # polling interval: the loop ends when connect() succeeds
        finally:
            probe.close()
    raise BenchError(f"{path} did not appear within {DEADLINE} s")


def stop(process):
    if process and process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin-dir", type=Path, default=None,
                        help="where viper-settingsd and viper-settings-apply are (default: bin/, else .build/release, "
                             "else .build/debug)")
    parser.add_argument("--sets", type=int, default=200, help="sets per target (default 200)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (state, logs, files)")
    options = parser.parse_args()
    bin_dir = (options.bin_dir or default_bin_dir()).resolve()
    work = Path(tempfile.mkdtemp(prefix="viper-apply-bench-"))
    targets = work / "apply.d"
    targets.mkdir()
    for source in TARGETS_DIR.iterdir():
        if source.suffix == ".json":
            fields = json.loads(source.read_text())
            fields.pop("reload", None)
            (targets / source.name).write_text(json.dumps(fields))
        else:
            shutil.copy(source, targets / source.name)
    root = work / "root"
    root.mkdir(exist_ok=True)
    daemon_socket = str(work / "settings.sock")
    daemon = applier = None
    results = {}
    try:
        daemon_log = work / "viper-settingsd.log"
        daemon = subprocess.Popen(
            [str(bin_dir / "viper-settingsd"), "--config", str(CONFIG_FILE), "--state-dir", str(work / "state"),
             "--socket", daemon_socket],
            stdin=subprocess.DEVNULL, stdout=open(daemon_log, "ab"), stderr=subprocess.STDOUT)
        wait_for_socket(daemon, daemon_socket, daemon_log)
        client = Varlink(daemon_socket)
        client.call("io.viper.settings.Set", {"key": "network.proxy.mode", "value": "manual"})
        client.call("io.viper.settings.Set", {"key": "network.proxy.host", "value": "proxy.example"})
        applier_log = work / "viper-settings-apply.log"
        applier = subprocess.Popen(
            [str(bin_dir / "viper-settings-apply"), "--targets-dir", str(targets), "--socket", daemon_socket,
             "--state-dir", str(work / "apply-state"), "--control-socket", str(work / "apply.sock"),
             "--root", str(root)],
            stdin=subprocess.DEVNULL, stdout=open(applier_log, "ab"), stderr=subprocess.STDOUT)
        wait_for_socket(applier, str(work / "apply.sock"), applier_log)
        cases = [
            ("resolved", "network.dns.servers", lambda i: [f"10.0.{i // 250}.{i % 250 + 1}"],
             root / "etc/systemd/resolved.conf.d/50-viper.conf"),
            ("apt-proxy (apt-config check)", "network.proxy.port", lambda i: 10000 + i,
             root / "etc/apt/apt.conf.d/50viper-proxy"),
        ]
        for label, key, value, destination in cases:
            end = time.monotonic() + DEADLINE
            while not destination.exists():  # rendered at start
                if time.monotonic() > end:
                    raise BenchError(f"{destination} was not rendered at start; see {applier_log}")
                time.sleep(0.01)  # polling interval: ends when the file exists
            inotify = Inotify()
            inotify.watch(destination.parent)
            samples = []
            for index in range(options.sets):
                started = time.perf_counter()
                client.call("io.viper.settings.Set", {"key": key, "value": value(index)})
                arrived = inotify.wait_for(destination.name, time.monotonic() + DEADLINE)
                samples.append(arrived - started)
            os.close(inotify.fd)
            results[label] = samples
    except BenchError as error:
        print(f"apply-bench: {error}", file=sys.stderr)
        return 1
    finally:
        stop(applier)
        stop(daemon)
        if options.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"binaries: {bin_dir}; {options.sets} sets per target, one at a time; set sent -> destination renamed")
    for label, samples in results.items():
        ms = [sample * 1000 for sample in samples]
        print(f"{label:30s} p50 {percentile(ms, 0.5):6.2f} ms  p99 {percentile(ms, 0.99):6.2f} ms  "
              f"max {max(ms):6.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
