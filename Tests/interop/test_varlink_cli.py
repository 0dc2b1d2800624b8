"""The reference implementation's command-line tool, `python3 -m varlink.cli`, against the daemon.

The tool exits 0 even when the call fails (it prints the error to stderr), so the output is what is checked.
"""

import json
import subprocess
import sys

import interop_support as support


def varlink_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "varlink.cli", *args],
        capture_output=True,
        text=True,
        timeout=support.CLI_TIMEOUT,
    )


def test_cli_call_get(daemon):
    result = varlink_cli("call", f"{daemon.address}/io.viper.settings.Get", '{"key":"network.proxy.port"}')
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    reply = json.loads(result.stdout)
    assert reply["item"]["value"] == 3128
    assert reply["item"]["display"] == "3128"


def test_cli_call_set_then_get(daemon):
    result = varlink_cli(
        "call", f"{daemon.address}/io.viper.settings.Set", '{"key":"network.proxy.port","value":8080}'
    )
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert json.loads(result.stdout)["changed"] is True
    result = varlink_cli("call", f"{daemon.address}/io.viper.settings.Get", '{"key":"network.proxy.port"}')
    assert json.loads(result.stdout)["item"]["value"] == 8080


def test_cli_call_error_is_printed(daemon):
    result = varlink_cli("call", f"{daemon.address}/io.viper.settings.Get", '{"key":"network.proxy.nope"}')
    assert result.stdout == ""
    assert "io.viper.settings.NoSuchKey" in result.stderr
    assert "network.proxy.nope" in result.stderr


def test_cli_info(daemon):
    result = varlink_cli("info", daemon.address)
    assert result.returncode == 0, result.stderr
    assert "io.viper.settings" in result.stdout
    assert "org.varlink.service" in result.stdout


def test_cli_help_prints_the_idl(daemon):
    result = varlink_cli("help", f"{daemon.address}/io.viper.settings")
    assert result.returncode == 0, result.stderr
    assert result.stdout == support.IDL_FILE.read_text(encoding="utf-8") + "\n"
