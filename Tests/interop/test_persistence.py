"""Values survive a restart; the state directory holds JSON a person can read."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import varlink

import interop_support as support

GET = "io.viper.settings.Get"
SET = "io.viper.settings.Set"
PORT = "network.proxy.port"


def parse_state_file(path):
    """A NAME.json snapshot is one JSON document; a NAME.journal is one JSON object a line."""
    text = Path(path).read_text(encoding="utf-8")
    if path.suffix == ".journal":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return json.loads(text)


def module_files(state_dir, module):
    return [Path(state_dir) / f"{module}.{suffix}" for suffix in ("json", "journal")
            if (Path(state_dir) / f"{module}.{suffix}").is_file()]


def test_value_survives_restart(daemon_factory):
    first = daemon_factory("first")
    with varlink.Client(address=first.address) as client, client.open(support.INTERFACE) as settings:
        settings.Set(key=PORT, value=8080)
        settings.Set(key="updates.policy.channels", text="stable,beta")
        settings.Set(key="display.output.scale", value=1.25)
        settings.Set(key="network.dns.cache", value=False)
        settings.Set(key="network.proxy.mode", value="manual")
        settings.Reset(key="network.proxy.mode")
        revision = settings.Get(key=PORT)["revision"]
    first.stop_and_check()

    files = module_files(first.state_dir, "network")
    assert files, f"no network.json or network.journal in {sorted(os.listdir(first.state_dir))}"
    for path in files:
        parse_state_file(path)  # raises if the file is not JSON
    assert any("8080" in path.read_text() for path in files), "the new port is not in the network state files"

    second = daemon_factory("second", state_dir=first.state_dir)
    with varlink.Client(address=second.address) as client, client.open(support.INTERFACE) as settings:
        got = settings.Get(key=PORT)
        assert got["item"]["value"] == 8080
        assert got["item"]["layer"] == "local"
        assert got["revision"] == revision
        assert settings.Get(key="updates.policy.channels")["item"]["value"] == ["stable", "beta"]
        assert settings.Get(key="display.output.scale")["item"]["value"] == 1.25
        assert settings.Get(key="network.dns.cache")["item"]["value"] is False
        mode = settings.Get(key="network.proxy.mode")["item"]
        assert mode["value"] == "none" and mode["layer"] == "default"
        modules = {module["module"]: module for module in settings.ListModules()["modules"]}
        assert modules["network"]["modified"] == 2
        assert modules["locale"]["modified"] == 0


def _read_only_mounts_work():
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "--mount", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _read_only_mounts_work(), reason="needs root and unshare --mount (a read-only bind mount)")
def test_state_on_a_read_only_file_system_is_served_and_writes_refused(daemon_factory):
    """A state directory whose file system is mounted read-only (ext4's errors=remount-ro, say) is read as it is:
    the values stored are served at their revision, and writes are refused naming the cause. It used to count as
    unusable: every module served its defaults at revision 0, and the applier wrote those defaults into /etc."""
    first = daemon_factory("first")
    assert first.ctl("set", PORT, "8080").returncode == 0
    assert first.ctl("set", "network.dns.servers", "9.9.9.9").returncode == 0
    revision = first.call(GET, {"key": PORT})["parameters"]["revision"]
    first.stop_and_check()
    # The daemon alone sees the directory read-only: a bind mount of it onto itself, in a mount namespace of its own.
    state = str(first.state_dir)
    script = f'mount --bind "{state}" "{state}" && mount -o remount,ro,bind "{state}" && exec "$0" "$@"'
    second = daemon_factory(
        "second", state_dir=first.state_dir, launcher=["unshare", "--mount", "--propagation", "private", "sh", "-c", script]
    )
    got = second.call(GET, {"key": PORT})["parameters"]
    assert (got["item"]["value"], got["item"]["layer"], got["revision"]) == (8080, "local", revision)
    assert second.ctl("get", "network.dns.servers").stdout == "9.9.9.9\n"
    refused = second.ctl("set", PORT, "9090")
    assert refused.returncode == 1, refused
    assert "mounted read-only" in refused.stderr, refused.stderr
    assert second.ctl("get", PORT).stdout == "8080\n"
    assert "mounted read-only" in second.log()
    # A module without files yet (display was never written) cannot be created there either: a dry run says so too.
    dump = second.root / "display.json"
    dump.write_text(json.dumps({"modules": {"display": {"values": {"output.refresh-rate": 75}}}}))
    for args in (["load", "--dry-run", str(dump)], ["load", str(dump)]):
        refused = second.ctl(*args)
        assert refused.returncode == 1 and "mounted read-only" in refused.stderr, (args, refused)
    second.stop_and_check()


def test_awkward_strings_survive_restart(daemon_factory):
    values = {
        "network.proxy.autoconfig-url": 'http://exämple.test/"q"\\back€☃\U0001F600',
        "locale.language.fallbacks": ["1.1.1.1", "", "ünï", "a,b", '"quoted"', "x" * 300],
        "locale.keyboard.layouts": [],
    }
    first = daemon_factory("first")
    for key, value in values.items():
        reply = first.call(SET, {"key": key, "value": value})
        assert "error" not in reply, reply
    first.stop_and_check()
    second = daemon_factory("second", state_dir=first.state_dir)
    for key, value in values.items():
        assert second.call(GET, {"key": key})["parameters"]["item"]["value"] == value


def test_control_characters_are_rejected_and_nothing_is_stored(daemon_factory):
    daemon = daemon_factory()
    for value in ["line\nFAKE critical: injected", "nul\u0000byte", "tab\there"]:
        reply = daemon.call(SET, {"key": "network.proxy.autoconfig-url", "value": value})
        assert reply.get("error") == "io.viper.settings.InvalidValue", reply
        assert "control characters" in reply["parameters"]["reason"]
    assert daemon.call(GET, {"key": "network.proxy.autoconfig-url"})["parameters"]["item"]["value"] == ""


def test_reset_survives_restart(daemon_factory):
    first = daemon_factory("first")
    first.call(SET, {"key": PORT, "value": 8080})
    first.stop_and_check()
    second = daemon_factory("second", state_dir=first.state_dir)
    assert second.call("io.viper.settings.Reset", {"key": "network"})["parameters"]["changed"] is True
    second.stop_and_check()
    third = daemon_factory("third", state_dir=first.state_dir)
    assert third.call(GET, {"key": PORT})["parameters"]["item"]["value"] == 3128


def test_many_restarts_keep_every_change(daemon_factory):
    state_dir = None
    for round_number in range(3):
        daemon = daemon_factory(f"round{round_number}", state_dir=state_dir)
        state_dir = daemon.state_dir
        if round_number:
            assert daemon.call(GET, {"key": PORT})["parameters"]["item"]["value"] == 5000 + round_number - 1
        with daemon.raw() as conn:
            for value in range(40):
                conn.call(SET, {"key": "locale.keyboard.repeat-delay", "value": 100 + value + round_number})
            conn.call(SET, {"key": PORT, "value": 5000 + round_number})
        daemon.stop_and_check()
    last = daemon_factory("last", state_dir=state_dir)
    assert last.call(GET, {"key": "locale.keyboard.repeat-delay"})["parameters"]["item"]["value"] == 100 + 39 + 2


def test_state_files_are_readable_json(daemon):
    daemon.call(SET, {"key": "updates.policy.channels", "value": ["stable", "security"]})
    daemon.call(SET, {"key": "network.proxy.host", "value": "proxy.example.org"})
    daemon.stop_and_check()
    state = Path(daemon.state_dir)
    for module in ("network", "updates"):
        files = module_files(state, module)
        assert files, f"no state file for {module}: {sorted(os.listdir(state))}"
        for path in files:
            parse_state_file(path)
            text = path.read_text(encoding="utf-8")
            assert all(line.isprintable() for line in text.splitlines()), f"{path} is not plain text: {text!r}"
    text = "".join(path.read_text() for path in module_files(state, "network"))
    assert "proxy.example.org" in text


def test_unchanged_write_touches_no_file(daemon):
    daemon.call(SET, {"key": PORT, "value": 8080})
    before = support.state_files(daemon.state_dir)
    assert before, "a change was acknowledged but no state file exists"
    reply = daemon.call(SET, {"key": PORT, "value": 8080})
    assert reply["parameters"]["changed"] is False
    reply = daemon.call("io.viper.settings.Reset", {"key": "display"})
    assert reply["parameters"]["changed"] is False
    assert support.state_files(daemon.state_dir) == before


def test_change_is_on_disk_when_acknowledged(daemon):
    """A write is acknowledged only once durable: the files hold it right after the reply (no stop needed)."""
    daemon.call(SET, {"key": PORT, "value": 4242})
    text = "".join(path.read_text() for path in module_files(daemon.state_dir, "network"))
    assert "4242" in text


def test_corrupt_state_file_is_moved_aside(daemon_factory):
    root = Path(support.make_root())
    try:
        state = root / "state"
        state.mkdir()
        (state / "network.json").write_text("{ this is not json")
        daemon = daemon_factory(state_dir=state)
        assert daemon.call(GET, {"key": PORT})["parameters"]["item"]["value"] == 3128
        assert daemon.call(GET, {"key": "updates.policy.channels"})["parameters"]["item"]["value"] == ["stable"]
        # NAME.corrupt-TIMESTAMP, NAME being the module or the file name
        aside = [name for name in os.listdir(state) if name.startswith("network.") and ".corrupt-" in name]
        assert len(aside) == 1, sorted(os.listdir(state))
        assert (state / aside[0]).read_text() == "{ this is not json"
        assert daemon.call(SET, {"key": PORT, "value": 8081})["parameters"]["changed"] is True
        daemon.stop_and_check()
        again = daemon_factory("again", state_dir=state)
        assert again.call(GET, {"key": PORT})["parameters"]["item"]["value"] == 8081
    finally:
        support.remove_root(root)
