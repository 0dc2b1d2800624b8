#!/usr/bin/env python3
"""transfer-bench.py: what loading and dumping a 1000-key module costs: wall time and fsyncs.

Usage: scripts/transfer-bench.py [--bin-dir DIR] [--keys N] [--runs N] [--keep]

Starts its own viper-settingsd (a temporary state directory and socket) with the bundled modules and one more,
`bench`, of N int keys (1000 unless told; 10 sections of N/10). Then, for each of --runs rounds (5 unless told):

  * load: writes a dump-format file that gives every key a new value and times `settingsctl load FILE` (the whole
    command: start, connect, check every value, one durable write, reply);
  * dump: times `settingsctl dump bench` and checks that it prints the N values just loaded.

Prints the median and the slowest of the rounds. One more round runs with the daemon traced by
`strace -f -e trace=fsync,fdatasync` (not timed: strace slows every call) and counts the calls of the load (one
durable write: one fdatasync of the journal; the first write of a module also creates its files, with an fsync of
the directory) and of the dump (none). A benchmark, not a test: it exits 0 unless something failed.
Needs strace (`scripts/setup.sh --bench` installs it).
"""

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
CONFIG_FILE = REPO_ROOT / "config" / "viper-settingsd.conf"
MODULES_DIR = REPO_ROOT / "config" / "modules"
DEADLINE = 60.0


class BenchError(Exception):
    pass


def default_bin_dir():
    for candidate in (REPO_ROOT / "bin", REPO_ROOT / ".build" / "release", REPO_ROOT / ".build" / "debug"):
        if (candidate / "viper-settingsd").exists() and (candidate / "settingsctl").exists():
            return candidate
    return REPO_ROOT / ".build" / "debug"


def bench_schema(keys):
    """A module of `keys` int keys, `s0.k0` to `s9.k...`: ten sections."""
    per_section = max(1, keys // 10)
    sections = []
    for section in range((keys + per_section - 1) // per_section):
        items = [
            {"id": f"k{index}", "title": f"Key {index}", "type": "int", "range": [0, 1_000_000], "default": 0}
            for index in range(section * per_section, min(keys, (section + 1) * per_section))
        ]
        sections.append({"id": f"s{section}", "title": f"Section {section}", "items": items})
    return {"module": "bench", "title": "Benchmark", "description": "transfer-bench.py", "sections": sections}


def key_names(schema):
    return [f"{section['id']}.{item['id']}" for section in schema["sections"] for item in section["items"]]


class Daemon:
    def __init__(self, bin_dir, root):
        modules = root / "modules"
        modules.mkdir()
        for schema in MODULES_DIR.glob("*.json"):
            shutil.copy(schema, modules / schema.name)
        self.root = root
        self.modules = modules
        self.socket_path = str(root / "io.viper.settings")
        config = root / "viper-settingsd.conf"
        lines = [line for line in CONFIG_FILE.read_text().splitlines() if not line.startswith("modules-dir")]
        config.write_text("\n".join(lines + [f"modules-dir = {modules}"]) + "\n")
        self.log_path = root / "viper-settingsd.log"
        self.argv = [str(bin_dir / "viper-settingsd"), "--config", str(config), "--state-dir", str(root / "state"),
                     "--socket", self.socket_path]
        self.process = None

    def start(self):
        self.log = open(self.log_path, "ab")
        self.process = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log)
        end = time.monotonic() + DEADLINE
        while time.monotonic() < end:
            if self.process.poll() is not None:
                raise BenchError(f"viper-settingsd exited with {self.process.returncode}: see {self.log_path}")
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                probe.connect(self.socket_path)
                return
            except OSError:
                time.sleep(0.01)  # polling interval: the loop ends when connect() succeeds
            finally:
                probe.close()
        raise BenchError(f"viper-settingsd did not listen within {DEADLINE} s")

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=DEADLINE)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process is not None:
            self.log.close()


class SyscallCounter:
    """strace attached to a running process (every thread), counting fsync and fdatasync until stopped."""

    def __init__(self, pid, output):
        self.output = output
        self.process = subprocess.Popen(
            ["strace", "-f", "-qq", "-e", "trace=fsync,fdatasync", "-o", str(output), "-p", str(pid)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        # strace is attached once the tracee's threads show TracerPid = strace.
        end = time.monotonic() + DEADLINE
        tasks = Path(f"/proc/{pid}/task")
        while time.monotonic() < end:
            if self.process.poll() is not None:
                raise BenchError(f"strace failed: {self.process.stderr.read().decode(errors='replace')}")
            if all(self.tracer(task) == self.process.pid for task in tasks.iterdir()):
                return
            time.sleep(0.01)  # polling interval: the loop ends when every thread is traced
        raise BenchError("strace did not attach within 60 s")

    @staticmethod
    def tracer(task):
        try:
            with open(task / "status") as status:
                return next(int(line.split()[1]) for line in status if line.startswith("TracerPid:"))
        except (OSError, StopIteration):
            return None

    def stop(self):
        self.process.send_signal(signal.SIGINT)
        self.process.wait(timeout=DEADLINE)
        calls = [line for line in self.output.read_text().splitlines()
                 if "fsync(" in line or "fdatasync(" in line]
        return len(calls)


def settingsctl(bin_dir, daemon, *arguments):
    started = time.perf_counter()
    result = subprocess.run([str(bin_dir / "settingsctl"), "--socket", daemon.socket_path, *arguments],
                            stdin=subprocess.DEVNULL, capture_output=True, timeout=DEADLINE)
    took = time.perf_counter() - started
    if result.returncode != 0:
        raise BenchError(f"settingsctl {' '.join(arguments)} exited with {result.returncode}: "
                         f"{result.stderr.decode(errors='replace').strip()}")
    return took, result.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin-dir", type=Path, default=None, help="where viper-settingsd and settingsctl are "
                        "(default: bin/, else .build/release, else .build/debug)")
    parser.add_argument("--keys", type=int, default=1000, help="keys in the bench module (default 1000)")
    parser.add_argument("--runs", type=int, default=5, help="rounds of load and dump (default 5)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (state, log, traces)")
    options = parser.parse_args()
    bin_dir = (options.bin_dir or default_bin_dir()).resolve()
    if shutil.which("strace") is None:
        print("transfer-bench: strace is needed (scripts/setup.sh --bench installs it)", file=sys.stderr)
        return 1

    root = Path(tempfile.mkdtemp(prefix="viper-transfer-bench-"))
    schema = bench_schema(options.keys)
    names = key_names(schema)
    daemon = Daemon(bin_dir, root)
    (daemon.modules / "bench.json").write_text(json.dumps(schema, indent=1))
    loads, dumps, load_fsyncs, dump_fsyncs = [], [], [], []
    try:
        daemon.start()
        def round_values(run):
            return {name: (run + 1) * 1000 + index for index, name in enumerate(names)}

        def load_and_dump(run, traced):
            values = round_values(run)
            dump_file = root / f"load-{run}.json"
            dump_file.write_text(json.dumps({"modules": {"bench": {"values": values}}}))
            counter = SyscallCounter(daemon.process.pid, root / f"load-{run}.strace") if traced else None
            load_took, _ = settingsctl(bin_dir, daemon, "load", str(dump_file))
            if counter:
                load_fsyncs.append(counter.stop())
            counter = SyscallCounter(daemon.process.pid, root / f"dump-{run}.strace") if traced else None
            dump_took, output = settingsctl(bin_dir, daemon, "dump", "bench")
            if counter:
                dump_fsyncs.append(counter.stop())
            if json.loads(output)["modules"]["bench"]["values"] != values:
                raise BenchError(f"dump after load {run} does not give the values loaded")
            return load_took, dump_took

        # Timed rounds without strace (it slows every system call), then one traced round to count fsyncs.
        for run in range(options.runs):
            load_took, dump_took = load_and_dump(run, traced=False)
            loads.append(load_took)
            dumps.append(dump_took)
        load_and_dump(options.runs, traced=True)
    except BenchError as error:
        print(f"transfer-bench: {error}", file=sys.stderr)
        return 1
    finally:
        daemon.stop()
        if options.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)

    def ms(values):
        return f"median {statistics.median(values) * 1000:7.1f} ms, slowest {max(values) * 1000:7.1f} ms"

    print(f"binaries: {bin_dir}; module of {options.keys} int keys; {options.runs} timed rounds (whole settingsctl "
          f"commands), then one round traced with strace for the fsync counts")
    print(f"load of {options.keys} changed values: {ms(loads)}; fsync+fdatasync per load: {sorted(set(load_fsyncs))}")
    print(f"dump of {options.keys} values:        {ms(dumps)}; fsync+fdatasync per dump: {sorted(set(dump_fsyncs))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
