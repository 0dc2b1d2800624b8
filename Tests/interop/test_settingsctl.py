"""settingsctl against the real daemon: output, --json, socket lookup and the documented exit statuses."""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

import interop_support as support

PORT = "network.proxy.port"
GET = "io.viper.settings.Get"

OK, FAILURE, USAGE, UNREACHABLE, NOT_FOUND, INVALID, LOCKED, DENIED = range(8)


def check(result, status):
    assert result.returncode == status, (
        f"exit {result.returncode}, expected {status}\nstdout: {result.stdout!r}\nstderr: {result.stderr!r}"
    )
    return result


def test_get_prints_only_the_display_value(daemon):
    result = check(daemon.ctl("get", PORT), OK)
    assert result.stdout == "3128\n"
    assert result.stderr == ""


def test_set_then_get(daemon):
    check(daemon.ctl("set", PORT, "8080"), OK)
    assert check(daemon.ctl("get", PORT), OK).stdout == "8080\n"
    assert daemon.call(GET, {"key": PORT})["parameters"]["item"]["value"] == 8080


@pytest.mark.parametrize(
    "key, text, value",
    [
        ("updates.policy.channels", "stable,beta", ["stable", "beta"]),
        ("updates.policy.channels", '["security"]', ["security"]),
        ("network.dns.cache", "false", False),
        ("display.output.scale", "1.25", 1.25),
        ("network.proxy.mode", "auto", "auto"),
        ("network.proxy.autoconfig-url", "http://exämple.test/p ac", "http://exämple.test/p ac"),
    ],
)
def test_set_text_values_and_get_matches_daemon_display(daemon, key, text, value):
    check(daemon.ctl("set", key, text), OK)
    item = daemon.call(GET, {"key": key})["parameters"]["item"]
    assert item["value"] == value
    assert check(daemon.ctl("get", key), OK).stdout == item["display"] + "\n"


def test_get_json(daemon):
    for args in (("--json", "get", PORT), ("get", "--json", PORT), ("get", PORT, "--json")):
        result = check(daemon.ctl(*args), OK)
        document = json.loads(result.stdout)
        assert 3128 in (document.get("value"), document.get("item", {}).get("value")), document


@pytest.mark.parametrize("command", [["modules"], ["show", "network"], ["explain", PORT], ["reset", PORT]])
def test_json_output_parses(daemon, command):
    json.loads(check(daemon.ctl("--json", *command), OK).stdout)


def test_modules_lists_all(daemon):
    output = check(daemon.ctl("modules"), OK).stdout
    for name in support.MODULE_NAMES:
        assert name in output


def test_show_module(daemon):
    output = check(daemon.ctl("show", "network"), OK).stdout
    assert "Proxy" in output and "Name resolution" in output
    assert "3128" in output


def test_show_without_a_module_shows_every_module(daemon):
    names = [module["module"] for module in json.loads(check(daemon.ctl("--json", "modules"), OK).stdout)["modules"]]
    shown = json.loads(check(daemon.ctl("--json", "show"), OK).stdout)
    assert [module["module"] for module in shown["modules"]] == names
    assert shown["modules"][names.index("network")] == json.loads(check(daemon.ctl("--json", "show", "network"), OK).stdout)
    output = check(daemon.ctl("show"), OK).stdout
    legend = None
    for name in names:
        body, _, legend = check(daemon.ctl("show", name), OK).stdout.rstrip("\n").rpartition("\n\n")
        assert body + "\n\n" in output, name
    # The legend of the markers once, at the end.
    assert output.count(legend) == 1 and output.rstrip("\n").endswith(legend), output


def test_explain(daemon):
    check(daemon.ctl("set", PORT, "8080"), OK)
    output = check(daemon.ctl("explain", PORT), OK).stdout
    for word in ("default", "recommended", "local", "mandatory", "3128", "8080"):
        assert word in output


def test_reset_key_and_module(daemon):
    check(daemon.ctl("set", PORT, "8080"), OK)
    check(daemon.ctl("set", "network.dns.cache", "false"), OK)
    check(daemon.ctl("reset", PORT), OK)
    assert daemon.ctl("get", PORT).stdout == "3128\n"
    check(daemon.ctl("reset", "network"), OK)
    assert daemon.call(GET, {"key": "network.dns.cache"})["parameters"]["item"]["value"] is True


def test_slow_and_fast_parser_agree(daemon):
    """`--` makes settingsctl use ArgumentParser instead of its fast path; both must do the same."""
    check(daemon.ctl("set", PORT, "8181"), OK)
    fast = check(daemon.ctl("get", PORT), OK)
    slow = check(support.run_settingsctl(["--socket", daemon.socket_path, "get", "--", PORT]), OK)
    assert fast.stdout == slow.stdout == "8181\n"
    equals = check(support.run_settingsctl([f"--socket={daemon.socket_path}", "get", PORT]), OK)
    assert equals.stdout == "8181\n"


def test_value_beginning_with_dash_after_double_dash(daemon):
    result = check(support.run_settingsctl(["--socket", daemon.socket_path, "set", PORT, "--", "-5"]), INVALID)
    assert "settingsctl:" in result.stderr
    assert daemon.ctl("get", PORT).stdout == "3128\n"


def test_socket_from_environment(daemon):
    result = check(support.run_settingsctl(["get", PORT], env={"VIPER_SETTINGS_SOCKET": daemon.socket_path}), OK)
    assert result.stdout == "3128\n"


def test_option_overrides_environment(daemon):
    result = support.run_settingsctl(
        ["--socket", daemon.socket_path, "get", PORT], env={"VIPER_SETTINGS_SOCKET": "/nonexistent/socket"}
    )
    assert check(result, OK).stdout == "3128\n"


@pytest.mark.parametrize("key", ["network.proxy.nope", "nosuchmodule.a.b"])
def test_get_unknown_key_exits_4(daemon, key):
    result = check(daemon.ctl("get", key), NOT_FOUND)
    assert result.stdout == ""
    assert result.stderr.startswith("settingsctl:")


@pytest.mark.parametrize("command", [["show", "nosuchmodule"], ["explain", "network.proxy.nope"],
                                     ["set", "network.proxy.nope", "1"], ["reset", "nosuchmodule"]])
def test_unknown_names_exit_4(daemon, command):
    check(daemon.ctl(*command), NOT_FOUND)


@pytest.mark.parametrize("value", ["70000", "0", "eighty", "", "80.5", "0x50"])
def test_set_invalid_exits_5(daemon, value):
    result = check(daemon.ctl("set", PORT, value), INVALID)
    assert result.stderr.startswith("settingsctl:")
    assert daemon.ctl("get", PORT).stdout == "3128\n"


@pytest.mark.parametrize("value", ["0x1p1", "0x2", "inf", "nan"])
def test_a_double_is_read_in_decimal_only_as_an_int_is(daemon, value):
    result = check(daemon.ctl("set", "display.output.scale", value), INVALID)
    assert "expected a number" in result.stderr
    assert daemon.ctl("get", "display.output.scale").stdout == "1.0\n"


@pytest.mark.parametrize(
    "key, text, shown",
    [(PORT, " 80 ", "80"), ("display.output.scale", "\t2 ", "2.0"), ("network.dns.cache", " false ", "false")],
)
def test_blanks_around_a_bool_or_a_number_are_ignored(daemon, key, text, shown):
    check(daemon.ctl("set", key, text), OK)
    assert check(daemon.ctl("get", key), OK).stdout == shown + "\n"


def test_explain_tells_a_value_that_reads_like_no_value_from_no_value(daemon):
    """A layer without a value is (none), as watch shows no value; the string "-" (the marker it replaces) is
    itself, and the string "(none)" is shown as its JSON."""
    key = "network.proxy.autoconfig-url"

    def row(output, layer):
        return next(line.split() for line in output.splitlines() if f" {layer} " in f" {line} ")

    check(daemon.ctl("set", key, "--", "-"), OK)
    output = check(daemon.ctl("explain", key), OK).stdout
    assert row(output, "local")[:3] == ["*", "local", "-"], output
    assert row(output, "mandatory")[:2] == ["mandatory", "(none)"], output
    check(daemon.ctl("set", key, "(none)"), OK)
    output = check(daemon.ctl("explain", key), OK).stdout
    assert row(output, "local")[:3] == ["*", "local", '"(none)"'], output
    assert row(output, "recommended")[:2] == ["recommended", "(none)"], output


@pytest.mark.parametrize(
    "args",
    [["frobnicate"], ["get"], ["get", "a", "b"], ["set", PORT], ["--bogus", "get", PORT], ["show", "network", "extra"]],
)
def test_usage_errors_exit_2(daemon, args):
    result = check(daemon.ctl(*args), USAGE)
    assert result.stderr != ""


@pytest.mark.parametrize(
    "args", [["--json", "set", PORT], ["--json", "get"], ["get", PORT, "--bogus", "--json"], ["--json", "show", "network", "extra"]]
)
def test_usage_errors_with_json_are_one_json_object(daemon, args):
    result = check(daemon.ctl(*args), USAGE)
    report = json.loads(result.stderr)
    assert report["exitStatus"] == USAGE
    assert report["message"] and "\n" not in report["message"]
    assert result.stdout == ""


@pytest.mark.parametrize(
    "args", [["get", PORT], ["--json", "get", PORT], ["show", "network"], ["dump", "network"], ["--help"], ["watch", PORT]]
)
def test_output_that_cannot_be_written_is_a_failure(daemon, args):
    # A result redirected to a full disk must not end with status 0 and a file cut short.
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [support.executable("settingsctl"), "--socket", daemon.socket_path, *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=support.CLI_TIMEOUT,
        )
    assert result.returncode == FAILURE, result.stderr
    expected = "cannot write to standard output: No space left on device"
    if "--json" in args:
        assert json.loads(result.stderr) == {"exitStatus": FAILURE, "message": expected}
    else:
        assert result.stderr == f"settingsctl: {expected}\n"


def run_into_full_disk(daemon, args):
    with open("/dev/full", "w") as full:
        return subprocess.run(
            [support.executable("settingsctl"), "--socket", daemon.socket_path, *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=support.CLI_TIMEOUT,
        )


def test_output_that_cannot_be_written_wins_over_a_failing_sync(daemon_factory):
    """`status` and `sync` print the sync state, then exit 9 when the remote fails: when that state cannot be
    written, the status is 1 with the write error, as for every other command, not 9 with the output lost."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}/settings.json"
    daemon = daemon_factory(extra_args=["--remote", dead])
    end = time.monotonic() + support.START_DEADLINE
    while daemon.ctl("status").returncode != 9:
        assert time.monotonic() < end, daemon.ctl("status")
        time.sleep(0.05)  # polling interval: the loop ends once the first fetch has failed
    expected = "cannot write to standard output: No space left on device"
    for args in (["status"], ["sync"], ["--json", "status"], ["--json", "sync"], ["status", "--json"]):
        result = run_into_full_disk(daemon, args)
        assert result.returncode == FAILURE, (args, result.stderr)
        if "--json" in args:
            assert json.loads(result.stderr) == {"exitStatus": FAILURE, "message": expected}
        else:
            assert result.stderr == f"settingsctl: {expected}\n"
    assert check(daemon.ctl("sync"), 9).stdout != ""


@pytest.mark.parametrize("args", [["get", PORT], ["--json", "get", PORT], ["dump", "network"], ["watch", PORT]])
def test_closed_standard_output_is_a_failure_and_nothing_reaches_the_daemon(daemon, args):
    """`settingsctl ARGS >&-`: the socket must not take descriptor 1 and get the output (watch wrote its events
    into the daemon's socket and never ended); it fails at once, as a write to a closed descriptor does."""
    command = [support.executable("settingsctl"), "--socket", daemon.socket_path, *args]
    result = subprocess.run(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=support.CLI_TIMEOUT,
        preexec_fn=lambda: os.close(1),
    )
    assert result.returncode == FAILURE, result.stderr
    expected = "cannot write to standard output: Bad file descriptor"
    if "--json" in args:
        assert json.loads(result.stderr) == {"exitStatus": FAILURE, "message": expected}
    else:
        assert result.stderr == f"settingsctl: {expected}\n"
    assert daemon.ctl("get", PORT).returncode == 0


def test_watch_into_a_pipe_whose_reader_left_ends_at_once(daemon):
    """`settingsctl watch KEY | head -1`: once head has its line and left, watch ends, as a write would end it,
    without waiting for the next change (none comes here)."""
    watch = subprocess.Popen(
        [support.executable("settingsctl"), "--socket", daemon.socket_path, "watch", PORT],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert watch.stdout.readline().startswith(b"network.proxy.port")
        watch.stdout.close()  # the reader leaves
        # Generous: without watching for the hang-up it would wait for a change that never comes.
        status = watch.wait(timeout=support.CLI_TIMEOUT)
        assert status == -signal.SIGPIPE, (status, watch.stderr.read())
    finally:
        if watch.poll() is None:
            watch.kill()
            watch.wait()


@pytest.mark.parametrize("ignored", [False, True])
def test_output_into_a_pipe_whose_reader_left(daemon, ignored):
    """`settingsctl dump | head -1` with head gone: SIGPIPE ends settingsctl, silently, as it ends other tools
    (141 in a shell); with SIGPIPE ignored, the failed write is exit 1 with the reason, as README says."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has left before the first write
    try:
        result = subprocess.run(
            [support.executable("settingsctl"), "--socket", daemon.socket_path, "dump", "network"],
            stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=support.CLI_TIMEOUT,
            preexec_fn=(lambda: signal.signal(signal.SIGPIPE, signal.SIG_IGN)) if ignored else None,
        )
    finally:
        os.close(write_end)
    if ignored:
        assert result.returncode == FAILURE, result
        assert result.stderr == "settingsctl: cannot write to standard output: Broken pipe\n"
    else:
        assert result.returncode == -signal.SIGPIPE, result
        assert result.stderr == ""


def test_invalid_utf8_arguments_are_refused_not_repaired(daemon):
    value = subprocess.run(
        [support.executable("settingsctl"), "--socket", daemon.socket_path, "set", "network.proxy.host", b"caf\xe9"],
        capture_output=True, timeout=support.CLI_TIMEOUT,
    )
    assert value.returncode == INVALID, value
    assert b"is not valid UTF-8" in value.stderr and value.stdout == b""
    # The byte that is not UTF-8 is shown as it is, with the key the value was for.
    assert b'invalid value "caf\\xE9" for network.proxy.host' in value.stderr, value.stderr
    assert check(support.run_settingsctl(["--socket", daemon.socket_path, "get", "network.proxy.host"]), OK).stdout == "\n"
    key = subprocess.run(
        [support.executable("settingsctl"), "--socket", daemon.socket_path, "get", b"network.\xff"],
        capture_output=True, timeout=support.CLI_TIMEOUT,
    )
    assert key.returncode == USAGE, key
    # Not the value of set: an argument after it, which set does not take.
    for extra in (["x", b"\xff"], ["--", "x", b"\xff"], ["-5", b"\xff"]):
        result = subprocess.run(
            [support.executable("settingsctl"), "--socket", daemon.socket_path, "set", "network.proxy.host", *extra],
            capture_output=True, timeout=support.CLI_TIMEOUT,
        )
        assert result.returncode == USAGE, result
        assert b"is not valid UTF-8" in result.stderr and b"the value" not in result.stderr, result


def test_an_extra_argument_after_a_negative_value_is_the_one_named(daemon):
    for args in (["set", PORT, "-5", "extra"], ["set", PORT, "-5", "extra", "--json"], ["set", PORT, "-5", "-6"]):
        result = check(daemon.ctl(*args), USAGE)
        unexpected = args[3]
        if "--json" in args:
            assert json.loads(result.stderr)["message"] == f"Unexpected argument '{unexpected}'", result.stderr
        else:
            assert result.stderr.startswith(f"settingsctl: Unexpected argument '{unexpected}'\n"), result.stderr
    assert daemon.ctl("get", PORT).stdout == "3128\n"


def test_a_load_over_the_message_size_limit_says_so(daemon, tmp_path):
    """The daemon closes a connection whose message is over max-message-size: that is not "unreachable" (3)."""
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"modules": {"network": {"values": {"proxy.host": "x" * (1536 << 10)}}}}))
    for args in (["load", str(big)], ["load", "--dry-run", str(big)]):
        result = check(support.run_settingsctl(["--socket", daemon.socket_path, *args]), FAILURE)
        assert "max-message-size" in result.stderr and result.stdout == "", result.stderr
    assert check(support.run_settingsctl(["--socket", daemon.socket_path, "get", PORT]), OK).stdout == "3128\n"


def test_usage_errors_have_the_same_prefix_and_a_dashed_value_gets_a_hint(daemon):
    result = check(support.run_settingsctl(["--socket", daemon.socket_path, "set", PORT, "-x"]), USAGE)
    assert result.stderr.startswith("settingsctl: Missing expected argument"), result.stderr
    assert "put -- before a value that begins with '-'" in result.stderr
    assert not any(line.startswith("Error:") for line in result.stderr.splitlines())
    # A value that begins with two dashes gets the same hint, naming it; an option before the command is not named.
    result = check(support.run_settingsctl(["--socket", daemon.socket_path, "set", PORT, "--5"]), USAGE)
    assert "('--5' was read as an option: put -- before a value that begins with '-')" in result.stderr, result.stderr
    # A minus before what is refused as a number (hexadecimal, inf, nan) is a value the daemon refuses, as without it;
    # blanks after a negative number are ignored, as after any number.
    for value in ("-0x5", "-inf", "-nan"):
        result = check(support.run_settingsctl(["--socket", daemon.socket_path, "set", PORT, value]), INVALID)
        assert "Missing expected argument" not in result.stderr, result.stderr
    result = check(support.run_settingsctl(["--socket", daemon.socket_path, "set", "display.output.scale", "-1 "]), INVALID)
    assert "Missing expected argument" not in result.stderr, result.stderr


def test_help_and_version_exit_0():
    assert check(support.run_settingsctl(["--help"]), OK).stdout
    assert check(support.run_settingsctl(["--version"]), OK).stdout.strip()


def test_unreachable_exits_3(tmp_path):
    result = check(support.run_settingsctl(["--socket", str(tmp_path / "missing.sock"), "get", PORT]), UNREACHABLE)
    assert result.stderr.startswith("settingsctl:")


def test_a_path_that_is_no_socket_is_named_as_such(tmp_path):
    """A file or a directory given as the socket: settingsctl says what it is rather than blame a stopped daemon."""
    regular = tmp_path / "dump.json"
    regular.write_text("{}")
    for path, kind in ((regular, "a regular file"), (tmp_path, "a directory")):
        result = check(support.run_settingsctl(["--socket", str(path), "get", PORT]), UNREACHABLE)
        assert f"{path} is {kind}, not a socket" in result.stderr, result.stderr
        assert "Is viper-settingsd running?" not in result.stderr


def test_a_socket_this_user_may_not_open_says_so(daemon, tmp_path):
    """Permission denied is not "is the daemon running?": the daemon runs, this user may not connect."""
    if os.getuid() != 0:
        pytest.skip("needs root to run settingsctl as another user")
    hidden = tmp_path / "private"
    hidden.mkdir(mode=0o700)
    link = hidden / "sock"
    os.symlink(daemon.socket_path, link)
    result = check(support.run_settingsctl(["--socket", str(link), "get", PORT], user=65534), UNREACHABLE)
    assert "Permission denied: uid 65534 may not open the socket" in result.stderr, result.stderr
    assert "Is viper-settingsd running?" not in result.stderr


def test_stale_socket_exits_3():
    root = support.make_root()
    try:
        path = os.path.join(root, "stale.sock")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(path)
        listener.close()  # the file stays; nobody listens
        check(support.run_settingsctl(["--socket", path, "get", PORT]), UNREACHABLE)
    finally:
        support.remove_root(root)


def test_daemon_closing_without_reply_is_not_success():
    """A peer that accepts and hangs up at once (a crashing daemon) must not make settingsctl exit 0."""
    root = support.make_root()
    try:
        path = os.path.join(root, "hangup.sock")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(path)
        listener.listen(1)

        def serve():
            listener.settimeout(support.CLI_TIMEOUT)
            try:
                conn, _ = listener.accept()
                conn.close()
            except OSError:
                pass

        thread = threading.Thread(target=serve)
        thread.start()
        result = support.run_settingsctl(["--socket", path, "get", PORT])
        thread.join()
        listener.close()
        assert result.returncode in (FAILURE, UNREACHABLE), (result.returncode, result.stderr)
        assert result.stdout == ""
    finally:
        support.remove_root(root)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run settingsctl as another user")
def test_permission_denied_for_other_users(daemon):
    nobody = 65534
    read = support.run_settingsctl(["--socket", daemon.socket_path, "get", PORT], user=nobody)
    assert check(read, OK).stdout == "3128\n", "everyone may read"
    denied = check(support.run_settingsctl(["--socket", daemon.socket_path, "set", PORT, "8080"], user=nobody), DENIED)
    assert denied.stderr.startswith("settingsctl:")
    check(support.run_settingsctl(["--socket", daemon.socket_path, "reset", "network"], user=nobody), DENIED)
    assert daemon.call(GET, {"key": PORT})["parameters"]["item"]["value"] == 3128


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to connect as another user")
def test_permission_denied_error_over_varlink(daemon):
    script = (
        "import json, socket, sys\n"
        "s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect(sys.argv[1])\n"
        "s.sendall(json.dumps({'method': 'io.viper.settings.Set',"
        " 'parameters': {'key': 'network.proxy.port', 'value': 8080}}).encode() + b'\\0')\n"
        "data = b''\n"
        "while not data.endswith(b'\\0'):\n"
        "    chunk = s.recv(65536)\n"
        "    if not chunk: break\n"
        "    data += chunk\n"
        "print(data.rstrip(b'\\0').decode())\n"
    )
    result = subprocess.run(
        ["/usr/bin/python3", "-c", script, daemon.socket_path],
        user=65534, group=65534, extra_groups=[], capture_output=True, text=True, timeout=support.CLI_TIMEOUT,
    )
    assert result.returncode == 0, result.stderr
    reply = json.loads(result.stdout)
    support.check_reply_shape(reply)
    assert reply["error"] == "io.viper.settings.PermissionDenied"
    assert reply["parameters"]["module"] == "network"
    assert reply["parameters"]["uid"] == 65534
    assert reply["parameters"]["reason"]


def run_on_a_pty(args, columns):
    """Runs settingsctl with standard output on a new pseudo-terminal of `columns` columns (0: one nobody sized,
    as `script` makes); returns its exit status and what it wrote there."""
    import fcntl
    import pty
    import struct
    import termios

    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    environment = dict(os.environ)
    environment.pop("COLUMNS", None)
    try:
        process = subprocess.Popen([support.executable("settingsctl"), *args], stdout=terminal,
                                   stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=environment)
        os.close(terminal)
        terminal = None
        output = b""
        while True:
            try:
                chunk = os.read(controller, 4096)
            except OSError:  # EIO: the terminal's last writer is gone
                break
            if not chunk:
                break
            output += chunk
        return process.wait(timeout=support.CLI_TIMEOUT), output.decode()
    finally:
        if terminal is not None:
            os.close(terminal)
        os.close(controller)


@pytest.mark.parametrize("columns", [80, 0])
def test_get_on_a_terminal_escapes_what_it_would_act_on_also_with_no_width(daemon, columns):
    key = "network.proxy.autoconfig-url"
    value = "\ufeffab\u200fc\u202ed"
    check(daemon.ctl("set", key, "--", value), OK)
    status, output = run_on_a_pty(["--socket", daemon.socket_path, "get", key], columns)
    assert status == OK
    assert output.replace("\r\n", "\n") == "\\u{feff}ab\\u{200f}c\\u{202e}d\n"
    # Through a pipe, the value as it is.
    assert check(daemon.ctl("get", key), OK).stdout == value + "\n"
