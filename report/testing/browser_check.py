#!/usr/bin/python3
"""Opens profkit's HTML report and/or a DHAT export in headless Chromium (Debian's chromium
and chromium-driver, driven by python3-selenium) and prints, as one JSON object, what a person
would see: the summary cards, the table rows, the icicle frames, the rows left after clicking a
frame, searching and sorting, and the text valgrind's dh_view.html shows for the DHAT file.
It asserts nothing itself; the C++ tests that run it hold the expectations.

usage: browser_check.py [--html FILE --screenshot PNG --click FUNCTION --search TEXT
                         --sort COLUMN] [--dhat FILE --dh-view HTML]
"""
import argparse
import json
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait


def start_browser(profile_dir):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--lang=en-US", "--window-size=1280,1000", "--user-data-dir=" + profile_dir):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def rows(driver):
    return [{"id": tr.get_attribute("data-id"),
             "verdict": tr.get_attribute("data-verdict"),
             "site": tr.find_element(By.CSS_SELECTOR, "td.site summary").text,
             "bytes": tr.find_element(By.CSS_SELECTOR, "td[data-key=bytes]").get_attribute("data-value"),
             "count": tr.find_element(By.CSS_SELECTOR, "td[data-key=count]").get_attribute("data-value")}
            for tr in driver.find_elements(By.CSS_SELECTOR, "#rows tr.ctx")]


def check_html(driver, args, out):
    driver.get("file://" + args.html)
    WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#rows tr.ctx"))
    errors = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    out["console_errors"] = [e.get("message") for e in errors]
    out["title"] = driver.title
    out["summary"] = {c.get_attribute("data-key"): c.find_element(By.CLASS_NAME, "v").text
                      for c in driver.find_elements(By.CSS_SELECTOR, "#summary .card")}
    out["rows"] = rows(driver)
    out["shown"] = driver.find_element(By.ID, "shown").text
    out["frames"] = [{"function": f.get_attribute("data-function"),
                      "path": f.get_attribute("data-path"),
                      "width": f.size["width"]}
                     for f in driver.find_elements(By.CSS_SELECTOR, "#flame .frame")]
    # No <img> (or any other element) may come out of the data: names are text.
    out["injected_images"] = len(driver.find_elements(By.TAG_NAME, "img"))
    if args.screenshot:
        driver.save_screenshot(args.screenshot)
    if args.click:
        frame = next(f for f in driver.find_elements(By.CSS_SELECTOR, "#flame .frame")
                     if f.get_attribute("data-function") == args.click)
        frame.click()
        out["after_click"] = {"rows": rows(driver),
                              "note": driver.find_element(By.ID, "filter-note").text,
                              "frames": [f.get_attribute("data-function") for f in
                                         driver.find_elements(By.CSS_SELECTOR, "#flame .frame")]}
        driver.find_element(By.ID, "clear-filter").click()
        out["after_clear"] = {"rows": rows(driver)}
    if args.weight:
        Select(driver.find_element(By.ID, "metric")).select_by_value(args.weight)
        out["after_weight"] = [{"function": f.get_attribute("data-function"),
                                "width": f.size["width"]}
                               for f in driver.find_elements(By.CSS_SELECTOR, "#flame .frame")]
    if args.search:
        box = driver.find_element(By.ID, "search")
        box.send_keys(args.search)
        out["after_search"] = {"rows": rows(driver),
                               "shown": driver.find_element(By.ID, "shown").text}
        box.clear()
        box.send_keys(" ")  # an input event with an empty query
    if args.sort:
        driver.find_element(By.CSS_SELECTOR, "th[data-key=%s]" % args.sort).click()
        out["after_sort"] = {"rows": rows(driver)}


def check_dhat(driver, args, out):
    driver.get("file://" + args.dh_view)
    file_input = WebDriverWait(driver, 10).until(
        lambda d: d.find_element(By.CSS_SELECTOR, "input[type=file]"))
    # The viewer hides its <input> behind a "Load..." button; show it so it takes keys.
    driver.execute_script("arguments[0].className = '';", file_input)
    file_input.send_keys(args.dhat)
    WebDriverWait(driver, 10).until(
        lambda d: "PP 1/1" in d.find_element(By.TAG_NAME, "body").text or
        d.find_elements(By.CSS_SELECTOR, ".error"))
    out["dhat_errors"] = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".error")]
    pres = driver.find_elements(By.TAG_NAME, "pre")
    out["dhat_blocks"] = pres[0].text if pres else ""
    Select(driver.find_element(By.TAG_NAME, "select")).select_by_index(0)  # "Total (bytes)"
    pres = driver.find_elements(By.TAG_NAME, "pre")
    out["dhat_bytes"] = pres[0].text if pres else ""
    out["dhat_title"] = driver.title


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--html")
    parser.add_argument("--screenshot")
    parser.add_argument("--click")
    parser.add_argument("--weight")
    parser.add_argument("--search")
    parser.add_argument("--sort")
    parser.add_argument("--dhat")
    parser.add_argument("--dh-view", default="/usr/libexec/valgrind/dh_view.html")
    args = parser.parse_args()
    out = {}
    with tempfile.TemporaryDirectory(prefix="profkit-chromium-") as profile_dir:
        driver = start_browser(profile_dir)
        try:
            start = time.time()
            if args.html:
                check_html(driver, args, out)
            if args.dhat:
                check_dhat(driver, args, out)
            out["seconds"] = round(time.time() - start, 2)
        finally:
            driver.quit()
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
