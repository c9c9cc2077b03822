"""The status page in a real browser (Debian's chromium driven by selenium through
chromium-driver): a live three-broker cluster's page shows every broker up and the
controller; with a broker killed, the rendered page shows it down and the partitions it
held a replica of as under-replicated (highlighted rows), and back to normal once it
returns."""
from __future__ import annotations

import shutil

import pytest
from confluent_kafka.admin import AdminClient, NewTopic
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from tests.integration.cluster.harness import metadata, start_cluster, wait_until
from tests.support.ports import LOOPBACK, free_ports

pytestmark = pytest.mark.timeout(600)

TOPIC = "status-page"


@pytest.fixture
def browser():
    chromium = shutil.which("chromium")
    driver_path = shutil.which("chromedriver")
    assert chromium and driver_path, "scripts/install-deps.sh installs Debian's chromium and chromium-driver"
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _read(driver, url: str) -> dict:
    """What the rendered page says (reloaded each time)."""
    driver.get(url)
    states = {row.get_attribute("id"): row.find_element(By.CLASS_NAME, "state").text
              for row in driver.find_elements(By.CSS_SELECTOR, "#brokers tr[id^='broker-']")}
    highlighted = driver.find_elements(By.CSS_SELECTOR, "#partitions tr.urp")
    return {"states": states, "controller": driver.find_element(By.ID, "controller").text,
            "urp": int(driver.find_element(By.ID, "urp-count").text), "urp_rows": len(highlighted),
            "down": int(driver.find_element(By.ID, "brokers-down").text)}


def test_a_killed_broker_shows_as_down_and_its_partitions_as_under_replicated(zookeeper, broker_factory, browser):
    http_ports = free_ports(3)

    def factory(overrides, **kw):
        return broker_factory({**overrides, "kafpy.http.listeners": f"http://{LOOPBACK}:{http_ports[overrides['broker.id']]}"},
                              **kw)
    brokers = start_cluster(zookeeper, factory, 3)
    bootstrap = ",".join(b.bootstrap for b in brokers)
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(TOPIC, 6, 2)])[TOPIC].result(30)
    url = f"http://{LOOPBACK}:{http_ports[0]}/"

    page = wait_until(lambda: (lambda p: p if len(p["states"]) == 3 and TOPIC in browser.page_source else None)(
        _read(browser, url)), 30, "the page lists three brokers and the topic")
    assert page["states"] == {"broker-0": "up", "broker-1": "up", "broker-2": "up"}
    assert page["urp"] == 0 and page["down"] == 0
    controller = metadata(brokers[0]).controller_id
    assert page["controller"] == str(controller)

    victim = 2
    md = metadata(brokers[0])
    held = sum(1 for t in md.topics for p in t.partitions if victim in p.replica_nodes)
    assert 0 < held
    brokers[victim].kill()
    page = wait_until(lambda: (lambda p: p if p["states"].get("broker-2") == "down" and p["urp"] == held else None)(
        _read(browser, url)), 90, f"broker 2 shown down and its {held} partitions under-replicated")
    assert page["states"]["broker-0"] == "up" and page["states"]["broker-1"] == "up"
    assert page["urp_rows"] == held   # each highlighted
    brokers[victim].start()
    wait_until(lambda: (lambda p: p["states"].get("broker-2") == "up" and p["urp"] == 0)(_read(browser, url)), 120,
               "broker 2 back up and nothing under-replicated")
