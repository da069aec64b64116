#!/usr/bin/python3
"""Opens HTML reports made by `npu-advisor analyze RUN -o report.html` in headless Debian
chromium (through chromedriver and python3-selenium) and checks that:

  * the page made no network request: every URL in the DevTools network log is the report's
    own file:// URL or a data: URI (and host names cannot resolve anyway:
    --host-resolver-rules='MAP * ~NOTFOUND');
  * the console has no error (script errors, CSP violations, failed loads);
  * one <details class="finding"> per report finding, and every chart the report has data
    for was drawn (a canvas with a Chart.js instance and non-blank pixels);
  * sortable tables sort and the copy buttons run;
  * the step timeline (views.timeline, beside the facts) is drawn: one row per embedded row, the launch lines
    and finding marks counted on the canvas, non-blank pixels, red (vertical) lines where the
    facts have vertical launches; zoom (wheel, keys), hover card and step selection run;
  * the Serving section (facts.inference) has a phase box per phase and a row per iteration,
    coloured by its phase (also after sorting);
  * the module icicle (facts.modules) is drawn: the step bar full width, a block per module wide
    enough to see, the outside-modules block, labels only inside blocks wide enough for them;
    hovering shows a card, a click zooms into a module and the top bar zooms back out.

Screenshots (PNG, the first screen and the whole page) and a print PDF are written to
--out-dir as test artefacts. Exits 77 (ctest SKIP_RETURN_CODE) when chromium, chromedriver or
selenium is not installed; scripts/install-deps.sh installs all three.
"""
import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


def find(*names):
    for n in names:
        p = shutil.which(n) or (n if os.path.isabs(n) and os.access(n, os.X_OK) else None)
        if p:
            return p
    return None


def skip(why):
    print("SKIP: " + why)
    sys.exit(SKIP)


def expected_charts(report):
    facts = report.get("facts") or {}
    n = 0
    if facts.get("steps"):
        n += 1
    if (facts.get("dispatch") or {}).get("steps"):
        n += 1
    ops = facts.get("operators") or {}
    if ops.get("by_type") or ops.get("by_name"):
        n += 1
    return n


def make_driver(chromium, chromedriver, profile_dir):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
              "--disable-default-apps", "--disable-extensions", "--metrics-recording-only", "--mute-audio",
              "--host-resolver-rules=MAP * ~NOTFOUND", "--user-data-dir=" + profile_dir,
              "--window-size=1366,900", "--force-device-scale-factor=1", "--hide-scrollbars"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=chromedriver), options=opts)
    # The timeline checks hover hundreds of cards in one script: under ctest -j2 on a loaded machine
    # that took over selenium's default 30 s (a script timeout on pytorch_2rank_rank0).
    driver.set_script_timeout(180)
    return driver


def save_artefacts(driver, out_dir, tag):
    """The first screen, the whole page, one picture per section, the page as printed (PDF)
    and a picture of the print layout."""
    def capture(path, x, y, w, h):
        shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": x, "y": y, "width": w, "height": h, "scale": 1}})
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))

    def page_size():
        metrics = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
        return metrics.get("cssContentSize") or metrics["contentSize"]

    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(os.path.join(out_dir, tag + "-screen.png"))
    size = page_size()
    capture(os.path.join(out_dir, tag + "-full.png"), 0, 0, size["width"], size["height"])
    rects = driver.execute_script("""
      return Array.prototype.map.call(document.querySelectorAll('section.card[id]'), function (s) {
        var r = s.getBoundingClientRect();
        return { id: s.id, x: r.left + window.scrollX, y: r.top + window.scrollY, w: r.width, h: r.height };
      });""")
    for r in rects:  # easier to review than the whole page
        capture(os.path.join(out_dir, "%s-section-%s.png" % (tag, r["id"])), r["x"], r["y"], r["w"], min(r["h"], 4000))
    pdf = driver.execute_cdp_cmd("Page.printToPDF", {"printBackground": False})
    with open(os.path.join(out_dir, tag + "-print.pdf"), "wb") as f:
        f.write(base64.b64decode(pdf["data"]))
    # The print stylesheet as a picture (A4-ish width), all <details> opened as for printing.
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 794, "height": 1123, "deviceScaleFactor": 1, "mobile": False})
    driver.execute_script("window.dispatchEvent(new Event('beforeprint'))")
    size = page_size()
    capture(os.path.join(out_dir, tag + "-print.png"), 0, 0, size["width"], min(size["height"], 16000))
    driver.execute_script("window.dispatchEvent(new Event('afterprint'))")
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})


def check_timeline(driver, report, out_dir, tag):
    """The step timeline: drawn from views.timeline, with its rows, lines and marks, and it
    reacts to zoom, keys, hover and the step selector. Saves tag-timeline*.png."""
    tl = (report.get("views") or {}).get("timeline") or {}
    steps = tl.get("steps") or []
    has = driver.execute_script("return !!document.querySelector('#timeline canvas.tl-canvas')")
    if not steps:
        return [] if not has else ["%s: a timeline canvas but no views.timeline steps" % tag]
    if not has:
        return ["%s: views.timeline has %d steps but the page has no timeline canvas" % (tag, len(steps))]
    errors = []
    s0 = steps[0]
    want_flows = sum(1 for f in s0["flows"]["items"] if f[9] == 0)
    vertical = sum(1 for f in s0["flows"]["items"] if f[9] == 0 and f[4] <= tl.get("vertical_lag_ns", 50000))
    driver.execute_script("document.getElementById('timeline').scrollIntoView()")
    state = driver.execute_script("""
      var c = document.querySelector('#timeline canvas.tl-canvas');
      var ctx = c.getContext('2d'), d = ctx.getImageData(0, 0, c.width, c.height).data;
      var painted = 0, red = 0;
      for (var i = 0; i < d.length; i += 4 * 3) {
        if (d[i + 3] > 0) painted++;
        if (d[i] > 200 && d[i + 1] < 70 && d[i + 2] < 70) red++;
      }
      return { rendered: c.getAttribute('data-rendered'), rows: Number(c.getAttribute('data-rows')),
               flows: Number(c.getAttribute('data-flows')), marks: Number(c.getAttribute('data-marks')),
               painted: painted, red: red, width: c.width, height: c.height,
               caption: document.querySelector('#timeline .tl-caption').textContent,
               marklist: document.querySelectorAll('#timeline .tl-marklist li').length,
               options: document.querySelectorAll('#timeline select.tl-step option').length };""")
    if state["rendered"] != "true":
        errors.append("%s: timeline canvas not drawn" % tag)
    if state["rows"] != len(s0["rows"]) or state["rows"] == 0:
        errors.append("%s: timeline has %d rows, the view %d" % (tag, state["rows"], len(s0["rows"])))
    if state["flows"] != want_flows:
        errors.append("%s: timeline has %d launch lines, the view %d" % (tag, state["flows"], want_flows))
    if state["marks"] != len(s0["marks"]["items"]):
        errors.append("%s: timeline has %d marks, the view %d" % (tag, state["marks"], len(s0["marks"]["items"])))
    if state["options"] != len(steps):
        errors.append("%s: step selector has %d options, the view %d steps" % (tag, state["options"], len(steps)))
    if state["painted"] < 1000:
        errors.append("%s: timeline canvas is blank (%d painted pixels)" % (tag, state["painted"]))
    if vertical and state["red"] < 20:
        errors.append("%s: %d vertical launches but no red lines on the canvas" % (tag, vertical))
    driver.save_screenshot(os.path.join(out_dir, tag + "-timeline-screen.png"))
    # Zoom in on the middle (wheel and keys), hover across the rows, pick another step.
    res = driver.execute_script("""
      var c = document.querySelector('#timeline canvas.tl-canvas'), r = c.getBoundingClientRect();
      function ev(type, x, y, extra) {
        var e = new MouseEvent(type, Object.assign({ clientX: r.left + x, clientY: r.top + y, bubbles: true }, extra || {}));
        c.dispatchEvent(e);
      }
      var w = new WheelEvent('wheel', { clientX: r.left + r.width * 0.6, clientY: r.top + 60, deltaY: -400,
                                        bubbles: true, cancelable: true });
      c.dispatchEvent(w);
      c.dispatchEvent(new KeyboardEvent('keydown', { key: '+', bubbles: true }));
      c.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowLeft', bubbles: true }));
      // At most about 40 x 30 points, whatever the canvas's size: each move redraws, and a tall
      // timeline (pytorch_2rank_rank0) at every 4 px took minutes under ctest -j2 on a loaded machine.
      var cards = 0, dy = Math.max(4, Math.floor(r.height / 40)), dx = Math.max(37, Math.floor((r.width - 250) / 30));
      for (var y = 25; y < r.height; y += dy) {
        for (var x = 250; x < r.width; x += dx) {
          ev('mousemove', x, y);
          if (!document.querySelector('#timeline .tl-card').hidden) cards++;
        }
      }
      return { prevented: w.defaultPrevented, cards: cards };""")
    # Two animation frames: the zoom is drawn on the next one.
    driver.execute_async_script("var done = arguments[0]; requestAnimationFrame(function () { requestAnimationFrame(done); });")
    if not res["prevented"]:
        errors.append("%s: the wheel over the timeline was not taken for zooming" % tag)
    if res["cards"] == 0:
        errors.append("%s: hovering the timeline never showed a card" % tag)
    # The canvas's own pixels: headless screenshots right after a redraw can show stale tiles.
    data = driver.execute_script("return document.querySelector('#timeline canvas.tl-canvas').toDataURL('image/png')")
    with open(os.path.join(out_dir, tag + "-timeline-zoomed.png"), "wb") as f:
        f.write(base64.b64decode(data.split(",", 1)[1]))
    if len(steps) > 1:
        driver.execute_script("""
          var s = document.querySelector('#timeline select.tl-step');
          s.value = String(s.options.length - 1);
          s.dispatchEvent(new Event('change'));""")
        step_attr = driver.execute_script("return document.querySelector('#timeline canvas.tl-canvas').getAttribute('data-step')")
        last = steps[-1]
        want = "whole run" if last.get("id") is None else "step %s" % last["id"]
        if step_attr != want:
            errors.append("%s: selecting the last embedded step drew %r, expected %r" % (tag, step_attr, want))
    # A finding's "see it on the timeline" link turns the marks back on (and throws nothing).
    relinked = driver.execute_script("""
      var a = document.querySelector('.tl-seefinding a'), box = document.querySelector('#timeline input.tl-marks');
      if (!a || !box) return null;
      if (box.checked) box.click();
      a.click();
      return box.checked;""")
    if relinked is False:
        errors.append("%s: a finding's link to the timeline did not turn the marks back on" % tag)
    print("%s: timeline %d rows, %d lines (%d vertical), %d marks, %d steps embedded; %d hover cards"
          % (tag, state["rows"], state["flows"], vertical, state["marks"], len(steps), res["cards"]))
    return errors


def capture_element(driver, selector, path):
    """A PNG of one element of the page (the whole of it, even below the window)."""
    r = driver.execute_script("""
      var e = document.querySelector(arguments[0]); if (!e) return null;
      var r = e.getBoundingClientRect();
      return { x: r.left + window.scrollX, y: r.top + window.scrollY, w: r.width, h: r.height };""", selector)
    if not r:
        return
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": r["x"], "y": r["y"], "width": r["w"], "height": min(r["h"], 4000), "scale": 1}})
    with open(path, "wb") as f:
        f.write(base64.b64decode(shot["data"]))


def check_modules(driver, report, out_dir, tag):
    """The Modules section: "skipped" without facts.modules, else the icicle drawn from it, its
    labels inside their blocks, a hover card, zoom in and out. Saves TAG-modules*.png."""
    facts = report.get("facts") or {}
    m = facts.get("modules")
    section = driver.execute_script("""
      var s = document.getElementById('modules');
      return s ? { na: (s.querySelector('p.na') || {}).textContent || '', icicle: !!s.querySelector('.icicle') } : null;""")
    if section is None:
        return [] if facts.get("cluster") else ["%s: no Modules section" % tag]
    if not isinstance(m, dict):
        return [] if section["na"].startswith("skipped: ") else ["%s: no facts.modules but no 'skipped' line" % tag]
    if not m.get("step_device_ns"):
        return []
    driver.execute_script("document.getElementById('modules').scrollIntoView()")
    state = driver.execute_script("""
      var box = document.querySelector('#modules .icicle'), area = box.querySelector('.ic-area');
      var blocks = Array.prototype.slice.call(area.querySelectorAll('.ic-block'));
      var ar = area.getBoundingClientRect(), bad = [];
      blocks.forEach(function (b) {
        var r = b.getBoundingClientRect(), l = b.querySelector('.ic-label');
        if (!l) return;
        var lr = l.getBoundingClientRect();
        if (r.width < 40 || lr.right > r.right + 0.5 || lr.left < r.left - 0.5 || lr.bottom > r.bottom + 0.5)
          bad.push(l.textContent + ' (' + Math.round(r.width) + ' px)');
      });
      var focus = area.querySelector('.ic-block.focus');
      return { rendered: box.getAttribute('data-rendered'), blocks: blocks.length,
               attr: Number(box.getAttribute('data-blocks')), labels: area.querySelectorAll('.ic-label').length,
               outside: area.querySelectorAll('.ic-block.outside').length, bad: bad,
               full: focus ? Math.abs(focus.getBoundingClientRect().width - ar.width) < 1 : false };""")
    errors = []
    want_blocks = 1 + (1 if m.get("tree") else 0) + (1 if m.get("outside_ns") else 0)
    if state["rendered"] != "true" or state["blocks"] != state["attr"] or state["blocks"] < want_blocks:
        errors.append("%s: icicle not drawn: %s" % (tag, state))
    if not state["full"]:
        errors.append("%s: the icicle's step bar does not span the chart" % tag)
    if m.get("outside_ns") and not state["outside"]:
        errors.append("%s: %d ns outside modules but no outside block" % (tag, m["outside_ns"]))
    if state["bad"]:
        errors.append("%s: icicle labels outside their blocks: %s" % (tag, state["bad"][:5]))
    capture_element(driver, "#modules", os.path.join(out_dir, tag + "-modules.png"))
    if not m.get("tree"):
        print("%s: icicle %d blocks (no module tree)" % (tag, state["blocks"]))
        return errors
    # Hover the widest module, then zoom into the first module that has children, and back out.
    res = driver.execute_script("""
      var area = document.querySelector('#modules .ic-area'), box = area.parentNode;
      var blocks = Array.prototype.slice.call(area.querySelectorAll('.ic-block:not(.focus):not(.outside)'));
      blocks.sort(function (a, b) { return b.offsetWidth - a.offsetWidth; });
      var r = blocks[0].getBoundingClientRect();
      blocks[0].dispatchEvent(new MouseEvent('mousemove', { clientX: r.left + 5, clientY: r.top + 5, bubbles: true }));
      var card = box.querySelector('.ic-card');
      var out = { card: card.hidden ? '' : card.textContent, before: box.getAttribute('data-focus') };
      var z = area.querySelector('.ic-block.zoomable:not(.focus)');
      if (z) { z.click(); out.zoomed = box.getAttribute('data-focus'); out.blocks = box.getAttribute('data-blocks'); }
      return out;""")
    if not res["card"]:
        errors.append("%s: hovering a module block showed no card" % tag)
    if res.get("zoomed") is not None:
        if res["zoomed"] == res["before"]:
            errors.append("%s: clicking a module did not zoom into it" % tag)
        capture_element(driver, "#modules .icicle", os.path.join(out_dir, tag + "-modules-zoomed.png"))
        back = driver.execute_script("""
          var box = document.querySelector('#modules .icicle');
          box.querySelector('.ic-block.focus').click();
          var once = box.getAttribute('data-focus');
          box.querySelector('.ic-crumbs button').click();
          return [once, box.getAttribute('data-focus')];""")
        if back[0] == res["zoomed"] or back[1] != "step":
            errors.append("%s: zooming out went %s" % (tag, back))
    print("%s: icicle %d blocks, %d labelled, zoomed into %s" % (tag, state["blocks"], state["labels"], res.get("zoomed")))
    return errors


def check_compare(driver, advisor, base, new, out_dir):
    """`compare BASE NEW -o cmp.html`: both timelines drawn on one time scale, no console error,
    no request; a zoom on one moves the other."""
    html = os.path.join(out_dir, "compare.html")
    r = subprocess.run([advisor, "compare", base, new, "-q", "-o", html], capture_output=True, text=True)
    if r.returncode != 0:
        return ["compare: rc %d: %s" % (r.returncode, r.stderr)]
    url = "file://" + os.path.abspath(html)
    driver.get_log("performance")
    driver.get_log("browser")
    driver.get(url)
    driver.execute_script("document.getElementById('timeline').scrollIntoView()")
    state = driver.execute_script("""
      var cs = Array.prototype.slice.call(document.querySelectorAll('canvas.tl-canvas'));
      function axis() { return cs.map(function (c) { return c.getContext('2d').getImageData(0, 0, c.width, 22).data.join(','); }); }
      var before = axis();
      var r = cs[0].getBoundingClientRect();
      cs[0].dispatchEvent(new WheelEvent('wheel', { clientX: r.left + r.width * 0.5, clientY: r.top + 40, deltaY: -500,
                                                    bubbles: true, cancelable: true }));
      return { n: cs.length, rendered: cs.filter(function (c) { return c.getAttribute('data-rendered') === 'true'; }).length,
               before: before };""")
    driver.execute_async_script("var done = arguments[0]; requestAnimationFrame(function () { requestAnimationFrame(done); });")
    after = driver.execute_script("""
      return Array.prototype.map.call(document.querySelectorAll('canvas.tl-canvas'), function (c) {
        return c.getContext('2d').getImageData(0, 0, c.width, 22).data.join(','); });""")
    errors = []
    if state["n"] != 2 or state["rendered"] != 2:
        errors.append("compare: %d timelines, %d drawn, expected 2" % (state["n"], state["rendered"]))
    # One scale: the time axes of both are identical before and after zooming one of them.
    elif state["before"][0] != state["before"][1] or after[0] != after[1] or after[0] == state["before"][0]:
        errors.append("compare: the two timelines do not share their time axis (or did not zoom together)")
    _, bad = network_requests(driver, url)
    if bad:
        errors.append("compare: network requests: %s" % bad)
    severe = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    if severe:
        errors.append("compare: console errors: %s" % [e.get("message") for e in severe])
    save_artefacts(driver, out_dir, "compare")
    print("compare: %d timelines drawn on one time scale" % state["rendered"])
    return errors


def network_requests(driver, url):
    """Drains the performance log. Returns (the requests made by the page at `url`, those of
    them that are not the file itself or a data: URI plus any request anywhere in the log to
    a network scheme; the browser's own chrome:// pages are not network)."""
    requests, page_requests = [], []
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg.get("method") in ("Network.requestWillBeSent", "Network.webSocketCreated"):
            params = msg.get("params", {})
            u = (params.get("request") or {}).get("url") or params.get("url", "")
            requests.append(u)
            if u == url or params.get("documentURL") == url:
                page_requests.append(u)
    bad = [u for u in page_requests if not (u == url or u.startswith("data:"))]
    bad += [u for u in requests if u.split(":", 1)[0].lower() in ("http", "https", "ws", "wss", "ftp") and u not in bad]
    return page_requests, bad


def canary(driver, out_dir):
    """The checks must be able to fail: a page that asks for an image over http and logs a
    console error has to be caught by both."""
    path = os.path.join(out_dir, "canary.html")
    with open(path, "w") as f:
        f.write('<!DOCTYPE html><title>canary</title><img src="http://npu-advisor.invalid/x.png">'
                '<script>console.error("canary error")</script>')
    url = "file://" + os.path.abspath(path)
    driver.get_log("performance")
    driver.get_log("browser")
    driver.get(url)
    driver.execute_script("return document.readyState")
    _, bad = network_requests(driver, url)
    severe = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    errors = []
    if not any("npu-advisor.invalid" in u for u in bad):
        errors.append("canary: the network check did not see the page's http request")
    if not any("canary error" in e.get("message", "") for e in severe):
        errors.append("canary: the console check did not see the page's console.error")
    os.remove(path)
    return errors


def check_serving(driver, report, tag):
    """The Serving section (facts.inference): absent without it; else a header box per phase with
    iterations, a row per iteration (at most 500) coloured by its phase, wide enough to read, and
    sorting by a numeric column keeps the rows' colours with them."""
    inf = (report.get("facts") or {}).get("inference")
    state = driver.execute_script("""
      var s = document.getElementById('serving');
      if (!s) return null;
      var rows = Array.prototype.slice.call(s.querySelectorAll('table.iterations tbody tr'));
      var th = s.querySelector('table.iterations th:nth-child(5)');
      if (th) th.click();
      return { kpis: s.querySelectorAll('.kpi').length, width: s.getBoundingClientRect().width,
               rows: rows.map(function (r) { return { cls: r.className, phase: r.cells[1].textContent }; }),
               after: Array.prototype.map.call(s.querySelectorAll('table.iterations tbody tr'),
                                               function (r) { return r.className.split(' ')[0] === 'phase-' + r.cells[1].textContent; }) };""")
    if not isinstance(inf, dict):
        return [] if state is None else ["%s: a Serving section without facts.inference" % tag]
    if state is None:
        return ["%s: facts.inference but no Serving section" % tag]
    errors = []
    its = inf.get("iterations") or []
    if len(state["rows"]) != min(len(its), 500):
        errors.append("%s: %d iteration rows, the facts have %d" % (tag, len(state["rows"]), len(its)))
    for r, it in zip(state["rows"], its):
        if r["phase"] != it.get("phase") or not r["cls"].startswith("phase-" + it.get("phase", "")):
            errors.append("%s: iteration row %s is not coloured by its phase %s" % (tag, r, it.get("phase")))
            break
    if not all(state["after"]):
        errors.append("%s: sorting the iterations lost the rows' phase colours" % tag)
    phases = [p for p in inf.get("phases") or [] if p.get("iterations") and p.get("own_window_median_ns")]
    if inf.get("kind") != "graph_capture" and state["kpis"] != len(phases):
        errors.append("%s: %d phase boxes, the facts have %d phases" % (tag, state["kpis"], len(phases)))
    if state["width"] < 600:
        errors.append("%s: the Serving section is %d px wide" % (tag, state["width"]))
    return errors


def check_report(driver, html_path, report, out_dir, tag):
    errors = []
    url = "file://" + os.path.abspath(html_path)
    driver.get_log("performance")  # drop what came before
    driver.get_log("browser")
    driver.get(url)
    driver.execute_script("return document.readyState")

    save_artefacts(driver, out_dir, tag)
    errors += check_timeline(driver, report, out_dir, tag)
    errors += check_modules(driver, report, out_dir, tag)
    errors += check_serving(driver, report, tag)

    # Interact a little: sort every sortable table twice, press a copy button.
    driver.execute_script("""
      document.querySelectorAll('table.sortable th').forEach(function (th) { th.click(); th.click(); });
      var b = document.querySelector('button.copy'); if (b) b.click();
      document.querySelector('button.expand-all') && document.querySelector('button.expand-all').click();
    """)

    state = driver.execute_script("""
      var embedded = null;
      try { embedded = JSON.parse(document.getElementById('report-data').textContent); } catch (e) {}
      var canvases = Array.prototype.slice.call(document.querySelectorAll('canvas[data-chart]'));
      var svgs = document.querySelectorAll('svg.chart').length;
      return {
        title: document.title,
        findings: document.querySelectorAll('details.finding').length,
        embeddedFindings: embedded === null ? -1 : (embedded.findings ? embedded.findings.length : 0),
        chartLib: typeof Chart !== 'undefined',
        svgs: svgs,
        charts: canvases.map(function (c) {
          var painted = 0;
          try {
            var ctx = c.getContext('2d');
            var d = ctx.getImageData(0, 0, c.width, c.height).data;
            for (var i = 3; i < d.length; i += 4 * 7) if (d[i] > 0) painted++;
          } catch (e) { painted = -1; }
          return { kind: c.getAttribute('data-chart'), rendered: c.getAttribute('data-rendered') === 'true',
                   instance: typeof Chart !== 'undefined' && !!Chart.getChart(c), width: c.width,
                   height: c.height, painted: painted };
        }),
        sorted: (function () {
          var t = document.querySelector('#operators table.sortable');
          if (!t) return null;
          var th = Array.prototype.filter.call(t.tHead.rows[0].cells,
                                               function (h) { return h.textContent === 'total (ms)'; })[0];
          if (!th) return null;
          th.click();  // the first click on a fresh numeric header sorts descending; it was clicked twice
          var dir = th.getAttribute('aria-sort');
          var col = th.cellIndex;
          var vals = Array.prototype.map.call(t.tBodies[0].rows,
                                              function (r) { return Number(r.cells[col].getAttribute('data-v')); });
          return { dir: dir, vals: vals };
        })()
      };
    """)

    nf = len(report.get("findings", []))
    if state["findings"] != nf:
        errors.append("%s: %d finding blocks on the page, the report has %d" % (tag, state["findings"], nf))
    if state["embeddedFindings"] != nf:
        errors.append("%s: embedded #report-data has %s findings, expected %d" % (tag, state["embeddedFindings"], nf))
    want = expected_charts(report)
    drawn = [c for c in state["charts"] if c["rendered"] and c["instance"] and c["painted"] > 0]
    if len(state["charts"]) + state["svgs"] != want:
        errors.append("%s: %d chart elements, expected %d" % (tag, len(state["charts"]) + state["svgs"], want))
    if len(drawn) + state["svgs"] != want:
        errors.append("%s: %d charts drawn, expected %d: %s" % (tag, len(drawn), want, state["charts"]))
    if not state["chartLib"]:
        errors.append("%s: Chart.js is not in the page" % tag)
    if state["sorted"] is not None:
        vals, d = state["sorted"]["vals"], state["sorted"]["dir"]
        ok = vals == sorted(vals, reverse=(d == "descending"))
        if not ok:
            errors.append("%s: operator table not sorted %s: %s" % (tag, d, vals))

    page_requests, bad = network_requests(driver, url)
    if bad:
        errors.append("%s: network requests besides the file itself: %s" % (tag, bad))
    if url not in page_requests:
        errors.append("%s: the performance log did not record the page load" % tag)

    console = driver.get_log("browser")
    severe = [e for e in console if e.get("level") == "SEVERE"]
    if severe:
        errors.append("%s: console errors: %s" % (tag, [e.get("message") for e in severe]))
    for e in console:
        if e.get("level") != "SEVERE":
            print("%s: console %s: %s" % (tag, e.get("level"), e.get("message")))

    print("%s: %d findings, %d/%d charts drawn, page requests: %s, %d console messages"
          % (tag, state["findings"], len(drawn), want,
             ", ".join(sorted(set(u.split(",")[0][:60] for u in page_requests))), len(console)))
    return errors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--advisor", required=True)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--input", action="append", required=True,
                    help="TAG=PATH: a run to report on (repeatable); a missing optional PATH (TAG?=PATH) is skipped")
    ap.add_argument("--compare", help="BASE,NEW: check `compare BASE NEW -o cmp.html` (NEW falls back to BASE when absent)")
    args = ap.parse_args()

    chromium = find("chromium", "/usr/bin/chromium", "chromium-browser", "google-chrome")
    chromedriver = find("chromedriver", "/usr/bin/chromedriver")
    if not chromium:
        skip("chromium is not installed (scripts/install-deps.sh installs it)")
    if not chromedriver:
        skip("chromedriver is not installed (apt-get install chromium-driver)")
    try:
        import selenium  # noqa: F401
    except ImportError:
        skip("python3-selenium is not installed for " + sys.executable)

    os.makedirs(args.out_dir, exist_ok=True)
    jobs = []
    for spec in args.input:
        tag, path = spec.split("=", 1)
        optional = tag.endswith("?")
        tag = tag.rstrip("?")
        if not os.path.exists(path):
            if optional:
                print("%s: %s not found, not checked" % (tag, path))
                continue
            print("FAIL: %s not found" % path)
            return 1
        html = os.path.join(args.out_dir, tag + ".html")
        js = os.path.join(args.out_dir, tag + ".json")
        for out in (html, js):
            r = subprocess.run([args.advisor, "analyze", path, "-q", "-o", out], capture_output=True, text=True)
            if r.returncode != 0:
                print("FAIL: npu-advisor analyze %s -o %s: rc %d\n%s" % (path, out, r.returncode, r.stderr))
                return 1
        with open(js) as f:
            jobs.append((tag, html, json.load(f)))

    errors = []
    profile = tempfile.mkdtemp(prefix="npu-advisor-chromium-")
    driver = None
    try:
        driver = make_driver(chromium, chromedriver, profile)
        driver.set_page_load_timeout(60)
        errors += canary(driver, args.out_dir)
        for tag, html, report in jobs:
            errors += check_report(driver, html, report, args.out_dir, tag)
        if args.compare:
            base, new = args.compare.split(",", 1)
            errors += check_compare(driver, args.advisor, base, new if os.path.exists(new) else base, args.out_dir)
    finally:
        if driver is not None:
            driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    for e in errors:
        print("FAIL: " + e)
    print("artefacts in " + os.path.abspath(args.out_dir))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
