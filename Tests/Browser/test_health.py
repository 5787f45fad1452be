"""A box that is not well says so on the host's page: one line above the game, in the page's
language, from GET /healthz."""

import pytest
from playwright.sync_api import expect

from conftest import PHONE
from test_game import create_as_host


@pytest.mark.box_args(["--audio-device", "hw:42,0"])
def test_the_host_sees_that_the_box_has_no_sound(devices, box, screens):
    host = devices.open(PHONE)
    create_as_host(host, box, screens, destinations="1")
    health = host.locator("#health")
    expect(health).to_have_text("No sound: the box cannot reach its sound output", timeout=20_000)
    expect(health).to_be_visible()
    screens.shot(host, "host-degraded")
    host.select_option("#lang-select", "sv")
    expect(health).to_have_text("Inget ljud: boxen når inte sin ljudutgång")


def test_a_well_box_shows_no_warning(devices, box, screens):
    host = devices.open(PHONE)
    create_as_host(host, box, screens, destinations="1")
    host.wait_for_timeout(1_000)
    expect(host.locator("#health")).to_be_hidden()
