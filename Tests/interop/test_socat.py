"""Raw frames sent with socat (`socat - UNIX-CONNECT:PATH`), the way people poke a Varlink socket by hand."""

import json
import os
import selectors
import shutil
import subprocess
import time

import pytest

import interop_support as support

pytestmark = pytest.mark.skipif(shutil.which("socat") is None, reason="socat is not installed (scripts/setup.sh)")

GET = "io.viper.settings.Get"
PORT = "network.proxy.port"


def frame(message):
    return json.dumps(message).encode() + b"\0"


class Socat:
    """socat between our pipes and the daemon's socket; stdin stays open until close_input()."""

    def __init__(self, socket_path, *options):
        self.process = subprocess.Popen(
            ["socat", *options, "-", f"UNIX-CONNECT:{socket_path}"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.output = b""
        os.set_blocking(self.process.stdout.fileno(), False)

    def write(self, data):
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def close_input(self):
        if not self.process.stdin.closed:
            try:
                self.process.stdin.close()
            except BrokenPipeError:
                pass

    def _read(self, deadline, stop):
        """Reads stdout into self.output until stop() holds, EOF, or the deadline; returns whether EOF came."""
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout, selectors.EVENT_READ)
            while not stop():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                if not selector.select(remaining):
                    continue
                chunk = os.read(self.process.stdout.fileno(), 65536)
                if not chunk:
                    return True
                self.output += chunk
        return False

    def read_replies(self, count, timeout=support.IO_TIMEOUT):
        """Reads stdout until `count` NUL-terminated replies arrived (or EOF, or the deadline)."""
        self._read(time.monotonic() + timeout, lambda: self.output.count(b"\0") >= count)
        complete = self.output[: self.output.rfind(b"\0") + 1]
        return support.split_frames(complete)

    def finish(self, timeout=support.IO_TIMEOUT):
        """Waits, stdin left as it is, for socat to end its output and exit; returns (status, stdout).

        socat exits when the daemon closes the connection; if stdin is closed, also after its half-close."""
        deadline = time.monotonic() + timeout
        if not self._read(deadline, lambda: False):
            raise AssertionError("socat's output did not end: the daemon did not close the connection")
        try:
            status = self.process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            raise AssertionError("socat did not exit") from None
        self.close_input()
        return status, self.output

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.close_input()
        self.process.stdout.close()


@pytest.fixture
def socat_factory():
    started = []

    def start(socket_path, *options):
        process = Socat(socket_path, *options)
        started.append(process)
        return process

    yield start
    for process in started:
        process.kill()


def test_socat_pipelined_calls_in_one_write(daemon, socat_factory):
    socat = socat_factory(daemon.socket_path)
    socat.write(
        frame({"method": GET, "parameters": {"key": PORT}})
        + frame({"method": "io.viper.settings.Set", "parameters": {"key": PORT, "value": 8080}})
        + frame({"method": GET, "parameters": {"key": PORT}})
    )
    replies = socat.read_replies(3)
    assert len(replies) == 3, socat.output
    assert replies[0]["parameters"]["item"]["value"] == 3128
    assert replies[1]["parameters"]["item"]["value"] == 8080
    assert replies[1]["parameters"]["changed"] is True
    assert replies[2]["parameters"]["item"]["value"] == 8080


def test_socat_printf_style_half_close_still_answered(daemon):
    """`printf '...\\0...\\0' | socat - UNIX-CONNECT:PATH`: socat half-closes after its input; the calls sent
    before the EOF are all answered, then the daemon closes and socat exits."""
    data = (
        frame({"method": "io.viper.settings.ListModules"})
        + frame({"method": GET, "parameters": {"key": "updates.policy.channels"}})
        + frame({"method": "org.varlink.service.GetInfo", "parameters": None})
    )
    result = subprocess.run(
        ["socat", "-t", "10", "-", f"UNIX-CONNECT:{daemon.socket_path}"],
        input=data,
        capture_output=True,
        timeout=20,
    )
    replies = support.split_frames(result.stdout)
    assert len(replies) == 3, result.stdout
    assert len(replies[0]["parameters"]["modules"]) == 5
    assert replies[1]["parameters"]["item"]["value"] == ["stable"]
    assert "io.viper.settings" in replies[2]["parameters"]["interfaces"]


def test_socat_malformed_json_closes_connection(daemon, socat_factory):
    socat = socat_factory(daemon.socket_path)
    socat.write(frame({"method": GET, "parameters": {"key": PORT}}) + b'{"method": \0')
    assert [reply["parameters"]["item"]["value"] for reply in socat.read_replies(1)] == [3128]
    # The daemon closes the connection by itself: socat sees EOF and exits although its stdin is still open.
    status, output = socat.finish()
    assert output.count(b"\0") == 1, output
    assert daemon.alive()
    assert daemon.call(GET, {"key": PORT})["parameters"]["item"]["value"] == 3128


def test_socat_errors(daemon, socat_factory):
    socat = socat_factory(daemon.socket_path)
    socat.write(
        frame({"method": "io.viper.settings.Nope", "parameters": {}})
        + frame({"method": "com.example.nothing.Ping", "parameters": {}})
        + frame({"method": GET, "parameters": {"key": 5}})
        + frame({"method": "io.viper.settings.Set", "parameters": {"key": PORT, "value": 70000}})
    )
    replies = socat.read_replies(4)
    assert [reply.get("error") for reply in replies] == [
        "org.varlink.service.MethodNotFound",
        "org.varlink.service.InterfaceNotFound",
        "org.varlink.service.InvalidParameter",
        "io.viper.settings.InvalidValue",
    ]
    assert replies[2]["parameters"] == {"parameter": "key"}
    assert set(replies[3]["parameters"]) == {"key", "value", "reason"}


def test_socat_oneway_gets_no_reply(daemon, socat_factory):
    socat = socat_factory(daemon.socket_path)
    socat.write(
        frame({"method": "io.viper.settings.Set", "parameters": {"key": PORT, "value": 7070}, "oneway": True})
        + frame({"method": GET, "parameters": {"key": PORT}})
    )
    replies = socat.read_replies(1)
    assert len(replies) == 1
    assert replies[0]["parameters"]["item"]["value"] == 7070
    socat.close_input()
    status, output = socat.finish()
    assert output.count(b"\0") == 1, output


def test_socat_oversized_message(daemon):
    result = subprocess.run(
        ["socat", "-t", "10", "-", f"UNIX-CONNECT:{daemon.socket_path}"],
        input=b"y" * (2 * 1024 * 1024),
        capture_output=True,
        timeout=20,
    )
    assert result.stdout == b""
    assert daemon.alive()
    assert daemon.call(GET, {"key": PORT})["parameters"]["item"]["value"] == 3128
