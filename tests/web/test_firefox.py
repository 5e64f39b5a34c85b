"""The page in Firefox (Debian's firefox-esr), driven over WebDriver BiDi, the protocol Firefox
speaks itself (Debian packages no geckodriver): load a hand, see the library's numbers in the
table and the chart, click a tile, photograph it. Skipped, saying so, without firefox-esr."""
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
