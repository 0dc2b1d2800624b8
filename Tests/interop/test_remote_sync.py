"""Remote sync end to end: viper-settingsd with --remote against a real nginx (HTTP document, ETag/304) and a
real etcd (JSON gateway, watch), checked through settingsctl: layers, locks, sync, status and the on-disk cache.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.request
import base64  # noqa: E402

import pytest

import interop_support as support

NGINX = "/usr/sbin/nginx"
ETCD = "/usr/bin/etcd"


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until(predicate, deadline=10.0, what="condition"):
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.02)  # polling, bounded by the deadline
    raise AssertionError(f"timed out waiting for {what}")


def ctl(daemon, *args):
    return support.run_settingsctl(["--socket", daemon.socket_path, *args])


@pytest.fixture
def nginx(tmp_path):
    if not os.path.exists(NGINX):
        pytest.skip("nginx is not installed (scripts/setup.sh installs nginx-light)")
    www = tmp_path / "www"
    www.mkdir()
    port = free_port()
    conf = tmp_path / "nginx.conf"
    conf.write_text(f"""
daemon off; master_process off; user root; pid {tmp_path}/nginx.pid; error_log {tmp_path}/nginx-error.log;
events {{}}
http {{
  access_log {tmp_path}/access.log;
  client_body_temp_path {tmp_path}; proxy_temp_path {tmp_path}; fastcgi_temp_path {tmp_path};
  uwsgi_temp_path {tmp_path}; scgi_temp_path {tmp_path};
  server {{ listen 127.0.0.1:{port}; root {www}; }}
}}
""")
    process = subprocess.Popen([NGINX, "-c", str(conf), "-p", str(tmp_path)])
    wait_until(lambda: _tcp(port), what="nginx")
    yield {"url": f"http://127.0.0.1:{port}/settings.json", "www": www, "log": tmp_path / "access.log"}
    # One process (master_process off): killing it leaves no worker behind, serving the port after the test.
    process.kill()
    process.wait()


def _tcp(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        return True
    except OSError:
        return False


def write_document(www, revision, recommended=None, mandatory=None):
    document = {"revision": revision, "modules": {"network": {
        "recommended": recommended or {}, "mandatory": mandatory or {}}}}
    (www / "settings.json").write_text(json.dumps(document))


def test_http_layers_locks_sync_and_status(daemon_factory, nginx):
    write_document(nginx["www"], "r1", recommended={"proxy.mode": "auto"},
                   mandatory={"proxy.port": 8080, "dns.timeout": "not a number"})
    daemon = daemon_factory(extra_args=["--remote", nginx["url"]])
    wait_until(lambda: ctl(daemon, "get", "network.proxy.port").stdout == "8080\n", what="the remote values")
    assert ctl(daemon, "get", "network.proxy.mode").stdout == "auto\n"
    assert ctl(daemon, "get", "network.dns.timeout").stdout == "5.0\n", "an invalid remote value is rejected alone"

    locked = ctl(daemon, "set", "network.proxy.port", "1")
    assert locked.returncode == 6, locked
    assert "locked" in locked.stderr and "network.proxy.port" in locked.stderr
    # Locked, but with no local value to keep: nothing to reset, not a refusal.
    unchanged = ctl(daemon, "reset", "network.proxy.port")
    assert unchanged.returncode == 0, unchanged
    assert "unchanged, no local value (8080)" in unchanged.stdout, unchanged

    explain = json.loads(ctl(daemon, "--json", "explain", "network.proxy.port").stdout)
    assert explain["winner"] == "mandatory"
    assert explain["remoteRevision"] == "r1"

    # The status is recorded just after the values are applied.
    wait_until(lambda: json.loads(ctl(daemon, "--json", "status").stdout)["sync"]["state"] == "ok",
               what="state ok in status")
    status = json.loads(ctl(daemon, "--json", "status").stdout)["sync"]
    assert status["source"] == nginx["url"] and status["revision"] == "r1"
    assert any(entry.startswith("network.dns.timeout") for entry in status["rejected"])

    # Unchanged: nginx answers 304 to the conditional GET.
    assert ctl(daemon, "sync").returncode == 0
    assert '" 304 ' in nginx["log"].read_text()

    write_document(nginx["www"], "r2", recommended={"proxy.mode": "manual"})
    # A sync within a second of the last one shares its outcome (sync-min-interval): sync until r2 is fetched.
    results = []
    wait_until(lambda: results.append(json.loads(ctl(daemon, "--json", "sync").stdout))
               or results[-1]["sync"]["revision"] == "r2", deadline=30, what="a sync that fetches r2")
    assert set(results[-1]["changedKeys"]) == {"network.proxy.mode", "network.proxy.port"}, results[-1]
    assert ctl(daemon, "get", "network.proxy.port").stdout == "3128\n", "a key removed remotely loses that layer"
    assert ctl(daemon, "set", "network.proxy.port", "1").returncode == 0, "no longer locked"

    # Locked again over its local value: a module is reset whole or not at all, and the message says the other
    # keys kept theirs.
    assert ctl(daemon, "set", "network.proxy.host", "proxy.example").returncode == 0
    write_document(nginx["www"], "r3", mandatory={"proxy.port": 8080})
    wait_until(lambda: json.loads(ctl(daemon, "--json", "sync").stdout)["sync"]["revision"] == "r3", deadline=30,
               what="a sync that fetches r3")
    whole = ctl(daemon, "reset", "network")
    assert whole.returncode == 6, whole
    assert "no key of module network was reset" in whole.stderr, whole.stderr
    assert ctl(daemon, "get", "network.proxy.host").stdout == "proxy.example\n"


def test_remote_down_at_restart_serves_the_cache(daemon_factory, nginx, tmp_path):
    write_document(nginx["www"], "r1", mandatory={"proxy.mode": "auto"})
    first = daemon_factory("first", extra_args=["--remote", nginx["url"]])
    wait_until(lambda: ctl(first, "get", "network.proxy.mode").stdout == "auto\n", what="the remote value")
    first.stop_and_check()
    dead = f"http://127.0.0.1:{free_port()}/settings.json"
    second = daemon_factory("second", state_dir=first.state_dir, extra_args=["--remote", dead])
    assert ctl(second, "get", "network.proxy.mode").stdout == "auto\n", "the cached remote layer is served"
    # The revision of the cached values is named at once, before and after the remote fails.
    assert json.loads(ctl(second, "--json", "status").stdout)["sync"]["revision"] == "r1"
    assert json.loads(ctl(second, "--json", "explain", "network.proxy.mode").stdout)["remoteRevision"] == "r1"
    # The failure is recorded, then the next attempt scheduled: wait for both.
    wait_until(lambda: (lambda sync: sync["state"] == "failing" and sync["lastError"] and sync["nextAttempt"])(
        json.loads(ctl(second, "--json", "status").stdout)["sync"]), what="the failure and the retry in status")
    text = ctl(second, "status").stdout
    assert "failing" in text and "last error" in text
    assert json.loads(ctl(second, "--json", "status").stdout)["sync"]["revision"] == "r1"


def test_remote_sync_turned_off_drops_the_fleet_values_and_lifts_its_locks(daemon_factory, nginx):
    """A daemon restarted with remote sync off no longer enforces what the fleet said: the values and locks its
    source left in the state files are dropped, with the revision moving on, instead of staying in force with no
    source to lift them (only removing NAME.remote.json by hand did)."""
    write_document(nginx["www"], "r1", recommended={"proxy.mode": "auto"}, mandatory={"proxy.port": 8088})
    first = daemon_factory("first", extra_args=["--remote", nginx["url"]])
    wait_until(lambda: ctl(first, "get", "network.proxy.port").stdout == "8088\n", what="the remote values")
    assert ctl(first, "set", "network.proxy.host", "local.example").returncode == 0
    revision = json.loads(ctl(first, "--json", "get", "network.proxy.port").stdout)["revision"]
    first.stop_and_check()
    second = daemon_factory("second", state_dir=first.state_dir, extra_args=["--remote", "off"])
    explain = json.loads(ctl(second, "--json", "explain", "network.proxy.port").stdout)
    assert explain["winner"] == "default" and not explain.get("remoteRevision"), explain
    assert ctl(second, "get", "network.proxy.mode").stdout == "none\n"
    assert ctl(second, "get", "network.proxy.host").stdout == "local.example\n", "local values stay"
    assert json.loads(ctl(second, "--json", "get", "network.proxy.port").stdout)["revision"] > revision
    assert ctl(second, "set", "network.proxy.port", "4000").returncode == 0, "no longer locked"
    assert "dropped the remote values of module network" in second.log()
    status = ctl(second, "status")
    assert status.returncode == 0 and "off" in status.stdout, status
    second.stop_and_check()
    # Once dropped, a start with sync off again changes nothing.
    third = daemon_factory("third", state_dir=first.state_dir, extra_args=["--remote", "off"])
    assert ctl(third, "get", "network.proxy.port").stdout == "4000\n"
    assert "dropped the remote values" not in third.log()


def test_concurrent_syncs_share_one_request(daemon_factory, nginx):
    write_document(nginx["www"], "r1", recommended={"proxy.mode": "auto"})
    daemon = daemon_factory(extra_args=["--remote", nginx["url"]])
    wait_until(lambda: json.loads(ctl(daemon, "--json", "status").stdout)["sync"]["state"] == "ok",
               what="state ok in status")
    before = len(nginx["log"].read_text().splitlines())
    clients = [subprocess.Popen([support.executable("settingsctl"), "--socket", daemon.socket_path, "sync"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for _ in range(50)]
    for client in clients:
        _, err = client.communicate(timeout=support.CLI_TIMEOUT)
        assert client.returncode == 0, err
    requests = len(nginx["log"].read_text().splitlines()) - before
    # A sync joins the one in progress or takes the outcome of one that ended within the last second.
    assert 1 <= requests <= 5, f"{requests} requests for 50 concurrent syncs"


def test_sync_without_remote_is_a_clear_error(daemon):
    result = ctl(daemon, "sync")
    assert result.returncode == 1
    assert "no remote is configured" in result.stderr
    assert "remote sync: off" in ctl(daemon, "status").stdout


class HangingFleetServer:
    """An HTTP server on loopback that answers the first request with a fleet document, then accepts every later
    connection, reads its request and never answers (a server that hangs); it counts the requests it read."""

    def __init__(self, document):
        self.document = json.dumps(document).encode()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/settings.json"
        self.lock = threading.Lock()
        self.requests = 0
        self.held = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection):
        request = b""
        while b"\r\n\r\n" not in request:
            chunk = connection.recv(4096)
            if not chunk:
                connection.close()
                return
            request += chunk
        with self.lock:
            self.requests += 1
            first = self.requests == 1
            if not first:
                self.held.append(connection)
        if first:
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                               + f"Content-Length: {len(self.document)}\r\n\r\n".encode() + self.document)
            connection.close()

    def close(self):
        self.listener.close()
        with self.lock:
            for connection in self.held:
                connection.close()


@pytest.mark.parametrize("output", ["plain", "json"])
def test_sync_cut_short_by_a_stopping_daemon_fails(daemon_factory, output):
    """A sync whose fetch is under way when the daemon stops is an error (exit 3) saying it did not finish, not the
    status of the fetch before it with exit 0."""
    server = HangingFleetServer({"revision": "r1", "modules": {"network": {"recommended": {"proxy.mode": "auto"}}}})
    try:
        daemon = daemon_factory(extra_args=["--remote", server.url])
        wait_until(lambda: json.loads(ctl(daemon, "--json", "status").stdout)["sync"]["state"] == "ok",
                   what="the first fetch")
        flags = ["--json"] if output == "json" else []
        sync = subprocess.Popen([support.executable("settingsctl"), "--socket", daemon.socket_path, *flags, "sync"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # The next poll is a minute away: the second request is the sync's, held by the server.
        wait_until(lambda: server.requests >= 2, deadline=30, what="the sync's request at the server")
        assert daemon.stop() == 0
        out, err = sync.communicate(timeout=support.CLI_TIMEOUT)
    finally:
        server.close()
    assert sync.returncode == 3, (out, err)
    assert out == ""
    if output == "json":
        failure = json.loads(err)
        assert failure["error"] == "io.viper.settings.SyncInterrupted", failure
        assert failure["exitStatus"] == 3
        assert failure["parameters"]["reason"].startswith("the daemon is stopping"), failure
    else:
        assert err.startswith("settingsctl: sync did not finish: the daemon is stopping"), err
        assert "nothing was synced" in err


@pytest.fixture
def etcd(tmp_path):
    if not os.path.exists(ETCD):
        pytest.skip("etcd is not installed (scripts/setup.sh installs etcd-server)")
    client, peer = free_port(), free_port()
    process = subprocess.Popen(
        [ETCD, "--name", "n1", "--data-dir", str(tmp_path / "etcd"),
         "--listen-client-urls", f"http://127.0.0.1:{client}", "--advertise-client-urls", f"http://127.0.0.1:{client}",
         "--listen-peer-urls", f"http://127.0.0.1:{peer}", "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer}",
         "--initial-cluster", f"n1=http://127.0.0.1:{peer}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )

    def healthy():
        try:
            return urllib.request.urlopen(f"http://127.0.0.1:{client}/health", timeout=0.5).status == 200
        except OSError:
            return False

    wait_until(healthy, deadline=20, what="etcd")
    yield f"127.0.0.1:{client}"
    process.terminate()
    process.wait(timeout=10)


def etcd_put(endpoint, key, value):
    body = json.dumps({"key": base64.b64encode(key.encode()).decode(),
                       "value": base64.b64encode(json.dumps(value).encode()).decode()}).encode()
    urllib.request.urlopen(urllib.request.Request(f"http://{endpoint}/v3/kv/put", data=body), timeout=5).read()


def etcd_delete(endpoint, key):
    body = json.dumps({"key": base64.b64encode(key.encode()).decode()}).encode()
    urllib.request.urlopen(urllib.request.Request(f"http://{endpoint}/v3/kv/deleterange", data=body), timeout=5).read()


def test_etcd_watch_reaches_settingsctl_within_a_second(daemon_factory, etcd):
    etcd_put(etcd, "viper/network/recommended/proxy.mode", "auto")
    daemon = daemon_factory(extra_args=["--remote", f"etcd://{etcd}/viper"])
    wait_until(lambda: ctl(daemon, "get", "network.proxy.mode").stdout == "auto\n", what="the initial range")

    started = time.monotonic()
    etcd_put(etcd, "viper/network/mandatory/proxy.port", 9090)
    wait_until(lambda: ctl(daemon, "get", "network.proxy.port").stdout == "9090\n", deadline=1.0,
               what="the put through the watch")
    assert time.monotonic() - started < 1.0
    assert ctl(daemon, "set", "network.proxy.port", "1").returncode == 6, "mandatory keys lock"

    etcd_delete(etcd, "viper/network/mandatory/proxy.port")
    wait_until(lambda: ctl(daemon, "get", "network.proxy.port").stdout == "3128\n", deadline=2.0,
               what="the delete through the watch")
    status = json.loads(ctl(daemon, "--json", "status").stdout)["sync"]
    assert status["state"] == "ok" and status["source"].startswith("etcd://")


def test_reload_that_widens_a_schema_brings_a_refused_fleet_value_into_force(daemon_factory, nginx):
    """A fleet value refused under a narrowed schema comes into force when a reload accepts it, without waiting for
    the document to change: the last document is applied again at every reload."""
    daemon = daemon_factory(start=False)
    modules = os.path.join(daemon_factory.root, "modules")
    shutil.copytree(support.MODULES_DIR, modules)
    path = os.path.join(modules, "network.json")
    with open(path) as file:
        wide = json.load(file)
    narrow = json.loads(json.dumps(wide))
    port = next(item for item in narrow["sections"][0]["items"] if item["id"] == "port")
    port["range"] = [1, 5000]
    with open(path, "w") as file:
        json.dump(narrow, file)
    write_document(nginx["www"], "r1", mandatory={"proxy.port": 8080})
    daemon.extra_args += ["--modules-dir", modules, "--remote", nginx["url"]]
    daemon.start()

    def sync_status():
        return json.loads(ctl(daemon, "--json", "status").stdout)["sync"]

    wait_until(lambda: sync_status()["state"] == "ok", what="the first sync")
    assert sync_status()["rejected"] == ["network.proxy.port: value 8080: must be within 1..5000 (mandatory)"]
    assert ctl(daemon, "get", "network.proxy.port").stdout == "3128\n"
    assert ctl(daemon, "set", "network.proxy.port", "4000").returncode == 0, "not locked: the value was refused"

    with open(path, "w") as file:
        json.dump(wide, file)
    daemon.process.send_signal(signal.SIGHUP)
    wait_until(lambda: ctl(daemon, "get", "network.proxy.port").stdout == "8080\n", deadline=30,
               what="the fleet value in force after the reload")
    assert sync_status()["rejected"] == []
    assert sync_status()["mandatoryInForce"] == 1, sync_status()
    locked = ctl(daemon, "set", "network.proxy.port", "4001")
    assert locked.returncode == 6, locked


def test_remote_text_cannot_forge_a_log_line(daemon_factory, nginx):
    """A remote revision and key with a newline and a terminal escape stay inside their log lines (stderr log)."""
    forged = "FORGED notice viper-settingsd: key changed"
    document = {"revision": f"r\u001b[2J\n{forged}", "modules": {"network": {
        "recommended": {f"proxy.x\u001b[31m\n{forged}": 1, "proxy.port": 9223372036854775808}}}}
    (nginx["www"] / "settings.json").write_text(json.dumps(document))
    daemon = daemon_factory(extra_args=["--remote", nginx["url"]])
    wait_until(lambda: json.loads(ctl(daemon, "--json", "status").stdout)["sync"]["state"] == "ok",
               what="state ok in status")
    wait_until(lambda: "FORGED" in daemon.log(), what="the rejected remote values in the log")
    daemon.stop_and_check()
    log = daemon.log()
    assert not any(line.startswith("FORGED") for line in log.splitlines()), log
    assert "\x1b" not in log, "a terminal escape reached the log"
