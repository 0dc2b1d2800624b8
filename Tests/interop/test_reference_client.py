"""io.viper.settings and org.varlink.service through the Python reference implementation (PyPI varlink)."""

import pytest
import varlink

import interop_support as support

KEY = "network.proxy.port"


def varlink_error(excinfo):
    error = excinfo.value
    return error.error(), error.parameters()


# org.varlink.service


def test_get_info(daemon):
    with varlink.Client(address=daemon.address) as client:
        with client.open(support.SERVICE) as service:
            info = service.GetInfo()
    for field in ("vendor", "product", "version", "url"):
        assert isinstance(info[field], str), f"{field} missing or not a string: {info!r}"
    for field in ("vendor", "product", "version"):
        assert info[field], f"{field} is empty"
    assert "io.viper.settings" in info["interfaces"]
    assert "org.varlink.service" in info["interfaces"]
    assert len(info["interfaces"]) == len(set(info["interfaces"]))


def test_get_interfaces_lists_both(daemon):
    with varlink.Client(address=daemon.address) as client:
        assert set(client.get_interfaces()) >= {support.INTERFACE, support.SERVICE}


def test_interface_description_is_the_idl_file_and_parses(daemon):
    with varlink.Client(address=daemon.address) as client:
        with client.open(support.SERVICE) as service:
            description = service.GetInterfaceDescription(interface=support.INTERFACE)["description"]
    assert description == support.IDL_FILE.read_text(encoding="utf-8")
    interface = varlink.Interface(description)
    assert interface.name == support.INTERFACE
    for method in ("ListModules", "ShowModule", "Get", "Set", "Reset", "Explain"):
        interface.get_method(method)
    for error in ("NoSuchModule", "NoSuchKey", "InvalidValue", "KeyLocked", "PermissionDenied"):
        assert error in interface.members


def test_service_interface_description_parses(daemon):
    with varlink.Client(address=daemon.address) as client:
        with client.open(support.SERVICE) as service:
            description = service.GetInterfaceDescription(interface=support.SERVICE)["description"]
    interface = varlink.Interface(description)
    assert interface.name == support.SERVICE
    interface.get_method("GetInfo")
    interface.get_method("GetInterfaceDescription")


def test_interface_description_of_unknown_interface(daemon):
    with varlink.Client(address=daemon.address) as client:
        with client.open(support.SERVICE) as service:
            with pytest.raises(varlink.VarlinkError) as excinfo:
                service.GetInterfaceDescription(interface="com.example.nothing")
    assert varlink_error(excinfo) == ("org.varlink.service.InterfaceNotFound", {"interface": "com.example.nothing"})


# io.viper.settings


def test_list_modules(settings):
    modules = settings.ListModules()["modules"]
    assert sorted(module["module"] for module in modules) == support.MODULE_NAMES
    assert len(modules) == 5
    for module in modules:
        assert module["title"] and isinstance(module["description"], str)
        assert module["keys"] > 0
        assert module["modified"] == 0, f"fresh state but {module['module']} has modified keys"
        assert isinstance(module["revision"], int)
    network = next(module for module in modules if module["module"] == "network")
    assert network["keys"] == 9


def test_show_module(settings):
    module = settings.ShowModule(module="network")
    assert module["module"] == "network"
    assert module["title"] == "Network"
    assert [section["id"] for section in module["sections"]] == ["proxy", "dns"]
    proxy = module["sections"][0]
    assert [item["id"] for item in proxy["items"]] == ["mode", "host", "port", "autoconfig-url", "ignore-hosts"]
    assert proxy["items"][2]["key"] == KEY
    assert proxy["items"][2]["value"] == 3128


def test_show_unknown_module(settings):
    with pytest.raises(varlink.VarlinkError) as excinfo:
        settings.ShowModule(module="nosuchmodule")
    assert varlink_error(excinfo) == ("io.viper.settings.NoSuchModule", {"module": "nosuchmodule"})


def test_get_default(settings):
    reply = settings.Get(key=KEY)
    item = reply["item"]
    assert item["key"] == KEY
    assert item["id"] == "port"
    assert item["type"] == "int"
    assert item["value"] == 3128 and isinstance(item["value"], int)
    assert item["display"] == "3128"
    assert item["layer"] == "default"
    assert item["modified"] is False
    assert item["locked"] is False
    assert item["default"] == 3128
    assert item["defaultDisplay"] == "3128"
    assert item["constraint"] == "1..65535"
    assert isinstance(reply["revision"], int)


@pytest.mark.parametrize(
    "key, value",
    [
        ("network.dns.cache", True),
        ("network.dns.timeout", 5.0),
        ("network.proxy.mode", "none"),
        ("network.proxy.ignore-hosts", ["localhost", "127.0.0.0/8", "::1"]),
        ("updates.policy.channels", ["stable"]),
        ("display.output.scale", 1.0),
    ],
)
def test_get_defaults_of_every_type(settings, key, value):
    item = settings.Get(key=key)["item"]
    assert item["value"] == value
    assert type(item["value"]) is type(value)
    assert item["layer"] == "default"


def test_set_typed_then_get(settings):
    before = settings.Get(key=KEY)["revision"]
    reply = settings.Set(key=KEY, value=8080)
    assert reply["changed"] is True
    assert reply["item"]["value"] == 8080
    assert reply["item"]["display"] == "8080"
    assert reply["item"]["layer"] == "local"
    assert reply["item"]["modified"] is True
    assert reply["previous"]["value"] == 3128
    assert reply["revision"] == before + 1
    got = settings.Get(key=KEY)
    assert got["item"]["value"] == 8080
    assert got["item"]["display"] == "8080"
    assert got["revision"] == reply["revision"]


def test_set_same_value_changes_nothing(settings):
    first = settings.Set(key=KEY, value=8080)
    second = settings.Set(key=KEY, value=8080)
    assert second["changed"] is False
    assert second["revision"] == first["revision"]
    assert second["item"]["value"] == 8080


def test_set_text_strings(settings):
    reply = settings.Set(key="updates.policy.channels", text="stable,beta")
    assert reply["item"]["value"] == ["stable", "beta"]
    assert settings.Get(key="updates.policy.channels")["item"]["value"] == ["stable", "beta"]


def test_set_text_json_array(settings):
    reply = settings.Set(key="updates.policy.channels", text='["security", "stable"]')
    assert reply["item"]["value"] == ["security", "stable"]


@pytest.mark.parametrize(
    "key, text, value",
    [
        (KEY, "8080", 8080),
        ("network.dns.cache", "false", False),
        ("display.output.scale", "1.25", 1.25),
        ("network.proxy.mode", "manual", "manual"),
    ],
)
def test_set_text_is_read_by_type(settings, key, text, value):
    reply = settings.Set(key=key, text=text)
    assert reply["item"]["value"] == value
    assert type(reply["item"]["value"]) is type(value)


def test_set_typed_double_and_bool(settings):
    assert settings.Set(key="display.output.scale", value=2.5)["item"]["value"] == 2.5
    assert settings.Set(key="display.night-light.enabled", value=True)["item"]["value"] is True


def test_set_unicode_string_round_trips(settings):
    url = 'http://exämple.test/prøxy "€" \\ ☃.pac'
    settings.Set(key="network.proxy.autoconfig-url", value=url)
    assert settings.Get(key="network.proxy.autoconfig-url")["item"]["value"] == url


def test_set_out_of_range(settings):
    with pytest.raises(varlink.VarlinkError) as excinfo:
        settings.Set(key=KEY, value=70000)
    name, parameters = varlink_error(excinfo)
    assert name == "io.viper.settings.InvalidValue"
    assert parameters["key"] == KEY
    assert "70000" in parameters["value"]
    assert isinstance(parameters["reason"], str) and parameters["reason"]
    assert settings.Get(key=KEY)["item"]["value"] == 3128


@pytest.mark.parametrize(
    "key, kwargs",
    [
        (KEY, {"value": 0}),
        (KEY, {"value": "8080"}),
        (KEY, {"value": True}),
        (KEY, {"value": 2**63}),
        (KEY, {"text": "eighty"}),
        (KEY, {"text": ""}),
        ("network.proxy.mode", {"value": "sometimes"}),
        ("network.proxy.host", {"value": "not a host!"}),
        ("updates.policy.channels", {"value": [1, 2]}),
        ("updates.policy.channels", {"value": "stable"}),
        ("display.output.scale", {"value": 9.5}),
        ("network.dns.cache", {"text": "maybe"}),
    ],
)
def test_set_invalid_values(settings, key, kwargs):
    with pytest.raises(varlink.VarlinkError) as excinfo:
        settings.Set(key=key, **kwargs)
    name, parameters = varlink_error(excinfo)
    assert name == "io.viper.settings.InvalidValue", (name, parameters)
    assert parameters["key"] == key
    assert isinstance(parameters["value"], str)
    assert parameters["reason"]


def test_set_without_value_or_text(settings):
    with pytest.raises(varlink.VarlinkError) as excinfo:
        settings.Set(key=KEY)
    name, parameters = varlink_error(excinfo)
    assert name == "org.varlink.service.InvalidParameter"
    assert parameters["parameter"] in ("value", "text")


@pytest.mark.parametrize("method", ["Get", "Explain"])
@pytest.mark.parametrize("key", ["network.proxy.nope", "network.nosection.port", "nosuchmodule.a.b", "network"])
def test_unknown_key(settings, method, key):
    with pytest.raises(varlink.VarlinkError) as excinfo:
        getattr(settings, method)(key=key)
    name, parameters = varlink_error(excinfo)
    assert name in ("io.viper.settings.NoSuchKey", "io.viper.settings.NoSuchModule")
    if key.startswith("network"):
        assert (name, parameters) == ("io.viper.settings.NoSuchKey", {"key": key})


def test_set_unknown_key(settings):
    with pytest.raises(varlink.VarlinkError) as excinfo:
        settings.Set(key="network.proxy.nope", value=1)
    assert varlink_error(excinfo) == ("io.viper.settings.NoSuchKey", {"key": "network.proxy.nope"})


def test_explain_default(settings):
    reply = settings.Explain(key=KEY)
    layers = reply["layers"]
    assert len(layers) == 4
    assert [layer["layer"] for layer in layers] == ["default", "recommended", "local", "mandatory"]
    assert layers[0]["present"] is True and layers[0]["value"] == 3128 and layers[0]["display"] == "3128"
    assert all(layer["present"] is False for layer in layers[1:])
    assert all(isinstance(layer["source"], str) for layer in layers)
    assert layers[0]["source"]
    assert reply["winner"] == "default"
    assert reply["item"]["value"] == 3128


def test_explain_after_set(settings):
    settings.Set(key=KEY, value=8080)
    reply = settings.Explain(key=KEY)
    layers = {layer["layer"]: layer for layer in reply["layers"]}
    assert len(reply["layers"]) == 4
    assert layers["local"]["present"] is True and layers["local"]["value"] == 8080
    assert layers["default"]["value"] == 3128
    assert reply["winner"] == "local"


def test_reset_key(settings):
    settings.Set(key=KEY, value=8080)
    reply = settings.Reset(key=KEY)
    assert reply["changed"] is True
    assert [item["key"] for item in reply["items"]] == [KEY]
    assert reply["items"][0]["value"] == 3128
    item = settings.Get(key=KEY)["item"]
    assert item["value"] == 3128 and item["layer"] == "default" and item["modified"] is False
    assert settings.Reset(key=KEY)["changed"] is False


def test_reset_module(settings):
    settings.Set(key=KEY, value=8080)
    settings.Set(key="network.dns.cache", value=False)
    settings.Set(key="updates.policy.automatic", value=False)
    reply = settings.Reset(key="network")
    assert reply["changed"] is True
    keys = {item["key"]: item for item in reply["items"]}
    assert keys[KEY]["value"] == 3128
    assert keys["network.dns.cache"]["value"] is True
    assert settings.Get(key=KEY)["item"]["value"] == 3128
    assert settings.Get(key="updates.policy.automatic")["item"]["value"] is False, "reset of network touched updates"
    modules = {module["module"]: module for module in settings.ListModules()["modules"]}
    assert modules["network"]["modified"] == 0
    assert modules["updates"]["modified"] == 1


def test_reset_unknown(settings):
    with pytest.raises(varlink.VarlinkError) as excinfo:
        settings.Reset(key="nosuchmodule")
    assert excinfo.value.error() in ("io.viper.settings.NoSuchModule", "io.viper.settings.NoSuchKey")


def test_list_modules_counts_modified_and_revision(settings):
    before = {module["module"]: module for module in settings.ListModules()["modules"]}
    settings.Set(key=KEY, value=8080)
    settings.Set(key="network.proxy.mode", value="manual")
    after = {module["module"]: module for module in settings.ListModules()["modules"]}
    assert after["network"]["modified"] == 2
    assert after["network"]["revision"] == before["network"]["revision"] + 2
    assert after["display"]["revision"] == before["display"]["revision"]


def test_connection_serves_many_calls(settings):
    for port in range(1000, 1020):
        assert settings.Set(key=KEY, value=port)["item"]["value"] == port
    assert settings.Get(key=KEY)["item"]["value"] == 1019
