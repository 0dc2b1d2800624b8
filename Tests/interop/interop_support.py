"""Helpers for the interoperability tests: running viper-settingsd, raw Varlink frames, settingsctl.

Everything waits on deadlines, never on fixed sleeps: the daemon is ready when connect() succeeds, a reply is
there when its NUL arrives, a closed connection is there when recv() returns EOF.
"""

import errno
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

# The package root: Tests/interop/ is two levels below it.
REPO_ROOT = Path(__file__).resolve().parents[2]
CONFIG_FILE = REPO_ROOT / "config" / "viper-settingsd.conf"
MODULES_DIR = REPO_ROOT / "config" / "modules"
IDL_FILE = REPO_ROOT / "Sources" / "SettingsAPI" / "io.viper.settings.varlink"

INTERFACE = "io.viper.settings"
SERVICE = "org.varlink.service"
MODULE_NAMES = sorted(path.stem for path in MODULES_DIR.glob("*.json"))
# The only members a reply may carry (strict clients such as systemd's drop the connection otherwise).
REPLY_KEYS = {"parameters", "continues", "error"}

START_DEADLINE = 20.0
STOP_DEADLINE = 10.0
IO_TIMEOUT = 10.0
CLI_TIMEOUT = 15.0


def bin_dir():
    """Where viper-settingsd and settingsctl are: $VIPER_BIN_DIR, else the usual debug build folders."""
    explicit = os.environ.get("VIPER_BIN_DIR")
    if explicit:
        return Path(explicit)
    for candidate in (REPO_ROOT / ".build" / "debug", REPO_ROOT / ".build-interop" / "debug"):
        if (candidate / "viper-settingsd").exists() and (candidate / "settingsctl").exists():
            return candidate
    return None


def executable(name):
    directory = bin_dir()
    if directory is None:
        raise RuntimeError("set VIPER_BIN_DIR to the folder holding viper-settingsd and settingsctl")
    path = directory / name
    if not os.access(path, os.X_OK):
        raise RuntimeError(f"{path} is not an executable; build it or fix VIPER_BIN_DIR")
    return str(path)


def can_connect(path):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(1.0)
        sock.connect(path)
        return True
    except OSError:
        return False
    finally:
        sock.close()


class Daemon:
    """One viper-settingsd process on its own socket and state directory, logging to a file."""

    def __init__(self, root, name="daemon", state_dir=None, extra_args=(), config=None, launcher=()):
        self.root = Path(root)
        self.launcher = list(launcher)  # a command that execs its arguments, e.g. in a mount namespace
        self.config = Path(config) if config else CONFIG_FILE
        self.name = name
        self.state_dir = Path(state_dir) if state_dir else self.root / "state"
        self.socket_path = str(self.root / "run" / "io.viper.settings")
        self.log_path = self.root / f"{name}.log"
        self.extra_args = list(extra_args)
        self.process = None
        self.returncode = None
        self._log_file = None

    @property
    def address(self):
        return "unix:" + self.socket_path

    @property
    def history(self):
        """The state directory's history token (STATE/history), which begins every cursor the daemon gives out."""
        return (self.state_dir / "history").read_text().strip()

    def cursor(self, positions):
        """A cursor as this daemon writes it: its history, then the positions (`network:3`)."""
        return f"{self.history}/{positions}"

    def start(self, wait=True):
        self.returncode = None
        self._log_file = open(self.log_path, "ab")
        argv = self.launcher + [
            executable("viper-settingsd"),
            "--config", str(self.config),
            "--state-dir", str(self.state_dir),
            "--socket", self.socket_path,
        ] + self.extra_args
        self._log_file.write(("+ " + " ".join(argv) + "\n").encode())
        self._log_file.flush()
        self.process = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=self._log_file, stderr=self._log_file, cwd=str(self.root)
        )
        if wait:
            self.wait_ready()
        return self

    def wait_ready(self, deadline=START_DEADLINE):
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            if self.process.poll() is not None:
                raise AssertionError(
                    f"viper-settingsd exited with {self.process.returncode} before listening; log:\n{self.log()}"
                )
            if os.path.exists(self.socket_path) and can_connect(self.socket_path):
                return
            time.sleep(0.01)  # polling interval, not synchronization: the loop ends on connect() success
        raise AssertionError(f"viper-settingsd did not listen on {self.socket_path} within {deadline} s")

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def stop(self, deadline=STOP_DEADLINE):
        """SIGTERM, then the exit status (None if it had to be killed)."""
        if self.process is None:
            return self.returncode
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=deadline)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                self.returncode = None
                self.process = None
                self._close_log()
                raise AssertionError(f"viper-settingsd did not exit within {deadline} s of SIGTERM")
        self.returncode = self.process.returncode
        self.process = None
        self._close_log()
        return self.returncode

    def stop_and_check(self, deadline=STOP_DEADLINE):
        """Stops gracefully and asserts a clean exit: status 0 and the socket file removed."""
        status = self.stop(deadline)
        assert status == 0, f"viper-settingsd exited with status {status} after SIGTERM"
        assert not os.path.exists(self.socket_path), "viper-settingsd left its socket file behind"

    def kill(self):
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None
        self._close_log()

    def _close_log(self):
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None

    def log(self):
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    # Conveniences.

    def raw(self, timeout=IO_TIMEOUT):
        return RawConnection(self.socket_path, timeout=timeout)

    def call(self, method, parameters=None, **flags):
        """One call on a new connection; returns the reply (error replies included)."""
        with self.raw() as conn:
            return conn.call(method, parameters, **flags)

    def ctl(self, *args, env=None, **kwargs):
        return run_settingsctl(["--socket", self.socket_path, *args], env=env, **kwargs)


def make_root():
    """A short temporary folder (socket paths must stay below 108 bytes), reachable by other users."""
    root = tempfile.mkdtemp(prefix="viper-interop-", dir="/tmp")
    os.chmod(root, 0o755)
    return root


def remove_root(root):
    shutil.rmtree(root, ignore_errors=True)


class ConnectionClosed(Exception):
    """The daemon closed the connection."""


class RawConnection:
    """A Varlink connection at the byte level: frames are JSON objects followed by NUL."""

    def __init__(self, path, timeout=IO_TIMEOUT):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.timeout = timeout
        self.buffer = b""
        self.eof = False

    @classmethod
    def over(cls, sock, timeout=IO_TIMEOUT):
        """A connection over a socket already connected (one end of a socketpair)."""
        connection = cls.__new__(cls)
        sock.settimeout(timeout)
        connection.sock, connection.timeout, connection.buffer, connection.eof = sock, timeout, b"", False
        return connection

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def send(self, data):
        self.sock.sendall(data)

    def send_call(self, method, parameters=None, omit_parameters=False, **flags):
        message = {"method": method}
        if not omit_parameters:
            message["parameters"] = parameters if parameters is not None else {}
        message.update(flags)
        self.send(json.dumps(message).encode() + b"\0")

    def call(self, method, parameters=None, omit_parameters=False, **flags):
        self.send_call(method, parameters, omit_parameters=omit_parameters, **flags)
        return self.read_reply()

    def _fill(self, deadline):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("no data from viper-settingsd before the deadline")
        self.sock.settimeout(remaining)
        try:
            chunk = self.sock.recv(65536)
        except socket.timeout:
            raise TimeoutError("no data from viper-settingsd before the deadline") from None
        except ConnectionResetError:
            # A peer that closes with unread input resets the connection: for us, closed all the same.
            chunk = b""
        if not chunk:
            self.eof = True
        self.buffer += chunk

    def read_frame(self, timeout=None):
        """The next frame's bytes (without NUL); ConnectionClosed at EOF, TimeoutError at the deadline."""
        deadline = time.monotonic() + (timeout if timeout is not None else self.timeout)
        while b"\0" not in self.buffer:
            if self.eof:
                raise ConnectionClosed(f"connection closed; {len(self.buffer)} bytes of a partial frame")
            self._fill(deadline)
        frame, _, self.buffer = self.buffer.partition(b"\0")
        return frame

    def read_reply(self, timeout=None):
        """The next reply as a dict, checked for well-formedness."""
        frame = self.read_frame(timeout)
        reply = json.loads(frame.decode("utf-8"))
        check_reply_shape(reply)
        return reply

    def expect_closed(self, timeout=None):
        """Asserts that the daemon closes the connection without sending another byte."""
        deadline = time.monotonic() + (timeout if timeout is not None else self.timeout)
        while not self.eof:
            self._fill(deadline)
        assert self.buffer == b"", f"unexpected bytes before the close: {self.buffer[:200]!r}"

    def read_reply_or_close(self, timeout=None):
        """The next reply, or None if the connection closes first."""
        try:
            return self.read_reply(timeout)
        except ConnectionClosed:
            return None

    def expect_silence(self, duration):
        """Asserts that nothing arrives (and the connection stays open) for `duration` seconds."""
        assert self.buffer == b"", f"unexpected data: {self.buffer[:200]!r}"
        assert not self.eof, "the daemon closed the connection"
        deadline = time.monotonic() + duration
        try:
            while time.monotonic() < deadline:
                self._fill(deadline)
                if self.eof:
                    raise AssertionError("the daemon closed the connection")
                if self.buffer:
                    raise AssertionError(f"unexpected data: {self.buffer[:200]!r}")
        except TimeoutError:
            pass


def check_reply_shape(reply):
    assert isinstance(reply, dict), f"a reply must be a JSON object, got {reply!r}"
    extra = set(reply) - REPLY_KEYS
    assert not extra, f"reply carries keys outside {sorted(REPLY_KEYS)}: {sorted(extra)} in {reply!r}"
    if "parameters" in reply:
        assert isinstance(reply["parameters"], dict), f"reply parameters must be an object: {reply!r}"
    if "continues" in reply:
        assert isinstance(reply["continues"], bool), f"continues must be a boolean: {reply!r}"
    if "error" in reply:
        assert isinstance(reply["error"], str) and "." in reply["error"], f"bad error name: {reply!r}"


def split_frames(data):
    """Splits bytes read from a stream into parsed replies; asserts the stream ends on a NUL."""
    assert data.endswith(b"\0") or data == b"", f"stream does not end with NUL: {data[-200:]!r}"
    replies = []
    for frame in data.split(b"\0")[:-1]:
        reply = json.loads(frame.decode("utf-8"))
        check_reply_shape(reply)
        replies.append(reply)
    return replies


def run_settingsctl(args, env=None, user=None, timeout=CLI_TIMEOUT, input=None):
    full_env = {key: value for key, value in os.environ.items() if key != "VIPER_SETTINGS_SOCKET"}
    full_env.update({"LC_ALL": "C.UTF-8", "NO_COLOR": "1"})
    if env:
        full_env.update(env)
    kwargs = {}
    if user is not None:
        kwargs.update(user=user, group=user, extra_groups=[])
    return subprocess.run(
        [executable("settingsctl"), *args],
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        input=input,
        **kwargs,
    )


def state_files(state_dir):
    """name -> (size, mtime_ns) of every file in the state directory."""
    result = {}
    for path in Path(state_dir).rglob("*"):
        if path.is_file():
            status = path.stat()
            result[str(path.relative_to(state_dir))] = (status.st_size, status.st_mtime_ns)
    return result


def is_closed_error(error):
    return isinstance(error, (BrokenPipeError, ConnectionResetError)) or (
        isinstance(error, OSError) and error.errno in (errno.EPIPE, errno.ECONNRESET)
    )
