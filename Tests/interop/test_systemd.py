"""viper-settingsd and systemd's protocols without systemd as PID 1.

- Socket activation: `systemd-socket-activate` listens and hands the daemon the socket as fd 3 (LISTEN_FDS).
- journald: a real systemd-journald in a private mount namespace (tmpfs on /run); the daemon logs to it when
  JOURNAL_STREAM names its stderr, and every change is an audit entry with structured fields.
(sd_notify READY/RELOADING/STOPPING/WATCHDOG are asserted by Tests/IntegrationTests/DaemonSystemdTests.swift.)
"""

import json
import os
import shutil
import socket
import subprocess
import threading
import time

import pytest

import interop_support as support

JOURNALD = "/lib/systemd/systemd-journald"


def socket_activated(tmp_path, sockets, fdnames, accept=False):
    """Starts viper-settingsd under systemd-socket-activate listening on `sockets` (names `fdnames`), its log in
    tmp_path/daemon.log; waits for the last socket to exist. Returns the process and the open log file."""
    log = open(tmp_path / "daemon.log", "wb")
    listen = [argument for path in sockets for argument in ("-l", str(path))]
    process = subprocess.Popen(
        [
            "/usr/bin/systemd-socket-activate", *(["--accept"] if accept else []), *listen, f"--fdname={fdnames}",
            support.executable("viper-settingsd"), "--config", str(support.CONFIG_FILE),
            "--state-dir", str(tmp_path / "state"), "--socket", str(tmp_path / "configured.sock"),
        ],
        stdout=log, stderr=log,
    )
    deadline = time.monotonic() + support.START_DEADLINE
    while not sockets[-1].exists() and time.monotonic() < deadline:
        time.sleep(0.01)  # polling for the listener, bounded by the deadline
    return process, log


def test_socket_activation_serves_the_passed_socket(tmp_path):
    activated = tmp_path / "activated.sock"
    state = tmp_path / "state"
    log = open(tmp_path / "daemon.log", "wb")
    process = subprocess.Popen(
        [
            "/usr/bin/systemd-socket-activate", "-l", str(activated), "--fdname=varlink",
            support.executable("viper-settingsd"), "--config", str(support.CONFIG_FILE),
            "--state-dir", str(state), "--socket", str(tmp_path / "configured.sock"),
        ],
        stdout=log, stderr=log,
    )
    try:
        deadline = time.monotonic() + support.START_DEADLINE
        while not activated.exists() and time.monotonic() < deadline:
            time.sleep(0.01)  # polling for the listener, bounded by the deadline
        # The first connection starts the daemon, which then serves it from the socket it was handed.
        result = support.run_settingsctl(["--socket", str(activated), "get", "network.proxy.port"])
        assert result.returncode == 0, (result, (tmp_path / "daemon.log").read_text())
        assert result.stdout == "3128\n"
        assert support.run_settingsctl(["--socket", str(activated), "set", "network.proxy.port", "8080"]).returncode == 0
        assert support.run_settingsctl(["--socket", str(activated), "get", "network.proxy.port"]).stdout == "8080\n"
        assert not (tmp_path / "configured.sock").exists(), "the configured path must not be bound"
        assert "using the socket passed by systemd" in (tmp_path / "daemon.log").read_text()
    finally:
        process.terminate()
        assert process.wait(timeout=support.STOP_DEADLINE) == 0
        log.close()
    assert activated.exists(), "the activated socket belongs to systemd-socket-activate, not the daemon"


def test_restarts_under_socket_activation_answer_every_call(tmp_path):
    """`systemctl restart` with the socket unit up: the socket stays open across daemon instances, so a call that
    races a stop must be answered, by the old instance or the next, never reset. (The old instance used to close its
    listener while connections it had just accepted were being set up: those were dropped, their clients reset.)"""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    path = str(tmp_path / "activated.sock")
    listener.bind(path)
    listener.listen(256)
    log = open(tmp_path / "daemon.log", "ab")

    def start():
        # What systemd does: the socket as fd 3, LISTEN_PID naming the daemon itself (the shell execs it).
        return subprocess.Popen(
            ["/bin/bash", "-c", f'exec 3<&{listener.fileno()}; LISTEN_PID=$$ exec "$@"', "bash",
             support.executable("viper-settingsd"), "--config", str(support.CONFIG_FILE),
             "--state-dir", str(tmp_path / "state"), "--socket", str(tmp_path / "configured.sock")],
            stdout=log, stderr=log, pass_fds=(listener.fileno(),), env=dict(os.environ, LISTEN_FDS="1"),
        )

    answered = [0]
    failures = []
    stop = threading.Event()
    lock = threading.Lock()
    call = json.dumps({"method": "io.viper.settings.Get", "parameters": {"key": "network.proxy.port"}}).encode()

    def client():
        while not stop.is_set():
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
                    connection.settimeout(support.START_DEADLINE)
                    connection.connect(path)
                    connection.sendall(call + b"\0")
                    reply = b""
                    while not reply.endswith(b"\0"):
                        chunk = connection.recv(65536)
                        if not chunk:
                            raise ConnectionError("closed without answering")
                        reply += chunk
                assert b'"value":3128' in reply, reply
                with lock:
                    answered[0] += 1
            except (OSError, ConnectionError) as error:
                with lock:
                    failures.append(repr(error))

    def answered_after(count, more):
        deadline = time.monotonic() + support.START_DEADLINE
        while True:
            with lock:
                if answered[0] >= count + more:
                    return
            assert time.monotonic() < deadline, "no calls answered"
            time.sleep(0.01)  # polling for progress, bounded by the deadline

    process = start()
    clients = [threading.Thread(target=client) for _ in range(4)]
    for thread in clients:
        thread.start()
    try:
        for _ in range(10):
            with lock:
                before = answered[0]
            answered_after(before, 50)  # the instance serves, then is stopped mid-stream
            process.terminate()
            assert process.wait(timeout=support.STOP_DEADLINE) == 0, (tmp_path / "daemon.log").read_text()
            process = start()
        with lock:
            before = answered[0]
        answered_after(before, 50)
    finally:
        stop.set()
        for thread in clients:
            thread.join(timeout=support.START_DEADLINE)
        process.terminate()
        process.wait(timeout=support.STOP_DEADLINE)
        log.close()
        listener.close()
    assert failures == [], f"{len(failures)} calls not answered across 10 restarts, of {answered[0]}: {failures[:5]}"


def test_socket_activation_with_two_sockets_serves_the_one_named_varlink(tmp_path):
    activated = tmp_path / "activated.sock"
    process, log = socket_activated(tmp_path, [tmp_path / "other.sock", activated], "other:varlink")
    try:
        # A connection to either starts the daemon; it answers on the socket named varlink.
        result = support.run_settingsctl(["--socket", str(activated), "get", "network.proxy.port"])
        assert result.returncode == 0, (result, (tmp_path / "daemon.log").read_text())
        assert result.stdout == "3128\n"
        assert "fd_name=varlink" in (tmp_path / "daemon.log").read_text()
    finally:
        process.terminate()
        assert process.wait(timeout=support.STOP_DEADLINE) == 0
        log.close()


def test_accept_yes_serves_each_client_then_the_instance_stops(tmp_path):
    activated = tmp_path / "accept.sock"
    log_path = tmp_path / "daemon.log"
    process, log = socket_activated(tmp_path, [activated], "varlink", accept=True)
    try:
        # One instance per connection, each serving its client and stopping: the state is the same directory.
        result = support.run_settingsctl(["--socket", str(activated), "get", "network.proxy.port"])
        assert result.returncode == 0 and result.stdout == "3128\n", (result, log_path.read_text())
        result = support.run_settingsctl(["--socket", str(activated), "set", "network.proxy.port", "8080"])
        assert result.returncode == 0, (result, log_path.read_text())
        result = support.run_settingsctl(["--socket", str(activated), "get", "network.proxy.port"])
        assert result.stdout == "8080\n", (result, log_path.read_text())
        deadline = time.monotonic() + support.START_DEADLINE
        while log_path.read_text().count("its client left") < 3 and time.monotonic() < deadline:
            time.sleep(0.01)  # polling for the instances' last lines, bounded by the deadline
        assert log_path.read_text().count("its client left") == 3, log_path.read_text()
        assert not (tmp_path / "configured.sock").exists()
    finally:
        process.terminate()
        process.wait(timeout=support.STOP_DEADLINE)
        log.close()


def test_exec_style_activation_serves_the_one_client_handed_over_then_exits(tmp_path):
    """As `varlinkctl call exec:viper-settingsd …` does: a connected socket as fd 3, LISTEN_FDS=1, no listener."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    log_path = tmp_path / "daemon.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [
                "/bin/sh", "-c", 'export LISTEN_PID=$$ LISTEN_FDS=1 LISTEN_FDNAMES=varlink; exec "$@" 3<&0 0</dev/null', "sh",
                support.executable("viper-settingsd"), "--config", str(support.CONFIG_FILE),
                "--state-dir", str(tmp_path / "state"), "--socket", str(tmp_path / "configured.sock"),
            ],
            stdin=theirs, stdout=log, stderr=log,
        )
    theirs.close()
    connection = support.RawConnection.over(ours, timeout=support.START_DEADLINE)
    try:
        info = connection.call("org.varlink.service.GetInfo")
        assert info["parameters"]["product"] == "viper-settingsd", info
        reply = connection.call("io.viper.settings.Set", {"key": "network.proxy.port", "value": 8081})
        assert "error" not in reply and reply["parameters"]["changed"] is True, reply
        reply = connection.call("io.viper.settings.Get", {"key": "network.proxy.port"})
        assert reply["parameters"]["item"]["value"] == 8081, reply
        assert not (tmp_path / "configured.sock").exists(), "nothing else is served"
        # The client leaves: the daemon stops by itself, cleanly, and the value set is durable.
        connection.close()
        assert process.wait(timeout=support.STOP_DEADLINE + support.START_DEADLINE) == 0, log_path.read_text()
        assert "its client left" in log_path.read_text()
    finally:
        connection.close()
        if process.poll() is None:
            process.kill()
            process.wait()
    daemon = support.Daemon(tmp_path, name="after", state_dir=tmp_path / "state")
    daemon.start()
    try:
        assert daemon.ctl("get", "network.proxy.port").stdout == "8081\n"
    finally:
        daemon.stop_and_check()


@pytest.mark.parametrize(
    "kind, said",
    [
        ("unconnected", "a Unix stream socket that is neither listening nor connected"),
        ("datagram", "a Unix datagram socket"),
        ("tcp", "a TCP/IP socket"),
        ("pipe", "a pipe"),
    ],
)
def test_a_descriptor_passed_that_cannot_be_served_is_a_usage_error_naming_it(tmp_path, kind, said):
    keep = []
    if kind == "unconnected":
        handed = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    elif kind == "datagram":
        handed, other = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        keep.append(other)
    elif kind == "tcp":
        handed = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        handed.bind(("127.0.0.1", 0))
        handed.listen()
    else:
        reader, writer = os.pipe()
        handed = os.fdopen(reader, "rb")
        keep.append(os.fdopen(writer, "wb"))
    try:
        result = subprocess.run(
            [
                "/bin/sh", "-c", 'export LISTEN_PID=$$ LISTEN_FDS=1 LISTEN_FDNAMES=varlink; exec "$@" 3<&0 0</dev/null', "sh",
                support.executable("viper-settingsd"), "--config", str(support.CONFIG_FILE),
                "--state-dir", str(tmp_path / "state"), "--socket", str(tmp_path / "configured.sock"),
            ],
            stdin=handed.fileno(), capture_output=True, text=True, timeout=support.START_DEADLINE,
        )
    finally:
        handed.close()
        for item in keep:
            item.close()
    # Refused at once (it used to crash on an unconnected socket, or bind its path and leave the client waiting).
    assert result.returncode == 2, result
    assert f"systemd passed fd 3 (varlink), {said}" in result.stderr, result.stderr
    assert not (tmp_path / "configured.sock").exists()


NAMESPACE_SCRIPT = r"""
set -eu
root="$1"; daemon="$2"; ctl="$3"; config="$4"
mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p /run/log/journal
mount --bind "$root/runtime" /run/log/journal
if [ -d /var/log/journal ]; then mount --bind "$root/persistent" /var/log/journal; fi
"$5" &
journald=$!
for _ in $(seq 1 500); do [ -S /run/systemd/journal/socket ] && break; sleep 0.01; done
[ -S /run/systemd/journal/socket ] || { echo "journald did not start" >&2; exit 1; }
: > "$root/daemon.stderr"
export JOURNAL_STREAM="$(stat -c '%d:%i' "$root/daemon.stderr")"
"$daemon" --config "$config" --state-dir "$root/state" --socket "$root/sock" 2>>"$root/daemon.stderr" &
pid=$!
for _ in $(seq 1 2000); do "$ctl" --socket "$root/sock" modules >/dev/null 2>&1 && break; sleep 0.01; done
unset JOURNAL_STREAM
"$ctl" --socket "$root/sock" set network.proxy.port 8080
"$ctl" --socket "$root/sock" set network.proxy.mode manual
kill -TERM "$pid"; wait "$pid"
kill -TERM "$journald"; wait "$journald" || true
"""


@pytest.mark.skipif(
    os.geteuid() != 0 or not os.path.exists(JOURNALD) or not shutil.which("unshare"),
    reason="needs root, unshare and systemd-journald",
)
def test_changes_are_journald_audit_entries(tmp_path):
    for name in ("runtime", "persistent", "state"):
        (tmp_path / name).mkdir()
    script = tmp_path / "namespace.sh"
    script.write_text(NAMESPACE_SCRIPT)
    result = subprocess.run(
        [
            "timeout", "-k", "5", "60", "unshare", "--mount", "--propagation", "private", "bash", str(script),
            str(tmp_path), support.executable("viper-settingsd"), support.executable("settingsctl"),
            str(support.CONFIG_FILE), JOURNALD,
        ],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, f"{result}\n{(tmp_path / 'daemon.stderr').read_text() if (tmp_path / 'daemon.stderr').exists() else ''}"
    # Under journald the daemon writes native entries, not text on stderr.
    assert "changed from" not in (tmp_path / "daemon.stderr").read_text()
    journal = subprocess.run(
        ["journalctl", f"--directory={tmp_path / 'runtime'}", "-o", "json", "--no-pager", "MODULE=network"],
        capture_output=True, text=True, check=True,
    )
    entries = [json.loads(line) for line in journal.stdout.splitlines() if line.strip()]
    changes = [entry for entry in entries if entry.get("KEY", "").startswith("network.proxy.")]
    assert len(changes) == 2, journal.stdout
    port = next(entry for entry in changes if entry["KEY"] == "network.proxy.port")
    assert port["OLD_VALUE"] == "3128"
    assert port["NEW_VALUE"] == "8080"
    assert port["SOURCE"] == "local"
    assert port["CLIENT_UID"] == "0"
    assert int(port["CLIENT_PID"]) > 0
    assert port["SYSLOG_IDENTIFIER"] == "viper-settingsd"
    assert port["PRIORITY"] == "5"
    assert "CODE_FILE" in port and "CODE_LINE" in port
    mode = next(entry for entry in changes if entry["KEY"] == "network.proxy.mode")
    assert (mode["OLD_VALUE"], mode["NEW_VALUE"]) == ('"none"', '"manual"')


@pytest.mark.skipif(os.path.exists("/run/systemd/journal/socket"), reason="needs a machine where journald is not running")
def test_journal_stream_without_journald_logs_to_standard_error(tmp_path):
    # JOURNAL_STREAM names standard error, but journald's socket is missing: sd_journal_sendv would report success
    # and drop every entry, the audit trail's included; the daemon writes to standard error instead.
    stderr_path = tmp_path / "daemon.stderr"
    stderr_path.write_bytes(b"")
    stream = os.stat(stderr_path)
    env = dict(os.environ, JOURNAL_STREAM=f"{stream.st_dev}:{stream.st_ino}")
    socket_path = tmp_path / "sock"
    with open(stderr_path, "ab") as stderr:
        process = subprocess.Popen(
            [support.executable("viper-settingsd"), "--config", str(support.CONFIG_FILE),
             "--state-dir", str(tmp_path / "state"), "--socket", str(socket_path)],
            stdout=subprocess.DEVNULL, stderr=stderr, env=env,
        )
    try:
        deadline = time.monotonic() + support.START_DEADLINE
        while not support.can_connect(str(socket_path)) and time.monotonic() < deadline:
            time.sleep(0.01)  # polling for the listener, bounded by the deadline
        result = support.run_settingsctl(["--socket", str(socket_path), "set", "network.proxy.port", "8080"])
        assert result.returncode == 0, result
    finally:
        process.terminate()
        assert process.wait(timeout=support.STOP_DEADLINE) == 0
    log = stderr_path.read_text()
    assert "network.proxy.port" in log and "8080" in log, log


def test_unreadable_state_file_is_named_in_the_status_line():
    """A state file the daemon's user cannot read (mode 000) is logged and named in the STATUS= line, as a file of
    the wrong kind is: `systemctl status` shows why the module refuses writes."""
    import socket
    import tempfile

    root = tempfile.mkdtemp(prefix="viper-status-")
    os.chmod(root, 0o755)
    process = None
    try:
        state = os.path.join(root, "state")
        os.mkdir(state)
        snapshot = os.path.join(state, "network.json")
        with open(snapshot, "w") as file:
            file.write('{"format": 1, "module": "network", "revision": 1, "local": {"proxy.port": 8080}}')
        run = os.path.join(root, "run")
        os.mkdir(run)
        os.chown(run, 65534, 65534)
        os.chown(state, 65534, 65534)
        os.chmod(snapshot, 0)
        notify_path = os.path.join(root, "notify")
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(notify_path)
        os.chmod(notify_path, 0o777)
        notify.settimeout(support.START_DEADLINE)
        process = subprocess.Popen(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
             support.executable("viper-settingsd"), "--config", str(support.CONFIG_FILE),
             "--state-dir", state, "--socket", os.path.join(run, "sock")],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=dict(os.environ, NOTIFY_SOCKET=notify_path),
        )
        messages = []
        while not any("READY=1" in message for message in messages):
            messages.append(notify.recv(65536).decode())
        status = next(line for message in messages for line in message.splitlines() if line.startswith("STATUS="))
        assert "STATE FILES UNUSABLE" in status and f"{snapshot} cannot be used: Permission denied" in status, status
    finally:
        if process is not None:
            process.terminate()
            _, stderr = process.communicate(timeout=support.STOP_DEADLINE)
            assert f"{snapshot} cannot be used: Permission denied" in stderr.decode(), stderr.decode()
        shutil.rmtree(root, ignore_errors=True)
