"""kafpy.http.listeners is written like Kafka's listeners."""
import pytest

from kafpy.broker.config import ConfigError, KafkaConfig
from kafpy.web.listeners import HttpListener, parse_http_listener, parse_http_listeners


def test_http_and_https_urls_parse():
    assert parse_http_listener("http://0.0.0.0:8080") == HttpListener("http", "0.0.0.0", 8080)
    assert parse_http_listener("https://:8443") == HttpListener("https", "", 8443)
    assert parse_http_listener("http://[::1]:9") == HttpListener("http", "::1", 9)
    assert parse_http_listener("HTTPS://h:1").name == "HTTPS"


@pytest.mark.parametrize("spec", ["ftp://h:1", "http://h", "http://h:99999", "h:80", "http://h:80/x"])
def test_bad_listeners_are_refused(spec):
    with pytest.raises(ValueError):
        parse_http_listener(spec)


def test_two_listeners_on_one_port_are_refused():
    with pytest.raises(ValueError, match="8080"):
        parse_http_listeners(["http://:8080", "https://:8080"])


def test_the_broker_config_checks_them_at_startup():
    assert KafkaConfig({})["kafpy.http.listeners"] == []   # off by default
    assert KafkaConfig({"kafpy.http.listeners": "http://:8080"})["kafpy.http.listeners"] == ["http://:8080"]
    with pytest.raises(ConfigError, match="kafpy.http.listeners"):
        KafkaConfig({"kafpy.http.listeners": "http://:x"})


def test_a_broker_without_the_listener_imports_no_http_library():
    import subprocess
    import sys
    code = ("import sys, kafpy.broker.broker, kafpy.broker.server, kafpy.metrics.observer; "
            "print(sorted(m for m in ('aiohttp', 'prometheus_client') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
