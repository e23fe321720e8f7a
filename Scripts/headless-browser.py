#!/usr/bin/env python3
"""A headless "user" for sign-in tests, usable as the BROWSER command.

    BROWSER="python3 Scripts/headless-browser.py" <program that opens a sign-in URL>

Opens the URL (the last argument) in headless Chromium through Selenium, fills the development provider's
sign-in form (#username, #password), clicks #allow (or #deny), and waits until the browser has loaded the
loopback redirect: the authorization URL's redirect_uri (its scheme, host and port), or any URL starting with
http://127.0.0.1 when it names none. Waiting for the redirect URI's own port matters when the authorization server
itself runs on 127.0.0.1 (Conformance/). Exits 0 on success; otherwise exits 1 with a one-line reason on stderr.
Everything must finish within 90 seconds.

Environment:
    HEADLESS_BROWSER_USERNAME    user name to type (default: ada)
    HEADLESS_BROWSER_PASSWORD    password to type (default: lovelace)
    HEADLESS_BROWSER_DECISION    "allow" (default) or "deny"
    HEADLESS_BROWSER_SCREENSHOT  if set, a PNG of the final page is saved there
    HEADLESS_BROWSER_CHROMIUM    browser binary (default: /usr/bin/chromium)
    HEADLESS_BROWSER_DRIVER      driver binary (default: /usr/bin/chromedriver)

Needs Debian's chromium and chromium-driver and the selenium package (Scripts/install-test-dependencies.sh).
The driver path is passed explicitly so that Selenium Manager never tries to download a browser or driver.
"""

import os
import sys
import tempfile
import time
from urllib.parse import parse_qs, urlsplit

TOTAL_TIMEOUT = 90.0
REDIRECT_PREFIX = "http://127.0.0.1"


def redirect_prefix(url):
    """Where the loopback redirect lands: the origin of the URL's redirect_uri, else REDIRECT_PREFIX."""
    redirect = parse_qs(urlsplit(url).query).get("redirect_uri", [""])[0]
    parts = urlsplit(redirect)
    if parts.scheme == "http" and parts.hostname in ("127.0.0.1", "::1", "localhost") and parts.port:
        return f"{parts.scheme}://{parts.netloc}/"
    return REDIRECT_PREFIX


def fail(reason):
    sys.stderr.write("headless-browser: " + reason.replace("\n", " ").strip() + "\n")
    sys.stderr.flush()
    return 1


def main(argv):
    started = time.monotonic()

    def remaining():
        return max(0.5, TOTAL_TIMEOUT - (time.monotonic() - started))

    if len(argv) < 2:
        return fail("usage: headless-browser.py URL")
    url = argv[-1]
    prefix = redirect_prefix(url)
    username = os.environ.get("HEADLESS_BROWSER_USERNAME", "ada")
    password = os.environ.get("HEADLESS_BROWSER_PASSWORD", "lovelace")
    decision = os.environ.get("HEADLESS_BROWSER_DECISION", "allow")
    if decision not in ("allow", "deny"):
        return fail("HEADLESS_BROWSER_DECISION must be allow or deny, not " + repr(decision))
    screenshot = os.environ.get("HEADLESS_BROWSER_SCREENSHOT")
    chromium = os.environ.get("HEADLESS_BROWSER_CHROMIUM", "/usr/bin/chromium")
    chromedriver = os.environ.get("HEADLESS_BROWSER_DRIVER", "/usr/bin/chromedriver")

    try:
        from selenium import webdriver
        from selenium.common.exceptions import TimeoutException, WebDriverException
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support import expected_conditions
        from selenium.webdriver.support.ui import WebDriverWait
    except ImportError as error:
        return fail("selenium is not installed (" + str(error) + ")")
    for path in (chromium, chromedriver):
        if not os.access(path, os.X_OK):
            return fail(path + " is missing; run Scripts/install-test-dependencies.sh")

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--window-size=1024,768",
    ):
        options.add_argument(argument)
    # A fresh profile per run, removed afterwards, so runs never share cookies.
    profile = tempfile.TemporaryDirectory(prefix="tether-browser-")
    options.add_argument("--user-data-dir=" + profile.name)

    driver = None
    step = "starting chromedriver"
    try:
        driver = webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)
        driver.set_page_load_timeout(remaining())

        step = "opening the sign-in page"
        driver.get(url)

        step = "waiting for the sign-in form"
        wait = WebDriverWait(driver, remaining())
        username_field = wait.until(expected_conditions.presence_of_element_located((By.ID, "username")))
        password_field = driver.find_element(By.ID, "password")

        step = "filling the sign-in form"
        username_field.clear()
        username_field.send_keys(username)
        password_field.clear()
        password_field.send_keys(password)

        step = "clicking #" + decision
        driver.set_page_load_timeout(remaining())
        driver.find_element(By.ID, decision).click()

        step = "waiting for the redirect to " + prefix
        WebDriverWait(driver, remaining()).until(
            lambda d: d.current_url.startswith(prefix)
            and d.execute_script("return document.readyState") == "complete"
        )

        if screenshot:
            step = "saving the screenshot"
            if not driver.save_screenshot(screenshot):
                return fail("could not save the screenshot to " + screenshot)
        return 0
    except TimeoutException:
        return fail("timed out while " + step)
    except WebDriverException as error:
        return fail(step + " failed: " + (error.msg or type(error).__name__).splitlines()[0])
    except Exception as error:  # noqa: BLE001 - one-line report for anything else
        detail = str(error).splitlines()[0] if str(error) else ""
        return fail(step + " failed: " + type(error).__name__ + (": " + detail if detail else ""))
    finally:
        if driver is not None:
            try:
                driver.quit()
            except Exception:  # noqa: BLE001 - quitting is best effort; chromedriver kills chromium on exit
                pass
        profile.cleanup()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
