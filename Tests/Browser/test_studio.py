"""The pack studio (/studio): a family writes a two-destination pack from an empty page with the box's
live checks, previews it as the TV shows it, saves it, and plays it in a new game; the token arrives
once in the studio link; a pack file goes in and out with the keys the page does not know."""

import json
import re
from pathlib import Path

from playwright.sync_api import expect

from conftest import PHONE
from test_game import join_as_player

LAPTOP = {"width": 1280, "height": 800}
WIKI = "https://en.wikipedia.org/wiki/"

# Two destinations that pass every check of the validator, as a family would write them.
VISBY = {
    "name": "Visby",
    "country": "Sweden",
    "region": "Gotland",
    "lat": "57.6348",
    "lon": "18.2948",
    "revealText": "We are in Visby, the town of roses and ruins!",
    "clues": [
        "Our trip starts in a town whose medieval wall still runs for more than three kilometres around it.",
        "In summer the town fills with people in costumes for a week of jousting and markets.",
        "Its cathedral is still in use, while the other churches inside the wall are ruins.",
        "We took the ferry from Nynäshamn and spent three hours at sea to get here.",
        "A Hanseatic town on an island in the Baltic Sea, east of the Swedish mainland.",
    ],
    "source": WIKI + "Visby",
    "followups": [
        ("Which island is the town on?", "Gotland", ""),
        ("Which week in August fills the town with knights?", "Medieval Week", "Medieval Week\nAlmedalen Week\nPride Week"),
    ],
}
KIRUNA = {
    "name": "Kiruna",
    "country": "Sweden",
    "region": "Lapland",
    "lat": "67.8558",
    "lon": "20.2253",
    "revealText": "We are in Kiruna, the town that is moving!",
    "clues": [
        "This town is being moved a few kilometres east, building by building, because the ground beneath it is sinking.",
        "Its red wooden church was once voted the most beautiful building in the country.",
        "From late May to the middle of July the sun never sets here.",
        "The space base Esrange launches research rockets from just outside the town.",
        "A mining town in Swedish Lapland, far north of the Arctic Circle.",
    ],
    "source": WIKI + "Kiruna",
    "followups": [
        ("What is mined in the hills next to the town?", "Iron ore", "Copper\nIron ore\nGold"),
        ("Which hotel near the town is rebuilt from ice every winter?", "Icehotel", ""),
    ],
}


def field(page, path):
    """The field of a JSON path, as studio.js names it (pathId)."""
    return page.locator("#f" + re.sub(r"[^A-Za-z0-9]+", "-", path).rstrip("-"))


def problem(page, path):
    return page.locator("#f" + re.sub(r"[^A-Za-z0-9]+", "-", path).rstrip("-") + "-problem")


def write_destination(page, i, d):
    at = f"$.destinations[{i}]"
    for key in ("name", "country", "region", "lat", "lon", "revealText"):
        field(page, f"{at}.{key}").fill(d[key])
    for j, text in enumerate(d["clues"]):
        field(page, f"{at}.clues[{j}].text").fill(text)
        field(page, f"{at}.clues[{j}].claims[0].statement").fill(text)
        field(page, f"{at}.clues[{j}].claims[0].sources").fill(d["source"])
    for k, (question, answer, options) in enumerate(d["followups"]):
        field(page, f"{at}.followups[{k}].question").fill(question)
        field(page, f"{at}.followups[{k}].answer").fill(answer)
        field(page, f"{at}.followups[{k}].options").fill(options)
        field(page, f"{at}.followups[{k}].sources").fill(d["source"])


def open_studio(devices, box, size=PHONE, locale="en-US"):
    token = (Path(box.data_dir) / "admin-token").read_text().strip()
    page = devices.open(size, locale=locale)
    page.goto(f"{box.url}/studio#token={token}")
    expect(page.locator("#new-empty")).to_be_visible()
    return page


def test_the_token_comes_once_in_the_link_and_a_phone_without_it_is_told_whom_to_ask(devices, box, screens):
    stranger = devices.open(PHONE)
    stranger.goto(box.url + "/studio")
    expect(stranger.locator("#no-token")).to_contain_text("Ask the person who runs the box for the studio link")
    expect(stranger.locator("#new-empty")).to_have_count(0)
    screens.shot(stranger, "phone-no-token")

    page = open_studio(devices, box)
    # The token left the address bar and stays in the page's storage: a reload keeps the studio.
    assert page.url == box.url + "/studio"
    token = (Path(box.data_dir) / "admin-token").read_text().strip()
    assert page.evaluate("localStorage.getItem('tripto.adminToken')") == token
    page.reload()
    expect(page.locator("#new-empty")).to_be_visible()

    # A token the box no longer takes is forgotten, and the page says so.
    page.evaluate("localStorage.setItem('tripto.adminToken', 'not-the-token')")
    page.reload()
    expect(page.locator("#no-token")).to_contain_text("no longer valid")
    assert page.evaluate("localStorage.getItem('tripto.adminToken')") is None


def test_a_family_writes_checks_previews_saves_and_plays_a_pack(devices, box, screens):
    page = open_studio(devices, box)
    screens.shot(page, "phone-studio-home")
    page.click("#new-empty")
    expect(page.locator("#check-status")).to_have_text(re.compile(r"^\d+ to fix$"))
    screens.shot(page, "phone-empty-pack")

    field(page, "$.title").fill("Our Sweden trip")
    expect(field(page, "$.packId")).to_have_value("our-sweden-trip")
    field(page, "$.description").fill("Two places we went to, north and south.")
    write_destination(page, 0, VISBY)
    page.click("#add-destination")
    expect(field(page, "$.destinations[1].name")).to_be_focused()
    write_destination(page, 1, KIRUNA)
    expect(page.locator("#check-status")).to_have_text("Ready to save")

    # A mistake: the place's name in a clue. The box's check puts it next to that clue, and in the list.
    clue = field(page, "$.destinations[0].clues[2].text")
    clue.fill("From the top of the wall you can see all of Visby and the sea beyond it.")
    expect(problem(page, "$.destinations[0].clues[2].text")).to_contain_text("Visby")
    expect(clue).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#check-status")).to_have_text("1 to fix")
    expect(page.locator("#check-summary h2")).to_have_text("1 thing to fix before the pack can be saved")
    expect(page.locator("#check-summary .problems li")).to_have_count(1)
    expect(page.locator("#check-summary .problems")).to_contain_text("Visby › Clue for 6 points")
    clue.scroll_into_view_if_needed()
    screens.shot(page, "phone-live-check")
    page.locator("#check-summary").scroll_into_view_if_needed()
    screens.shot(page, "phone-summary")
    # The list takes the keyboard to the field.
    page.locator("#check-summary .problems button").click()
    expect(clue).to_be_focused()
    clue.fill(VISBY["clues"][2])
    expect(problem(page, "$.destinations[0].clues[2].text")).to_be_empty()
    expect(page.locator("#check-status")).to_have_text("Ready to save")

    # The preview plays the destination as the TV shows it: clues 10 to 2, the reveal, the followups.
    page.click("#preview-0")
    tv = page.frame_locator(".tv-frame")
    expect(tv.locator("#level")).to_have_text("10 points")
    expect(tv.locator("#clue")).to_have_text(VISBY["clues"][0])
    screens.shot(page, "phone-preview-clue")
    for points, text in zip((8, 6, 4, 2), VISBY["clues"][1:]):
        page.click("#preview-next")
        expect(tv.locator("#level")).to_have_text(f"{points} points")
        expect(tv.locator("#clue")).to_have_text(text)
    page.click("#preview-next")
    expect(tv.locator("#destination")).to_have_text("Visby")
    screens.shot(page, "phone-preview-reveal")
    page.click("#preview-next")
    expect(tv.locator("#question")).to_have_text("Which island is the town on?")
    expect(tv.locator("#correct")).to_have_count(0)
    page.click("#preview-next")
    expect(tv.locator("#correct")).to_have_text("Gotland")
    page.click("#preview-next")
    expect(tv.locator(".pill")).to_have_text(["Medieval Week", "Almedalen Week", "Pride Week"])
    # The frame is the TV page at 1920×1080, scaled to the phone's width: the TV's own text sizes.
    size = tv.locator("#question").evaluate("(el) => getComputedStyle(el).fontSize")
    assert size == "75.6px", size
    screens.shot(page, "phone-preview-followup")
    page.click("#preview-next")
    expect(tv.locator("#correct")).to_have_text("Medieval Week")
    expect(page.locator("#preview-next")).to_be_disabled()
    page.click("#preview-back")

    page.click("#save")
    expect(page.locator("#toast")).to_contain_text("Saved! Our Sweden trip")
    packs = box.get_json("/v1/packs")
    assert packs[0]["packId"] == "our-sweden-trip" and packs[0]["origin"] == "box" and packs[0]["destinations"] == 2

    # The create screen lists the family's pack first; a game with it shows one of its clues.
    host = devices.open(PHONE)
    host.goto(box.url + "/")
    host.click("#create")
    expect(host.locator("#pack option").first).to_have_attribute("value", "our-sweden-trip")
    expect(host.locator("#pack option").first).to_contain_text("Our Sweden trip (EN, 2 destinations")
    host.select_option("#pack", "our-sweden-trip")
    host.select_option("#count", "2")
    host.click("#create-host")
    expect(host).to_have_url(box.url + "/host")
    join_as_player(devices.open(PHONE), host.locator("#join-url").inner_text(), "Ada")
    host.click("#start")
    host.click("#next-clue")
    expect(host.locator("#level")).to_have_text("10 points")
    expect(host.locator(".clue-text")).to_have_text(re.compile("^(" + "|".join(re.escape(d["clues"][0]) for d in (VISBY, KIRUNA)) + ")$"))
    screens.shot(host, "phone-host-first-clue")

    # And the studio lists it as the box's own, to edit or delete.
    page.click("#back")
    expect(page.locator("#box-packs li")).to_have_count(1)
    expect(page.locator("#box-packs")).to_contain_text("Our Sweden trip")


def test_the_studio_on_a_laptop_in_swedish(devices, box, screens):
    page = open_studio(devices, box, LAPTOP, locale="sv-SE")
    expect(page.locator("h1")).to_have_text("Paketstudion")
    screens.shot(page, "laptop-home")
    page.click("#new-holiday")
    expect(field(page, "$.title")).to_have_value("Vår semester")
    expect(field(page, "$.packId")).to_have_value("var-semester")
    # The template leaves the facts only the family knows empty: the checks point at them at once.
    expect(problem(page, "$.destinations[0].name")).to_have_text("får inte vara tom")
    expect(problem(page, "$.destinations[0].clues[0].claims[0].sources")).not_to_be_empty()
    screens.shot(page, "laptop-template")
    problem(page, "$.destinations[0].name").scroll_into_view_if_needed()
    screens.shot(page, "laptop-template-destination")
    page.click("#preview-0")
    expect(page.frame_locator(".tv-frame").locator("#level")).to_have_text("10 poäng")
    screens.shot(page, "laptop-preview")


def test_a_pack_file_goes_in_and_out_with_the_keys_the_page_does_not_know(devices, box, screens, tmp_path):
    page = open_studio(devices, box)
    shipped = json.loads((Path(__file__).resolve().parents[2] / "packs/en-europe/pack.json").read_text())
    shipped["packId"] = "from-a-file"
    shipped["destinations"] = shipped["destinations"][:2]
    # Keys a newer box may know: they travel through the studio untouched.
    shipped["destinations"][0]["clues"][0]["claims"][0]["verification"] = {"status": "checked", "with": "the town's own page"}
    shipped["futureKey"] = {"kept": True}
    file = tmp_path / "family.json"
    file.write_text(json.dumps(shipped))
    page.set_input_files("#import-file", str(file))
    expect(field(page, "$.title")).to_have_value(shipped["title"])
    # This box does not know the key, and says so at the pack.
    expect(page.locator("#check-summary .problems")).to_contain_text("futureKey")
    field(page, "$.destinations[1].name").fill(shipped["destinations"][1]["name"] + " ")
    with page.expect_download() as download:
        page.click("#export")
    exported = json.loads(Path(download.value.path()).read_text())
    assert exported["futureKey"] == {"kept": True}
    assert exported["destinations"][0]["clues"][0]["claims"][0]["verification"]["with"] == "the town's own page"
    assert exported["destinations"][1]["name"] == shipped["destinations"][1]["name"] + " "
    exported["destinations"][1]["name"] = shipped["destinations"][1]["name"]
    assert exported == shipped

    # A shipped pack copied as a starting point: every key kept, a new id, saved on the box.
    page.click("#back")
    page.select_option("#copy-pack", "en-world")
    page.click("#copy-go")
    expect(field(page, "$.packId")).to_have_value("en-world-copy")
    expect(page.locator("#check-status")).to_have_text("Ready to save")
    page.click("#save")
    expect(page.locator("#toast")).to_contain_text("Saved!")
    original = json.loads((Path(__file__).resolve().parents[2] / "packs/en-world/pack.json").read_text())
    with open(Path(box.data_dir) / "packs/en-world-copy/pack.json") as saved_file:
        saved = json.load(saved_file)
    assert saved["title"] == original["title"] + " (copy)"
    saved["packId"], saved["title"] = original["packId"], original["title"]
    assert saved == original
