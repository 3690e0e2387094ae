#!/usr/bin/python3
"""Drives deckd's head unit simulator in a real headless Chromium (selenium + chromedriver) as an
author would, and prints what the page showed as one JSON object; the Swift tests assert on it
and on the runtime itself.

    simulator-drive.py tour URL SOCKET DECKCTL OUTDIR ROW_TEXT
        screenshots at each display profile, a content tab browsed, a row clicked, the live stream
        played, now playing followed when deckctl pauses, driving toggled, the volume keys pressed,
        a burst of notifications
    simulator-drive.py templates URL OUTDIR
        the UI fixture (Tests/Fixtures/ui-plugin.c): its tab bar, a detail pushed and popped, an
        alert and its action, a now-playing template and a grid
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

mode, url = sys.argv[1:3]
if mode == "tour":
    control, deckctl, outdir, row_text = sys.argv[3:7]
else:
    outdir = sys.argv[3]
PROFILES = [(748, 456), (800, 480), (768, 1024), (1920, 720)]
BURST = int(os.environ.get("DECK_SIM_BURST", "400"))  # deck-bench asks for more

options = webdriver.ChromeOptions()
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=2500,1400",
                 "--autoplay-policy=no-user-gesture-required", "--mute-audio",
                 "--user-data-dir=" + (profile := tempfile.mkdtemp(prefix="deck-chromium-"))]:
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
wait = WebDriverWait(driver, 15, poll_frequency=0.02)
found = {}


def text(selector):
    """What the element shows now (read in one script: the page redraws between two reads)."""
    return driver.execute_script("const e = document.querySelector(arguments[0]); return e ? e.innerText : null", selector)


def click(selector, starting=None):
    """Clicks (a real mouse click) the first element matching `selector` (whose text starts with
    `starting`), looked up again when a redraw replaced it between finding and clicking."""
    for _ in range(20):
        try:
            for node in driver.find_elements(By.CSS_SELECTOR, selector):
                if starting is None or node.text.startswith(starting):
                    node.click()
                    return node
        except StaleElementReferenceException:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"nothing to click at {selector} {starting or ''}")


def stats():
    return driver.execute_script("return window.deckSimulator")


def ctl(*arguments):
    return subprocess.run([deckctl, "--socket", control, *arguments], capture_output=True, text=True, timeout=20).stdout


def median(values):
    values = sorted(values)
    return values[len(values) // 2] if values else None


def tour():
    driver.get(url)
    wait.until(lambda d: text("#link") == "live" and d.find_elements(By.CSS_SELECTOR, "#body .row"))
    driver.execute_script("window.loadedOnce = true")  # gone if the page ever reloads
    found["title"] = text("#title")

    # One screenshot of the car's screen per display profile, picked in the page's own picker.
    found["screenshots"] = []
    for width, height in PROFILES:
        Select(driver.find_element(By.ID, "profile")).select_by_value(f"{width}x{height}")
        wait.until(lambda d: d.find_element(By.ID, "screen").size["width"] == width)
        time.sleep(0.2)  # images load
        path = f"{outdir}/simulator-{width}x{height}.png"
        driver.find_element(By.ID, "screen").screenshot(path)
        found["screenshots"].append(path)
    Select(driver.find_element(By.ID, "profile")).select_by_value("800x480")
    wait.until(lambda d: d.find_element(By.ID, "screen").size["width"] == 800)

    # The browse tree of a content app: a tab, then a playable item in it.
    click("#mode button", "Browse")
    click('#tabs button[data-path="1"]')
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, '#body .row[data-path^="1/"]'))
    found["browsed"] = text('#body .row[data-path^="1/"] .text > div')
    click('#body .row[data-path^="1/"]')
    wait.until(lambda d: text("#np-title") == found["browsed"])
    click("#mode button", "App")

    # A click on a row plays it; now playing follows through nowPlaying.changed.
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#body .row"))
    click("#body .row", row_text)
    wait.until(lambda d: text("#np-title") == row_text)
    found["nowPlayingTitle"] = text("#np-title")

    # The page's player plays deckd's HTTP sink: Chromium decodes the live Ogg Opus and its clock runs.
    driver.execute_script("document.querySelector('#listen audio').play()")
    wait.until(lambda d: d.execute_script("return document.querySelector('#listen audio').currentTime") > 1.0)
    found["listenedSeconds"] = driver.execute_script("return document.querySelector('#listen audio').currentTime")
    found["listenedFrom"] = driver.execute_script("return document.querySelector('#listen audio').currentSrc")
    found["sessionAfterClick"] = text("#session")

    # Paused from outside the page (deckctl): the page follows without a reload.
    ctl("pause")
    wait.until(lambda d: text("#np-state").startswith("paused"))
    found["pausedFromOutside"] = text("#np-state")
    ctl("play")
    wait.until(lambda d: text("#np-state").startswith("playing"))
    found["noReload"] = driver.execute_script("return window.loadedOnce === true")
    # At the queue's last signal, Next is greyed out, as the app enabled it no more.
    ctl("launch", "org.deck.tone", "silence")
    wait.until(lambda d: text("#np-title") == "Silence")
    found["lastSignalButtons"] = driver.execute_script(
        'return [...document.querySelectorAll("#np-buttons button")].map(b => b.dataset.command + (b.disabled ? " off" : " on"))')
    ctl("launch", "org.deck.tone", "sine-1000")  # the clicked row's signal again, which the output is judged on
    wait.until(lambda d: text("#np-title") == row_text)

    # Driving: the list is cut and the cut is marked.
    found["rowsParked"] = len(driver.find_elements(By.CSS_SELECTOR, "#body .row"))
    click("#driving")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#body .truncated"))
    driver.execute_script("document.getElementById('body').scrollTop = 1e6")  # the mark, in the screenshot
    found["rowsDriving"] = len(driver.find_elements(By.CSS_SELECTOR, "#body .row"))
    found["droppedDriving"] = int(driver.execute_script("return document.querySelector('#body .truncated').dataset.dropped"))
    found["quotaDriving"] = text("#quota")
    driver.find_element(By.ID, "screen").screenshot(f"{outdir}/simulator-driving.png")
    click("#driving")
    wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "#body .truncated"))

    # The car's volume keys step the group of what plays (media).
    level = lambda: int(driver.execute_script('return document.querySelector(\'[data-group="media"] .level\').dataset.index'))
    found["mediaBefore"] = level()
    click("#vol-down")
    wait.until(lambda d: level() == found["mediaBefore"] - 1)
    click("#vol-down")
    wait.until(lambda d: level() == found["mediaBefore"] - 2)
    found["mediaAfter"] = level()
    found["keysGroups"] = driver.execute_script('return [...document.querySelectorAll(".group.keys")].map(e => e.dataset.group)')

    # A burst of volume changes from a socket client: the page keeps up, no notification lost.
    before = stats()["events"]
    burst = "".join(json.dumps({"jsonrpc": "2.0", "id": i, "method": "volume.set",
                                "params": {"group": "navigation", "index": 20 + i % 2}}) + "\n" for i in range(BURST))
    client = socket.socket(socket.AF_UNIX)
    client.connect(control)

    def read_answers():  # a client that does not read its answers is read no further
        received = 0
        while received < BURST:
            chunk = client.recv(1 << 16)
            if not chunk:
                return
            received += chunk.count(b"\n")

    reader = threading.Thread(target=read_answers)
    reader.start()
    started = time.monotonic()
    client.sendall(burst.encode())
    wait.until(lambda d: stats()["events"] >= before + BURST)
    found["burst"] = {"events": stats()["events"] - before, "seconds": time.monotonic() - started, "gaps": stats()["gaps"]}
    reader.join()
    client.close()

    page = stats()
    found["renders"] = page["renders"]
    found["clickToScreenMs"] = {"count": len(page["clickToScreenMs"]), "p50": median(page["clickToScreenMs"])}
    found["eventToScreenMs"] = {"count": len(page["eventToScreenMs"]), "p50": median(page["eventToScreenMs"]),
                                "max": max(page["eventToScreenMs"] or [0])}
    found["pageErrors"] = [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#errors li")]
    found["consoleErrors"] = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]

def rows():
    return driver.execute_script("return [...document.querySelectorAll('#body .row .text > div:first-child')].map(e => e.innerText)")


def templates():
    driver.get(url)
    wait.until(lambda d: text("#link") == "live" and d.find_elements(By.CSS_SELECTOR, "#tabs button"))
    found["tabs"] = driver.execute_script("return [...document.querySelectorAll('#tabs button')].map(e => e.innerText)")
    found["firstTab"] = rows()
    # A row that pushes a detail, and back.
    click("#body .row", "FM4")
    wait.until(lambda d: text("#title") == "FM4")
    found["detail"] = rows()
    found["backEnabled"] = driver.execute_script("return !document.getElementById('back').disabled")
    click("#back")
    wait.until(lambda d: "FM4" in rows())
    # A row that presents an alert over the screen; one of its actions dismisses it.
    click("#body .row", "Oe1")
    wait.until(lambda d: d.execute_script("return !document.getElementById('modal').hidden"))
    found["alert"] = text("#modal .sheet")
    found["alertButtons"] = driver.execute_script("return [...document.querySelectorAll('#modal button')].map(e => e.innerText)")
    driver.find_element(By.ID, "screen").screenshot(f"{outdir}/simulator-alert.png")
    click("#modal button", "Later")
    wait.until(lambda d: d.execute_script("return document.getElementById('modal').hidden"))
    # The second tab: a row that pushes the now-playing template, another a grid.
    click("#tabs button", "Podcasts")
    wait.until(lambda d: "Episode 1" in rows())
    click("#body .row", "Episode 1")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#body .nowplaying"))
    found["nowPlayingTemplate"] = text("#body .nowplaying")
    click("#back")
    wait.until(lambda d: "Episode 2" in rows())
    click("#body .row", "Episode 2")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#body .grid"))
    found["grid"] = driver.execute_script("return [...document.querySelectorAll('#body .grid button')].map(e => e.innerText)")
    found["gridTitle"] = text("#title")
    driver.find_element(By.ID, "screen").screenshot(f"{outdir}/simulator-grid.png")
    found["pageErrors"] = [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#errors li")]


try:
    tour() if mode == "tour" else templates()
finally:
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)
print(json.dumps(found))
