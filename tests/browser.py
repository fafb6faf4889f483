"""A real browser for the page tests: Debian's chromium, driven by selenium through
Debian's chromedriver (given explicitly, so that nothing is downloaded). The tests skip,
saying why, where either is missing (`make browser` installs them as root).

Screenshots are kept as test artifacts in ``test-artifacts/`` at the repository root."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


def browser(network_log: bool = False, size: tuple[int, int] = (1280, 900)):
    """A headless chromium of ``size`` (width, height of the window); with ``network_log`` it
    records every request (:func:`requests_made`). Its console is kept (:func:`console`)."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("selenium is not installed (the dev extra)")
    if not (Path(CHROMEDRIVER).is_file() and Path(CHROMIUM).is_file()):
        pytest.skip("Debian's chromium and chromium-driver are not installed (make browser installs them)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--window-size={size[0]},{size[1]}",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", **({"performance": "ALL"} if network_log else {})})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def requests_made(driver) -> list[str]:
    """The URLs of every request the page made so far (needs ``browser(network_log=True)``)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def console(driver) -> list[str]:
    """The console's messages since the last call (errors and Content-Security-Policy
    violations included)."""
    return [f"{entry['level']}: {entry['message']}" for entry in driver.get_log("browser")]


def screenshot(driver, name: str) -> Path:
    """Keep a screenshot of the page as a test artifact (test-artifacts/NAME.png)."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    driver.save_screenshot(str(path))
    return path


def wait_for(driver, condition: str, what: str, timeout: float = 60.0):
    """Poll the script ``condition`` until it returns something true; fail naming ``what``."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = driver.execute_script(condition)
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"the page did not show {what} within {timeout} s")
