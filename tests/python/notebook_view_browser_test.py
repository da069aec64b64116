"""The notebook view of npu_advisor (docs/python.md) in headless chromium, as Jupyter shows it: the
HTML that `Report._repr_html_()`, `report.timeline(step)` and `report.roofline()` return, put in one
page the way a notebook puts cell outputs, opened from a file:// URL with the network off.

Checks that the whole report draws inside its frame (one <details class="finding"> per finding,
charts with pixels), that the timeline view shows the timeline section alone with the step asked
for drawn, that a report with no roofline section says so, and that no frame logs an error.
Screenshots (the notebook page, and each frame's content) go to --out-dir. Run by
scripts/python-check.sh with the Python of a venv holding the wheel and seeing Debian's selenium;
exits 77 when chromium, chromedriver or selenium is missing (as tests/browser/).
"""
import argparse
import base64
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.environ.get("NPU_ADVISOR_REPO", os.path.join(HERE, "..", "..")))
sys.path.insert(0, os.path.join(REPO, "tests", "browser"))
from html_report_browser_test import SKIP, find, make_driver  # noqa: E402  (the same browser set-up)

import npu_advisor  # noqa: E402


def frame_state(driver):
    return driver.execute_script("""
      function visible(id) { var s = document.getElementById(id); return !!s && getComputedStyle(s).display !== 'none'; }
      var shown = Array.prototype.filter.call(document.querySelectorAll('main > section[id]'),
                                              function (s) { return getComputedStyle(s).display !== 'none'; })
                                 .map(function (s) { return s.id; });
      var painted = 0, canvases = document.querySelectorAll('canvas');
      Array.prototype.forEach.call(canvases, function (c) {
        if (!c.width || !c.height || getComputedStyle(c).display === 'none') return;
        var d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        for (var i = 3; i < d.length; i += 4 * 5) if (d[i] > 0) painted++;
      });
      var tl = document.querySelector('#timeline canvas.tl-canvas');
      return { shown: shown, findings: document.querySelectorAll('details.finding').length,
               canvases: canvases.length, painted: painted,
               step: tl ? tl.getAttribute('data-step') : null,
               header: visible('summary') };""")


def shoot_frame(driver, path):
    data = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})
    with open(path, "wb") as f:
        f.write(base64.b64decode(data["data"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--input", default=os.path.join(REPO, "testdata", "sample"))
    args = ap.parse_args()
    chromium = find("chromium", "/usr/bin/chromium", "chromium-browser", "google-chrome")
    chromedriver = find("chromedriver", "/usr/bin/chromedriver")
    try:
        import selenium  # noqa: F401
    except ImportError:
        chromium = None
    if not chromium or not chromedriver:
        print("SKIP: chromium, chromedriver or selenium is not installed")
        return SKIP
    os.makedirs(args.out_dir, exist_ok=True)

    report = npu_advisor.analyze(args.input)
    drawn = [s["id"] for s in report.views.timeline.steps]
    step = drawn[-1]  # not the first: the view must pick it
    roofline = report.roofline()
    cells = [("report", report._repr_html_()), ("timeline(%s)" % step, report.timeline(step)._repr_html_()),
             ("roofline()", roofline._repr_html_())]
    page = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>notebook</title></head>"
            "<body style='font-family:sans-serif;width:1300px'>"]
    for name, html in cells:
        page.append("<div class='cell'><pre>In: %s</pre><div class='output'>%s</div></div>" % (name, html))
    page.append("</body></html>")
    notebook = os.path.join(args.out_dir, "notebook-view.html")
    with open(notebook, "w", encoding="utf-8") as f:
        f.write("".join(page))

    errors = []
    with tempfile.TemporaryDirectory() as profile:
        driver = make_driver(chromium, chromedriver, profile)
        try:
            driver.get("file://" + notebook)
            driver.execute_async_script("var done = arguments[0]; setTimeout(done, 1500);")
            frames = driver.find_elements("css selector", "iframe.npu-advisor-report")
            # the report, the timeline, and the roofline where the report has one
            want = 3 if roofline.available else 2
            if len(frames) != want:
                errors.append("%d report frames on the page, expected %d (the report, the timeline%s)"
                              % (len(frames), want, ", the roofline" if roofline.available else ""))
            notes = driver.execute_script("return Array.prototype.map.call(document.querySelectorAll("
                                          "'.npu-advisor-note'), function (p) { return p.textContent; });")
            if roofline.available:
                if notes:
                    errors.append("the report has a roofline section but the view says: %s" % notes)
            elif not notes or "has no roofline section" not in notes[0]:
                errors.append("roofline() of a report without one does not say so: %r" % notes)
            metrics = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
            size = metrics.get("cssContentSize") or metrics["contentSize"]
            shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
                "format": "png", "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 8000), "scale": 1}})
            with open(os.path.join(args.out_dir, "notebook-view.png"), "wb") as f:
                f.write(base64.b64decode(shot["data"]))

            driver.switch_to.frame(frames[0])
            whole = frame_state(driver)
            driver.switch_to.default_content()
            driver.execute_script("arguments[0].scrollIntoView()", frames[1])
            driver.switch_to.frame(frames[1])
            view = frame_state(driver)
            driver.switch_to.default_content()
            logs = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
            shoot_frame(driver, os.path.join(args.out_dir, "notebook-view-timeline.png"))
        finally:
            driver.quit()

    if whole["findings"] != len(report.findings):
        errors.append("the report frame shows %d findings, the report has %d" % (whole["findings"], len(report.findings)))
    if whole["painted"] < 1000 or whole["canvases"] < 2:
        errors.append("the report frame's charts are not drawn: %s" % whole)
    if "findings" not in whole["shown"] or "timeline" not in whole["shown"]:
        errors.append("the report frame hides sections: shown %s" % whole["shown"])
    if view["shown"] != ["timeline"]:
        errors.append("the timeline view shows sections %s, expected the timeline alone" % view["shown"])
    if view["step"] != "step %s" % step:
        errors.append("the timeline view drew %r, expected step %s" % (view["step"], step))
    if view["painted"] < 1000:
        errors.append("the timeline view's canvas is blank: %s" % view)
    if logs:
        errors.append("console errors: %s" % logs)
    print("notebook view: report frame %d findings, %d canvases, %d painted samples; timeline view %s, "
          "sections shown %s; roofline: %s" % (whole["findings"], whole["canvases"], whole["painted"],
                                               view["step"], view["shown"],
                                               "shown" if roofline.available else roofline.note))
    for e in errors:
        print("FAIL: " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
