"""Starting and stopping viper-settingsd: signals with clients connected, the socket file, broken schemas."""

import json
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import time
from pathlib import Path

import pytest

import interop_support as support

GET = "io.viper.settings.Get"
PORT = "network.proxy.port"


def test_socket_is_open_to_everyone(daemon):
    mode = os.stat(daemon.socket_path).st_mode
    assert stat.S_ISSOCK(mode)
    assert stat.S_IMODE(mode) == 0o666


def test_sigterm_with_idle_clients_connected(daemon):
    connections = [daemon.raw() for _ in range(5)]
    try:
        assert connections[0].call(GET, {"key": PORT})["parameters"]["item"]["value"] == 3128
        connections[1].send(b'{"method":"io.viper.settings.Get","par')  # half a message
        daemon.stop_and_check(deadline=5)
        for conn in connections:
            conn.expect_closed(timeout=5)
    finally:
        for conn in connections:
            conn.close()


def test_sigterm_with_a_client_that_never_reads(daemon):
    """A client that sends calls and never reads its replies leaves a call in progress that cannot end: the
    shutdown's drain timeout closes its connection, and the daemon exits."""
    stuck = daemon.raw()
    try:
        stuck.sock.setblocking(False)
        message = json.dumps({"method": GET, "parameters": {"key": PORT}}).encode() + b"\0"
        # Sends until the daemon stops reading: its replies fill the socket, so it holds back reading.
        blocked = False
        for _ in range(1_000_000):
            try:
                stuck.sock.send(message * 32)
            except BlockingIOError:
                blocked = True
                break
        assert blocked, "the daemon read every call of a client that never reads"
        assert daemon.ctl("get", PORT).stdout == "3128\n", "another client is served meanwhile"
        # Without a drain timeout the daemon would wait for the client for ever: this deadline is generous.
        daemon.stop_and_check(deadline=60)
        assert "did not finish within the shutdown's drain timeout" in daemon.log()
    finally:
        stuck.close()


def resident_mib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


def test_large_calls_never_read_hold_bounded_memory_given_back_at_close(daemon):
    """Clients that send 1 MiB calls (whose errors repeat them) and never read are read no further once a reply
    waits: the daemon holds about three such messages per connection (it read on until 8 calls waited, ~10 MiB),
    and gives the memory back once they close (glibc kept it, near the peak)."""
    pid = daemon.process.pid
    assert daemon.ctl("get", PORT).stdout == "3128\n"
    baseline = resident_mib(pid)
    message = json.dumps({"method": GET, "parameters": {"key": "k" * ((1 << 20) - 64)}}).encode() + b"\0"
    connections = 24
    sockets = []
    try:
        for _ in range(connections):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
            sock.connect(daemon.socket_path)
            sock.setblocking(False)
            sockets.append(sock)
        sent = [0] * connections
        peak = baseline
        last_progress = time.monotonic()
        # Until no connection takes more for 2 s: the daemon reads them no further (or at most 8 messages each).
        while time.monotonic() - last_progress < 2:
            progressed = False
            for index, sock in enumerate(sockets):
                if sent[index] >= 8 * len(message):
                    continue
                offset = sent[index] % len(message)
                try:
                    sent[index] += sock.send(message[offset:])
                    progressed = True
                except BlockingIOError:
                    pass
            peak = max(peak, resident_mib(pid))
            if progressed:
                last_progress = time.monotonic()
            else:
                time.sleep(0.01)
        per_connection = (peak - baseline) / connections
        assert per_connection < 6, f"{per_connection:.1f} MiB per connection ({baseline:.0f} -> {peak:.0f} MiB)"
        assert daemon.ctl("get", PORT).stdout == "3128\n", "another client is served meanwhile"
    finally:
        for sock in sockets:
            sock.close()
    # Given back once they are gone (when there was much to give back: a daemon slowed down by a busy machine may
    # have read less).
    if peak - baseline > 40:
        deadline = time.monotonic() + 60
        while resident_mib(pid) > baseline + 24 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert resident_mib(pid) <= baseline + 24, f"{resident_mib(pid):.0f} MiB after they closed (peak {peak:.0f})"
    assert daemon.ctl("get", PORT).stdout == "3128\n"


def peak_mib(pid):
    """The process's peak resident memory (VmHWM), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


def test_a_call_of_many_small_objects_takes_tens_not_hundreds_of_times_its_size(daemon):
    """A 1 MiB call of 350,000 `{}` (an unknown parameter, refused) was held as 350,000 hash tables of 8 members
    while answered: ~250 MB for one call of any local user. An empty object takes no table now, a small one a small
    table."""
    pid = daemon.process.pid
    assert daemon.ctl("get", PORT).stdout == "3128\n"
    for element in ("{}", '{"a":0}'):
        count = ((1 << 20) - 200) // (len(element) + 1)
        text = '{"method":"%s","parameters":{"key":"%s","x":[%s]}}' % (GET, PORT, ",".join([element] * count))
        before = peak_mib(pid)
        with daemon.raw() as connection:
            connection.send(text.encode() + b"\0")
            reply = connection.read_reply()
        assert reply.get("error") == "org.varlink.service.InvalidParameter", reply
        grown = peak_mib(pid) - before
        assert grown < 64, f"a 1 MiB call of {element} took {grown:.0f} MiB"
    assert daemon.ctl("get", PORT).stdout == "3128\n"


def test_a_flood_of_malformed_messages_is_not_a_flood_of_log_lines(daemon):
    """Any local user can send malformed messages: the lines they cause are bounded, and a forged line in a
    repeated key stays inside its quotes."""
    forged = 'x\\n2026-11-26T00:00:00+0000 critical viper-settingsd: FAKE'
    message = ('{"method":"org.varlink.service.GetInfo","%s":1,"%s":1}' % (forged, forged)).encode() + b"\0"
    for _ in range(200):
        with daemon.raw() as conn:
            conn.send(message)
            conn.expect_closed()
    assert daemon.ctl("get", PORT).stdout == "3128\n"
    log = daemon.log()
    lines = [line for line in log.splitlines() if "protocol violation" in line]
    assert 1 <= len(lines) <= 10, f"{len(lines)} lines for 200 malformed messages"
    assert "more are dropped" in lines[-1]
    assert not any(line.startswith("2026-11-26T00:00:00+0000 critical") for line in log.splitlines())


def test_sigint_stops_gracefully(daemon):
    daemon.process.send_signal(signal.SIGINT)
    assert daemon.process.wait(timeout=support.STOP_DEADLINE) == 0
    daemon.process = None
    assert not os.path.exists(daemon.socket_path)


def test_stale_socket_file_is_replaced(daemon_factory):
    stale = daemon_factory(start=False)
    os.makedirs(os.path.dirname(stale.socket_path), exist_ok=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(stale.socket_path)
    listener.close()  # leaves a socket file nobody listens on, as after a crash
    stale.start()
    assert stale.call(GET, {"key": PORT})["parameters"]["item"]["value"] == 3128


def test_second_daemon_on_a_live_socket_refuses_to_start(daemon_factory):
    first = daemon_factory("first")
    second = support.Daemon(first.root, name="second", state_dir=Path(first.root) / "state2")
    daemon_factory.daemons.append(second)
    second.start(wait=False)
    status = second.process.wait(timeout=support.START_DEADLINE)
    second.process = None
    assert status != 0, "a second daemon started on a socket that is in use"
    assert os.path.exists(first.socket_path), "the second daemon removed the first one's socket"
    assert first.call(GET, {"key": PORT})["parameters"]["item"]["value"] == 3128


def test_second_daemon_on_the_same_state_directory_refuses_to_start(daemon_factory):
    first = daemon_factory("first")
    assert first.call("io.viper.settings.Set", {"key": PORT, "value": 8081})["parameters"]["item"]["value"] == 8081
    second_root = Path(first.root) / "second"
    second_root.mkdir()
    second = support.Daemon(second_root, name="second", state_dir=first.state_dir)
    daemon_factory.daemons.append(second)
    second.start(wait=False)
    status = second.process.wait(timeout=support.START_DEADLINE)
    second.process = None
    assert status != 0, "a second daemon started on a state directory in use"
    assert f"the state directory {first.state_dir} is in use by another viper-settingsd" in second.log()
    assert not os.path.exists(second.socket_path), "the second daemon listened before it failed"
    # The first one goes on serving and writing; once it stops, the directory is free again.
    assert first.call("io.viper.settings.Set", {"key": PORT, "value": 8082})["parameters"]["item"]["value"] == 8082
    first.stop()
    second.start()
    assert second.call(GET, {"key": PORT})["parameters"]["item"]["value"] == 8082


def test_regular_file_at_socket_path_is_not_removed(daemon_factory):
    blocked = daemon_factory(start=False)
    os.makedirs(os.path.dirname(blocked.socket_path), exist_ok=True)
    Path(blocked.socket_path).write_text("precious")
    blocked.start(wait=False)
    status = blocked.process.wait(timeout=support.START_DEADLINE)
    blocked.process = None
    assert status != 0
    assert Path(blocked.socket_path).read_text() == "precious"
    messages = blocked.log().splitlines()[1:]  # the first line is the command line the test wrote
    assert any(line.strip() for line in messages), "no message about the occupied socket path"


def test_broken_schemas_do_not_stop_the_other_modules(daemon_factory):
    modules = Path(daemon_factory.root) / "modules"
    shutil.copytree(support.MODULES_DIR, modules)
    (modules / "broken.json").write_text("{ not json")
    bad_default = json.loads((modules / "network.json").read_text())
    bad_default["module"] = "badnet"
    bad_default["sections"][0]["items"][2]["default"] = 70000  # outside range 1..65535
    (modules / "badnet.json").write_text(json.dumps(bad_default))
    daemon = daemon_factory(extra_args=["--modules-dir", str(modules)])
    names = sorted(module["module"] for module in daemon.call("io.viper.settings.ListModules")["parameters"]["modules"])
    assert names == support.MODULE_NAMES
    log = daemon.log()
    assert "broken.json" in log, "the rejected schema file is not named in the log"
    assert "badnet.json" in log, "the rejected schema file is not named in the log"


def test_debug_log_level(daemon_factory):
    daemon = daemon_factory(extra_args=["--log-level", "debug"])
    assert daemon.call(GET, {"key": PORT})["parameters"]["item"]["value"] == 3128
    daemon.stop_and_check()
    assert daemon.log().count("\n") > 1


def test_bad_flag_exits_with_usage_error(daemon_factory):
    bad = daemon_factory(start=False, extra_args=["--log-level", "loud"])
    bad.start(wait=False)
    status = bad.process.wait(timeout=support.START_DEADLINE)
    bad.process = None
    assert status != 0
    assert not os.path.exists(bad.socket_path)


def test_every_program_prints_its_name_and_one_version():
    """`--version` of viper-settingsd, viper-settings-apply and settingsctl: `NAME VERSION`, the common form on
    Linux, with the same version."""
    versions = set()
    for name in ("viper-settingsd", "viper-settings-apply", "settingsctl"):
        result = subprocess.run(
            [support.executable(name), "--version"], capture_output=True, text=True, timeout=support.CLI_TIMEOUT
        )
        assert result.returncode == 0, result.stderr
        match = re.fullmatch(rf"{re.escape(name)} ([0-9]+\.[0-9]+\.[0-9]+)\n", result.stdout)
        assert match, f"{name} --version printed {result.stdout!r}"
        versions.add(match.group(1))
    assert len(versions) == 1, versions


def test_help_exits_0():
    result = subprocess.run(
        [support.executable("viper-settingsd"), "--help"], capture_output=True, text=True, timeout=support.CLI_TIMEOUT
    )
    assert result.returncode == 0
    assert "--state-dir" in result.stdout


def test_a_daemon_run_by_a_user_lets_that_user_write():
    """The quick start without root: a user runs the daemon with its default paths (XDG_RUNTIME_DIR,
    XDG_STATE_HOME) and, from another shell, `settingsctl set` on any module, as root may on the system's daemon
    (the state files are that user's anyway). Schemas name no such user among their writers."""
    root = Path(support.make_root())
    nobody = 65534
    try:
        for name in ("run", "state"):
            (root / name).mkdir(mode=0o700)
            os.chown(root / name, nobody, nobody)
        env = {"HOME": str(root), "XDG_RUNTIME_DIR": str(root / "run"), "XDG_STATE_HOME": str(root / "state"),
               "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        log = open(root / "daemon.log", "wb")
        process = subprocess.Popen(
            [support.executable("viper-settingsd"), "--config", str(support.CONFIG_FILE)],
            env=env, user=nobody, group=nobody, extra_groups=[], stdout=log, stderr=log,
        )
        try:
            socket_path = root / "run" / "viper-settings" / "io.viper.settings"
            deadline = time.monotonic() + support.START_DEADLINE
            while not support.can_connect(str(socket_path)):
                assert process.poll() is None, (root / "daemon.log").read_text()
                assert time.monotonic() < deadline, (root / "daemon.log").read_text()
                time.sleep(0.01)  # polling for the listener, bounded by the deadline
            for key, value in (("network.proxy.port", "8080"), ("locale.time.ntp", "false")):
                result = support.run_settingsctl(["set", key, value], env=env, user=nobody)
                assert result.returncode == 0, (key, result.stderr)
                assert support.run_settingsctl(["get", key], env=env, user=nobody).stdout == f"{value}\n"
        finally:
            process.terminate()
            assert process.wait(timeout=support.STOP_DEADLINE) == 0, (root / "daemon.log").read_text()
            log.close()
    finally:
        support.remove_root(str(root))


def test_socket_directory_created_under_a_strict_umask_lets_everyone_connect(daemon_factory):
    """`umask 077` in the shell that starts the daemon: the socket is 0666, so the folders created for it must be
    0755, whatever the umask (they were 0700, and every other user got `Permission denied`)."""
    daemon = daemon_factory(start=False)
    nested = Path(daemon.socket_path).parent / "deeper" / "still"
    daemon.socket_path = str(nested / "io.viper.settings")
    previous = os.umask(0o077)
    try:
        daemon.start()
    finally:
        os.umask(previous)
    for folder in (nested.parent, nested):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o755, (folder, oct(folder.stat().st_mode))
    result = support.run_settingsctl(["--socket", daemon.socket_path, "get", "network.proxy.port"], user=65534)
    assert (result.returncode, result.stdout) == (0, "3128\n"), result.stderr


def sighup_disposition(pid):
    """Whether SIGHUP is ignored, caught or left to its default action (which ends the process) in `pid`."""
    fields = dict(line.split(":\t", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":\t" in line)
    bit = 1 << (signal.SIGHUP - 1)
    if int(fields["SigIgn"], 16) & bit:
        return "ignored"
    return "caught" if int(fields["SigCgt"], 16) & bit else "default"


def test_the_services_ignore_sighup_before_the_swift_runtime_starts():
    """Both services set SIGHUP aside in an initializer the C library runs before any other (`.preinit_array`), not
    only once Swift's main runs: a `kill -HUP` a few milliseconds after starting them ended them."""
    for name in ("viper-settingsd", "viper-settings-apply"):
        sections = subprocess.run(["readelf", "-SW", support.executable(name)], capture_output=True, text=True, check=True)
        assert re.search(r"\s\.preinit_array\s", sections.stdout), f"{name} has no .preinit_array:\n{sections.stdout}"


def test_a_sighup_while_starting_does_not_end_the_daemon(daemon_factory, tmp_path):
    """SIGHUP is a reload: one that comes while the daemon reads its schemas (a thousand take a second; here 300)
    must not end it by the signal's default action, which systemd does not restart."""
    modules = tmp_path / "modules"
    shutil.copytree(support.MODULES_DIR, modules)
    for index in range(300):
        (modules / f"extra{index}.json").write_text(json.dumps({
            "module": f"extra{index}", "title": f"Extra {index}",
            "sections": [{"id": "s", "title": "S", "items": [
                {"id": f"k{item}", "type": "int", "range": [0, 1000], "default": item} for item in range(20)]}],
        }))
    config = tmp_path / "viper-settingsd.conf"
    config.write_text(support.CONFIG_FILE.read_text().replace("modules-dir = modules", f"modules-dir = {modules}"))
    daemon = daemon_factory(config=config, start=False)
    daemon.start(wait=False)
    pid = daemon.process.pid
    # From just after exec (the runtime starting) SIGHUP is ignored, long before the daemon listens.
    while True:
        assert daemon.alive(), f"viper-settingsd exited with {daemon.process.returncode}; log:\n{daemon.log()}"
        disposition = sighup_disposition(pid)
        if disposition != "default":
            break
        assert not os.path.exists(daemon.socket_path), "SIGHUP was left to its default action until the daemon listened"
        time.sleep(0.0005)  # polling interval; the loop ends on the disposition changing
    assert disposition == "ignored" or os.path.exists(daemon.socket_path)
    signals = 0
    while not (os.path.exists(daemon.socket_path) and support.can_connect(daemon.socket_path)):
        assert daemon.alive(), f"a SIGHUP while starting ended the daemon ({daemon.process.returncode})"
        os.kill(pid, signal.SIGHUP)
        signals += 1
        time.sleep(0.002)  # a SIGHUP every 2 ms while it starts, not synchronization
    assert signals > 0
    daemon.wait_ready()
    assert support.run_settingsctl(["--socket", daemon.socket_path, "get", "extra7.s.k3"]).stdout == "3\n"


def signal_ignored(pid, number):
    """Whether `number` is ignored in `pid` (its bit in SigIgn of /proc/PID/status)."""
    fields = dict(line.split(":\t", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":\t" in line)
    return bool(int(fields["SigIgn"], 16) & (1 << (number - 1)))


def test_signals_the_services_do_not_use_do_not_end_them(daemon, tmp_path):
    """SIGUSR1, SIGUSR2 and SIGALRM end a process by default, without its graceful stop (no drain, the socket left
    behind): `systemctl kill -s USR1` or a log-rotation script's signal must leave both services running."""
    from test_man_pages import Applier

    unused = (signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM)
    applier = Applier(tmp_path, daemon.socket_path)
    try:
        applier.wait_listening()
        for pid in (daemon.process.pid, applier.process.pid):
            for number in unused:
                assert signal_ignored(pid, number), f"signal {number} is not ignored by {pid}"
                os.kill(pid, number)
        result = support.run_settingsctl(["--socket", daemon.socket_path, "get", "network.proxy.port"])
        assert result.returncode == 0, result
        assert daemon.alive()
        assert applier.process.poll() is None, applier.log_path.read_text()
        assert support.can_connect(applier.socket_path)
    finally:
        assert applier.stop() == 0


@pytest.mark.parametrize("config_text", ["modules-dir = modules\nbogus = 1\n", "log-level = loud\n"])
def test_a_start_error_reaches_the_journal_at_error_priority(tmp_path, config_text):
    """Under systemd, standard error is a journal stream (`JOURNAL_STREAM` names its device and inode) and a line's
    priority is info unless it starts with `<N>`: the reason the daemon would not start must be `<3>`, so that
    `journalctl -p err` shows it; on a terminal or in a file it is written as it is."""
    config = tmp_path / "bad.conf"
    config.write_text(config_text)
    argv = [support.executable("viper-settingsd"), "--config", str(config), "--socket", str(tmp_path / "sock"),
            "--state-dir", str(tmp_path / "state")]
    for journal in (True, False):
        log = tmp_path / f"stderr-{journal}"
        with open(log, "wb") as stream:
            info = os.fstat(stream.fileno())
            environment = {key: value for key, value in os.environ.items() if key != "JOURNAL_STREAM"}
            if journal:
                environment["JOURNAL_STREAM"] = f"{info.st_dev}:{info.st_ino}"
            result = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stream,
                                    env=environment, timeout=support.START_DEADLINE)
        text = log.read_text()
        assert result.returncode == 2, text
        assert text.startswith("<3>viper-settingsd: " if journal else "viper-settingsd: "), text
