#!/usr/bin/env python3
"""soak.py: hold a running viper-settingsd under mixed get/set traffic and report what it costs over time.

Usage: soak.py SOCKET PID [--seconds 600] [--connections 8] [--set-ratio 0.2] [--max-growth 0.10]

Each connection is a raw Varlink client (NUL-terminated JSON on the Unix socket) that loops over Get and Set of
the bundled modules' keys, no pipelining. RSS (VmRSS) and open descriptors of PID are sampled after a warm-up
and at the end. Exits 1 when any call failed or RSS or descriptors grew by more than --max-growth; prints the
figures either way. A benchmark script, not a test: it prints, it does not time assertions.
"""

import argparse
import json
import os
import random
import socket
import sys
import threading
import time

KEYS = {
    "network.proxy.port": lambda r: r.randint(1, 65535),
    "network.proxy.mode": lambda r: r.choice(["none", "manual", "auto"]),
    "network.dns.cache": lambda r: r.choice([True, False]),
    "display.output.scale": lambda r: r.choice([1.0, 1.25, 1.5, 2.0]),
    "updates.policy.channels": lambda r: r.sample(["stable", "beta", "security"], r.randint(1, 3)),
}


def call(sock, buffer, method, parameters):
    sock.sendall(json.dumps({"method": "io.viper.settings." + method, "parameters": parameters}).encode() + b"\0")
    while b"\0" not in buffer:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("the daemon closed the connection")
        buffer.extend(chunk)
    end = buffer.index(b"\0")
    reply = json.loads(buffer[:end])
    del buffer[: end + 1]
    return reply


def sample(pid):
    with open(f"/proc/{pid}/status") as status:
        rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    return rss, len(os.listdir(f"/proc/{pid}/fd"))


def worker(path, deadline, set_ratio, seed, counters, lock, done, sampled):
    rng = random.Random(seed)
    calls = errors = 0
    first_error = None
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(path)
        buffer = bytearray()
        while time.monotonic() < deadline:
            key = rng.choice(list(KEYS))
            if rng.random() < set_ratio:
                reply = call(sock, buffer, "Set", {"key": key, "value": KEYS[key](rng)})
            else:
                reply = call(sock, buffer, "Get", {"key": key})
            calls += 1
            if "error" in reply:
                errors += 1
                first_error = first_error or reply
        done.wait()  # the connection stays open until the end sample is taken
        sampled.wait()
        sock.close()
    except Exception as error:  # a dropped connection is an error of the soak, reported below
        errors += 1
        first_error = first_error or repr(error)
        if not done.broken:
            done.abort()
    with lock:
        counters["calls"] += calls
        counters["errors"] += errors
        if first_error and not counters["first_error"]:
            counters["first_error"] = first_error


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("socket")
    parser.add_argument("pid", type=int)
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--warmup", type=float, default=10)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--set-ratio", type=float, default=0.2)
    parser.add_argument("--max-growth", type=float, default=0.10)
    args = parser.parse_args()

    counters = {"calls": 0, "errors": 0, "first_error": None}
    lock = threading.Lock()
    done = threading.Barrier(args.connections + 1)
    sampled = threading.Event()
    start = time.monotonic()
    deadline = start + args.warmup + args.seconds
    threads = [
        threading.Thread(
            target=worker, args=(args.socket, deadline, args.set_ratio, n, counters, lock, done, sampled)
        )
        for n in range(args.connections)
    ]
    for thread in threads:
        thread.start()
    time.sleep(args.warmup)
    rss0, fds0 = sample(args.pid)
    try:
        done.wait()
    except threading.BrokenBarrierError:
        pass
    rss1, fds1 = sample(args.pid)
    sampled.set()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - start

    rss_growth = (rss1 - rss0) / rss0
    fd_growth = (fds1 - fds0) / fds0
    print(f"soak: {args.connections} connections, {elapsed:.0f} s, {counters['calls']} calls "
          f"({counters['calls'] / elapsed:.0f}/s, {args.set_ratio:.0%} set), {counters['errors']} errors")
    print(f"soak: RSS {rss0} KiB -> {rss1} KiB ({rss_growth:+.1%}); descriptors {fds0} -> {fds1} ({fd_growth:+.1%})")
    failed = counters["errors"] > 0 or rss_growth > args.max_growth or fd_growth > args.max_growth
    if counters["first_error"]:
        print(f"soak: first error: {counters['first_error']}")
    print("soak: FAILED" if failed else "soak: ok")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
