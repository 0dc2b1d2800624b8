#!/usr/bin/env python3
"""compare.py: viper-settingsd side by side with redis-server, etcd and dconf, in one run.

Usage: scripts/compare.py [--duration S] [--quick] [--only SECTION,...] [--out DIR] [--publish] [--bin-dir DIR]
                          [--keep]
(scripts/compare.sh installs what it needs, builds the release binaries and runs it with Debian's python3.)

Every server is started by this script on a temporary folder (/tmp/viper-compare-*, on the same file system for
all of them), on Unix sockets or on free loopback ports, and stopped at the end, also after a failure or Ctrl-C.
viper-settingsd is the release build in bin/ (with bin/settingsctl and bin/settings-bench, the load generator that
speaks Varlink to viper-settingsd and RESP to redis-server, so one client measures both). Both daemons log at
warning level only. Sections (--only takes names or numbers):

  1 get    GET at 1 and 16 connections: viper-settingsd (network.proxy.port, bundled modules) vs redis-server
           without persistence (--save "" --appendonly no). settings-bench, closed loop, one request in flight
           per connection. ops/s, p50, p99, ratios viper/redis. Each measurement is made 3 times (1 with
           --quick), the servers taking turns, all started beforehand and idle while another is measured; the
           run of median ops/s is shown, with the ops/s of every run (this VM's speed drifts during a run).
  2 set    Durable SET at 1 and 16 connections: viper-settingsd (every Set written and fsynced before the reply)
           vs redis-server --appendonly yes --appendfsync always vs etcd puts (fsynced to its WAL). etcd is
           driven from Python (POST /v3/kv/put on its JSON gateway, one keep-alive http.client connection per
           thread): the client costs more than settings-bench, so its figures are a lower bound. 3 runs each,
           in turns, as for get.
  3 cli    CLI wall time, hyperfine -N: settingsctl get vs dconf read vs redis-cli get vs etcdctl get, and
           settingsctl set vs dconf write vs redis-cli set vs etcdctl put. Each timed write changes the value:
           --prepare writes 1 before every timed write of 2 (as scripts/bench-cli.sh explains); checked after.
           dconf runs on a private D-Bus session bus with a throwaway profile; redis is the appendfsync-always one.
  4 rss    Idle VmRSS after start-up and a few requests: viper-settingsd (bundled modules), redis-server,
           dconf-service.
  5 cold   Cold start to first reply, socket-activated: systemd-socket-activate listens, the first connection
           execs viper-settingsd, which loads its schemas and answers; timed from connect+send of a Get to the
           reply, a fresh process each time (page cache warm). 10k keys (100 generated modules of 100 int keys)
           and the bundled modules.
  6 keys   GET and SET throughput and p99 at 16 connections with 100, 10k and 100k keys (generated modules of
           100 keys; settings-bench picks a key at random per call), and SET cost against module size: one module
           of 100, 1000 and 10000 keys, 1 connection, SET p50.
  7 watch  set -> watch notification with 1000 watchers: scripts/watch-bench.py --watchers 1000, its figures.

Output, in --out (default bench-results/YYYYmmdd-HHMMSS/): results.json (every figure, settings-bench's and
hyperfine's reports whole), results.md (a table per section, the targets met or missed, the machine, the
command), PNG plots, the logs of the servers. --publish also writes docs/benchmarks.md with the plots copied into
docs/benchmarks/. The default run takes about 5 minutes on 2 cores, --quick under one. A benchmark, not a test:
the exit status is 0 unless a run could not be made (1; the other runs go on and are reported, the section is
marked incomplete), 2 on a usage error, 130 on Ctrl-C or SIGTERM.
"""

import argparse
import base64
import ctypes
import datetime
import http.client
import json
import math
import os
import platform
import re
import select
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
CONFIG_FILE = REPO_ROOT / "config" / "viper-settingsd.conf"
MODULES_DIR = REPO_ROOT / "config" / "modules"
# Seconds every process stays without calls before its idle RSS is read.
IDLE_SECONDS = 2
KEY = "network.proxy.port"  # viper-settingsd's key; redis and etcd use the same name
DCONF_KEY = "/org/viper/port"
START_DEADLINE = 30.0  # seconds a server may take to start (120 s for the 100k-key daemon)
CALL_DEADLINE = 30.0
SECTIONS = ["get", "set", "cli", "rss", "cold", "keys", "watch"]
TITLES = {
    "get": "1. GET: viper-settingsd vs redis-server (no persistence)",
    "set": "2. Durable SET: viper-settingsd vs redis-server (appendfsync always) vs etcd",
    "cli": "3. CLI wall time (hyperfine -N)",
    "rss": "4. Idle memory (VmRSS)",
    "cold": "5. Cold start to first reply (socket-activated)",
    "keys": "6. Key count and module size",
    "watch": "7. set -> watch notification, 1000 watchers (scripts/watch-bench.py)",
}
CONNECTIONS = (1, 16)
SCALE_CONNECTIONS = 16


class BenchError(Exception):
    pass


# ---------------------------------------------------------------------------------------------------------------
# Processes: every server is registered, started in its own session (Ctrl-C reaches only this script, which stops
# them in order) with PR_SET_PDEATHSIG, so that even a SIGKILL of this script takes them down.

_libc = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG = 1


def _die_with_parent():
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


class Server:
    def __init__(self, name, process, log_path):
        self.name = name
        self.process = process
        self.log_path = log_path

    @property
    def pid(self):
        return self.process.pid

    def alive(self):
        return self.process.poll() is None

    def log_tail(self, lines=15):
        try:
            return "\n".join(Path(self.log_path).read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


class Processes:
    def __init__(self, log_dir):
        self.log_dir = log_dir
        self.servers = []
        self.extra_pids = []  # processes our servers started (dconf-service, activated on our bus)

    def spawn(self, name, argv, env=None, stdout=None):
        log_path = self.log_dir / f"{name}.log"
        log = open(log_path, "ab")
        process = subprocess.Popen(
            [str(word) for word in argv], stdin=subprocess.DEVNULL, stdout=stdout or log, stderr=log, env=env,
            start_new_session=True, preexec_fn=_die_with_parent)
        log.close()
        server = Server(name, process, log_path)
        self.servers.append(server)
        return server

    def stop(self, server, timeout=CALL_DEADLINE):
        """SIGTERM, then SIGKILL after `timeout`; returns the exit status."""
        if server.alive():
            server.process.send_signal(signal.SIGTERM)
            try:
                server.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                print(f"compare: {server.name} did not stop within {timeout} s after SIGTERM; killing it",
                      file=sys.stderr)
                server.process.kill()
                server.process.wait()
        if server in self.servers:
            self.servers.remove(server)
        return server.process.returncode

    def stop_pid(self, pid, timeout=10.0):
        if not pid_alive(pid):
            return
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            wait_until(lambda: not pid_alive(pid), timeout, f"pid {pid} to exit")
        except BenchError:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def stop_all(self):
        for server in reversed(list(self.servers)):
            self.stop(server)
        for pid in self.extra_pids:
            self.stop_pid(pid)
        self.extra_pids.clear()


def pid_alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_until(predicate, timeout, what, server=None):
    """Polls `predicate` every 5 ms until it is true; fails after `timeout` s, or when `server` exits first."""
    end = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if server is not None and not server.alive():
            raise BenchError(f"{server.name} exited with status {server.process.returncode} while waiting for "
                             f"{what}:\n{server.log_tail()}")
        if time.monotonic() > end:
            raise BenchError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.005)  # polling interval, bounded by the deadline above


def rss_kib(pid):
    figures = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM", "RssAnon", "RssFile", "RssShmem"):
                figures[name] = int(value.split()[0])
    return figures


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def percentile(values, fraction):
    """Nearest-rank percentile of a list of numbers."""
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, math.ceil(fraction * len(ordered)) - 1))
    return ordered[index]


# ---------------------------------------------------------------------------------------------------------------
# Minimal clients, to start, check and prepare the servers (never what is measured, except etcd and cold start).

def unix_connectable(path):
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
        return True
    except OSError:
        return False
    finally:
        probe.close()


def unix_socket(path, timeout):
    """A stream socket connected to the Unix socket at `path`, with `timeout` for every operation."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(str(path))
    except OSError:
        sock.close()
        raise
    return sock


class VarlinkClient:
    def __init__(self, path, timeout=CALL_DEADLINE):
        self.sock = unix_socket(path, timeout)
        self.buffer = b""

    def call(self, method, parameters=None):
        message = {"method": "io.viper.settings." + method, "parameters": parameters or {}}
        self.sock.sendall(json.dumps(message).encode() + b"\0")
        while b"\0" not in self.buffer:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise BenchError(f"viper-settingsd closed the connection during {method}")
            self.buffer += chunk
        frame, _, self.buffer = self.buffer.partition(b"\0")
        reply = json.loads(frame)
        if "error" in reply:
            raise BenchError(f"{method} {parameters}: {reply}")
        return reply["parameters"]

    def close(self):
        self.sock.close()


def varlink_call(path, method, parameters=None):
    client = VarlinkClient(path)
    try:
        return client.call(method, parameters)
    finally:
        client.close()


class RespClient:
    def __init__(self, path, timeout=CALL_DEADLINE):
        self.sock = unix_socket(path, timeout)
        self.file = self.sock.makefile("rb")

    def command(self, *words):
        encoded = [str(word).encode() for word in words]
        self.sock.sendall(b"*%d\r\n" % len(encoded) + b"".join(b"$%d\r\n%s\r\n" % (len(w), w) for w in encoded))
        line = self.file.readline()
        if not line:
            raise BenchError("redis-server closed the connection")
        kind, rest = line[:1], line[1:].rstrip(b"\r\n")
        if kind == b"-":
            raise BenchError(f"redis {words}: {rest.decode()}")
        if kind == b"$":
            size = int(rest)
            return None if size < 0 else self.file.read(size + 2)[:-2].decode()
        if kind == b":":
            return int(rest)
        return rest.decode()

    def close(self):
        self.file.close()
        self.sock.close()


def resp_command(path, *words):
    client = RespClient(path)
    try:
        return client.command(*words)
    finally:
        client.close()


def b64(text):
    return base64.b64encode(str(text).encode()).decode()


def etcd_request(port, path, body, timeout=CALL_DEADLINE):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        data = response.read()
        if response.status != 200:
            raise BenchError(f"etcd {path}: HTTP {response.status} {data[:200]!r}")
        return json.loads(data)
    finally:
        connection.close()


# ---------------------------------------------------------------------------------------------------------------
# Servers.

def write_keys_file(path, keys):
    """One key a line for settings-bench --keys-file."""
    path.write_bytes("".join(f"{key}\n" for key in keys).encode())
    return path


def write_modules(directory, modules, keys_per_module, prefix="bench"):
    """`modules` generated schemas of `keys_per_module` int keys each (sections of up to 100 items); the keys."""
    directory.mkdir(parents=True, exist_ok=True)
    keys = []
    width = max(3, len(str(modules - 1)))
    for number in range(modules):
        name = f"{prefix}{number:0{width}d}"
        sections = []
        for section in range((keys_per_module + 99) // 100):
            items = [{"id": f"k{index:02d}", "title": f"Key {index}", "type": "int", "range": [0, 1000000],
                      "default": 0}
                     for index in range(min(100, keys_per_module - section * 100))]
            sections.append({"id": f"s{section:03d}", "title": f"Section {section}", "items": items})
            keys += [f"{name}.s{section:03d}.{item['id']}" for item in items]
        schema = {"module": name, "title": f"Benchmark {number}", "description": "generated by scripts/compare.py",
                  "sections": sections}
        (directory / f"{name}.json").write_text(json.dumps(schema))
    return keys


class Viper:
    """viper-settingsd on its own state directory, socket and configuration (the bundled one, with the
    connection limits raised and the log level at warning)."""

    def __init__(self, bench, name, modules_dir=MODULES_DIR, connections=256):
        self.bench = bench
        self.name = name
        self.root = bench.work / name
        self.root.mkdir(parents=True)
        self.socket_path = self.root / "io.viper.settings"
        self.state_dir = self.root / "state"
        self.config = self.root / "viper-settingsd.conf"
        lines = []
        for line in CONFIG_FILE.read_text().splitlines():
            key = line.split("=", 1)[0].strip() if "=" in line and not line.lstrip().startswith("#") else None
            if key not in ("modules-dir", "max-connections-per-uid", "max-connections", "log-level"):
                lines.append(line)
        lines += [f"modules-dir = {modules_dir}", f"max-connections-per-uid = {connections}",
                  f"max-connections = {connections}", "log-level = warning"]
        self.config.write_text("\n".join(lines) + "\n")
        self.server = None
        self.start_seconds = None

    def argv(self):
        return [self.bench.bin_dir / "viper-settingsd", "--config", self.config, "--state-dir", self.state_dir,
                "--socket", self.socket_path]

    def start(self, deadline=START_DEADLINE):
        started = time.monotonic()
        self.server = self.bench.processes.spawn(self.name, self.argv())
        wait_until(lambda: unix_connectable(self.socket_path), deadline, f"{self.name} to listen", self.server)
        self.start_seconds = time.monotonic() - started
        return self

    def stop(self):
        if self.server is not None:
            status = self.bench.processes.stop(self.server)
            if status != 0:
                print(f"compare: {self.name} exited with status {status} after SIGTERM:\n{self.server.log_tail()}",
                      file=sys.stderr)
            self.server = None


class Redis:
    def __init__(self, bench, name, durable):
        self.bench = bench
        self.name = name
        self.durable = durable
        self.root = bench.work / name
        self.root.mkdir(parents=True)
        self.socket_path = self.root / "redis.sock"
        self.server = None

    def start(self):
        persistence = (["--appendonly", "yes", "--appendfsync", "always"] if self.durable
                       else ["--appendonly", "no"])
        argv = ["redis-server", "--port", "0", "--unixsocket", self.socket_path, "--unixsocketperm", "700",
                "--dir", self.root, "--save", "", *persistence, "--daemonize", "no", "--loglevel", "warning",
                "--logfile", ""]
        self.server = self.bench.processes.spawn(self.name, argv)

        def ready():
            try:
                return resp_command(self.socket_path, "PING") == "PONG"
            except (OSError, BenchError):
                return False

        wait_until(ready, START_DEADLINE, f"{self.name} to answer PING", self.server)
        resp_command(self.socket_path, "SET", KEY, "3128")
        return self

    def stop(self):
        if self.server is not None:
            self.bench.processes.stop(self.server)
            self.server = None


class Etcd:
    def __init__(self, bench, name):
        self.bench = bench
        self.name = name
        self.root = bench.work / name
        self.root.mkdir(parents=True)
        self.server = None
        self.port = None

    def start(self):
        self.port = free_port()
        peer = free_port()
        client_url, peer_url = f"http://127.0.0.1:{self.port}", f"http://127.0.0.1:{peer}"
        argv = ["etcd", "--name", "compare", "--data-dir", self.root / "data",
                "--listen-client-urls", client_url, "--advertise-client-urls", client_url,
                "--listen-peer-urls", peer_url, "--initial-advertise-peer-urls", peer_url,
                "--initial-cluster", f"compare={peer_url}", "--initial-cluster-state", "new",
                "--logger", "zap", "--log-outputs", "stderr", "--log-level", "warn"]
        self.server = self.bench.processes.spawn(self.name, argv)

        def ready():
            try:
                etcd_request(self.port, "/v3/kv/put", {"key": b64(KEY), "value": b64("3128")}, timeout=2)
                return True
            except (OSError, BenchError, http.client.HTTPException, ValueError):
                return False

        wait_until(ready, START_DEADLINE, f"{self.name} to accept a put", self.server)
        return self

    def revision(self):
        return int(etcd_request(self.port, "/v3/kv/range", {"key": b64(KEY)})["header"]["revision"])

    def stop(self):
        if self.server is not None:
            self.bench.processes.stop(self.server)
            self.server = None


class DconfSession:
    """A private D-Bus session bus and a throwaway HOME/XDG profile, as scripts/bench-cli.sh makes them:
    dconf writes to $XDG_CONFIG_HOME/dconf/user through dconf-service, activated on that bus."""

    def __init__(self, bench, name="dconf"):
        self.bench = bench
        self.name = name
        self.root = bench.work / name
        home = self.root / "home"
        runtime = self.root / "runtime"
        for folder in (home / ".config", home / ".cache"):
            folder.mkdir(parents=True)
        runtime.mkdir(mode=0o700)
        self.env = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
                        XDG_CACHE_HOME=str(home / ".cache"), XDG_RUNTIME_DIR=str(runtime))
        self.env.pop("DCONF_PROFILE", None)
        self.bus_path = runtime / "bus"
        self.bus = None
        self.service_pid = None

    def start(self):
        self.bus = self.bench.processes.spawn(
            f"{self.name}-dbus-daemon",
            ["dbus-daemon", "--session", "--nofork", "--nopidfile", f"--address=unix:path={self.bus_path}",
             "--print-address=1"], env=self.env, stdout=subprocess.PIPE)
        readable, _, _ = select.select([self.bus.process.stdout], [], [], START_DEADLINE)
        address = self.bus.process.stdout.readline().decode().strip() if readable else ""
        if not address:
            raise BenchError(f"dbus-daemon printed no address:\n{self.bus.log_tail()}")
        self.env["DBUS_SESSION_BUS_ADDRESS"] = address
        # The first write activates dconf-service on the bus.
        self.run("dconf", "write", DCONF_KEY, "2")
        if self.run("dconf", "read", DCONF_KEY).strip() != "2":
            raise BenchError("dconf does not read back what it wrote on the private bus")
        reply = self.run("dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus",
                         "/org/freedesktop/DBus", "org.freedesktop.DBus.GetConnectionUnixProcessID",
                         "string:ca.desrt.dconf")
        match = re.search(r"uint32 (\d+)", reply)
        if not match:
            raise BenchError(f"cannot find dconf-service's pid on the bus: {reply!r}")
        self.service_pid = int(match.group(1))
        self.bench.processes.extra_pids.append(self.service_pid)
        return self

    def run(self, *argv):
        result = subprocess.run(argv, env=self.env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                timeout=CALL_DEADLINE)
        if result.returncode != 0:
            raise BenchError(f"{' '.join(argv)} exited with {result.returncode}: {result.stderr.strip()}")
        return result.stdout

    def stop(self):
        if self.bus is not None:
            self.bench.processes.stop(self.bus)
            self.bus = None
        if self.service_pid is not None:
            # dconf-service exits by itself when its bus goes away; stopped by pid if it did not.
            try:
                wait_until(lambda: not pid_alive(self.service_pid), 5, "dconf-service to exit")
            except BenchError:
                self.bench.processes.stop_pid(self.service_pid)
            if self.service_pid in self.bench.processes.extra_pids:
                self.bench.processes.extra_pids.remove(self.service_pid)
            self.service_pid = None


# ---------------------------------------------------------------------------------------------------------------
# Load.

def settings_bench(bench, socket_path, protocol="varlink", connections=1, sets=0, keys_file=None, duration=None):
    argv = [bench.bin_dir / "settings-bench", "--socket", socket_path, "--protocol", protocol,
            "--connections", connections, "--sets", sets, "--duration", duration or bench.duration,
            "--warmup", bench.warmup, "--json"]
    if keys_file is not None:
        argv += ["--keys-file", keys_file]
    argv = [str(word) for word in argv]
    timeout = float(duration or bench.duration) + bench.warmup + 120
    result = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
    if result.returncode not in (0, 1):
        raise BenchError(f"settings-bench exited with {result.returncode}: {result.stderr.strip()}\n"
                         f"  {shlex.join(argv)}")
    try:
        report = json.loads(result.stdout)
    except ValueError:
        raise BenchError(f"settings-bench printed no JSON: {result.stdout[:300]!r} {result.stderr.strip()}")
    if result.returncode == 1 or report.get("errors"):
        print(f"compare: warning: {report.get('errors')} error replies: {shlex.join(argv)}: "
              f"{result.stderr.strip()}", file=sys.stderr)
    report["command"] = shlex.join(argv)
    return report


def etcd_put_load(bench, etcd, connections, duration=None):
    """Closed-loop puts from `connections` Python threads, each with a keep-alive HTTP connection to etcd's JSON
    gateway; each put writes a value not written before. The same report shape as settings-bench --json."""
    duration = float(duration or bench.duration)
    start = time.perf_counter_ns() + 200_000_000  # every thread connected by then
    record_from = start + int(bench.warmup * 1e9)
    record_to = record_from + int(duration * 1e9)
    latencies = [[] for _ in range(connections)]
    errors = [0] * connections
    failures = []
    key = b64(KEY)

    def worker(index):
        connection = http.client.HTTPConnection("127.0.0.1", etcd.port, timeout=CALL_DEADLINE)
        headers = {"Content-Type": "application/json"}
        count = 0
        try:
            connection.connect()
            while time.perf_counter_ns() < start:
                time.sleep(0.001)  # the common start, 200 ms after the threads were created
            while True:
                count += 1
                body = '{"key":"%s","value":"%s"}' % (key, b64(f"{index}-{count}"))
                sent = time.perf_counter_ns()
                if sent >= record_to:
                    break
                connection.request("POST", "/v3/kv/put", body=body, headers=headers)
                response = connection.getresponse()
                response.read()
                done = time.perf_counter_ns()
                if sent >= record_from and done <= record_to:
                    latencies[index].append((done - sent) / 1000)
                    if response.status != 200:
                        errors[index] += 1
        except Exception as error:  # noqa: BLE001 - reported below
            failures.append(repr(error))
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(index,), daemon=True) for index in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=duration + bench.warmup + 120)
    if failures:
        raise BenchError(f"etcd put load failed: {failures[0]}")
    values = [value for per_thread in latencies for value in per_thread]
    figures = latency_figures(values, sum(errors))
    return {"protocol": "etcd v3 JSON gateway (HTTP/1.1 keep-alive, Python threads)",
            "port": etcd.port, "connections": connections, "setPercent": 100, "keys": 1, "seconds": duration,
            "opsPerSecond": round(len(values) / duration, 1), "errors": sum(errors), "set": figures, "all": figures,
            "measuredFrom": "python"}


def latency_figures(values_us, errors=0):
    if not values_us:
        return {"count": 0, "errors": errors}
    return {"count": len(values_us), "errors": errors,
            **{name: round(percentile(values_us, fraction), 1)
               for name, fraction in (("p50Us", 0.5), ("p90Us", 0.9), ("p99Us", 0.99), ("p999Us", 0.999))},
            "maxUs": round(max(values_us), 1), "meanUs": round(statistics.fmean(values_us), 1)}


# ---------------------------------------------------------------------------------------------------------------
# Sections. Each returns a dict of figures (stored in results.json under its name) and stops what it started.

def measured(bench, what, function, target=None):
    """Runs one measurement (or start-up): a failure is reported, recorded (the section is then marked incomplete
    and the exit status is 1) and the run goes on with the next one. None when it failed."""
    try:
        return function()
    except (BenchError, OSError, subprocess.SubprocessError, ValueError, KeyError) as error:
        detail = str(error) or repr(error)
        server = getattr(target, "server", None)
        if server is not None and not server.alive():
            detail += f"\n{server.name} exited with status {server.process.returncode}:\n{server.log_tail()}"
        print(f"compare: {what} failed: {detail}", file=sys.stderr)
        bench.failed.append(f"{what}: {detail}")
        return None


def load_section(bench, op, servers):
    """Rows of ops/s and latency: every (label, start, measure) in `servers` is started, then measured at each
    number of connections in CONNECTIONS, bench.rounds times, the servers taking turns (so that a machine that
    speeds up or slows down during the run does not favour one of them), then stopped. Each row holds the run of
    median ops/s and the ops/s of every run."""
    targets = []
    try:
        for label, start, measure in servers:
            targets.append((label, measured(bench, f"starting {label}", start), measure))
        runs = {}
        for round_index in range(bench.rounds):
            for connections in CONNECTIONS:
                for label, target, measure in targets:
                    if target is None:
                        continue
                    name = f"{op} {label}, {connections} connection(s), run {round_index + 1} of {bench.rounds}"
                    bench.say(name)
                    report = measured(bench, name, lambda: measure(target, connections), target)
                    if report is not None:
                        runs.setdefault((label, connections), []).append(report)
        rows = []
        for label, target, _ in targets:
            for connections in CONNECTIONS:
                reports = sorted(runs.get((label, connections), []), key=lambda report: report["opsPerSecond"])
                row = {"server": label, "connections": connections,
                       "report": reports[len(reports) // 2] if reports else None,
                       "runsOpsPerSecond": [report["opsPerSecond"] for report in reports]}
                if not reports:
                    row["error"] = bench.failed[-1] if bench.failed else "not measured"
                rows.append(row)
        return rows
    finally:
        for _, target, _ in targets:
            if target is not None:
                target.stop()


def section_get(bench):
    servers = [
        ("viper-settingsd", lambda: Viper(bench, "get-viper").start(),
         lambda viper, connections: settings_bench(bench, viper.socket_path, "varlink", connections, 0)),
        ("redis-server", lambda: Redis(bench, "get-redis", durable=False).start(),
         lambda redis, connections: settings_bench(bench, redis.socket_path, "resp", connections, 0)),
    ]
    return {"rows": load_section(bench, "GET", servers)}


def section_set(bench):
    def viper_sets(viper, connections):
        before = varlink_call(viper.socket_path, "Get", {"key": KEY})["revision"]
        report = settings_bench(bench, viper.socket_path, "varlink", connections, 100)
        after = varlink_call(viper.socket_path, "Get", {"key": KEY})["revision"]
        report["revisionDelta"] = after - before  # every acknowledged Set changed the value
        return report

    servers = [
        ("viper-settingsd", lambda: Viper(bench, "set-viper").start(), viper_sets),
        ("redis-server (AOF always)", lambda: Redis(bench, "set-redis-aof", durable=True).start(),
         lambda redis, connections: settings_bench(bench, redis.socket_path, "resp", connections, 100)),
        ("etcd (Python client)", lambda: Etcd(bench, "set-etcd").start(),
         lambda etcd, connections: etcd_put_load(bench, etcd, connections)),
    ]
    return {"rows": load_section(bench, "SET", servers),
            "note": "etcd is driven from Python (http.client, one thread and keep-alive connection per "
                    "connection): a lower bound of what etcd can do"}


def section_cli(bench):
    viper = Viper(bench, "cli-viper")
    redis = Redis(bench, "cli-redis-aof", durable=True)
    etcd = Etcd(bench, "cli-etcd")
    dconf = DconfSession(bench)
    try:
        viper.start()
        redis.start()
        etcd.start()
        dconf.start()
        ctl = f"{shlex.quote(str(bench.bin_dir / 'settingsctl'))} --socket {shlex.quote(str(viper.socket_path))}"
        rcli = f"redis-cli -s {shlex.quote(str(redis.socket_path))}"
        ectl = f"etcdctl --endpoints=http://127.0.0.1:{etcd.port}"
        # name, command, preparation (run before each timed run, not timed)
        commands = [
            ("settingsctl get", f"{ctl} get {KEY}", "true"),
            ("dconf read", f"dconf read {DCONF_KEY}", "true"),
            ("redis-cli get", f"{rcli} get {KEY}", "true"),
            ("etcdctl get", f"{ectl} get {KEY}", "true"),
            ("settingsctl set", f"{ctl} set {KEY} 2", f"{ctl} set {KEY} 1"),
            ("dconf write", f"dconf write {DCONF_KEY} 2", f"dconf write {DCONF_KEY} 1"),
            ("redis-cli set", f"{rcli} set {KEY} 2", f"{rcli} set {KEY} 1"),
            ("etcdctl put", f"{ectl} put {KEY} 2", f"{ectl} put {KEY} 1"),
        ]
        env = dict(dconf.env, ETCDCTL_API="3")
        # Every store holds 2 before the reads are timed.
        for _, command, _ in commands[4:]:
            subprocess.run(shlex.split(command), env=env, check=True, capture_output=True, timeout=CALL_DEADLINE)
        viper_before = varlink_call(viper.socket_path, "Get", {"key": KEY})["revision"]
        etcd_before = etcd.revision()
        export = bench.work / "hyperfine.json"
        argv = ["hyperfine", "-N", "--warmup", str(bench.hyperfine_warmup), "--runs", str(bench.hyperfine_runs),
                "--export-json", str(export), "--style", "basic"]
        for name, command, prepare in commands:
            argv += ["--prepare", prepare, "--command-name", name, command]
        bench.say(f"hyperfine -N, {bench.hyperfine_warmup} warm-up runs, {bench.hyperfine_runs} runs per command")
        result = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                timeout=3600)
        (bench.logs / "hyperfine.txt").write_text(result.stdout + result.stderr)
        if result.returncode != 0:
            raise BenchError(f"hyperfine exited with {result.returncode}:\n{result.stderr[-2000:]}")
        # Proof that each timed write changed the value: 1 -> 2 per warm-up and timed run, two changes each.
        expected = 2 * (bench.hyperfine_warmup + bench.hyperfine_runs)
        viper_changes = varlink_call(viper.socket_path, "Get", {"key": KEY})["revision"] - viper_before
        etcd_changes = etcd.revision() - etcd_before
        finals = {
            "settingsctl": subprocess.run(shlex.split(f"{ctl} get {KEY}"), capture_output=True, text=True,
                                          timeout=CALL_DEADLINE).stdout.strip(),
            "dconf": dconf.run("dconf", "read", DCONF_KEY).strip(),
            "redis": resp_command(redis.socket_path, "GET", KEY),
            "etcd": base64.b64decode(etcd_request(etcd.port, "/v3/kv/range", {"key": b64(KEY)})["kvs"][0]["value"])
            .decode(),
        }
        checks = {"viperRevisionDelta": viper_changes, "etcdRevisionDelta": etcd_changes,
                  "expectedAtLeast": expected, "finalValues": finals}
        if viper_changes < expected or etcd_changes < expected or set(finals.values()) != {"2"}:
            raise BenchError(f"the timed writes did not all change the value: {checks}")
        exported = json.loads(export.read_text())
        shutil.copy(export, bench.out / "cli-hyperfine.json")
        commands_out = {}
        for entry in exported["results"]:
            name = entry["command"]
            commands_out[name] = {key: entry[key] for key in ("mean", "stddev", "median", "min", "max")}
            commands_out[name]["runs"] = len(entry.get("times", []))
            commands_out[name]["commandLine"] = next(c for n, c, _ in commands if n == name).replace(
                str(bench.work), "$TMP").replace(str(REPO_ROOT) + "/", "")
        return {"commands": commands_out, "checks": checks, "runs": bench.hyperfine_runs,
                "warmup": bench.hyperfine_warmup, "redis": "appendfsync always",
                "note": "hyperfine's full report: cli-hyperfine.json"}
    finally:
        dconf.stop()
        etcd.stop()
        redis.stop()
        viper.stop()


def section_rss(bench):
    def viper_rss():
        viper = Viper(bench, "rss-viper").start()
        try:
            client = VarlinkClient(viper.socket_path)
            for value in range(1, 21):
                client.call("Get", {"key": KEY})
                if value <= 5:
                    client.call("Set", {"key": KEY, "value": 1000 + value})
            client.close()
            time.sleep(IDLE_SECONDS)
            return rss_kib(viper.server.pid)
        finally:
            viper.stop()

    def redis_rss():
        redis = Redis(bench, "rss-redis", durable=False).start()
        try:
            client = RespClient(redis.socket_path)
            for value in range(1, 21):
                client.command("GET", KEY)
                if value <= 5:
                    client.command("SET", KEY, 1000 + value)
            client.close()
            time.sleep(IDLE_SECONDS)
            return rss_kib(redis.server.pid)
        finally:
            redis.stop()

    def dconf_rss():
        dconf = DconfSession(bench, "rss-dconf")
        try:
            dconf.start()
            for value in range(1, 6):
                dconf.run("dconf", "write", DCONF_KEY, str(1000 + value))
                dconf.run("dconf", "read", DCONF_KEY)
            time.sleep(IDLE_SECONDS)
            return rss_kib(dconf.service_pid)
        finally:
            dconf.stop()

    figures = {}
    for name, function in (("viper-settingsd", viper_rss), ("redis-server", redis_rss),
                           ("dconf-service", dconf_rss)):
        bench.say(f"idle RSS of {name}")
        value = measured(bench, f"RSS of {name}", function)
        if value is not None:
            figures[name] = value
    return {"kib": figures, "note": f"after start-up, 20 gets and 5 sets (dconf: 5 writes and reads), then "
                                    f"{IDLE_SECONDS} s without calls (viper-settingsd drops its start-up code "
                                    f"pages 1 s after it is ready)"}


def cold_start(bench, name, modules_dir, key, expected_keys, repeats):
    """Times connect+send of a Get to its reply against a socket-activated daemon, a fresh process each time."""
    viper = Viper(bench, name, modules_dir=modules_dir)
    times = []
    for attempt in range(repeats):
        listen = viper.root / f"activated-{attempt}.sock"
        argv = ["systemd-socket-activate", "-l", listen, "--fdname=varlink", *viper.argv()]
        server = bench.processes.spawn(f"{name}-{attempt}", argv)
        try:
            # systemd-socket-activate logs "Listening on" once it has bound and listens; it execs the daemon
            # (same pid) when the first connection arrives.
            wait_until(lambda: "Listening on" in Path(server.log_path).read_text(errors="replace"),
                       START_DEADLINE, "systemd-socket-activate to listen", server)
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(START_DEADLINE * 2)
            message = json.dumps({"method": "io.viper.settings.Get", "parameters": {"key": key}}).encode() + b"\0"
            started = time.perf_counter()
            sock.connect(str(listen))
            sock.sendall(message)
            data = b""
            while not data.endswith(b"\0"):
                chunk = sock.recv(65536)
                if not chunk:
                    raise BenchError(f"{name}: the daemon closed the connection:\n{server.log_tail()}")
                data += chunk
            took = time.perf_counter() - started
            sock.close()
            reply = json.loads(data[:-1])
            if "error" in reply:
                raise BenchError(f"{name}: Get {key}: {reply}")
            times.append(took * 1000)
            if attempt == 0:
                status = varlink_call(listen, "Status")
                if status["keys"] != expected_keys:
                    raise BenchError(f"{name}: the daemon serves {status['keys']} keys, not {expected_keys}:\n"
                                     f"{server.log_tail()}")
        finally:
            status = bench.processes.stop(server)
            if status not in (0, None):
                print(f"compare: {name}: exit status {status} after SIGTERM", file=sys.stderr)
    return {"key": key, "keys": expected_keys, "repeats": repeats, "ms": [round(value, 3) for value in times],
            "medianMs": round(statistics.median(times), 3), "minMs": round(min(times), 3),
            "maxMs": round(max(times), 3)}


def section_cold(bench):
    modules = bench.work / "cold-modules-10k"
    keys = write_modules(modules, 100, 100)
    bundled_keys = sum(len(section["items"]) for schema in MODULES_DIR.glob("*.json")
                       for section in json.loads(schema.read_text())["sections"])
    result = {}
    for case, name, directory, key, count in (("10k keys (100 modules)", "cold-10k", modules, keys[-1], len(keys)),
                                              ("bundled modules", "cold-bundled", MODULES_DIR, KEY, bundled_keys)):
        bench.say(f"cold start, {case}, {bench.cold_repeats} times")
        figures = measured(bench, f"cold start, {case}",
                           lambda: cold_start(bench, name, directory, key, count, bench.cold_repeats))
        if figures is not None:
            result[case] = figures
    return {"cases": result, "note": "socket-activated with systemd-socket-activate; from connect+send of a Get "
                                     "to its reply; a fresh process each time, page cache warm"}


def section_keys(bench):
    def start(viper, modules, keys):
        viper.start(deadline=120)
        status = varlink_call(viper.socket_path, "Status")
        if status["keys"] != len(keys) or status["modules"] != modules:
            raise BenchError(f"{viper.name}: the daemon serves {status['modules']} modules and {status['keys']} "
                             f"keys, not {modules} and {len(keys)}:\n{viper.server.log_tail()}")
        return viper

    scale = []
    for label, modules, per_module in (("100", 1, 100), ("10k", 100, 100), ("100k", 1000, 100)):
        directory = bench.work / f"keys-modules-{label}"
        keys = write_modules(directory, modules, per_module)
        keys_file = write_keys_file(bench.work / f"keys-{label}.txt", keys)
        viper = Viper(bench, f"keys-viper-{label}", modules_dir=directory)
        row = {"keys": len(keys), "modules": modules, "get": None, "set": None}
        scale.append(row)
        try:
            if measured(bench, f"starting viper-settingsd with {label} keys", lambda: start(viper, modules, keys)):
                row["startSeconds"] = round(viper.start_seconds, 3)
                row["rssAfterStartKiB"] = rss_kib(viper.server.pid)["VmRSS"]
                for op, sets in (("get", 0), ("set", 100)):
                    bench.say(f"{label} keys: {op.upper()}, {SCALE_CONNECTIONS} connections")
                    row[op] = measured(bench, f"{op.upper()} with {label} keys", lambda: settings_bench(
                        bench, viper.socket_path, "varlink", SCALE_CONNECTIONS, sets, keys_file), viper)
                if viper.server.alive():
                    row["rssAfterKiB"] = rss_kib(viper.server.pid)["VmRSS"]
        finally:
            viper.stop()
    sizes = []
    for size in (100, 1000, 10000):
        directory = bench.work / f"size-modules-{size}"
        keys = write_modules(directory, 1, size, prefix=f"size{size}x")
        keys_file = write_keys_file(bench.work / f"size-{size}.txt", keys)
        viper = Viper(bench, f"size-viper-{size}", modules_dir=directory)
        row = {"keysPerModule": size, "report": None}
        sizes.append(row)
        try:
            if measured(bench, f"starting viper-settingsd with one module of {size} keys",
                        lambda: start(viper, 1, keys)):
                bench.say(f"one module of {size} keys: SET, 1 connection")
                row["report"] = measured(bench, f"SET in one module of {size} keys", lambda: settings_bench(
                    bench, viper.socket_path, "varlink", 1, 100, keys_file), viper)
        finally:
            viper.stop()
    return {"scale": scale, "moduleSize": sizes, "connections": SCALE_CONNECTIONS}


def section_watch(bench):
    argv = ["/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable,
            str(REPO_ROOT / "scripts" / "watch-bench.py"), "--watchers", "1000", "--bin-dir", str(bench.bin_dir)]
    if bench.watch_sets is not None:
        argv += ["--sets", str(bench.watch_sets)]
    bench.say(f"{shlex.join(argv)}")
    # watch-bench.py starts and stops its own daemons; on our interruption it gets SIGINT, which it handles.
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    try:
        stdout, stderr = process.communicate(timeout=1800)
    except BaseException:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=CALL_DEADLINE * 2)
        except subprocess.TimeoutExpired:
            process.kill()
        raise
    (bench.logs / "watch-bench.txt").write_text(stdout + stderr)
    if process.returncode != 0:
        raise BenchError(f"watch-bench.py exited with {process.returncode}:\n{stderr[-2000:]}")
    figures = {"command": shlex.join(argv), "output": stdout}
    lines = stdout.splitlines()
    header_index = next((i for i, line in enumerate(lines) if line.lstrip().startswith("watchers")), None)
    if header_index is None:
        raise BenchError(f"watch-bench.py printed no table:\n{stdout}")
    for line in lines[header_index + 1:]:
        cells = line.split()
        if cells and cells[0] == "1000":
            names = ["watchers", "sets", "notifiedP50Ms", "notifiedP99Ms", "slowestP50Ms", "slowestP99Ms",
                     "setReplyP50Ms", "setReplyP99Ms", "readerP50Ms", "rssAfterMiB"]
            figures.update({name: float(cell) for name, cell in zip(names, cells)})
    match = re.search(r"(-?[\d.]+) KiB per idle watcher", stdout)
    if match:
        figures["kibPerIdleWatcher"] = float(match.group(1))
    match = re.search(r"idle plain connections .*?: (-?[\d.]+) KiB each", stdout)
    if match:
        figures["kibPerIdlePlainConnection"] = float(match.group(1))
    if "notifiedP99Ms" not in figures:
        raise BenchError(f"watch-bench.py printed no row for 1000 watchers:\n{stdout}")
    return figures


SECTION_FUNCTIONS = {"get": section_get, "set": section_set, "cli": section_cli, "rss": section_rss,
                     "cold": section_cold, "keys": section_keys, "watch": section_watch}


# ---------------------------------------------------------------------------------------------------------------
# Targets, tables, plots.

def find_row(section, server, connections):
    for row in (section or {}).get("rows", []):
        if row["server"] == server and row["connections"] == connections:
            return row["report"]
    return None


def ratio(numerator, denominator):
    if numerator is None or denominator in (None, 0):
        return None
    return numerator / denominator


def targets(results):
    """The issue's targets, each with its figure and met (True/False) or None when its section did not run."""
    sections = results["sections"]
    out = []

    def add(name, figure, limit, met, detail=""):
        out.append({"target": name, "figure": figure, "limit": limit, "met": met, "detail": detail})

    get = sections.get("get")
    viper16, redis16 = find_row(get, "viper-settingsd", 16), find_row(get, "redis-server", 16)
    viper1, redis1 = find_row(get, "viper-settingsd", 1), find_row(get, "redis-server", 1)
    value = ratio(viper16 and viper16["opsPerSecond"], redis16 and redis16["opsPerSecond"])
    add("GET@16 ops/s, viper / redis", value, ">= 1.0", None if value is None else value >= 1.0,
        f"{viper16['opsPerSecond']:.0f} vs {redis16['opsPerSecond']:.0f} ops/s" if value is not None else "")
    value = ratio(viper16 and viper16["get"]["p99Us"], redis16 and redis16["get"]["p99Us"])
    add("GET@16 p99, viper / redis", value, "<= 1.0", None if value is None else value <= 1.0,
        f"{viper16['get']['p99Us']:.0f} vs {redis16['get']['p99Us']:.0f} µs" if value is not None else "")
    value = ratio(viper1 and viper1["get"]["p50Us"], redis1 and redis1["get"]["p50Us"])
    add("GET 1-connection p50, viper / redis", value, "<= 1.2", None if value is None else value <= 1.2,
        f"{viper1['get']['p50Us']:.1f} vs {redis1['get']['p50Us']:.1f} µs" if value is not None else "")
    sets = sections.get("set")
    viper16, redis16 = find_row(sets, "viper-settingsd", 16), find_row(sets, "redis-server (AOF always)", 16)
    value = ratio(viper16 and viper16["opsPerSecond"], redis16 and redis16["opsPerSecond"])
    add("durable SET@16 ops/s, viper / redis appendfsync always", value, ">= 1.0",
        None if value is None else value >= 1.0,
        f"{viper16['opsPerSecond']:.0f} vs {redis16['opsPerSecond']:.0f} ops/s" if value is not None else "")
    rss = (sections.get("rss") or {}).get("kib", {})
    value = ratio(rss.get("viper-settingsd", {}).get("VmRSS"), rss.get("redis-server", {}).get("VmRSS"))
    add("idle RSS, viper / redis-server", value, "<= 1.0", None if value is None else value <= 1.0,
        f"{rss['viper-settingsd']['VmRSS'] / 1024:.1f} vs {rss['redis-server']['VmRSS'] / 1024:.1f} MiB"
        if value is not None else "")
    cli = (sections.get("cli") or {}).get("commands", {})
    for ours, theirs in (("settingsctl get", "dconf read"), ("settingsctl set", "dconf write")):
        if ours in cli and theirs in cli:
            mean = cli[ours]["mean"] / cli[theirs]["mean"]
            median = cli[ours]["median"] / cli[theirs]["median"]
            add(f"{ours} / {theirs} (median; mean {mean:.2f})", median, "<= 0.5", median <= 0.5 and mean <= 0.5,
                f"{cli[ours]['median'] * 1e3:.2f} vs {cli[theirs]['median'] * 1e3:.2f} ms")
        else:
            add(f"{ours} / {theirs}", None, "<= 0.5", None)
    cold = (sections.get("cold") or {}).get("cases", {}).get("10k keys (100 modules)")
    value = cold and cold["medianMs"]
    add("cold start, 10k keys, median (ms)", value, "<= 50 ms", None if value is None else value <= 50,
        f"min {cold['minMs']:.1f}, max {cold['maxMs']:.1f} ms" if cold else "")
    sizes = {row["keysPerModule"]: row["report"]["set"]["p50Us"]
             for row in (sections.get("keys") or {}).get("moduleSize", []) if row["report"]}
    value = ratio(sizes.get(10000), sizes.get(100))
    add("SET p50, 10k keys/module / 100 keys/module", value, "<= 1.5", None if value is None else value <= 1.5,
        f"{sizes[10000]:.0f} vs {sizes[100]:.0f} µs" if value is not None else "")
    watch = sections.get("watch")
    value = watch and watch.get("notifiedP99Ms")
    add("watch: notification p99 at 1000 watchers (ms; watch-bench.py's target)", value, "<= 5 ms",
        None if value is None else value <= 5)
    value = watch and watch.get("kibPerIdleWatcher")
    add("watch: KiB per idle watcher (watch-bench.py's target)", value, "<= 16 KiB",
        None if value is None else value <= 16)
    return out


def fmt(value, places=1):
    if value is None:
        return "–"
    if isinstance(value, float) and abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.{places}f}" if isinstance(value, float) else str(value)


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def markdown(results, image_prefix=""):
    sections = results["sections"]

    def images(*names):
        return " ".join(f"![{name[:-4]}]({image_prefix}{name})" for name in names
                        if name in results.get("plots", []))

    machine = results["machine"]
    out = []
    out.append(f"Run {machine['date']} on {machine['cpuModel']} ({machine['nproc']} CPUs), Linux "
               f"{machine['kernel']}, commit {machine['gitCommit']}; temporary folder on {machine['tmpFileSystem']}.")
    out.append("")
    out.append(f"Command: `{results['command']}` (duration {results['options']['duration']} s per load run after "
               f"{results['options']['warmup']} s of warm-up; hyperfine {results['options']['hyperfineRuns']} runs).")
    out.append("")
    out.append(table(["machine", ""], [[key, value] for key, value in machine.items() if key != "versions"]
                     + [[f"version of {name}", version] for name, version in machine.get("versions", {}).items()]))
    out.append("")
    out.append("## Targets")
    out.append("")
    rows = []
    for target in targets(results):
        status = {True: "**met**", False: "**missed**", None: "not measured"}[target["met"]]
        rows.append([target["target"], fmt(target["figure"], 2), target["limit"], status, target["detail"]])
    out.append(table(["target", "figure", "limit", "status", "detail"], rows))
    for name in SECTIONS:
        if name not in results["sectionsRun"]:
            continue
        out.append("")
        out.append(f"## {TITLES[name]}")
        out.append("")
        failures = [(failure.splitlines() or ["?"])[0] for failure in results["failures"].get(name, [])]
        if name not in sections:
            out.append(f"Could not run: `{failures[0]}` (see results.json and logs/)")
            continue
        if failures:
            out.append("Incomplete, some runs failed (see results.json and logs/): "
                       + "; ".join(f"`{failure}`" for failure in failures))
            out.append("")
        section = sections[name]
        if name in ("get", "set"):
            op = name
            base_server = "redis-server" if name == "get" else "redis-server (AOF always)"
            rows = []
            for row in section["rows"]:
                report = row["report"]
                base = find_row(section, base_server, row["connections"])
                if report is None:
                    rows.append([row["server"], row["connections"], "failed"] + ["–"] * 8)
                    continue
                rows.append([row["server"], row["connections"], fmt(report["opsPerSecond"], 0),
                             ", ".join(fmt(ops, 0) for ops in row.get("runsOpsPerSecond", [])),
                             fmt(report[op]["p50Us"]), fmt(report[op]["p99Us"]), fmt(report[op]["p999Us"]),
                             report["errors"],
                             fmt(ratio(report["opsPerSecond"], base["opsPerSecond"]), 2) if base else "–",
                             fmt(ratio(report[op]["p50Us"], base[op]["p50Us"]), 2) if base else "–",
                             fmt(ratio(report[op]["p99Us"], base[op]["p99Us"]), 2) if base else "–"])
            out.append(table(["server", "connections", "ops/s (median run)", "each run", "p50 µs", "p99 µs",
                              "p99.9 µs", "errors",
                              f"ops/s ÷ {base_server}", "p50 ÷", "p99 ÷"], rows))
            if name == "set":
                out.append("")
                out.append(f"Every viper-settingsd Set changed the value (revision delta = acknowledged sets: "
                           + ", ".join(f"{row['connections']} conn. +{row['report'].get('revisionDelta')}"
                                       for row in section["rows"] if row["server"] == "viper-settingsd"
                                       and row["report"])
                           + f"). {section['note']}.")
            out.append("")
            out.append(images("ops.png", "p99.png"))
        elif name == "cli":
            commands = section["commands"]
            rows = []
            for command, figures in commands.items():
                kind = "read" if command.split()[-1] in ("get", "read") else "write"
                base = commands.get("dconf read" if kind == "read" else "dconf write")
                rows.append([command, f"`{figures['commandLine'].replace(str(REPO_ROOT) + '/', '')}`",
                             fmt(figures["mean"] * 1e3, 3), fmt(figures["median"] * 1e3, 3),
                             fmt(figures["stddev"] * 1e3, 3), fmt(figures["min"] * 1e3, 3),
                             fmt(figures["max"] * 1e3, 3),
                             fmt(figures["median"] / base["median"], 2) if base else "–"])
            out.append(table(["command", "command line", "mean ms", "median ms", "stddev ms", "min ms", "max ms",
                              "median ÷ dconf"], rows))
            out.append("")
            checks = section["checks"]
            out.append(f"{section['runs']} runs after {section['warmup']} warm-up runs each; every timed write "
                       f"changed 1 -> 2 (revisions: viper +{checks['viperRevisionDelta']}, etcd "
                       f"+{checks['etcdRevisionDelta']}, at least {checks['expectedAtLeast']} expected); redis is "
                       f"the appendfsync-always server.")
            out.append("")
            out.append(images("cli.png"))
        elif name == "rss":
            rows = [[server, fmt(kib["VmRSS"] / 1024, 1), fmt(kib.get("RssAnon", 0) / 1024, 1),
                     fmt(kib.get("RssFile", 0) / 1024, 1), fmt(kib["VmHWM"] / 1024, 1)]
                    for server, kib in section["kib"].items()]
            out.append(table(["process", "VmRSS MiB", "RssAnon MiB", "RssFile MiB", "VmHWM MiB"], rows))
            out.append("")
            out.append(f"{section['note']}.")
            out.append("")
            out.append(images("rss.png"))
        elif name == "cold":
            rows = [[case, figures["keys"], figures["repeats"], fmt(figures["medianMs"], 2),
                     fmt(figures["minMs"], 2), fmt(figures["maxMs"], 2)]
                    for case, figures in section["cases"].items()]
            out.append(table(["modules", "keys", "runs", "median ms", "min ms", "max ms"], rows))
            out.append("")
            out.append(f"{section['note']}.")
            out.append("")
            out.append(images("cold.png"))
        elif name == "keys":
            rows = []
            for row in section["scale"]:
                get, put = row["get"] or {"get": {}}, row["set"] or {"set": {}}
                rows.append([f"{row['keys']:,}", row["modules"], fmt(row.get("startSeconds"), 2),
                             fmt(get.get("opsPerSecond"), 0) if row["get"] else "failed", fmt(get["get"].get("p99Us")),
                             fmt(put.get("opsPerSecond"), 0) if row["set"] else "failed", fmt(put["set"].get("p99Us")),
                             fmt(row["rssAfterKiB"] / 1024, 1) if "rssAfterKiB" in row else "–",
                             get.get("errors", 0) + put.get("errors", 0)])
            out.append(table(["keys", "modules", "start s", "GET ops/s", "GET p99 µs", "SET ops/s", "SET p99 µs",
                              "RSS after MiB", "errors"], rows))
            out.append("")
            out.append(f"{section['connections']} connections; each call picks a key at random.")
            out.append("")
            first = section["moduleSize"][0]["report"] if section["moduleSize"] else None
            base = first["set"]["p50Us"] if first else None
            rows = [[f"{row['keysPerModule']:,}", fmt(row["report"]["opsPerSecond"], 0),
                     fmt(row["report"]["set"]["p50Us"]), fmt(row["report"]["set"]["meanUs"]),
                     fmt(row["report"]["set"]["p99Us"]), fmt(ratio(row["report"]["set"]["p50Us"], base), 2)]
                    if row["report"] else [f"{row['keysPerModule']:,}", "failed", "–", "–", "–", "–"]
                    for row in section["moduleSize"]]
            out.append(table(["keys in the module", "SET ops/s (1 conn.)", "SET p50 µs", "SET mean µs",
                              "SET p99 µs", "p50 ÷ 100-key module"], rows))
            out.append("")
            out.append(images("keys.png", "module-size.png"))
        elif name == "watch":
            out.append(table(["watchers", "sets", "notified p50 ms", "notified p99 ms", "slowest p50 ms",
                              "slowest p99 ms", "Set reply p99 ms", "KiB per idle watcher",
                              "KiB per idle connection"],
                             [[fmt(section.get("watchers"), 0), fmt(section.get("sets"), 0),
                               fmt(section.get("notifiedP50Ms"), 3), fmt(section.get("notifiedP99Ms"), 3),
                               fmt(section.get("slowestP50Ms"), 3), fmt(section.get("slowestP99Ms"), 3),
                               fmt(section.get("setReplyP99Ms"), 3), fmt(section.get("kibPerIdleWatcher"), 1),
                               fmt(section.get("kibPerIdlePlainConnection"), 1)]]))
            out.append("")
            out.append(f"`{section['command'].replace(str(REPO_ROOT) + '/', '')}`; its whole output is in "
                       f"results.json.")
    return "\n".join(out) + "\n"


PLOT_NAMES = ("ops.png", "p99.png", "cli.png", "rss.png", "cold.png", "keys.png", "module-size.png")
COLORS = {"viper-settingsd": "#1f5fa8", "redis-server": "#c0392b", "redis-server (AOF always)": "#7b241c",
          "etcd (Python client)": "#2e8b57", "dconf-service": "#e67e22"}
CLI_COLORS = {"settingsctl": "#1f5fa8", "dconf": "#e67e22", "redis-cli": "#c0392b", "etcdctl": "#2e8b57"}


def plots(results, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import ticker

    sections = results["sections"]
    written = []

    def label_bars(axis, bars, text):
        for bar, value in zip(bars, text):
            axis.annotate(value, (bar.get_x() + bar.get_width() / 2, bar.get_height()), ha="center", va="bottom",
                          fontsize=8, xytext=(0, 2), textcoords="offset points")

    def save(figure, name):
        figure.tight_layout()
        figure.savefig(out / name, dpi=110)
        plt.close(figure)
        written.append(name)

    load_sections = [(name, sections[name]) for name in ("get", "set") if name in sections]
    if load_sections:
        for metric, name, ylabel in (("ops", "ops.png", "operations per second"),
                                     ("p99", "p99.png", "p99 latency (ms)")):
            figure, axes = plt.subplots(1, len(load_sections), figsize=(6.5 * len(load_sections), 4.5),
                                        squeeze=False)
            for axis, (section_name, section) in zip(axes[0], load_sections):
                servers = list(dict.fromkeys(row["server"] for row in section["rows"]))
                width = 0.8 / len(servers)
                for index, server in enumerate(servers):
                    values = []
                    for connections in CONNECTIONS:
                        report = find_row(section, server, connections)
                        if metric == "ops":
                            values.append(report["opsPerSecond"] if report else 0)
                        else:
                            values.append(report[section_name]["p99Us"] / 1000 if report else 0)
                    positions = [c + (index - (len(servers) - 1) / 2) * width for c in range(len(CONNECTIONS))]
                    bars = axis.bar(positions, values, width, label=server, color=COLORS.get(server))
                    label_bars(axis, bars, [f"{v:,.0f}" if metric == "ops" else f"{v:.2f}" for v in values])
                axis.set_xticks(range(len(CONNECTIONS)))
                axis.set_xticklabels([f"{c} connection{'s' if c > 1 else ''}" for c in CONNECTIONS])
                axis.set_title("GET" if section_name == "get" else "durable SET")
                axis.set_ylabel(ylabel)
                axis.margins(y=0.12)
                axis.legend(fontsize=8)
            figure.suptitle("ops/s by server and connections" if metric == "ops"
                            else "p99 latency by server and connections (lower is better)")
            save(figure, name)

    if "cli" in sections:
        commands = sections["cli"]["commands"]
        figure, axes = plt.subplots(1, 2, figsize=(11, 4.5))
        for axis, kind, names in ((axes[0], "reads", ["settingsctl get", "dconf read", "redis-cli get",
                                                        "etcdctl get"]),
                                  (axes[1], "writes", ["settingsctl set", "dconf write", "redis-cli set",
                                                       "etcdctl put"])):
            present = [name for name in names if name in commands]
            medians = [commands[name]["median"] * 1e3 for name in present]
            bars = axis.bar(present, medians, color=[CLI_COLORS[name.split()[0]] for name in present])
            label_bars(axis, bars, [f"{value:.2f}" for value in medians])
            axis.set_ylabel("median wall time per run (ms)")
            axis.set_title(f"CLI {kind} (hyperfine -N)")
            axis.margins(y=0.15)
        save(figure, "cli.png")

    if "rss" in sections:
        kib = sections["rss"]["kib"]
        figure, axis = plt.subplots(figsize=(6, 4.2))
        names = list(kib)
        anon = [kib[name].get("RssAnon", 0) / 1024 for name in names]
        files = [(kib[name]["VmRSS"] - kib[name].get("RssAnon", 0)) / 1024 for name in names]
        axis.bar(names, anon, color=[COLORS.get(name) for name in names], label="anonymous (heap, stacks)")
        bars = axis.bar(names, files, bottom=anon, color=[COLORS.get(name) for name in names], alpha=0.45,
                        hatch="//", label="file-backed and shared (binary, libraries)")
        for bar, name in zip(bars, names):
            axis.annotate(f"{kib[name]['VmRSS'] / 1024:.1f} MiB", (bar.get_x() + bar.get_width() / 2,
                          kib[name]["VmRSS"] / 1024), ha="center", va="bottom", fontsize=8, xytext=(0, 2),
                          textcoords="offset points")
        axis.legend(fontsize=8)
        axis.set_ylabel("VmRSS (MiB)")
        axis.set_title("Idle memory after start-up and a few requests")
        axis.margins(y=0.12)
        save(figure, "rss.png")

    if "cold" in sections:
        cases = sections["cold"]["cases"]
        figure, axis = plt.subplots(figsize=(6, 4.2))
        names = list(cases)
        medians = [cases[name]["medianMs"] for name in names]
        errors = [[cases[name]["medianMs"] - cases[name]["minMs"] for name in names],
                  [cases[name]["maxMs"] - cases[name]["medianMs"] for name in names]]
        bars = axis.bar(names, medians, yerr=errors, capsize=6, color=COLORS["viper-settingsd"])
        for bar, value in zip(bars, medians):
            axis.annotate(f"{value:.1f}", (bar.get_x() + bar.get_width() * 0.25, value), ha="center", va="bottom",
                          fontsize=8, xytext=(0, 2), textcoords="offset points")
        axis.axhline(50, color="grey", linestyle="--", linewidth=1, label="target for 10k keys: 50 ms")
        axis.set_ylabel("connect+Get -> reply (ms), median, min-max")
        axis.set_title("Cold start to first reply, socket-activated")
        axis.legend(fontsize=8)
        axis.margins(y=0.12)
        save(figure, "cold.png")

    if "keys" in sections:
        section = sections["keys"]
        if section["scale"]:
            figure, axes = plt.subplots(1, 2, figsize=(11, 4.5))
            keys = [row["keys"] for row in section["scale"]]
            for op, marker in (("get", "o"), ("set", "s")):
                axes[0].plot(keys, [row[op]["opsPerSecond"] if row[op] else math.nan for row in section["scale"]],
                             marker=marker, label=op.upper())
                axes[1].plot(keys, [row[op][op]["p99Us"] / 1000 if row[op] else math.nan
                                    for row in section["scale"]], marker=marker, label=op.upper())
            for axis, ylabel in ((axes[0], "operations per second"), (axes[1], "p99 latency (ms)")):
                axis.set_xscale("log")
                axis.set_xticks(keys)
                axis.set_xticklabels([f"{k:,}" for k in keys])
                axis.set_xlabel("keys served (modules of 100 keys)")
                axis.set_ylabel(ylabel)
                axis.set_ylim(bottom=0)
                axis.grid(alpha=0.3)
                axis.legend()
            figure.suptitle(f"viper-settingsd throughput and p99 vs key count ({section['connections']} connections)")
            save(figure, "keys.png")
        if any(row["report"] for row in section["moduleSize"]):
            figure, axis = plt.subplots(figsize=(6.5, 4.5))
            measured_sizes = [row for row in section["moduleSize"] if row["report"]]
            sizes = [row["keysPerModule"] for row in measured_sizes]
            for name, label in (("p50Us", "SET p50"), ("meanUs", "SET mean"), ("p99Us", "SET p99")):
                values = [row["report"]["set"][name] for row in measured_sizes]
                axis.plot(sizes, values, marker="o", label=label)
                for size, value in zip(sizes, values):
                    axis.annotate(f"{value:,.0f}", (size, value), fontsize=8, xytext=(4, 4),
                                  textcoords="offset points")
            base = measured_sizes[0]["report"]["set"]["p50Us"]
            axis.axhline(base * 1.5, color="grey", linestyle="--", linewidth=1,
                         label="target: p50 <= 1.5x that at 100 keys")
            axis.set_xscale("log")
            axis.set_xticks(sizes)
            axis.set_xticklabels([f"{s:,}" for s in sizes])
            axis.set_xlabel("keys in the module")
            axis.set_ylabel("latency (µs, log scale)")
            axis.set_yscale("log")
            axis.yaxis.set_major_locator(ticker.LogLocator(subs=(1, 2, 5)))
            axis.yaxis.set_major_formatter(ticker.FuncFormatter(lambda value, _: f"{value:,.0f}"))
            axis.yaxis.set_minor_formatter(ticker.NullFormatter())
            axis.grid(alpha=0.3)
            axis.legend(fontsize=8)
            axis.set_title("Durable SET cost vs module size (1 connection)")
            save(figure, "module-size.png")
    return written


# ---------------------------------------------------------------------------------------------------------------

def command_output(*argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None


def machine_info(work):
    cpu = "unknown"
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    commit = command_output("git", "-C", str(REPO_ROOT), "rev-parse", "--short=12", "HEAD") or "unknown"
    if command_output("git", "-C", str(REPO_ROOT), "status", "--porcelain", "--untracked-files=no"):
        commit += " (with uncommitted changes)"
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "host": platform.node(),
        "nproc": os.cpu_count(),
        "cpuModel": cpu,
        "kernel": platform.release(),
        "memory": next((line.split(":", 1)[1].strip() for line in open("/proc/meminfo")
                        if line.startswith("MemTotal")), None),
        "gitCommit": commit,
        "tmpFileSystem": f"{command_output('stat', '-f', '-c', '%T', str(work))} ({work.parent})",
        "versions": {
            **{package: command_output("dpkg-query", "-W", "-f=${Version}", package)
               for package in ("redis-server", "etcd-server", "dconf-service", "hyperfine")},
            "python": platform.python_version(),
        },
    }


class Bench:
    def __init__(self, args):
        self.args = args
        self.bin_dir = args.bin_dir.resolve()
        self.duration = args.duration if args.duration is not None else (1.0 if args.quick else 5.0)
        self.warmup = 0.5 if args.quick else 1.0
        self.hyperfine_runs = 20 if args.quick else 300
        self.hyperfine_warmup = 3 if args.quick else 20
        self.cold_repeats = 5 if args.quick else 10
        self.rounds = 1 if args.quick else 3  # runs of each GET and SET measurement; the median is shown
        self.watch_sets = 50 if args.quick else None
        self.out = args.out.resolve()
        self.work = Path(tempfile.mkdtemp(prefix="viper-compare-", dir="/tmp"))
        self.logs = self.out / "logs"
        self.processes = Processes(self.logs)
        self.failed = []  # what failed in the current section
        self.started = time.monotonic()

    def say(self, text):
        print(f"compare [{time.monotonic() - self.started:6.1f} s] {text}", flush=True)


def interrupt(signum, frame):
    raise KeyboardInterrupt


def parse_sections(text):
    if not text:
        return list(SECTIONS)
    chosen = []
    for word in text.split(","):
        word = word.strip().lower()
        if not word:
            continue
        if word.isdigit() and 1 <= int(word) <= len(SECTIONS):
            word = SECTIONS[int(word) - 1]
        if word not in SECTIONS:
            raise ValueError(f"unknown section {word!r}; sections: "
                             + ", ".join(f"{i + 1} {name}" for i, name in enumerate(SECTIONS)))
        if word not in chosen:
            chosen.append(word)
    return [name for name in SECTIONS if name in chosen]


def publish(results, out, plot_files):
    docs = REPO_ROOT / "docs"
    images = docs / "benchmarks"
    images.mkdir(parents=True, exist_ok=True)
    for name in PLOT_NAMES:  # plots of an earlier publication that this run did not make
        if name not in plot_files and (images / name).exists():
            (images / name).unlink()
    for name in plot_files:
        shutil.copy(out / name, images / name)
    body = markdown(results, image_prefix="benchmarks/")
    rerun, skip = ["scripts/compare.sh"], False
    for argument in results["arguments"]:  # the same run, without where its results and binaries went
        if skip:
            skip = False
        elif argument in ("--out", "--bin-dir"):
            skip = True
        elif argument != "--publish" and not argument.startswith(("--out=", "--bin-dir=")):
            rerun.append(argument)
    rerun = shlex.join(rerun)
    text = ("# Benchmarks: viper-settingsd compared with redis-server, etcd and dconf\n\n"
            "The latest published run of `scripts/compare.sh` (see `scripts/compare.py --help` for what each section "
            f"measures and how). To run it again: `{rerun}` (add `--publish` to update this page). Where the time "
            "goes, and what blocks each target missed: [performance.md](performance.md).\n\n" + body)
    (docs / "benchmarks.md").write_text(text)
    return docs / "benchmarks.md"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=None, metavar="S",
                        help="seconds recorded per load run (default 5; 1 with --quick)")
    parser.add_argument("--quick", action="store_true",
                        help="short runs, fewer hyperfine runs and cold starts, 50 watch sets: to try the script "
                             "(under a minute; the default run takes about 3 minutes on 2 cores)")
    parser.add_argument("--only", default=None, metavar="SECTION[,SECTION]",
                        help="sections to run, comma-separated names or numbers")
    parser.add_argument("--out", type=Path, default=None, metavar="DIR",
                        help="results folder (default bench-results/YYYYmmdd-HHMMSS/)")
    parser.add_argument("--publish", action="store_true",
                        help="also write docs/benchmarks.md and copy the plots into docs/benchmarks/")
    parser.add_argument("--bin-dir", type=Path, default=REPO_ROOT / "bin", metavar="DIR",
                        help="folder of viper-settingsd, settingsctl and settings-bench (default bin/)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (state, sockets, data)")
    args = parser.parse_args()
    if args.duration is not None and args.duration <= 0:
        parser.error("--duration must be more than 0")
    try:
        chosen = parse_sections(args.only)
    except ValueError as error:
        parser.error(str(error))
    if args.out is None:
        args.out = REPO_ROOT / "bench-results" / datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    for tool in ("viper-settingsd", "settingsctl", "settings-bench"):
        if not os.access(args.bin_dir / tool, os.X_OK):
            raise SystemExit(f"compare: {args.bin_dir / tool} is missing (make build, or --bin-dir)")
    needed = {"get": ["redis-server"], "set": ["redis-server", "etcd"],
              "cli": ["redis-server", "redis-cli", "etcd", "etcdctl", "dconf", "dbus-daemon", "dbus-send",
                      "hyperfine"],
              "rss": ["redis-server", "dconf", "dbus-daemon", "dbus-send"], "cold": ["systemd-socket-activate"]}
    missing = sorted({tool for name in chosen for tool in needed.get(name, []) if shutil.which(tool) is None})
    if missing:
        raise SystemExit(f"compare: missing {', '.join(missing)} (scripts/compare.sh installs them)")

    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "logs").mkdir(exist_ok=True)
    bench = Bench(args)
    # SIGTERM stops the run like Ctrl-C: every server is stopped and the temporary folder removed.
    signal.signal(signal.SIGTERM, interrupt)
    arguments = [a for a in sys.argv[1:]]
    results = {
        "command": "scripts/compare.sh " + shlex.join(arguments) if arguments else "scripts/compare.sh",
        "arguments": arguments,
        "options": {"duration": bench.duration, "warmup": bench.warmup, "quick": args.quick,
                    "hyperfineRuns": bench.hyperfine_runs, "hyperfineWarmup": bench.hyperfine_warmup,
                    "coldRepeats": bench.cold_repeats, "binDir": str(bench.bin_dir)},
        "machine": machine_info(bench.work),
        "sectionsRun": chosen,
        "sections": {},
        "failures": {},
    }
    bench.say(f"results in {bench.out}; temporary folder {bench.work}; sections: {', '.join(chosen)}")
    interrupted = False
    try:
        for name in chosen:
            bench.say(f"== {TITLES[name]}")
            bench.failed = []
            try:
                results["sections"][name] = SECTION_FUNCTIONS[name](bench)
            except (BenchError, OSError, subprocess.SubprocessError, ValueError, KeyError) as error:
                detail = str(error) if isinstance(error, BenchError) else traceback.format_exc()
                print(f"compare: section {name} could not run: {detail}", file=sys.stderr)
                bench.failed.append(detail)
            finally:
                bench.processes.stop_all()
                if bench.failed:
                    results["failures"][name] = bench.failed
    except KeyboardInterrupt:
        interrupted = True
        print("compare: interrupted; stopping the servers", file=sys.stderr)
    finally:
        bench.processes.stop_all()
        if args.keep:
            print(f"compare: kept {bench.work}", file=sys.stderr)
        else:
            shutil.rmtree(bench.work, ignore_errors=True)
    if interrupted:
        return 130

    results["targets"] = targets(results)
    plot_files = plots(results, bench.out)
    results["plots"] = plot_files
    results["elapsedSeconds"] = round(time.monotonic() - bench.started, 1)
    (bench.out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    (bench.out / "results.md").write_text(
        "# viper-settingsd compared with redis-server, etcd and dconf\n\n" + markdown(results))
    print()
    print(markdown(results))
    if args.publish:
        page = publish(results, bench.out, plot_files)
        bench.say(f"published {page}")
    bench.say(f"done in {results['elapsedSeconds']} s: {bench.out}/results.md")
    return 1 if results["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
