"""The page in a real browser: Debian's chromium driven by selenium through chromium-driver
(the tests skip, saying so, where either is missing). Each screen is photographed and the
picture checked to be more than a blank page."""
from __future__ import annotations

import io
import os
import shutil
import tempfile
from pathlib import Path

import pytest

import mjcore

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
SHOTS = Path(os.environ.get("MJCORE_WEB_SHOTS", Path(tempfile.gettempdir()) / "mjcore-web-shots"))


@pytest.fixture(scope="module")
def browser():
    if not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)):
        pytest.skip("Debian's chromium and chromium-driver are not installed "
                    "(apt-get install chromium chromium-driver)")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1200,1400"):
        opts.add_argument(arg)
    opts.binary_location = CHROMIUM
    driver = webdriver.Chrome(options=opts, service=Service(DRIVER))
    driver.set_script_timeout(120)
    yield driver
    driver.quit()


def wait(driver, what, timeout=60):
    return WebDriverWait(driver, timeout).until(what)


def shot(driver, name):
    """A screenshot of the page, checked not to be blank: many colours, no one colour
    covering nearly all of it."""
    from PIL import Image

    png = driver.get_screenshot_as_png()
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / f"{name}.png").write_bytes(png)
    img = Image.open(io.BytesIO(png)).convert("RGB")
    colours = img.getcolors(maxcolors=1 << 20)
    assert colours is not None
    most = max(n for n, _c in colours)
    assert len(colours) > 50, f"{name}: {len(colours)} colours, a blank page?"
    assert most < 0.97 * img.width * img.height, f"{name}: one colour covers the page"


def load(driver, web, query=""):
    driver.get("about:blank")       # a fresh page, also when only the #hash differs
    driver.get(f"http://127.0.0.1:{web.port}/{query}")
    wait(driver, lambda d: d.execute_script("return document.body.dataset.ready === '1'"))


def shown(driver, hand):
    """Wait until the page shows every answer for ``hand``."""
    wait(driver, lambda d: d.execute_script("return document.body.dataset.shown") == hand)


def pick(driver, tiles):
    """Click the picker's tile pictures for ``tiles`` ("1m", ...)."""
    for t in tiles:
        driver.find_element(
            By.CSS_SELECTOR, f"#picker button[aria-label='{_label(t)}']").click()


def _label(t):
    names = {"m": "characters", "p": "dots", "s": "bamboo"}
    if t[1] == "z":
        return ["", "East", "South", "West", "North", "White", "Green", "Red"][int(t[0])]
    return ("red 5 " if t[0] == "0" else t[0] + " ") + names[t[1]]


def test_click_a_hand_see_the_table_and_chart(browser, web):
    load(browser, web)
    hand = ["2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "2z", "2z", "3z", "4p"]
    pick(browser, hand)
    text = browser.find_element(By.ID, "hand").get_attribute("value")
    assert text == "23m4456p789s11223z"
    shown(browser, text)
    lib = mjcore.expected_values(text)
    sh = mjcore.shanten(text)
    assert f"Shanten {int(sh)}" in browser.find_element(By.ID, "shanten").text
    rows = browser.find_elements(By.CSS_SELECTOR, "#discards tbody tr")
    assert len(rows) == len(lib.discards)
    first = rows[0].find_elements(By.TAG_NAME, "td")
    best = lib.best
    assert first[0].get_attribute("data-tile") == best.tile
    assert first[4].text == f"{round(best.ev[0]):,}"
    assert first[5].text == f"{100 * best.win[0]:.2f}"
    assert first[6].text == f"{100 * best.tenpai[0]:.2f}"
    curves = browser.find_elements(By.CSS_SELECTOR, "#chart polyline.curve")
    assert curves and curves[0].get_attribute("data-tile") == best.tile
    shot(browser, "analyse")
    # sortable: by ukeire, most first
    browser.find_element(By.CSS_SELECTOR, "#discards th button[data-key='ukeire']").click()
    uk = [int(r.find_elements(By.TAG_NAME, "td")[2].text)
          for r in browser.find_elements(By.CSS_SELECTOR, "#discards tbody tr")]
    assert uk == sorted(uk, reverse=True)


def test_bad_input_is_shown_beside_its_field(browser, web):
    load(browser, web)
    box = browser.find_element(By.ID, "hand")
    box.send_keys("123m456p789s1122x")
    err = wait(browser, lambda d: d.find_element(By.ID, "err-hand").text or None)
    assert "unknown character 'x'" in err and "UNKNOWN_CHARACTER" in err
    assert box.get_attribute("aria-invalid") == "true"
    # the rest still works
    box.clear()
    box.send_keys("123m456p789s1122z")
    wait(browser, lambda d: "Waits" in d.find_element(By.ID, "waits").text)
    # a bad dora indicator is shown beside the indicators, a bad visible tile beside those
    dora, visible = browser.find_element(By.ID, "dora"), browser.find_element(By.ID, "visible")
    dora.send_keys("9x")
    err = wait(browser, lambda d: d.find_element(By.ID, "err-dora_indicators").text or None)
    assert "'x'" in err
    assert browser.find_element(By.ID, "err-visible").text == ""
    dora.clear()
    visible.send_keys("9x")
    err = wait(browser, lambda d: d.find_element(By.ID, "err-visible").text or None)
    assert "'x'" in err
    assert browser.find_element(By.ID, "err-dora_indicators").text == ""


def test_keyboard_picks_a_tile(browser, web):
    load(browser, web)
    first = browser.find_element(By.CSS_SELECTOR, "#picker button")
    first.send_keys(Keys.ENTER)
    wait(browser, lambda d: d.find_element(By.ID, "hand").get_attribute("value") == "1m")
    tab = browser.find_element(By.ID, "tab-analyse")
    tab.send_keys(Keys.ARROW_RIGHT)
    assert browser.find_element(By.ID, "view-score").is_displayed()


def test_phone_width(browser, web):
    browser.set_window_size(390, 844)
    try:
        load(browser, web, "?hand=23m456p789s11223z4p")
        shown(browser, "23m456p789s11223z4p")
        over = browser.execute_script(
            "return document.documentElement.scrollWidth - window.innerWidth")
        assert over <= 1
        shot(browser, "phone")
    finally:
        browser.set_window_size(1200, 1400)


def test_score_a_riichi_win_and_a_classical_deal(browser, web):
    load(browser, web, "#score")
    browser.find_element(By.ID, "s-go").click()
    head = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#score-out h3"))[0].text
    lib = mjcore.score("234m456p11s555z pon:777z<2", "1s")
    assert f"{lib.han} han {lib.fu} fu: {lib.points:,} points" in head
    yaku = browser.find_elements(By.CSS_SELECTOR, "#yaku tr")
    assert len(yaku) == len(lib.yaku)
    browser.find_element(By.ID, "c-go").click()
    table = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#deal tr"))
    assert len(table) == 4
    assert "Settlement:" in browser.find_element(By.ID, "classical-out").text
    shot(browser, "score")


def _review(browser, web, record, seat):
    load(browser, web, "#review")
    browser.execute_script("document.getElementById('r-text').value = arguments[0]", record)
    Select(browser.find_element(By.ID, "r-seat")).select_by_value(str(seat))
    browser.find_element(By.ID, "r-go").click()
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#r-decisions tbody tr")
         or d.find_element(By.ID, "err-record").text, timeout=120)


def test_review_a_tenhou_record(browser, web, mjlog_text):
    _review(browser, web, mjlog_text, 0)
    _status, api = web.post("review", {"record": mjlog_text, "seat": 0})
    rows = browser.find_elements(By.CSS_SELECTOR, "#r-decisions tbody tr")
    assert len(rows) == len(api["decisions"])
    assert len(browser.find_elements(By.CSS_SELECTOR, "#table .seat")) == 4
    browser.find_element(By.ID, "r-next").click()
    assert browser.find_element(By.ID, "r-action").text.startswith("2/")
    browser.find_element(By.ID, "r-costly").click()
    costly = browser.find_elements(By.CSS_SELECTOR, "#r-decisions tbody tr")
    assert len(costly) == 10
    worst = max(api["decisions"], key=lambda d: (d.get("ev") or {}).get("ev_loss") or 0)
    assert costly[0].find_elements(By.TAG_NAME, "td")[7].text == \
        f"{round(worst['ev']['ev_loss']):,}"
    costly[0].click()     # jumps to that decision's step
    assert browser.find_element(By.ID, "r-step").get_attribute("value") == str(worst["step"])
    shot(browser, "review-tenhou")


def test_review_a_bradfield_history(browser, web, mjs_text):
    _review(browser, web, mjs_text, 2)
    assert browser.find_elements(By.CSS_SELECTOR, "#r-decisions tbody tr")
    assert "mjs record" in browser.find_element(By.ID, "r-summary").text
    browser.execute_script("document.getElementById('r-step').value = 1e9;"
                           "document.getElementById('r-step').dispatchEvent(new Event('input'))")
    assert "Mah-Jong" in browser.find_element(By.ID, "r-action").text
    shot(browser, "review-bradfield")


def test_an_unreadable_record_is_one_message(browser, web):
    _review(browser, web, "not a record at all", 0)
    err = browser.find_element(By.ID, "err-record").text
    assert err.startswith("record: unknown format") and "UNKNOWN_FORMAT" in err
    assert not browser.find_element(By.ID, "review-out").is_displayed()


def test_a_token_protected_api_asks_for_the_token(browser):
    from mjcore.web.app import WebConfig

    from .conftest import Served

    served = Served(WebConfig(port=0, token="pagetoken"))
    try:
        load(browser, served, "?hand=123m456p789s1122z")
        err = wait(browser, lambda d: d.find_element(By.ID, "err-hand").text or None)
        assert "missing bearer token" in err and "UNAUTHENTICATED" in err
        box = browser.find_element(By.ID, "token")
        assert box.is_displayed()
        box.send_keys("pagetoken", Keys.TAB)      # a change event: the page asks again
        wait(browser, lambda d: "Waits" in d.find_element(By.ID, "waits").text)
        assert browser.find_element(By.ID, "err-hand").text == ""
    finally:
        served.stop()


def test_classical_rules_offer_bonus_tiles_and_no_ev(browser, web):
    load(browser, web, "?hand=123m456p789s1122z")
    shown(browser, "123m456p789s1122z")
    Select(browser.find_element(By.ID, "rules")).select_by_value("classical")
    browser.find_element(By.CSS_SELECTOR, "#picker button[aria-label='flower 1']").click()
    shown(browser, "123m456p789s1122z1f")
    want = mjcore.shanten("123m456p789s1122z1f", "classical")
    assert f"Shanten {int(want)}" in browser.find_element(By.ID, "shanten").text
    assert not browser.find_elements(By.CSS_SELECTOR, "#picker button[aria-label='red 5 dots']")
    assert not browser.find_element(By.ID, "chart-box").is_displayed()   # EV is riichi's


def test_called_melds_are_drawn_and_counted(browser, web):
    load(browser, web, "?hand=23m456p789s1z4p")
    melds = browser.find_element(By.ID, "melds")
    melds.send_keys("pon:555z<2")
    shown(browser, "23m456p789s1z4p pon:555z<2")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#hand-tiles .meld svg")) == 3
    want = mjcore.shanten("23m456p789s1z4p pon:555z<2")
    assert browser.find_element(By.ID, "shanten").text.startswith(f"Shanten {int(want)}")
    rows = browser.find_elements(By.CSS_SELECTOR, "#discards tbody tr")
    assert len(rows) == len(mjcore.expected_values("23m456p789s1z4p pon:555z<2").discards)


def test_a_scoring_error_is_shown_beside_its_field(browser, web):
    load(browser, web, "#score")
    browser.find_element(By.ID, "s-dora").send_keys("9q")
    browser.find_element(By.ID, "s-go").click()
    err = wait(browser, lambda d: d.find_element(By.ID, "err-s-dora_indicators").text or None)
    assert "unknown character 'q'" in err and "UNKNOWN_CHARACTER" in err
    assert browser.find_element(By.ID, "err-s-hand").text == ""
