"""Raw Varlink frames over a Python socket: framing, pipelining, protocol errors, limits, concurrency.

Every reply read here is checked by interop_support.check_reply_shape: a JSON object with only the members
parameters, continues and error.
"""

import json
import os
import socket
import threading
import time

import pytest

import interop_support as support

GET = "io.viper.settings.Get"
SET = "io.viper.settings.Set"
LIST = "io.viper.settings.ListModules"
PORT = "network.proxy.port"
MAX_MESSAGE_SIZE = 1048576  # config/viper-settingsd.conf


def frame(message):
    return json.dumps(message).encode() + b"\0"


def assert_serves(daemon):
    """The daemon is alive and answers on a new connection."""
    assert daemon.alive(), "viper-settingsd died"
    reply = daemon.call(GET, {"key": PORT})
    assert "error" not in reply, reply
    assert isinstance(reply["parameters"]["item"]["value"], int)


def assert_rejected(conn):
    """After a message that is not a valid call: no success reply; an error reply or a closed connection."""
    reply = conn.read_reply_or_close()
    if reply is not None:
        assert "error" in reply, f"a bad message got a success reply: {reply!r}"
        assert reply["error"].startswith("org.varlink.service."), reply


# Framing and pipelining


def test_pipelined_calls_in_one_write_reply_in_order(daemon):
    with daemon.raw() as conn:
        conn.send(
            frame({"method": GET, "parameters": {"key": PORT}})
            + frame({"method": GET, "parameters": {"key": "network.proxy.mode"}})
            + frame({"method": GET, "parameters": {"key": "updates.policy.channels"}})
        )
        replies = [conn.read_reply() for _ in range(3)]
    assert [reply["parameters"]["item"]["key"] for reply in replies] == [
        PORT,
        "network.proxy.mode",
        "updates.policy.channels",
    ]
    assert [reply["parameters"]["item"]["value"] for reply in replies] == [3128, "none", ["stable"]]


def test_pipelined_set_and_get_see_each_other_in_order(daemon):
    with daemon.raw() as conn:
        conn.send(
            frame({"method": GET, "parameters": {"key": PORT}})
            + frame({"method": SET, "parameters": {"key": PORT, "value": 4000}})
            + frame({"method": GET, "parameters": {"key": "network.proxy.nope"}})
            + frame({"method": SET, "parameters": {"key": PORT, "value": 4001}})
            + frame({"method": GET, "parameters": {"key": PORT}})
        )
        replies = [conn.read_reply() for _ in range(5)]
    assert replies[0]["parameters"]["item"]["value"] == 3128
    assert replies[1]["parameters"]["item"]["value"] == 4000
    assert replies[2]["error"] == "io.viper.settings.NoSuchKey"
    assert replies[3]["parameters"]["previous"]["value"] == 4000
    assert replies[4]["parameters"]["item"]["value"] == 4001


def test_many_pipelined_calls(daemon):
    count = 300
    with daemon.raw() as conn:
        conn.send(b"".join(frame({"method": SET, "parameters": {"key": PORT, "value": 2000 + i}}) for i in range(count)))
        for i in range(count):
            reply = conn.read_reply()
            assert reply["parameters"]["item"]["value"] == 2000 + i
        assert conn.call(GET, {"key": PORT})["parameters"]["item"]["value"] == 2000 + count - 1


def test_message_split_across_writes(daemon):
    data = frame({"method": GET, "parameters": {"key": PORT}})
    with daemon.raw() as conn:
        conn.send(data[:7])
        conn.expect_silence(0.2)
        conn.send(data[7:20])
        conn.expect_silence(0.1)
        conn.send(data[20:] + data[:3])
        assert conn.read_reply()["parameters"]["item"]["value"] == 3128
        conn.send(data[3:])
        assert conn.read_reply()["parameters"]["item"]["value"] == 3128


def test_whitespace_inside_json(daemon):
    text = '\n {\t"parameters" :\r\n {  "key":\t"network.proxy.port" } ,\n "method" : "io.viper.settings.Get"\n}\n '
    with daemon.raw() as conn:
        conn.send(text.encode() + b"\0")
        assert conn.read_reply()["parameters"]["item"]["value"] == 3128


@pytest.mark.parametrize(
    "message",
    [
        {"method": LIST},
        {"method": LIST, "parameters": None},
        {"method": LIST, "parameters": {}},
        {"method": LIST, "parameters": {}, "more": False, "oneway": False, "upgrade": False},
    ],
    ids=["absent", "null", "empty", "false-flags"],
)
def test_list_modules_parameters_absent_or_null(daemon, message):
    with daemon.raw() as conn:
        conn.send(frame(message))
        reply = conn.read_reply()
    assert "error" not in reply, reply
    assert sorted(module["module"] for module in reply["parameters"]["modules"]) == support.MODULE_NAMES


def test_get_info_with_absent_parameters(daemon):
    reply = daemon.call("org.varlink.service.GetInfo", omit_parameters=True)
    assert "io.viper.settings" in reply["parameters"]["interfaces"]


def test_reply_has_only_allowed_keys(daemon):
    with daemon.raw() as conn:
        ok = conn.call(GET, {"key": PORT})
        error = conn.call(GET, {"key": "network.proxy.nope"})
        info = conn.call("org.varlink.service.GetInfo")
    assert set(ok) <= {"parameters", "continues"} and "parameters" in ok
    assert ok.get("continues", False) is False
    assert set(error) == {"error", "parameters"}
    assert error["parameters"] == {"key": "network.proxy.nope"}
    assert set(info) <= {"parameters", "continues"}


def test_more_on_a_plain_method_gets_one_final_reply(daemon):
    with daemon.raw() as conn:
        reply = conn.call(GET, {"key": PORT}, more=True)
        assert reply.get("continues", False) is False
        assert reply["parameters"]["item"]["value"] == 3128
        # The connection is free again: nothing more comes, and the next call is answered.
        assert conn.call(GET, {"key": PORT})["parameters"]["item"]["value"] == 3128


def test_string_with_nul_escape_keeps_framing(daemon):
    with daemon.raw() as conn:
        conn.send(
            b'{"method":"io.viper.settings.Set","parameters":{"key":"network.proxy.autoconfig-url","text":"a\\u0000b"}}\0'
        )
        reply = conn.read_reply()  # success or InvalidValue, but one well-formed frame either way
        if "error" in reply:
            assert reply["error"] == "io.viper.settings.InvalidValue"
        else:
            assert reply["parameters"]["item"]["value"] == "a\0b"
        assert conn.call(GET, {"key": PORT})["parameters"]["item"]["value"] == 3128


# Errors that keep the connection


def test_unknown_method(daemon):
    with daemon.raw() as conn:
        reply = conn.call("io.viper.settings.Frobnicate", {"key": PORT})
        assert reply["error"] == "org.varlink.service.MethodNotFound"
        assert reply["parameters"]["method"] in ("io.viper.settings.Frobnicate", "Frobnicate")
        assert conn.call(GET, {"key": PORT})["parameters"]["item"]["value"] == 3128


def test_unknown_service_method(daemon):
    reply = daemon.call("org.varlink.service.Frobnicate")
    assert reply["error"] == "org.varlink.service.MethodNotFound"


def test_unknown_interface(daemon):
    with daemon.raw() as conn:
        reply = conn.call("com.example.nothing.Ping", {})
        assert reply["error"] == "org.varlink.service.InterfaceNotFound"
        assert reply["parameters"] == {"interface": "com.example.nothing"}
        assert conn.call(GET, {"key": PORT})["parameters"]["item"]["value"] == 3128


def test_method_without_interface_is_named_in_the_error(daemon):
    with daemon.raw() as conn:
        reply = conn.call("Get", {"key": PORT})
        assert reply["error"] == "org.varlink.service.InterfaceNotFound"
        assert reply["parameters"] == {"interface": "Get"}
        assert conn.call(GET, {"key": PORT})["parameters"]["item"]["value"] == 3128


def test_client_text_cannot_forge_a_log_line(daemon_factory):
    """At log-level debug, a method name with a newline and a terminal escape stays inside its own log line."""
    daemon = daemon_factory(extra_args=("--log-level", "debug"))
    forged = "FORGED notice viper-settingsd: key network changed from 3128 to 8080"
    with daemon.raw() as conn:
        reply = conn.call(f"io.viper.settings.Nope\n{forged}\u001b[2J", {})
        assert reply["error"] == "org.varlink.service.MethodNotFound"
        reply = conn.call(f"no.such.interface.X\n{forged}", {})
        assert reply["error"] == "org.varlink.service.InterfaceNotFound"
    daemon.stop_and_check()
    log = daemon.log()
    assert "FORGED" in log, "the debug lines of the failed calls were not logged"
    assert not any(line.startswith("FORGED") for line in log.splitlines()), log
    assert "\x1b" not in log, "a terminal escape reached the log"


@pytest.mark.parametrize(
    "method, parameters, name",
    [
        (GET, {"key": 5}, "key"),
        (GET, {"key": None}, "key"),
        (GET, {}, "key"),
        (GET, {"key": ["network.proxy.port"]}, "key"),
        ("io.viper.settings.ShowModule", {"module": 1}, "module"),
        ("io.viper.settings.Explain", {"key": {}}, "key"),
        ("io.viper.settings.Reset", {"key": False}, "key"),
        (SET, {"key": 5, "value": 1}, "key"),
        (SET, {"key": PORT, "text": 8080}, "text"),
        ("org.varlink.service.GetInterfaceDescription", {"interface": 3}, "interface"),
    ],
)
def test_wrong_parameter_type(daemon, method, parameters, name):
    with daemon.raw() as conn:
        reply = conn.call(method, parameters)
        assert reply["error"] == "org.varlink.service.InvalidParameter", reply
        assert reply["parameters"] == {"parameter": name}
        assert conn.call(GET, {"key": PORT})["parameters"]["item"]["value"] == 3128


def test_set_null_optional_parameters_are_absent(daemon):
    """The spec: a nullable field may be null or left out, alike."""
    with daemon.raw() as conn:
        reply = conn.call(SET, {"key": PORT, "value": 3130, "text": None})
        assert reply["parameters"]["item"]["value"] == 3130, reply
        reply = conn.call(SET, {"key": PORT, "value": None, "text": "3131"})
        assert reply["parameters"]["item"]["value"] == 3131, reply
        reply = conn.call(SET, {"key": PORT, "value": None})
        assert reply["error"] == "org.varlink.service.InvalidParameter", reply
        assert reply["parameters"] == {"parameter": "value"}


def test_parameters_not_an_object(daemon):
    with daemon.raw() as conn:
        conn.send(frame({"method": GET, "parameters": ["network.proxy.port"]}))
        assert_rejected(conn)
    assert_serves(daemon)


# Messages that are not calls: the connection is closed (or the call refused), the daemon serves on


def test_malformed_json_closes_connection(daemon):
    with daemon.raw() as conn:
        conn.send(b'{"method": "io.viper.settings.Get", "parameters": {"key": \0')
        conn.expect_closed()
    assert_serves(daemon)


def test_malformed_json_after_good_call(daemon):
    with daemon.raw() as conn:
        conn.send(frame({"method": GET, "parameters": {"key": PORT}}) + b"{nope}\0" + frame({"method": LIST}))
        assert conn.read_reply()["parameters"]["item"]["value"] == 3128
        conn.expect_closed()
    assert_serves(daemon)


@pytest.mark.parametrize(
    "data",
    [b"[1, 2, 3]", b'"io.viper.settings.Get"', b"42", b"null", b"true", b"{}", b'{"method": 5}',
     b'{"parameters": {"key": "network.proxy.port"}}'],
    ids=["array", "string", "number", "null", "bool", "empty-object", "method-not-string", "no-method"],
)
def test_non_call_message(daemon, data):
    with daemon.raw() as conn:
        conn.send(data + b"\0")
        assert_rejected(conn)
    assert_serves(daemon)


def test_invalid_utf8(daemon):
    with daemon.raw() as conn:
        conn.send(b'{"method":"io.viper.settings.Get","parameters":{"key":"\xff\xfe"}}\0')
        reply = conn.read_reply_or_close()
        if reply is not None:
            assert "error" in reply, reply
    assert_serves(daemon)


def test_empty_message(daemon):
    with daemon.raw() as conn:
        conn.send(b"\0")
        assert_rejected(conn)
    assert_serves(daemon)


def test_deeply_nested_json_does_not_crash(daemon):
    depth = 200_000  # well below the size limit; a recursive parser without a depth bound overflows its stack
    with daemon.raw() as conn:
        conn.send(b'{"method":"io.viper.settings.Get","parameters":{"key":' + b"[" * depth + b"\0")
        assert_rejected(conn)
    assert_serves(daemon)
    with daemon.raw() as conn:
        nested = b"[" * depth + b"]" * depth
        conn.send(b'{"method":"io.viper.settings.Set","parameters":{"key":"network.dns.servers","value":' + nested + b"}}\0")
        reply = conn.read_reply_or_close()
        if reply is not None:
            assert "error" in reply, reply
    assert_serves(daemon)


def test_oneway_and_more_together_is_refused(daemon):
    with daemon.raw() as conn:
        conn.send(frame({"method": GET, "parameters": {"key": PORT}, "oneway": True, "more": True}))
        reply = conn.read_reply_or_close(timeout=5)
        assert reply is None or "error" in reply, reply
    assert_serves(daemon)


# oneway


def test_oneway_call_gets_no_reply(daemon):
    with daemon.raw() as conn:
        conn.send(
            frame({"method": SET, "parameters": {"key": PORT, "value": 9090}, "oneway": True})
            + frame({"method": GET, "parameters": {"key": PORT}})
        )
        first = conn.read_reply()
        assert "item" in first["parameters"] and "previous" not in first["parameters"], (
            f"the first reply is not the Get's: {first!r}"
        )
        assert first["parameters"]["item"]["value"] == 9090
        conn.expect_silence(0.2)


def test_oneway_error_gets_no_reply(daemon):
    with daemon.raw() as conn:
        conn.send(
            frame({"method": SET, "parameters": {"key": PORT, "value": 70000}, "oneway": True})
            + frame({"method": "com.example.nothing.Ping", "oneway": True})
            + frame({"method": GET, "parameters": {"key": 5}, "oneway": True})
            + frame({"method": GET, "parameters": {"key": PORT}})
        )
        first = conn.read_reply()
        assert "error" not in first, f"an error reply to a oneway call: {first!r}"
        assert first["parameters"]["item"]["value"] == 3128
        conn.expect_silence(0.2)


# Limits


def test_oversized_message_without_nul_closes_connection(daemon):
    with daemon.raw() as conn:
        chunk = b"x" * 65536
        try:
            for _ in range(2 * 1024 * 1024 // len(chunk)):
                conn.send(chunk)
        except OSError as error:
            assert support.is_closed_error(error), error
        conn.expect_closed()
    assert_serves(daemon)


def test_oversized_complete_message_closes_connection(daemon):
    text = "a" * (MAX_MESSAGE_SIZE + 1000)
    with daemon.raw() as conn:
        try:
            conn.send(frame({"method": SET, "parameters": {"key": "network.proxy.autoconfig-url", "text": text}}))
        except OSError as error:
            assert support.is_closed_error(error), error
        reply = conn.read_reply_or_close()
        assert reply is None, f"a message above the limit was answered: {str(reply)[:200]}"
    assert_serves(daemon)


def test_message_below_limit_is_served(daemon):
    text = "a" * (MAX_MESSAGE_SIZE - 4096)
    with daemon.raw() as conn:
        reply = conn.call(SET, {"key": "network.proxy.autoconfig-url", "text": text})
        assert reply["error"] == "io.viper.settings.InvalidValue"  # maxLength 2048, but the message was read
        assert reply["parameters"]["key"] == "network.proxy.autoconfig-url"
        assert len(json.dumps(reply)) < MAX_MESSAGE_SIZE * 2
        assert conn.call(GET, {"key": PORT})["parameters"]["item"]["value"] == 3128


def test_client_closing_mid_call_does_not_hurt(daemon):
    for _ in range(20):
        with daemon.raw() as conn:
            conn.send(frame({"method": "io.viper.settings.ShowModule", "parameters": {"module": "network"}}) * 20)
            conn.sock.shutdown(socket.SHUT_RDWR)
    assert_serves(daemon)


# Concurrency


def test_50_concurrent_connections_set_and_get(daemon):
    count = 50
    start_revision = daemon.call(GET, {"key": PORT})["parameters"]["revision"]
    connections = [daemon.raw(timeout=30) for _ in range(count)]
    barrier = threading.Barrier(count, timeout=30)
    results = [None] * count
    errors = []

    def worker(index):
        conn = connections[index]
        try:
            barrier.wait()
            value = 10000 + index
            set_reply = conn.call(SET, {"key": PORT, "value": value})
            get_reply = conn.call(GET, {"key": PORT})
            results[index] = (value, set_reply, get_reply)
        except Exception as error:  # reported below with the index
            errors.append((index, repr(error)))

    threads = [threading.Thread(target=worker, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    for conn in connections:
        conn.close()
    assert not errors, errors
    assert all(not thread.is_alive() for thread in threads)

    values = {10000 + index for index in range(count)}
    revisions = []
    for value, set_reply, get_reply in results:
        assert "error" not in set_reply, set_reply
        assert set_reply["parameters"]["item"]["value"] == value
        assert set_reply["parameters"]["changed"] is True
        assert "error" not in get_reply, get_reply
        assert get_reply["parameters"]["item"]["value"] in values
        assert get_reply["parameters"]["revision"] >= set_reply["parameters"]["revision"]
        revisions.append(set_reply["parameters"]["revision"])
    # Every change counted once: the revisions of the 50 Sets are 50 consecutive numbers.
    assert sorted(revisions) == list(range(start_revision + 1, start_revision + count + 1))
    final = daemon.call(GET, {"key": PORT})["parameters"]
    assert final["revision"] == start_revision + count
    last = next(value for value, set_reply, _ in results if set_reply["parameters"]["revision"] == final["revision"])
    assert final["item"]["value"] == last


MAX_CONNECTIONS_PER_UID = 128  # config/viper-settingsd.conf


def test_connections_per_uid_limit(daemon):
    connections = []
    try:
        for _ in range(MAX_CONNECTIONS_PER_UID):
            conn = daemon.raw()
            connections.append(conn)
            assert "error" not in conn.call(GET, {"key": PORT})
        extra = daemon.raw()
        connections.append(extra)
        extra.send_call(GET, {"key": PORT})
        # An error reply naming the limit, not a reset, then the close.
        reply = extra.read_reply()
        assert reply == {"error": "io.viper.settings.TooManyConnections",
                         "parameters": {"limit": "max-connections-per-uid", "maximum": MAX_CONNECTIONS_PER_UID}}, reply
        extra.expect_closed()
        if os.geteuid() == 0:
            # The limit is per uid: another user is still served.
            other = support.run_settingsctl(["--socket", daemon.socket_path, "get", PORT], user=65534)
            assert other.returncode == 0 and other.stdout == "3128\n", other.stderr
        # Below the limit again, a new connection is served (once the daemon has seen the close).
        connections.pop(0).close()
        deadline = time.monotonic() + 10
        while True:
            conn = daemon.raw()
            connections.append(conn)
            try:
                assert "error" not in conn.call(GET, {"key": PORT})
                break
            except (support.ConnectionClosed, ConnectionResetError, BrokenPipeError):
                assert time.monotonic() < deadline, "no connection served after one was closed"
                time.sleep(0.01)  # polling interval; the loop ends on the first served call
        assert daemon.alive()
    finally:
        for conn in connections:
            conn.close()
