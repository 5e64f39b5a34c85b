"""The web analyser (issue 27): API latency at 1 and 8 clients, and the page's time to its first
result after a click.

    .venv/bin/python benchmarks/bench_web.py [--requests 400] [--clicks 10] [--no-browser]

The server is ``mjcore web`` in its own process (its defaults: 2 worker threads, 8 calls in
flight); the clients are threads of this process, each on one keep-alive HTTP/1.1 connection,
sending ``--requests`` calls in all (split among them). Reported: the median, 90th and 99th
percentile latency per call, the calls per second, and how many a full server refused (503).
The page: headless Debian chromium (selenium) clicks the 14th tile of a hand and waits until the
page shows every answer (analysis, then expected values); the time from the click to that, in
the page's own clock, median of ``--clicks``, with and without the expected values.
"""
from __future__ import annotations

import argparse
import http.client
import json
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CALLS = {
    "analyze (14 tiles)": ("/api/v1/analyze", {"hand": "23m456p789s11223z4p"}),
    "ev, 1-shanten (14 tiles)": ("/api/v1/ev", {"hand": "23m456p789s11223z4p",
                                                "dora_indicators": "1m"}),
}


def start_server() -> tuple[subprocess.Popen, int]:
    # the 8 clients stand for 8 client hosts: loopback is one host, whose share of the calls in
    # progress (max_in_flight_per_host, 2 by default) would refuse 6 of them
    proc = subprocess.Popen([sys.executable, "-m", "mjcore.cli", "web", "--port", "0",
                             "--max-in-flight-per-host", "8"],
                            cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if "http://" not in line:
        raise SystemExit(f"mjcore web did not start: {line!r}")
    return proc, int(line.split("http://127.0.0.1:")[1].split("/")[0])


def run_clients(port: int, path: str, body: dict, clients: int, total: int
                ) -> tuple[list[float], int, float]:
    data = json.dumps(body).encode()
    lat: list[float] = []
    refused = 0
    failed: list[str] = []
    lock = threading.Lock()

    def client(n: int) -> None:
        nonlocal refused
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        mine, busy = [], 0
        for _ in range(n):
            t0 = time.perf_counter()
            conn.request("POST", path, body=data, headers={"Content-Type": "application/json"})
            res = conn.getresponse()
            res.read()
            if res.status == 503:
                busy += 1
            elif res.status != 200:
                with lock:      # a thread's SystemExit would end the thread only
                    failed.append(f"{path}: HTTP {res.status}")
                break
            else:
                mine.append(time.perf_counter() - t0)
        conn.close()
        with lock:
            lat.extend(mine)
            refused += busy

    per = total // clients
    threads = [threading.Thread(target=client, args=(per,)) for _ in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failed:
        raise SystemExit(f"{len(failed)} clients failed, the first: {failed[0]}")
    return lat, refused, time.perf_counter() - t0


def api_table(port: int, total: int) -> None:
    print("| call | clients | median ms | p90 ms | p99 ms | calls/s | refused (503) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, (path, body) in CALLS.items():
        run_clients(port, path, body, 1, 20)     # warm-up
        for clients in (1, 8):
            lat, refused, wall = run_clients(port, path, body, clients, total)
            q = statistics.quantiles(lat, n=100)
            print(f"| {name} | {clients} | {1000 * statistics.median(lat):.2f} | "
                  f"{1000 * q[89]:.2f} | {1000 * q[98]:.2f} | {len(lat) / wall:,.0f} | "
                  f"{refused} |")


def review_times(port: int) -> None:
    """The review of the shipped Tenhou record used by tests/web, seat 0, with and without EV."""
    import tarfile

    archive = ROOT.parent / "shared" / "data" / "tenhou" / "mjlog.tar.xz"
    if not archive.exists():
        print(f"(no {archive}: review not timed)")
        return
    sys.path.insert(0, str(ROOT))
    from tests.web.conftest import MJLOG_MEMBER

    with tarfile.open(archive) as tar:
        f = tar.extractfile(MJLOG_MEMBER)
        assert f is not None
        record = f.read().decode()
    for ev in (False, True):
        times, size = [], 0
        for _ in range(3):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            t0 = time.perf_counter()
            conn.request("POST", "/api/v1/review", body=json.dumps(
                {"record": record, "seat": 0, "ev": ev}), headers={"Accept-Encoding": "gzip"})
            res = conn.getresponse()
            size = len(res.read())
            times.append(time.perf_counter() - t0)
            conn.close()
        print(f"review of a 10-hand Tenhou game, seat 0, {'with' if ev else 'without'} EV: "
              f"median {statistics.median(times):.2f} s, {size:,} bytes gzipped")


def page_times(port: int, clicks: int) -> None:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    opts = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1200,1400"):
        opts.add_argument(arg)
    opts.binary_location = "/usr/bin/chromium"
    d = webdriver.Chrome(options=opts, service=Service("/usr/bin/chromedriver"))
    try:
        for with_ev in (False, True):
            times = []
            for i in range(clicks):
                d.get(f"http://127.0.0.1:{port}/?hand=23m456p789s11223z")
                while d.execute_script("return document.body.dataset.shown") != \
                        "23m456p789s11223z":
                    time.sleep(0.01)
                if not with_ev:
                    d.find_element(By.ID, "use-ev").click()
                tile = ("4p", "5p", "1s", "9m", "7z")[i % 5]
                label = {"4p": "4 dots", "5p": "5 dots", "1s": "1 bamboo", "9m": "9 characters",
                         "7z": "Red"}[tile]
                button = d.find_element(By.CSS_SELECTOR, f"#picker button[aria-label='{label}']")
                t0 = d.execute_script("const t = performance.now(); arguments[0].click(); "
                                      "return t;", button)
                hand = d.find_element(By.ID, "hand").get_attribute("value")
                while d.execute_script("return document.body.dataset.shown") != hand:
                    time.sleep(0.005)
                shown = float(d.execute_script("return document.body.dataset.shownAt"))
                times.append(shown - t0)
            print(f"page, click to every answer shown ({'with' if with_ev else 'without'} "
                  f"expected values): median {statistics.median(times):.0f} ms, "
                  f"max {max(times):.0f} ms over {clicks} clicks")
    finally:
        d.quit()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=400, help="calls per row")
    ap.add_argument("--clicks", type=int, default=10, help="clicks measured in the page")
    ap.add_argument("--no-browser", action="store_true", help="skip the page's timing")
    args = ap.parse_args()
    proc, port = start_server()
    try:
        api_table(port, args.requests)
        review_times(port)
        if not args.no_browser:
            page_times(port, args.clicks)
    finally:
        proc.terminate()
        proc.wait(30)


if __name__ == "__main__":
    main()
