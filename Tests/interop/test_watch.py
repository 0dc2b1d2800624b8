"""io.viper.settings.Watch end to end: streams through the Python reference client (PyPI varlink) where it can
carry the test, raw frames (interop_support.RawConnection) where it cannot.

Every wait ends on a condition (a reply, a close, a served call) within DEADLINE, never on a fixed sleep: the CI
machine is loaded, and a stream that stalls fails the test through the socket timeout rather than hanging it.
"""

import contextlib
import fcntl
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import time

import pytest
import varlink

import interop_support as support

DEADLINE = 60.0
POLL = 0.05  # polling interval of the retry loops below (each ends on a condition, not on the time)
PORT = "network.proxy.port"
SET = "io.viper.settings.Set"
GET = "io.viper.settings.Get"
WATCH = "io.viper.settings.Watch"
MAX_CONNECTIONS_PER_UID = 128  # config/viper-settingsd.conf
HISTORY_RECORDS = 256  # change records each module keeps on disk
BACKLOG_RECORDS = 1024  # unread records the daemon keeps per watcher
# The network module of config/modules/network.json, in schema order.
NETWORK_KEYS = [
    "network.proxy.mode",
    "network.proxy.host",
    "network.proxy.port",
    "network.proxy.autoconfig-url",
    "network.proxy.ignore-hosts",
    "network.dns.servers",
    "network.dns.dnssec",
    "network.dns.cache",
    "network.dns.timeout",
]
LOG_LEVEL = re.compile(r"^\S+ (\w+) viper-settingsd:")


# Helpers.


@contextlib.contextmanager
def reference_proxy(daemon, client=None, timeout=DEADLINE):
    """An io.viper.settings proxy of the reference client on its own connection, whose reads time out."""
    own_client = client is None
    client = client or varlink.Client(address=daemon.address)
    connection = client.open_connection()
    connection.settimeout(timeout)
    proxy = None
    try:
        proxy = client.open(support.INTERFACE, connection=connection)
        yield proxy
    finally:
        if proxy is not None:
            proxy.close()
        else:
            connection.close()
        if own_client:
            client.cleanup()


def next_event(stream):
    """The next Watch reply of a reference-client stream; the stream must not end."""
    try:
        return next(stream)
    except StopIteration:
        raise AssertionError("the Watch stream ended (a reply without continues)") from None


def until_ready(stream):
    """The events of a reference-client stream up to and including `ready`."""
    events = []
    while True:
        event = next_event(stream)
        events.append(event)
        if event["event"] == "ready":
            return events
        assert event["event"] in ("current", "change", "resync"), f"unknown event before ready: {event!r}"


def raw_until_ready(conn):
    """The Watch replies (parameters) read from a raw connection up to and including `ready`."""
    events = []
    while True:
        reply = conn.read_reply()
        assert "error" not in reply, f"Watch failed: {reply!r}"
        assert reply.get("continues") is True, f"a Watch reply without continues: {reply!r}"
        events.append(reply["parameters"])
        if reply["parameters"]["event"] == "ready":
            return events


def raw_set(conn, key, value):
    reply = conn.call(SET, {"key": key, "value": value})
    assert "error" not in reply, f"Set {key} = {value!r} failed: {reply!r}"
    return reply["parameters"]


def settingsctl(daemon, *args):
    """Runs settingsctl against the daemon and returns (pid, stdout); the pid is the peer the daemon sees."""
    env = {key: value for key, value in os.environ.items() if key != "VIPER_SETTINGS_SOCKET"}
    env.update({"LC_ALL": "C.UTF-8", "NO_COLOR": "1"})
    process = subprocess.Popen(
        [support.executable("settingsctl"), "--socket", daemon.socket_path, *args],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        out, err = process.communicate(timeout=DEADLINE)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, f"settingsctl {' '.join(args)} exited {process.returncode}: {err}"
    return process.pid, out


def change_summary(event):
    return (event["event"], event.get("key"), event.get("old"), event.get("value"), event.get("revision"))


def socket_send_buffer():
    try:
        with open("/proc/sys/net/core/wmem_default") as file:
            return int(file.read())
    except (OSError, ValueError):
        return 212992


def assert_no_error_logged(daemon):
    bad = [line for line in daemon.log().splitlines() if (m := LOG_LEVEL.match(line)) and m.group(1) in
           ("error", "critical")]
    assert not bad, "the daemon logged errors:\n" + "\n".join(bad[:20])


def served_call(daemon, method, parameters):
    """A call on a new connection, retried while the daemon refuses new connections (it may not have seen earlier
    closes yet) until DEADLINE; returns the reply parameters."""
    end = time.monotonic() + DEADLINE
    last = None
    while time.monotonic() < end:
        try:
            with support.RawConnection(daemon.socket_path, timeout=DEADLINE) as conn:
                reply = conn.call(method, parameters)
        except (support.ConnectionClosed, ConnectionResetError, BrokenPipeError) as error:
            last = error
        else:
            if reply.get("error") != "io.viper.settings.TooManyConnections":
                assert "error" not in reply, f"{method} failed: {reply!r}"
                return reply["parameters"]
            last = reply
        time.sleep(POLL)  # polling interval; the loop ends on the first served call
    raise AssertionError(f"no {method} served within {DEADLINE} s; last answer: {last!r}")


# (a) Current values, ready, then changes with their cause.


def test_current_values_then_ready_then_change_from_settingsctl(daemon):
    with reference_proxy(daemon) as reader, reference_proxy(daemon) as watcher:
        shown = reader.ShowModule(module="network")
        items = {item["key"]: item for section in shown["sections"] for item in section["items"]}
        assert list(items) == NETWORK_KEYS
        stream = watcher.Watch(keys=["network"], _more=True)
        events = until_ready(stream)

        assert [event["event"] for event in events] == ["current"] * len(NETWORK_KEYS) + ["ready"], events
        ready = events[-1]
        assert set(ready) == {"event", "cursor"}, f"ready carries more than its cursor: {ready!r}"
        assert isinstance(ready["cursor"], str) and ready["cursor"]
        for event, key in zip(events, NETWORK_KEYS):
            item = items[key]
            assert event["key"] == key
            assert event["value"] == item["value"] and type(event["value"]) is type(item["value"]), event
            assert event["display"] == item["display"], event
            assert event["layer"] == "default", event
            assert event["revision"] == shown["revision"], event
            assert event["cursor"] == ready["cursor"], event
            assert not {"old", "cause", "uid", "pid", "reason"} & set(event), f"current carries change fields: {event}"

        # A change of another module is not streamed: the next event is the network change that follows it.
        settingsctl(daemon, "set", "display.output.scale", "1.25")
        pid, out = settingsctl(daemon, "set", PORT, "3129")
        assert out == f"{PORT}: 3128 -> 3129\n"
        change = next_event(stream)
        assert change["event"] == "change", change
        assert change["key"] == PORT
        assert (change["old"], change["oldDisplay"], change["oldLayer"]) == (3128, "3128", "default"), change
        assert (change["value"], change["display"], change["layer"]) == (3129, "3129", "local"), change
        assert change["revision"] == shown["revision"] + 1, change
        assert change["cause"] == "client", change
        assert change["uid"] == os.getuid(), change
        assert change["pid"] == pid, f"pid {change.get('pid')} is not settingsctl's {pid}"
        assert "remoteRevision" not in change and "reason" not in change, change
        assert isinstance(change["cursor"], str) and change["cursor"] not in ("", ready["cursor"]), change
        assert reader.Get(key=PORT)["revision"] == change["revision"]

        # A reset streams the way back to the default, with the caller as cause.
        pid, _ = settingsctl(daemon, "reset", PORT)
        back = next_event(stream)
        assert change_summary(back) == ("change", PORT, 3129, 3128, shown["revision"] + 2), back
        assert (back["oldLayer"], back["layer"], back["cause"], back["pid"]) == ("local", "default", "client", pid)
        assert back["cursor"] not in (change["cursor"], ready["cursor"])


def test_a_set_is_answered_before_its_change_fans_out_to_many_watchers(daemon_factory, tmp_path):
    """With 400 watchers, a Set's reply is written before any watcher is told of its change: the writer does not
    wait for a fan-out of 400 writes (its reply came after the last watcher's event). Checked on 20 sets: as soon
    as a watcher can read its event, the Set's reply can be read too. (poll(2) looks at the descriptors in the order
    given, the Set's connection last: a watcher found ready means the reply, written before, is there.)"""
    config = tmp_path / "viper-settingsd.conf"
    text = support.CONFIG_FILE.read_text()
    text = re.sub(r"(?m)^modules-dir = .*$", f"modules-dir = {support.CONFIG_FILE.parent / 'modules'}", text)
    text = re.sub(r"(?m)^max-connections-per-uid = .*$", "max-connections-per-uid = 1000", text)
    config.write_text(text)
    daemon = daemon_factory(config=config)
    watchers = []
    try:
        for _ in range(400):
            conn = daemon.raw()
            conn.send_call(WATCH, {"keys": [PORT]}, more=True)
            raw_until_ready(conn)
            watchers.append(conn)
        with daemon.raw() as setter:
            poller = select.poll()
            for conn in watchers:
                poller.register(conn.sock, select.POLLIN)
            poller.register(setter.sock, select.POLLIN)
            watcher_first = []
            for value in range(1000, 1020):
                setter.send_call(SET, {"key": PORT, "value": value})
                ready = {fd for fd, _ in poller.poll(DEADLINE * 1000)}
                if setter.sock.fileno() not in ready:
                    watcher_first.append((value, len(ready)))
                reply = setter.read_reply()
                assert "error" not in reply, reply
                for conn in watchers:
                    event = conn.read_reply()["parameters"]
                    assert (event["event"], event["value"]) == ("change", value), event
            assert watcher_first == [], "(set value, watchers with the event and no reply yet)"
    finally:
        for conn in watchers:
            conn.close()


def test_watching_one_key_streams_only_that_key(daemon):
    with reference_proxy(daemon) as watcher, support.RawConnection(daemon.socket_path, timeout=DEADLINE) as writer:
        stream = watcher.Watch(keys=[PORT], _more=True)
        events = until_ready(stream)
        assert [(event["event"], event.get("key")) for event in events] == [("current", PORT), ("ready", None)]
        revision = events[0]["revision"]
        raw_set(writer, "network.proxy.mode", "manual")  # same module, another key: not streamed
        # The default value set locally: the layer changes, the effective value does not, so no change is streamed
        # (the revision, which names the stored state, moves on all the same).
        raw_set(writer, PORT, 3128)
        raw_set(writer, PORT, 4000)
        change = next_event(stream)
        assert change_summary(change) == ("change", PORT, 3128, 4000, revision + 3), change
        assert (change["oldLayer"], change["layer"]) == ("local", "local"), change
        assert change["uid"] == os.getuid() and change["pid"] == os.getpid(), change


def test_watch_without_more_is_expected_more(daemon):
    with reference_proxy(daemon) as proxy:
        with pytest.raises(varlink.VarlinkError) as excinfo:
            proxy.Watch(keys=[PORT])
        assert excinfo.value.error() == "org.varlink.service.ExpectedMore", excinfo.value.as_dict()
        # The call ended with its error; the connection serves the next one.
        assert proxy.Get(key=PORT)["item"]["value"] == 3128
    with support.RawConnection(daemon.socket_path, timeout=DEADLINE) as conn:
        reply = conn.call(WATCH, {"keys": [PORT]})
        assert reply == {"error": "org.varlink.service.ExpectedMore", "parameters": {}}, reply


@pytest.mark.parametrize(
    "keys, error, parameters",
    [
        (["network.proxy.nope"], "io.viper.settings.NoSuchKey", {"key": "network.proxy.nope"}),
        (["nosuchmodule"], "io.viper.settings.NoSuchModule", {"module": "nosuchmodule"}),
        # A key of an unknown module names the module, as Get, Set, Explain and Reset do.
        (["nosuchmodule.a.b"], "io.viper.settings.NoSuchModule", {"module": "nosuchmodule"}),
    ],
)
def test_watch_unknown_key_or_module(daemon, keys, error, parameters):
    with reference_proxy(daemon) as proxy:
        with pytest.raises(varlink.VarlinkError) as excinfo:
            next(proxy.Watch(keys=keys, _more=True))
        assert (excinfo.value.error(), excinfo.value.parameters()) == (error, parameters)
        assert proxy.Get(key=PORT)["item"]["value"] == 3128


def daemon_with_own_modules(daemon_factory):
    """A started daemon serving a copy of the bundled modules, and that copy's folder."""
    daemon = daemon_factory(start=False)
    modules = os.path.join(daemon_factory.root, "modules")
    shutil.copytree(support.MODULES_DIR, modules)
    daemon.extra_args += ["--modules-dir", modules]
    daemon.start()
    return daemon, modules


def change_port_default(modules, default):
    path = os.path.join(modules, "network.json")
    with open(path) as file:
        schema = json.load(file)
    next(item for item in schema["sections"][0]["items"] if item["id"] == "port")["default"] = default
    with open(path, "w") as file:
        json.dump(schema, file)


def test_schema_reload_streams_changes_with_cause_schema(daemon_factory):
    daemon, modules = daemon_with_own_modules(daemon_factory)
    with reference_proxy(daemon) as watcher:
        stream = watcher.Watch(keys=["network"], _more=True)
        ready = until_ready(stream)[-1]
        path = os.path.join(modules, "network.json")
        with open(path) as file:
            schema = json.load(file)
        proxy = schema["sections"][0]["items"]
        next(item for item in proxy if item["id"] == "port")["default"] = 3200
        proxy[:] = [item for item in proxy if item["id"] != "autoconfig-url"]
        proxy.append({"id": "extra", "title": "Extra", "type": "int", "default": 7, "summary": "Added on reload"})
        with open(path, "w") as file:
            json.dump(schema, file)
        daemon.process.send_signal(signal.SIGHUP)
        events = {event["key"]: event for event in (next_event(stream) for _ in range(3))}
    assert set(events) == {PORT, "network.proxy.autoconfig-url", "network.proxy.extra"}, events
    assert all(event["event"] == "change" and event["cause"] == "schema" for event in events.values()), events
    assert len({event["revision"] for event in events.values()}) == 1, "one reload, one revision"
    assert not {"uid", "pid", "remoteRevision"} & set().union(*events.values()), events
    port = events[PORT]
    assert (port["old"], port["oldLayer"], port["value"], port["display"], port["layer"]) == (
        3128, "default", 3200, "3200", "default"), port
    removed = events["network.proxy.autoconfig-url"]
    assert removed["old"] == "" and not {"value", "display", "layer"} & set(removed), removed
    added = events["network.proxy.extra"]
    assert added["value"] == 7 and added["layer"] == "default" and not {"old", "oldLayer"} & set(added), added
    # The same changes again from the history, after the ready cursor.
    with reference_proxy(daemon) as watcher:
        resumed = until_ready(watcher.Watch(keys=["network"], after=ready["cursor"], _more=True))
        assert {event["key"]: event for event in resumed[:-1]} == events


def test_schema_changed_while_stopped_reaches_a_resumed_watcher(daemon_factory):
    """A package upgrade changes a default, and removes a module, while the daemon is stopped: a watcher that
    resumes after its cursor hears of it (the applier follows so), as it would of a reload."""
    daemon, modules = daemon_with_own_modules(daemon_factory)
    with reference_proxy(daemon) as watcher:
        network = until_ready(watcher.Watch(keys=["network"], _more=True))[-1]["cursor"]
    with reference_proxy(daemon) as watcher:
        everything = until_ready(watcher.Watch(keys=[], _more=True))[-1]["cursor"]
    with reference_proxy(daemon) as watcher:
        power = until_ready(watcher.Watch(keys=["power", "network.proxy.mode"], _more=True))[-1]["cursor"]
    daemon.stop_and_check()
    change_port_default(modules, 3200)
    os.remove(os.path.join(modules, "power.json"))
    daemon.start()
    with reference_proxy(daemon) as watcher:
        events = until_ready(watcher.Watch(keys=["network"], after=network, _more=True))
    assert [change_summary(event) for event in events[:-1]] == [
        ("change", PORT, 3128, 3200, events[0]["revision"])], events
    assert events[0]["cause"] == "schema", events[0]
    with reference_proxy(daemon) as watcher:
        events = until_ready(watcher.Watch(keys=[], after=everything, _more=True))
    assert events[0]["event"] == "resync" and "module power" in events[0]["reason"], events[0]
    assert not any(event.get("key", "").startswith("power.") for event in events), events
    # A watch naming the module removed hears of each key's removal, as after a reload; the other key goes on.
    with reference_proxy(daemon) as watcher:
        events = until_ready(watcher.Watch(keys=["power", "network.proxy.mode"], after=power, _more=True))
    removed = events[:-1]
    assert removed and all(event["event"] == "change" and event["cause"] == "schema" for event in removed), events
    assert all(event["key"].startswith("power.") and "old" in event and "value" not in event
               for event in removed), events
    assert "power:" in events[-1]["cursor"], events[-1]
    # A key the removed module's history never names, or a module never stored, is refused as for a module served.
    for keys, after, error, parameters in [
        (["power.idle.blank-aftr"], power, "io.viper.settings.NoSuchKey", {"key": "power.idle.blank-aftr"}),
        (["zzz.a.b"], "zzz:0", "io.viper.settings.NoSuchModule", {"module": "zzz"}),
    ]:
        with reference_proxy(daemon) as watcher:
            with pytest.raises(varlink.VarlinkError) as excinfo:
                next(watcher.Watch(keys=keys, after=after, _more=True))
        assert (excinfo.value.error(), excinfo.value.parameters()) == (error, parameters)
    # A restart with nothing changed tells nothing.
    daemon.stop_and_check()
    daemon.start()
    with reference_proxy(daemon) as watcher:
        events = until_ready(watcher.Watch(keys=["network"], after=events[-1]["cursor"], _more=True))
    assert [event["event"] for event in events] == ["ready"], events
    # The module back, while stopped again: each of its keys is added, after the revision of its removal.
    removal = int(next(part for part in everything.split(",") if part.startswith("power:")).split(":")[1]) + 1
    daemon.stop_and_check()
    shutil.copy(os.path.join(support.MODULES_DIR, "power.json"), os.path.join(modules, "power.json"))
    daemon.start()
    with reference_proxy(daemon) as watcher:
        events = until_ready(watcher.Watch(keys=["power"], after=f"power:{removal}", _more=True))
    added = events[:-1]
    assert added and all(event["event"] == "change" and event["cause"] == "schema" for event in added), events
    assert all("value" in event and "old" not in event for event in added), events
    assert {event["revision"] for event in added} == {removal + 1}, events


def test_schema_change_recorded_but_not_kept_is_told_once(daemon_factory):
    """A reload records its change, then keeps a copy of the new schema for the next start: a crash in between
    leaves the old copy, and the next start, comparing it again, must not tell the change a second time (a watcher
    resuming from before the reload got it twice, at two revisions)."""
    daemon, modules = daemon_with_own_modules(daemon_factory)
    kept = daemon.state_dir / "schemas" / "network.json"
    old_copy = kept.read_bytes()
    with reference_proxy(daemon) as watcher:
        stream = watcher.Watch(keys=["network"], _more=True)
        cursor = until_ready(stream)[-1]["cursor"]
        change_port_default(modules, 3200)
        daemon.process.send_signal(signal.SIGHUP)
        event = next_event(stream)
    told = ("change", PORT, 3128, 3200, event["revision"])
    assert change_summary(event) == told and event["cause"] == "schema", event
    end = time.monotonic() + DEADLINE
    while kept.read_bytes() == old_copy:  # the reload keeps the new copy after telling the change
        assert time.monotonic() < end, "the reloaded schema was never kept"
        time.sleep(0.02)  # polling interval, not a bound
    daemon.stop_and_check()
    kept.write_bytes(old_copy)  # what a crash right after the record leaves
    daemon.start()
    with reference_proxy(daemon) as watcher:
        events = until_ready(watcher.Watch(keys=["network"], after=cursor, _more=True))
    assert [change_summary(event) for event in events[:-1]] == [told], events
    assert daemon.ctl("get", PORT).stdout.strip() == "3200"


def test_reload_whose_change_cannot_be_stored_resyncs_then_is_recorded(daemon_factory):
    """A reload changes a default while the state directory cannot be written (moved away): the new default is
    served, so the module's live watchers get a resync with it; the copy kept stays the old schema, so the start
    after the directory is back records the change, and a watcher resuming from before the reload hears of it."""
    daemon, modules = daemon_with_own_modules(daemon_factory)
    away = daemon.state_dir.with_name("state-away")
    with reference_proxy(daemon) as watcher:
        stream = watcher.Watch(keys=["network"], _more=True)
        cursor = until_ready(stream)[-1]["cursor"]
        os.rename(daemon.state_dir, away)
        change_port_default(modules, 3200)
        daemon.process.send_signal(signal.SIGHUP)
        event = next_event(stream)
        assert event["event"] == "resync" and "could not be stored" in event["reason"], event
        current = until_ready(stream)
    assert [(e["key"], e["value"]) for e in current if e.get("key") == PORT] == [(PORT, 3200)], current
    daemon.stop()
    if daemon.state_dir.exists():
        shutil.rmtree(daemon.state_dir)
    os.rename(away, daemon.state_dir)
    daemon.start()
    with reference_proxy(daemon) as watcher:
        events = until_ready(watcher.Watch(keys=["network"], after=cursor, _more=True))
    assert [change_summary(event)[:4] for event in events[:-1]] == [("change", PORT, 3128, 3200)], events
    assert events[0]["cause"] == "schema", events[0]


def test_unreadable_kept_schema_resyncs_the_watchers_of_its_module(daemon_factory):
    """The copy of a module's schema kept in STATE/schemas is empty (as a crash could leave it) at a start: the
    schema the module was served with is unknown, so a watcher that resumes after its cursor gets a resync and the
    current values, not every key told as added; the other modules tell nothing, and the copy is written anew."""
    daemon = daemon_factory(start=False)
    daemon.start()
    settingsctl(daemon, "set", PORT, "9")
    with reference_proxy(daemon) as watcher:
        network = until_ready(watcher.Watch(keys=["network"], _more=True))[-1]["cursor"]
    with reference_proxy(daemon) as watcher:
        display = until_ready(watcher.Watch(keys=["display"], _more=True))[-1]["cursor"]
    daemon.stop_and_check()
    kept = daemon.state_dir / "schemas" / "network.json"
    kept.write_bytes(b"")
    daemon.start()
    with reference_proxy(daemon) as watcher:
        events = until_ready(watcher.Watch(keys=["network"], after=network, _more=True))
    assert events[0]["event"] == "resync", events
    assert not any(event["event"] == "change" for event in events), events
    current = {event["key"]: event for event in events if event["event"] == "current"}
    assert current[PORT]["value"] == 9, events
    with reference_proxy(daemon) as watcher:
        events = until_ready(watcher.Watch(keys=["display"], after=display, _more=True))
    assert [event["event"] for event in events] == ["ready"], events
    assert kept.read_bytes() == (support.MODULES_DIR / "network.json").read_bytes()


def test_schema_rejected_at_start_serves_the_module_as_last_served(daemon_factory):
    """A schema file the daemon now rejects (an unknown key) at a start: the module is served as it was last
    served, as a reload keeps the previous version; watchers hear of no removal, its values stay."""
    daemon, modules = daemon_with_own_modules(daemon_factory)
    settingsctl(daemon, "set", "display.output.scale", "1.5")
    with reference_proxy(daemon) as watcher:
        cursor = until_ready(watcher.Watch(keys=["display"], _more=True))[-1]["cursor"]
    daemon.stop_and_check()
    path = os.path.join(modules, "display.json")
    with open(path) as file:
        schema = json.load(file)
    schema["sections"][0]["items"][0]["unit"] = "x"
    with open(path, "w") as file:
        json.dump(schema, file)
    daemon.start()
    with reference_proxy(daemon) as watcher:
        events = until_ready(watcher.Watch(keys=["display"], after=cursor, _more=True))
        assert [event["event"] for event in events] == ["ready"], events
    with reference_proxy(daemon) as proxy:
        assert proxy.Get(key="display.output.scale")["item"]["value"] == 1.5


def test_schema_reload_that_adds_or_removes_a_module_is_streamed(daemon_factory):
    daemon, modules = daemon_with_own_modules(daemon_factory)
    with reference_proxy(daemon) as all_watcher, reference_proxy(daemon) as power_watcher:
        everything = all_watcher.Watch(keys=[], _more=True)
        until_ready(everything)
        power = power_watcher.Watch(keys=["power"], _more=True)
        power_keys = {event["key"] for event in until_ready(power)[:-1]}
        shutil.move(os.path.join(modules, "power.json"), os.path.join(daemon_factory.root, "power.json"))
        daemon.process.send_signal(signal.SIGHUP)
        removed = [next_event(power) for _ in power_keys]
        assert {event["key"] for event in removed} == power_keys, removed
        assert all(event["cause"] == "schema" and "value" not in event for event in removed), removed
        assert {event["key"] for event in (next_event(everything) for _ in power_keys)} == power_keys
        # Back again: each key added, to the watch of every module (whose scope still knows power).
        shutil.move(os.path.join(daemon_factory.root, "power.json"), os.path.join(modules, "power.json"))
        daemon.process.send_signal(signal.SIGHUP)
        added = [next_event(everything) for _ in power_keys]
        assert {event["key"] for event in added} == power_keys, added
        assert all(event["cause"] == "schema" and "value" in event and "old" not in event for event in added), added
        # A module it never knew: the watch of every module starts over, with it.
        with open(os.path.join(modules, "extra.json"), "w") as file:
            json.dump({"module": "extra", "title": "Extra", "sections": [{"id": "s", "title": "S", "items": [
                {"id": "a", "title": "A", "type": "int", "default": 7}]}]}, file)
        daemon.process.send_signal(signal.SIGHUP)
        restart = until_ready(everything)
        assert restart[0]["event"] == "resync" and "added module extra" in restart[0]["reason"], restart[0]
        assert {"extra.s.a", PORT} <= {event.get("key") for event in restart}, restart


# (b) Resuming after a cursor, across a restart.


def test_resume_after_cursor_across_restart(daemon):
    with reference_proxy(daemon) as watcher:
        stream = watcher.Watch(keys=["network"], _more=True)
        until_ready(stream)
        settingsctl(daemon, "set", PORT, "4000")
        seen = next_event(stream)
        assert change_summary(seen)[:4] == ("change", PORT, 3128, 4000), seen
    cursor = seen["cursor"]
    base = seen["revision"]

    # Three changes nobody watches, with a change of another module and a no-op set among them.
    with support.RawConnection(daemon.socket_path, timeout=DEADLINE) as writer:
        first_pid, _ = settingsctl(daemon, "set", PORT, "4001")
        raw_set(writer, "display.output.scale", 2.0)
        raw_set(writer, "network.proxy.mode", "manual")
        assert raw_set(writer, "network.proxy.mode", "manual")["changed"] is False
        raw_set(writer, "network.dns.cache", False)
    expected = [
        ("change", PORT, 4000, 4001, base + 1),
        ("change", "network.proxy.mode", "none", "manual", base + 2),
        ("change", "network.dns.cache", True, False, base + 3),
    ]

    daemon.stop_and_check()
    daemon.start()

    with reference_proxy(daemon) as watcher, support.RawConnection(daemon.socket_path, timeout=DEADLINE) as writer:
        stream = watcher.Watch(keys=["network"], after=cursor, _more=True)
        events = until_ready(stream)
        assert [change_summary(event) for event in events[:-1]] == expected, events
        assert events[0]["cause"] == "client" and events[0]["pid"] == first_pid, events[0]
        assert all(event["cause"] == "client" and event["uid"] == os.getuid() for event in events[:-1]), events
        cursors = [event["cursor"] for event in events]
        assert len(set(cursors[:-1])) == 3 and cursor not in cursors, cursors
        assert events[-1]["cursor"] == cursors[-2], "ready does not carry the cursor of the last change"
        # Nothing repeated after ready either: the next event is the next change.
        raw_set(writer, PORT, 4002)
        live = next_event(stream)
        assert change_summary(live) == ("change", PORT, 4001, 4002, base + 4), live

    # Resuming from the cursor of any of those events gives exactly what followed it.
    with reference_proxy(daemon) as watcher:
        events = until_ready(watcher.Watch(keys=["network"], after=cursors[0], _more=True))
        assert [change_summary(event) for event in events[:-1]] == expected[1:] + [change_summary(live)], events
        assert events[-1]["cursor"] == live["cursor"]
    with reference_proxy(daemon) as watcher:
        events = until_ready(watcher.Watch(keys=["network"], after=live["cursor"], _more=True))
        assert events == [{"event": "ready", "cursor": live["cursor"]}], events


def test_revision_without_an_effective_change_does_not_cut_the_history(daemon):
    """A set of the value already in effect stores it and moves the revision, changing no effective value: a watcher
    is told nothing of it, and one resuming from before it gets exactly the changes that followed, also after a
    restart (the history used to start over there, so every earlier cursor got a resync)."""
    with reference_proxy(daemon) as watcher, support.RawConnection(daemon.socket_path, timeout=DEADLINE) as writer:
        stream = watcher.Watch(keys=[PORT], _more=True)
        cursor = until_ready(stream)[-1]["cursor"]
        stored = raw_set(writer, PORT, 3128)  # the default, now stored as a local value: a new revision
        assert stored["item"]["layer"] == "local" and stored["item"]["value"] == 3128, stored
        raw_set(writer, PORT, 4000)
        live = next_event(stream)
        assert change_summary(live)[:4] == ("change", PORT, 3128, 4000), live
        revision = live["revision"]
    for restart in (False, True):
        if restart:
            daemon.stop_and_check()
            daemon.start()
        with reference_proxy(daemon) as watcher:
            events = until_ready(watcher.Watch(keys=[PORT], after=cursor, _more=True))
        assert [change_summary(event) for event in events[:-1]] == [("change", PORT, 3128, 4000, revision)], events
        assert events[-1]["cursor"] == live["cursor"], events


def test_resume_inside_a_record_of_several_changes(daemon):
    """Load changes three keys in one revision; a cursor taken after the first resumes with the other two."""
    with reference_proxy(daemon) as watcher, reference_proxy(daemon) as writer:
        stream = watcher.Watch(keys=["network"], _more=True)
        until_ready(stream)
        reply = writer.Load(modules={"network": {"values": {"proxy.port": 4000, "proxy.mode": "manual",
                                                             "dns.cache": False}}})
        assert reply["applied"] is True, reply
        live = [next_event(stream) for _ in range(3)]
        assert all(event["event"] == "change" for event in live), live
        assert {event["revision"] for event in live} == {live[0]["revision"]}, "one load, one revision"
        assert sorted(event["key"] for event in live) == sorted([PORT, "network.proxy.mode", "network.dns.cache"])
        assert len({event["cursor"] for event in live}) == 3, live
    with reference_proxy(daemon) as watcher:
        events = until_ready(watcher.Watch(keys=["network"], after=live[0]["cursor"], _more=True))
        assert [change_summary(event) for event in events[:-1]] == [change_summary(event) for event in live[1:]]
        assert events[-1]["cursor"] == live[-1]["cursor"]


def test_position_never_given_out_resyncs(daemon):
    """A position inside a revision at or past its last change was never printed: the history shows it, and the
    stream starts over instead of echoing the cursor back."""
    with reference_proxy(daemon) as watcher, reference_proxy(daemon) as writer:
        stream = watcher.Watch(keys=["network"], _more=True)
        until_ready(stream)
        writer.Set(key=PORT, text="4000")
        single = next_event(stream)["revision"]
        writer.Load(modules={"network": {"values": {"proxy.port": 4001, "proxy.mode": "manual"}}})
        live = [next_event(stream) for _ in range(2)]
        double = live[0]["revision"]
        assert live[0]["cursor"] == daemon.cursor(f"network:{double}.0"), live
        assert live[1]["cursor"] == daemon.cursor(f"network:{double}"), live
    # In the daemon's history, as in none (a cursor of a daemon before histories).
    for after in (f"network:{double}.1", f"network:{double}.7", daemon.cursor(f"network:{single}.0")):
        with reference_proxy(daemon) as watcher:
            events = until_ready(watcher.Watch(keys=["network"], after=after, _more=True))
            assert events[0]["event"] == "resync" and "never given out" in events[0]["reason"], (after, events)
            assert events[-1] == {"event": "ready", "cursor": daemon.cursor(f"network:{double}")}, (after, events)


def test_cursor_older_than_history_resyncs(daemon):
    with reference_proxy(daemon) as watcher, support.RawConnection(daemon.socket_path, timeout=DEADLINE) as writer:
        stream = watcher.Watch(keys=[PORT], _more=True)
        until_ready(stream)
        cursors = []
        total = HISTORY_RECORDS + 44
        for index in range(total):
            raw_set(writer, PORT, 10000 + index)
            event = next_event(stream)
            assert change_summary(event)[:4] == ("change", PORT, 3128 if index == 0 else 9999 + index, 10000 + index)
            cursors.append(event["cursor"])
    daemon.stop_and_check()
    daemon.start()
    # 200 changes back: still in the history kept on disk, exactly those 200.
    with reference_proxy(daemon) as watcher:
        events = until_ready(watcher.Watch(keys=[PORT], after=cursors[total - 201], _more=True))
        assert [event["value"] for event in events[:-1]] == [10000 + index for index in range(total - 200, total)]
    # Further back than the history reaches: resync, then the current value and ready, then live changes.
    with reference_proxy(daemon) as watcher, support.RawConnection(daemon.socket_path, timeout=DEADLINE) as writer:
        stream = watcher.Watch(keys=[PORT], after=cursors[0], _more=True)
        events = until_ready(stream)
        assert [event["event"] for event in events] == ["resync", "current", "ready"], events
        assert isinstance(events[0]["reason"], str) and events[0]["reason"], events[0]
        assert events[1]["value"] == 10000 + total - 1 and events[1]["layer"] == "local", events[1]
        raw_set(writer, PORT, 80)
        assert change_summary(next_event(stream))[:4] == ("change", PORT, 10000 + total - 1, 80)


# (c) A cursor that cannot be read.


@pytest.mark.parametrize(
    "after", ["garbage", "", "network", "network:", "network:-1", "network:x", "network:1.2.3", "network:1,network:2",
              ",", "network:1.-1",
              # Not as the daemon writes cursors: a sign, leading zeros, blanks, an id no schema has, modules out of
              # order.
              "network:+1", "network:01", "network:1.00", " network:1", "network:1 ", "network:1,display:0",
              "net work:1", "1network:1", "network:1\n"]
)
def test_unreadable_cursor_is_invalid_parameter_after(daemon, after):
    with reference_proxy(daemon) as proxy:
        with pytest.raises(varlink.VarlinkError) as excinfo:
            next(proxy.Watch(keys=["network"], after=after, _more=True))
        assert (excinfo.value.error(), excinfo.value.parameters()) == (
            "org.varlink.service.InvalidParameter", {"parameter": "after"}
        ), excinfo.value.as_dict()
        # The call ended with its error; the connection serves the next call, a Watch included.
        assert proxy.Get(key=PORT)["item"]["value"] == 3128
        events = until_ready(proxy.Watch(keys=[PORT], _more=True))
        assert [event["event"] for event in events] == ["current", "ready"]


def test_cursor_that_is_not_a_string_is_invalid_parameter_after(daemon):
    # The reference client would not send it: a raw frame.
    with support.RawConnection(daemon.socket_path, timeout=DEADLINE) as conn:
        for after in (5, ["network:0"], {"network": 0}, True):
            reply = conn.call(WATCH, {"keys": ["network"], "after": after}, more=True)
            assert reply == {"error": "org.varlink.service.InvalidParameter", "parameters": {"parameter": "after"}}, (
                after, reply)


# (d) Clients that close in the middle of a stream.


def test_clients_closing_mid_stream_do_not_hurt_the_daemon(daemon):
    """More watchers than max-connections-per-uid close mid-stream, at every stage of it: each must give its
    connection back, and the daemon keeps serving (and streaming) the others."""
    client = varlink.Client(address=daemon.address)  # one client: the interface description is fetched once
    changes = 0
    last_value = None
    try:
        with reference_proxy(daemon, client=client) as survivor, \
                support.RawConnection(daemon.socket_path, timeout=DEADLINE) as writer:
            survivor_stream = survivor.Watch(keys=[PORT], _more=True)
            until_ready(survivor_stream)
            end = time.monotonic() + DEADLINE * 2
            for index in range(MAX_CONNECTIONS_PER_UID + 22):
                stage = index % 4
                while True:
                    assert time.monotonic() < end, f"watcher {index}: no connection served in time"
                    try:
                        if stage == 0:
                            # Sends the call and closes without reading a byte.
                            with support.RawConnection(daemon.socket_path, timeout=DEADLINE) as conn:
                                conn.send_call(WATCH, {}, more=True)
                        else:
                            with reference_proxy(daemon, client=client) as proxy:
                                stream = proxy.Watch(keys=[] if stage == 1 else [PORT], _more=True)
                                if stage == 1:
                                    next_event(stream)  # one of 37 current values, then close with the rest unread
                                else:
                                    until_ready(stream)
                                    if stage == 3:
                                        # A change is on its way to this watcher when it closes.
                                        last_value = raw_set(writer, PORT, 20000 + index)["item"]["value"]
                                        changes += 1
                        break
                    except varlink.VarlinkError as error:
                        # Refused while the daemon has not yet seen earlier closes; anything else fails.
                        assert error.error() == "io.viper.settings.TooManyConnections", error.as_dict()
                    except (BrokenPipeError, ConnectionResetError):
                        pass  # refused, and the connection closed before we read the refusal
                    time.sleep(POLL)  # polling interval; the loop ends on the first served watcher
                if index % 10 == 9:
                    # Published to whatever subscriptions are left.
                    last_value = raw_set(writer, PORT, 30000 + index)["item"]["value"]
                    changes += 1
            # The watcher that stayed saw every change, in order.
            values = [next_event(survivor_stream) for _ in range(changes)]
            assert all(event["event"] == "change" for event in values), values
            assert [event["revision"] for event in values] == list(range(1, changes + 1)), values
    finally:
        client.cleanup()

    assert daemon.alive(), "the daemon exited"
    assert served_call(daemon, GET, {"key": PORT})["item"]["value"] == last_value
    with reference_proxy(daemon) as watcher, support.RawConnection(daemon.socket_path, timeout=DEADLINE) as writer:
        stream = watcher.Watch(keys=[PORT], _more=True)
        assert [event["event"] for event in until_ready(stream)] == ["current", "ready"]
        raw_set(writer, PORT, 1234)
        assert change_summary(next_event(stream))[:4] == ("change", PORT, last_value, 1234)
    assert_no_error_logged(daemon)


def test_sigterm_ends_streams_and_resume_after_restart(daemon):
    with reference_proxy(daemon) as watcher:
        stream = watcher.Watch(keys=["network"], _more=True)
        until_ready(stream)
        settingsctl(daemon, "set", PORT, "4000")
        last = next_event(stream)["cursor"]
        daemon.stop_and_check(deadline=support.STOP_DEADLINE)
        # The stream ends with the connection: the reference client sees the close, not a last reply.
        with pytest.raises((BrokenPipeError, ConnectionResetError)):
            next_event(stream)
    # Started again on the same state directory: a change, then a watcher resumes from the last cursor it had.
    daemon.start()
    settingsctl(daemon, "set", PORT, "4001")
    with reference_proxy(daemon) as watcher:
        events = until_ready(watcher.Watch(keys=["network"], after=last, _more=True))
        assert [change_summary(event)[:4] for event in events[:-1]] == [("change", PORT, 4000, 4001)], events


BIG_KEYS = 4000
BIG_DEFAULT = "v" * 200


def big_module_daemon(daemon_factory):
    """A daemon serving module `big`: BIG_KEYS strings with long defaults, whose current values (some 2 MB of
    `--json` lines) are many times what the pipe, socket and server buffers between the daemon and a watcher hold."""
    daemon = daemon_factory(start=False)
    modules = os.path.join(daemon_factory.root, "modules")
    os.makedirs(modules)
    items = [{"id": f"k{index:04}", "type": "string", "default": BIG_DEFAULT} for index in range(BIG_KEYS)]
    with open(os.path.join(modules, "big.json"), "w") as file:
        json.dump({"module": "big", "title": "Big", "sections": [{"id": "s", "title": "S", "items": items}]}, file)
    daemon.extra_args += ["--modules-dir", modules]
    daemon.start()
    return daemon


def read_lines_until(pipe, last):
    """Reads `pipe` until a complete line for which `last(line)` holds, the pipe ends or DEADLINE passes; returns
    the complete lines read."""
    end = time.monotonic() + DEADLINE
    lines, partial = [], b""
    while time.monotonic() < end:
        if not select.select([pipe], [], [], POLL)[0]:
            continue
        chunk = os.read(pipe.fileno(), 1 << 16)
        if not chunk:
            break
        *complete, partial = (partial + chunk).split(b"\n")
        lines += complete
        if any(last(line) for line in complete):
            break
    return lines


@pytest.mark.parametrize("after", [None, "big:99999"], ids=["from-start", "after-resync"])
def test_settingsctl_watch_restart_mid_current_values_prints_every_key(daemon_factory, after):
    """The daemon goes away while settingsctl watch is printing the current values (it writes to a pipe nobody
    reads, so it stalls early in them and the daemon waits for it): after the restart it asks for them again, from
    where it asked before (no cursor; or the one given, ahead of the module, which resyncs), and every key is
    printed; a `current` value's cursor is not one to resume from, as that would skip the keys not printed yet."""
    daemon = big_module_daemon(daemon_factory)
    env = {key: value for key, value in os.environ.items() if key != "VIPER_SETTINGS_SOCKET"}
    env.update({"LC_ALL": "C.UTF-8", "NO_COLOR": "1"})
    errors = open(os.path.join(daemon_factory.root, "watch.stderr"), "w+b")
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 4096)
    command = [support.executable("settingsctl"), "--socket", daemon.socket_path, "--json", "watch"]
    command += (["--after", after] if after else []) + ["big"]
    watch = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=write_end, stderr=errors)
    os.close(write_end)
    pipe = os.fdopen(read_end, "rb", buffering=0)
    try:
        # Its first current value is out; it stalls writing the next ones, long before the last one.
        lines = read_lines_until(pipe, lambda line: b'"event":"current"' in line)
        assert lines and b'"event":"current"' in lines[-1], f"settingsctl watch printed no current value: {lines}"
        daemon.kill()
        daemon.start()
        lines += read_lines_until(pipe, lambda line: b'"event":"ready"' in line)
        events = [json.loads(line) for line in lines]
        errors.seek(0)
        stderr = errors.read().decode()
        kinds = [event["event"] for event in events]
        printed = {event["key"] for event in events if event["event"] == "current"}
        missing = {f"big.s.k{index:04}" for index in range(BIG_KEYS)} - printed
        assert not missing, f"{len(missing)} keys never printed, e.g. {sorted(missing)[:3]}; stderr: {stderr}"
        # Lost before ready (one ready in all): the stream started again (some values twice, none skipped).
        assert kinds.count("ready") == 1 and kinds[-1] == "ready", f"{kinds.count('ready')} ready events: {stderr}"
        assert kinds.count("resync") == (2 if after else 0), kinds[:3]
        resumed = f"resuming after cursor {after}" if after else "starting over"
        assert f"reconnected to the settings daemon, {resumed}" in stderr, stderr
    finally:
        watch.kill()
        watch.wait()
        pipe.close()
        errors.close()


def test_half_closed_client_keeps_its_stream(daemon):
    """A client may shut down its sending side after its last call (socat does); the replies still come."""
    with support.RawConnection(daemon.socket_path, timeout=DEADLINE) as conn, \
            support.RawConnection(daemon.socket_path, timeout=DEADLINE) as writer:
        conn.send_call(WATCH, {"keys": [PORT]}, more=True)
        conn.sock.shutdown(socket.SHUT_WR)
        assert [event["event"] for event in raw_until_ready(conn)] == ["current", "ready"]
        raw_set(writer, PORT, 4000)
        reply = conn.read_reply()
        assert reply["continues"] is True and change_summary(reply["parameters"])[:4] == ("change", PORT, 3128, 4000)


# (e) A watcher that stops reading.


def test_stalled_watcher_does_not_block_writers_and_gets_a_resync(daemon):
    # More records than the backlog and the socket buffers together hold: with the default 208 KiB socket send
    # buffer about 440 change events fit in it (some 480 bytes each, with the kernel's overhead); a machine with
    # larger buffers gets more sets.
    sets = max(3000, BACKLOG_RECORDS + socket_send_buffer() // 150 + 500)
    with reference_proxy(daemon) as stalled, support.RawConnection(daemon.socket_path, timeout=DEADLINE) as writer:
        stream = stalled.Watch(keys=["network"], _more=True)
        current = until_ready(stream)
        revision = current[0]["revision"]
        # The watcher reads nothing from now on. Each set must still be answered (within DEADLINE each).
        started = time.monotonic()
        for index in range(sets):
            raw_set(writer, PORT, 1 + index)
        writers_took = time.monotonic() - started
        # Another connection is served at once too.
        assert served_call(daemon, GET, {"key": PORT})["item"]["value"] == sets

        # Now it reads: a prefix of the changes in order, then resync, the current values and ready.
        events = []
        while True:
            event = next_event(stream)
            events.append(event)
            if event["event"] != "change":
                break
        assert events[-1]["event"] == "resync", f"no resync after {len(events) - 1} changes: {events[-1]!r}"
        delivered = events[:-1]
        assert len(delivered) < sets, "every change was delivered: the watcher never fell behind"
        assert [change_summary(event)[1:] for event in delivered] == [
            (PORT, 3128 if index == 0 else index, index + 1, revision + index + 1) for index in range(len(delivered))
        ], "the changes before the resync are not the first ones in order"
        assert isinstance(events[-1]["reason"], str) and events[-1]["reason"], events[-1]
        after = until_ready(stream)
        assert [event["event"] for event in after] == ["current"] * len(NETWORK_KEYS) + ["ready"], after
        values = {event["key"]: event for event in after[:-1]}
        assert list(values) == NETWORK_KEYS
        assert (values[PORT]["value"], values[PORT]["layer"], values[PORT]["revision"]) == (
            sets, "local", revision + sets)
        # Live again: the next change follows.
        raw_set(writer, PORT, 4242)
        live = next_event(stream)
        assert change_summary(live) == ("change", PORT, sets, 4242, revision + sets + 1), live
    print(f"{sets} sets with a stalled watcher took {writers_took:.2f} s; "
          f"{len(delivered)} changes delivered before the resync")


def test_sigterm_with_a_stalled_watcher_stops_promptly(daemon):
    """A watcher whose socket is full must not hold up a graceful stop (the fixture checks status 0 and the socket
    file removed)."""
    with support.RawConnection(daemon.socket_path, timeout=DEADLINE) as stalled, \
            support.RawConnection(daemon.socket_path, timeout=DEADLINE) as writer:
        stalled.send_call(WATCH, {"keys": ["network"]}, more=True)
        for index in range(1500):
            raw_set(writer, PORT, 1 + index)
        daemon.stop_and_check(deadline=support.STOP_DEADLINE)
