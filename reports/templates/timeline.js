// npu-advisor HTML report: the step timeline (docs/reports.md "Step timeline"). Draws
// views.timeline of the embedded report on the canvas of <section id="timeline">: a row per
// host thread and device stream, the Computing / Communication / Free band, a line from each
// host launch to its device task coloured by launch lag, and marks where findings happen.
// Zoom and pan with the wheel, drag or keys; a card describes what is under the pointer.
// This file holds each timeline's state, its view (zoom, pan, the time scale the timelines of a
// page share) and its events; the picture is timeline_draw.js, the words timeline_cards.js, the
// look timeline_look.js. Names from the input are only ever set as text (textContent / fillText).
(function () {
  'use strict';

  var report = npuReport;  // format.js
  if (!report) return;
  var look = npuTimelineLook, draw = npuTimelineDraw, cards = npuTimelineCards;
  var KIND = look.KIND;

  // Findings by rule id, for the links from marks to findings and back.
  var findingsByRule = {};
  (report.findings || []).forEach(function (f, i) {
    var rank = f.rank !== undefined && f.rank !== null ? f.rank : i + 1;
    (findingsByRule[f.rule] = findingsByRule[f.rule] || []).push({ rank: rank, title: String(f.title || f.rule) });
  });
  function findingsFor(kind) {
    var out = [];
    ((KIND[kind] || {}).rules || []).forEach(function (r) { (findingsByRule[r] || []).forEach(function (f) { out.push(f); }); });
    return out;
  }

  // One timeline per .tl-section element: the report's (views.timeline), or on the compare page
  // one per run (report.timelines[i].timeline), drawn on one shared time scale.
  var group = [];

  // ---- the view: which step, which time span ----
  function setStep(T, i) {
    T.step = T.steps[i] || T.steps[0];
    T.layout = draw.computeLayout(T.step);
    resetView(T);
    cards.describe(T);
    resize(T);
  }
  // [lo, hi] window-relative: this step's window, widened to the other timelines of the page
  // (aligned at the step start), so that one pixel is the same time in each.
  function range(T) {
    var step = T.step;
    var lo = -(step.step_t_ns || 0), hi = (step.window_ns || 1) - (step.step_t_ns || 0);
    group.forEach(function (g) { var r = g.span(); lo = Math.min(lo, r[0]); hi = Math.max(hi, r[1]); });
    return [lo + (step.step_t_ns || 0), Math.max(lo + 1, hi) + (step.step_t_ns || 0)];
  }
  function sync(T) {
    var a = T.view.t0 - (T.step.step_t_ns || 0), b = T.view.t1 - (T.step.step_t_ns || 0);
    group.forEach(function (g) { if (g !== T.self) g.follow(a, b); });
  }
  function resetView(T) {
    var r = range(T);
    T.view.t0 = r[0];
    T.view.t1 = r[1];
    sync(T);
  }
  function resize(T) {
    var canvas = T.canvas;
    var w = canvas.clientWidth || canvas.parentNode.clientWidth || 800;
    canvas.style.height = T.layout.height + 'px';
    canvas.width = Math.round(w * T.dpr);
    canvas.height = Math.round(T.layout.height * T.dpr);
    draw.draw(T);
  }
  function redraw(T) {
    if (T.pending) return;
    T.pending = true;
    window.requestAnimationFrame(function () { T.pending = false; draw.draw(T); });
  }

  // ---- zoom and pan ----
  function zoomAt(T, factor, t) {
    var view = T.view, r = range(T);
    var span = Math.min(r[1] - r[0], Math.max(1000, (view.t1 - view.t0) * factor));
    var f = (t - view.t0) / (view.t1 - view.t0);
    view.t0 = t - f * span;
    view.t1 = view.t0 + span;
    clampView(T);
    redraw(T);
  }
  function pan(T, dt) {
    T.view.t0 += dt;
    T.view.t1 += dt;
    clampView(T);
    redraw(T);
  }
  function clampView(T) {
    var view = T.view, r = range(T), span = view.t1 - view.t0;
    if (view.t0 < r[0]) { view.t0 = r[0]; view.t1 = r[0] + span; }
    if (view.t1 > r[1]) { view.t1 = r[1]; view.t0 = Math.max(r[0], r[1] - span); }
    sync(T);
  }

  // ---- events: wheel, drag and hover on the canvas ----
  function bindPointer(T) {
    var canvas = T.canvas, card = T.card, view = T.view;
    canvas.addEventListener('wheel', function (e) {
      e.preventDefault();
      var r = canvas.getBoundingClientRect();
      if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
        pan(T, (e.deltaX || e.deltaY) / draw.plotWidth(T) * (view.t1 - view.t0));
        return;
      }
      zoomAt(T, Math.exp(e.deltaY * 0.0015), draw.tOf(T, e.clientX - r.left));
    }, { passive: false });
    canvas.addEventListener('mousedown', function (e) {
      T.drag = { x: e.clientX, t0: view.t0, t1: view.t1 };
      canvas.classList.add('dragging');
      card.hidden = true;
    });
    window.addEventListener('mouseup', function () {
      T.drag = null;
      canvas.classList.remove('dragging');
    });
    canvas.addEventListener('mousemove', function (e) {
      var r = canvas.getBoundingClientRect(), x = e.clientX - r.left, y = e.clientY - r.top, drag = T.drag;
      if (drag) {
        var dt = (drag.x - e.clientX) / draw.plotWidth(T) * (drag.t1 - drag.t0);
        view.t0 = drag.t0 + dt;
        view.t1 = drag.t1 + dt;
        clampView(T);
        redraw(T);
        return;
      }
      var h = cards.hit(T, x, y);
      if (h) cards.showCard(T, h, x, y);
      else card.hidden = true;
    });
    canvas.addEventListener('mouseleave', function () { card.hidden = true; });
    canvas.addEventListener('dblclick', function () { resetView(T); redraw(T); });
  }

  // ---- events: keys, the buttons, the step selector, the window ----
  function bindControls(T) {
    var section = T.section, view = T.view;
    T.canvas.addEventListener('keydown', function (e) {
      var span = view.t1 - view.t0, mid = (view.t0 + view.t1) / 2, k = e.key;
      if (k === '+' || k === '=' || k === 'w') zoomAt(T, 1 / 1.5, mid);
      else if (k === '-' || k === '_' || k === 's') zoomAt(T, 1.5, mid);
      else if (k === 'ArrowLeft' || k === 'a') pan(T, -0.2 * span);
      else if (k === 'ArrowRight' || k === 'd') pan(T, 0.2 * span);
      else if (k === '0' || k === 'Home') { resetView(T); redraw(T); }
      else return;
      e.preventDefault();
    });
    section.querySelector('.tl-zoom-in').addEventListener('click', function () { zoomAt(T, 1 / 1.5, (view.t0 + view.t1) / 2); });
    section.querySelector('.tl-zoom-out').addEventListener('click', function () { zoomAt(T, 1.5, (view.t0 + view.t1) / 2); });
    section.querySelector('.tl-reset').addEventListener('click', function () { resetView(T); redraw(T); });
    var secondaryBox = section.querySelector('input.tl-secondary');
    var marksBox = section.querySelector('input.tl-marks');
    if (secondaryBox) secondaryBox.addEventListener('change', function () { T.opts.secondary = secondaryBox.checked; redraw(T); });
    if (marksBox) marksBox.addEventListener('change', function () { T.opts.marks = marksBox.checked; redraw(T); });
    if (T.select) T.select.addEventListener('change', function () { setStep(T, Number(T.select.value)); });
    window.addEventListener('resize', function () { if (T.step) resize(T); });
    window.addEventListener('beforeprint', function () { resetView(T); resize(T); });
  }

  // The timeline of one section, drawn from `tl` (a views.timeline object), or null when there is
  // nothing to draw. Its handle joins the page's group: start, its span, follow another's view.
  function makeTimeline(section, tl) {
    var frame = section.querySelector('.tl-frame');
    var steps = tl && Array.isArray(tl.steps) ? tl.steps : [];
    if (!frame || !steps.length) return null;
    var canvas = document.createElement('canvas');
    canvas.className = 'tl-canvas';
    canvas.tabIndex = 0;
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', 'step timeline: host threads, device streams and the launch lines between them');
    frame.insertBefore(canvas, frame.firstChild);
    var T = {
      section: section, data: tl, steps: steps, canvas: canvas, ctx: canvas.getContext('2d'),
      dpr: Math.max(1, window.devicePixelRatio || 1),
      names: Array.isArray(tl.names) ? tl.names : [],
      sources: Array.isArray(tl.sources) ? tl.sources : [],
      // views.timeline.vertical_lag_ns: the lag the facts called vertical (none without dispatch facts).
      verticalNs: typeof tl.vertical_lag_ns === 'number' ? tl.vertical_lag_ns : -Infinity,
      card: section.querySelector('.tl-card'), caption: section.querySelector('.tl-caption'),
      legend: section.querySelector('.tl-legend'), markList: section.querySelector('.tl-marklist'),
      select: section.querySelector('select.tl-step'), findingsFor: findingsFor,
      colorCache: {}, step: null, layout: null, view: { t0: 0, t1: 1 }, opts: { secondary: false, marks: true },
      pending: false, drag: null, self: null
    };
    bindPointer(T);
    bindControls(T);
    T.self = {
      start: function () { setStep(T, 0); },
      // The shared scale: [lo, hi] in ns since the step start, over every timeline of the page.
      span: function () {
        var s = T.step || steps[0];  // before start(): the step it will draw first
        return [-(s.step_t_ns || 0), (s.window_ns || 1) - (s.step_t_ns || 0)];
      },
      follow: function (a, b) {
        if (!T.step) return;  // not started yet: start() sets its own view
        T.view.t0 = a + (T.step.step_t_ns || 0);
        T.view.t1 = b + (T.step.step_t_ns || 0);
        redraw(T);
      }
    };
    return T.self;
  }

  // From a finding to the picture: a link under each finding whose rule has marks.
  var kindsByRule = {};
  Object.keys(KIND).forEach(function (kind) {
    KIND[kind].rules.forEach(function (r) { (kindsByRule[r] = kindsByRule[r] || []).push(kind); });
  });
  (report.findings || []).forEach(function (f, i) {
    var kinds = kindsByRule[f.rule];
    var rank = f.rank !== undefined && f.rank !== null ? f.rank : i + 1;
    var d = document.getElementById('finding-' + rank);
    if (!kinds || !d) return;
    var body = d.querySelector('.finding-body') || d;
    var p = document.createElement('p'), a = document.createElement('a');
    p.className = 'tl-seefinding';
    a.href = '#timeline';
    a.textContent = 'See where it happens on the step timeline (' + kinds.map(function (k) { return KIND[k].label; }).join(', ') + ')';
    a.addEventListener('click', function () {
      // The marks must be on to be seen.
      var marksBox = document.querySelector('#timeline input.tl-marks');
      if (marksBox && !marksBox.checked) marksBox.click();
    });
    p.appendChild(a);
    body.appendChild(p);
  });

  Array.prototype.forEach.call(document.querySelectorAll('.tl-section'), function (section) {
    var which = section.getAttribute('data-timeline') || '';
    var tl = which === 'views' ? (report.views || {}).timeline
           : /^run-\d+$/.test(which) ? ((report.timelines || [])[Number(which.slice(4))] || {}).timeline : null;
    var t = makeTimeline(section, tl || {});
    if (t) group.push(t);
  });
  group.forEach(function (t) { t.start(); });
})();
