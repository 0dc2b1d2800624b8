#!/usr/bin/env python3
"""connect-bench.py: what a new connection with one call costs a server, as a `settingsctl get` run from a shell pays it.

Usage: scripts/connect-bench.py --socket PATH [--protocol varlink|resp] [--key KEY] [--count N] [--pid PID] [--json]

N times, one after another: connect to the Unix socket, send one get (Varlink io.viper.settings.Get, or RESP GET for
redis-server), read the whole reply, close. Prints the p50/p90/p99 of connect-to-reply and of connect alone, in µs,
after 200 rounds of warm-up. With --pid, also the server process's CPU time per connection (user + system, from
/proc/PID/stat, over the measured rounds). A benchmark, not a test: it prints figures and exits 0, or 1 when a
reply is an error or the server closes early, 2 on a usage error.
"""

import argparse
import json
import os
import socket
import sys
import time


def cpu_seconds(pid):
    """User + system CPU time of a process, in seconds."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def request(protocol, key):
    """The get call, and the bytes that end its reply."""
    if protocol == "resp":
        return f"*2\r\n$3\r\nGET\r\n${len(key)}\r\n{key}\r\n".encode(), b"\r\n"
    call = json.dumps({"method": "io.viper.settings.Get", "parameters": {"key": key}}, separators=(",", ":"))
    return call.encode() + b"\0", b"\0"


def round_trip(path, message, terminator):
    """One connection with one call: (connect-to-reply, connect) in seconds, and the reply."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    start = time.perf_counter()
    connection.connect(path)
    connected = time.perf_counter()
    connection.sendall(message)
    reply = b""
    while not reply.endswith(terminator):
        chunk = connection.recv(65536)
        if not chunk:
            break
        reply += chunk
    end = time.perf_counter()
    connection.close()
    return end - start, connected - start, reply


def percentile(sorted_values, fraction):
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * fraction))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--socket", required=True, help="the server's Unix socket")
    parser.add_argument("--protocol", choices=["varlink", "resp"], default="varlink")
    parser.add_argument("--key", default="network.proxy.port", help="the key to get (default network.proxy.port)")
    parser.add_argument("--count", type=int, default=3000, help="connections measured (default 3000)")
    parser.add_argument("--pid", type=int, help="the server's pid, for its CPU time per connection")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    arguments = parser.parse_args()
    if arguments.count < 1:
        parser.error("--count must be at least 1")
    message, terminator = request(arguments.protocol, arguments.key)

    def failed(reply):
        if arguments.protocol == "resp":
            return not reply.endswith(terminator) or reply.startswith(b"-")
        return not reply.endswith(terminator) or b'"error"' in reply

    for _ in range(200):
        _, _, reply = round_trip(arguments.socket, message, terminator)
        if failed(reply):
            print(f"connect-bench: the server answered {reply[:200]!r}", file=sys.stderr)
            return 1
    cpu_before = cpu_seconds(arguments.pid) if arguments.pid else None
    totals, connects = [], []
    for _ in range(arguments.count):
        total, connect, reply = round_trip(arguments.socket, message, terminator)
        if failed(reply):
            print(f"connect-bench: the server answered {reply[:200]!r}", file=sys.stderr)
            return 1
        totals.append(total)
        connects.append(connect)
    cpu_after = cpu_seconds(arguments.pid) if arguments.pid else None
    totals.sort()
    connects.sort()
    result = {
        "connections": arguments.count,
        "p50Us": round(percentile(totals, 0.5) * 1e6, 1),
        "p90Us": round(percentile(totals, 0.9) * 1e6, 1),
        "p99Us": round(percentile(totals, 0.99) * 1e6, 1),
        "connectP50Us": round(percentile(connects, 0.5) * 1e6, 1),
    }
    if cpu_before is not None:
        result["serverCpuUsPerConnection"] = round((cpu_after - cpu_before) * 1e6 / arguments.count, 1)
    if arguments.json:
        print(json.dumps(result))
    else:
        print(f"{arguments.socket} ({arguments.protocol}): {arguments.count} connections, one get each")
        print(f"connect to reply: p50 {result['p50Us']} µs, p90 {result['p90Us']} µs, p99 {result['p99Us']} µs")
        print(f"connect alone: p50 {result['connectP50Us']} µs")
        if "serverCpuUsPerConnection" in result:
            print(f"server CPU per connection: {result['serverCpuUsPerConnection']} µs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
