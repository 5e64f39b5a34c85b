"""The page in Firefox (Debian's firefox-esr), driven over WebDriver BiDi, the protocol Firefox
speaks itself (Debian packages no geckodriver): load a hand, see the library's numbers in the
table and the chart, click a tile; score a riichi win and a classical deal; review a Tenhou
record and a Bradfield history; photograph each screen. Skipped, saying so, without
firefox-esr."""
from __future__ import annotations

import base64
import io
import json
import shutil
import subprocess
import time

import pytest

import mjcore

websocket = pytest.importorskip("websocket", reason="websocket-client is not installed")
FIREFOX = shutil.which("firefox-esr") or shutil.which("firefox")


class Bidi:
    """A WebDriver BiDi session on a headless Firefox of its own."""

    def __init__(self, firefox: str, profile: str) -> None:
        self.proc = subprocess.Popen(
            [firefox, "--headless", "--no-remote", "--profile", profile,
             "--remote-debugging-port", "0", "about:blank"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert self.proc.stdout is not None
        try:
            url = None
            for line in self.proc.stdout:
                if "WebDriver BiDi listening on " in line:
                    url = line.split("listening on ")[1].strip()
                    break
            assert url, "firefox did not start its WebDriver BiDi server"
            self.ws = websocket.create_connection(url + "/session", timeout=60,
                                                  suppress_origin=True)
            self.n = 0
            self.call("session.new", {"capabilities": {}})
            self.context = self.call("browsingContext.getTree", {})["contexts"][0]["context"]
        except BaseException:
            self.proc.kill()        # no browser left behind by a failed start
            self.proc.wait(30)
            self.proc.stdout.close()
            raise

    def call(self, method: str, params: dict) -> dict:
        self.n += 1
        self.ws.send(json.dumps({"id": self.n, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.n:
                assert msg.get("type") != "error", msg
                return msg["result"]

    def js(self, expression: str):
        r = self.call("script.evaluate", {"expression": expression, "awaitPromise": True,
                                          "target": {"context": self.context}})
        assert r["type"] == "success", r
        return r["result"].get("value")

    def until(self, expression: str, timeout: float = 60):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            value = self.js(expression)
            if value:
                return value
            time.sleep(0.05)
        raise AssertionError(f"not true within {timeout} s: {expression}")

    def close(self) -> None:
        try:
            self.call("session.end", {})
        finally:
            self.ws.close()
            self.proc.terminate()
            self.proc.wait(30)
            if self.proc.stdout:
                self.proc.stdout.close()


@pytest.fixture(scope="module")
def firefox(tmp_path_factory):
    if FIREFOX is None:
        pytest.skip("Debian's firefox-esr is not installed (apt-get install firefox-esr)")
    b = Bidi(FIREFOX, str(tmp_path_factory.mktemp("firefox-profile")))
    yield b
    b.close()


def _photograph(firefox: Bidi, name: str) -> None:
    """A screenshot of the page, saved beside Chromium's and checked not blank."""
    from PIL import Image

    from .test_browser import SHOTS

    shot = firefox.call("browsingContext.captureScreenshot", {"context": firefox.context})
    png = base64.b64decode(shot["data"])
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / f"{name}-firefox.png").write_bytes(png)
    img = Image.open(io.BytesIO(png)).convert("RGB")
    colours = img.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50, name
    most = max(n for n, _ in colours)
    assert most < 0.97 * img.width * img.height, f"{name}: one colour covers the page"


def _load(firefox: Bidi, web, query: str = "") -> None:
    firefox.call("browsingContext.navigate", {"context": firefox.context, "wait": "complete",
                                              "url": "about:blank"})
    firefox.call("browsingContext.navigate", {
        "context": firefox.context, "wait": "complete",
        "url": f"http://127.0.0.1:{web.port}/{query}"})
    firefox.until("document.body.dataset.ready === '1'")


def test_the_analyser_in_firefox(firefox, web):
    from PIL import Image

    hand = "23m456p789s11223z4p"
    firefox.call("browsingContext.navigate", {
        "context": firefox.context, "wait": "complete",
        "url": f"http://127.0.0.1:{web.port}/?hand={hand}"})
    firefox.until(f"document.body.dataset.shown === '{hand}'")
    lib = mjcore.expected_values(hand)
    rows = json.loads(firefox.js("JSON.stringify([...document.querySelectorAll("
                                 "'#discards tbody tr')].map(r => [r.cells[0].dataset.tile, "
                                 "r.cells[4].textContent]))"))
    assert len(rows) == len(lib.discards)
    assert rows[0] == [lib.best.tile, f"{round(lib.best.ev[0]):,}"]
    assert firefox.js("document.querySelectorAll('#chart polyline.curve').length") >= 1
    # a click on a hand tile takes it out; the answers follow
    firefox.js("document.querySelector('#hand-tiles button').click()")
    firefox.until("document.body.dataset.shown === '3m456p789s11223z4p'")
    assert "Shanten" in firefox.js("document.getElementById('shanten').textContent")
    shot = firefox.call("browsingContext.captureScreenshot", {"context": firefox.context})
    png = base64.b64decode(shot["data"])
    from .test_browser import SHOTS

    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / "analyse-firefox.png").write_bytes(png)
    img = Image.open(io.BytesIO(png)).convert("RGB")
    colours = img.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50


def test_score_a_riichi_win_and_a_classical_deal_in_firefox(firefox, web):
    _load(firefox, web, "#score")
    firefox.js("document.getElementById('s-go').click()")
    head = firefox.until("document.querySelector('#score-out h3')?.textContent")
    lib = mjcore.score("234m456p11s555z pon:777z<2", "1s")
    assert f"{lib.han} han {lib.fu} fu: {lib.points:,} points" in head
    assert firefox.js("document.querySelectorAll('#yaku tr').length") == len(lib.yaku)
    firefox.js("document.getElementById('c-go').click()")
    firefox.until("document.querySelectorAll('#deal tr').length === 4")
    assert "Settlement:" in firefox.js("document.getElementById('classical-out').textContent")
    _photograph(firefox, "score")


def _review(firefox: Bidi, web, record: str, seat: int) -> None:
    _load(firefox, web, "#review")
    firefox.call("script.callFunction", {
        "functionDeclaration": "(text, seat) => { document.getElementById('r-text').value = "
                               "text; const s = document.getElementById('r-seat'); "
                               "s.value = seat; s.dispatchEvent(new Event('change')); "
                               "document.getElementById('r-go').click(); }",
        "arguments": [{"type": "string", "value": record},
                      {"type": "string", "value": str(seat)}],
        "awaitPromise": False, "target": {"context": firefox.context}})
    firefox.until("document.querySelectorAll('#r-decisions tbody tr').length > 0 || "
                  "document.getElementById('err-record').textContent", timeout=120)


def test_review_a_tenhou_record_in_firefox(firefox, web, mjlog_text):
    _review(firefox, web, mjlog_text, 0)
    _status, api = web.post("review", {"record": mjlog_text, "seat": 0})
    rows = firefox.js("document.querySelectorAll('#r-decisions tbody tr').length")
    assert rows == len(api["decisions"])
    assert firefox.js("document.querySelectorAll('#table .seat').length") == 4
    firefox.js("document.getElementById('r-next').click()")
    assert firefox.js("document.getElementById('r-action').textContent").startswith("2/")
    firefox.js("document.getElementById('r-costly').click()")
    assert firefox.js("document.querySelectorAll('#r-decisions tbody tr').length") == 10
    worst = max(api["decisions"], key=lambda d: (d.get("ev") or {}).get("ev_loss") or 0)
    first = firefox.js("document.querySelector('#r-decisions tbody tr').cells[7].textContent")
    assert first == f"{round(worst['ev']['ev_loss']):,}"
    # the players' Japanese names are drawn in the font the server ships, not as boxes
    firefox.until("[...document.fonts].some(f => f.family.includes('mjcore CJK') "
                  "&& f.status === 'loaded')")
    _photograph(firefox, "review-tenhou")


def test_review_a_bradfield_history_in_firefox(firefox, web, mjs_text):
    _review(firefox, web, mjs_text, 2)
    assert firefox.js("document.querySelectorAll('#r-decisions tbody tr').length") > 0
    assert "mjs record" in firefox.js("document.getElementById('r-summary').textContent")
    firefox.js("const s = document.getElementById('r-step'); s.value = 1e9; "
               "s.dispatchEvent(new Event('input'))")
    assert "Mah-Jong" in firefox.js("document.getElementById('r-action').textContent")
    _photograph(firefox, "review-bradfield")
