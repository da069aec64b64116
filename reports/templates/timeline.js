// npu-advisor HTML report: the step timeline (docs/reports.md "Step timeline"). Draws
// facts.timeline of the embedded report on the canvas of <section id="timeline">: a row per
// host thread and device stream, the Computing / Communication / Free band, a line from each
// host launch to its device task coloured by launch lag, and marks where findings happen.
// Zoom and pan with the wheel, drag or keys; a card describes what is under the pointer.
// Names from the input are only ever set as text (textContent / canvas fillText).
(function () {
  'use strict';

  var report = {};
  try {
    report = JSON.parse(document.getElementById('report-data').textContent);
  } catch (e) {
    console.error('npu-advisor timeline: cannot parse the embedded report: ' + e.message);
    return;
  }
  // ---- look ----
  var LABEL_W = 240, AXIS_H = 22, MARK_H = 30, LEVEL_H = 11, DEV_LEVEL_H = 18, ROW_GAP = 5,
      GROUP_GAP = 34, BAND_H = 18, RIGHT = 10, BOTTOM = 6,
      MAX_LEVELS = 16, MAX_DEVICE_LEVELS = 4;  // deeper items are drawn on the last level
  var KIND = {
    compile: { color: '#8e44ad', label: 'online compile', glyph: 'C',
               rules: ['dispatch.op_compile'] },
    sync: { color: '#b03a2e', label: 'synchronize', glyph: 'S', rules: ['dispatch.sync_stream', 'dispatch.gpu_sync'] },
    interruption: { color: '#d35400', label: 'pipeline interruption', glyph: 'I',
                    rules: ['dispatch.sync_stream', 'dispatch.host_bound'] },
    host_bound_gap: { color: '#d64545', label: 'device idle, waiting on the host', glyph: 'W',
                      rules: ['dispatch.host_bound', 'schedule.free_time'] },
    long_collective: { color: '#e08a1e', label: 'long collective', glyph: 'L',
                       rules: ['communication.not_overlapped', 'communication.dominates'] },
    gc: { color: '#16a085', label: 'Python GC', glyph: 'G', rules: ['schedule.gc'] },
    dataloader: { color: '#5d6d7e', label: 'data loading', glyph: 'D', rules: ['schedule.dataloader'] }
  };
  var DEVICE_KINDS = { interruption: true, host_bound_gap: true, long_collective: true };
  // Band kinds 0-2 and 4 (GPU copies); 3 is a mixed run, drawn as its shares.
  var BAND = [{ name: 'Computing', color: '#3b6fb6' }, { name: 'Communication (not overlapped)', color: '#e08a1e' },
              { name: 'Free (device idle)', color: '#f2b8b5' }, null, { name: 'Copies (memcpy/memset)', color: '#c9a227' }];
  var MIXED_KINDS = [0, 1, 2, 4];  // the totals of a mixed run [t, dur, 3, ...], in this order
  // Free by the cause the idle attribution gave it (band entries [t, dur, 2, cause]; docs/facts-idle.md).
  var IDLE_CAUSE = {
    compile: { name: 'idle: online compile', color: '#c0392b' },
    gc: { name: 'idle: Python GC', color: '#16a085' },
    sync: { name: 'idle: synchronize', color: '#d35400' },
    dataloader: { name: 'idle: data loading', color: '#f1c40f' },
    communication_wait: { name: 'idle: barrier', color: '#9b59b6' },
    host_launch: { name: 'idle: waiting on a host launch', color: '#f0a35e' },
    unexplained: { name: 'idle: unexplained', color: '#bdc3c7' }
  };
  function bandStyle(b) {
    return b[2] === 2 && typeof b[3] === 'string' && IDLE_CAUSE[b[3]] ? IDLE_CAUSE[b[3]] : BAND[b[2]];
  }
  var PALETTE = ['#7ba3d6', '#86c5a8', '#e6b36b', '#b39ddb', '#e49a9a', '#8ecbd8', '#c9b27c', '#a3b6c9',
                 '#d6a3c4', '#9fcf86', '#e8c17a', '#92a8e0'];

  var isNum = npuFormat.isNum, fmtDur = npuFormat.fmtDur;  // format.js
  // "worst, median"; a step that is all five picks is the only one.
  function chosenAs(s) {
    var c = Array.isArray(s.chosen_as) ? s.chosen_as : [];
    return c.length >= 5 ? 'the only step' : c.join(', ');
  }
  function stepName(s) { return s.id === null || s.id === undefined ? 'whole run' : 'step ' + s.id; }
  function hash(s) {
    var h = 2166136261;
    for (var i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
    return h >>> 0;
  }
  function evidenceObjText(e) {
    if (!e || typeof e !== 'object') return '';
    if (e.table) return String(e.file) + ' table ' + e.table + ' rowid ' + e.rowid;
    if (isNum(e.byte)) return String(e.file) + ' byte ' + e.byte;
    if (isNum(e.line)) return String(e.file) + ':' + e.line;
    return String(e.file || '');
  }

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

  // One timeline per .tl-section element: the report's (facts.timeline), or on the
  // compare page one per run (report.timelines[i].timeline), drawn on one shared time scale.
  var group = [];
  function makeTimeline(section, tl) {
    var frame = section.querySelector('.tl-frame');
    var steps = tl && Array.isArray(tl.steps) ? tl.steps : [];
    if (!frame || !steps.length) return null;
    var names = Array.isArray(tl.names) ? tl.names : [];
    var sources = Array.isArray(tl.sources) ? tl.sources : [];
    var verticalNs = typeof tl.vertical_lag_ns === 'number' ? tl.vertical_lag_ns : 50000;
    var canvas = document.createElement('canvas');
    canvas.className = 'tl-canvas';
    canvas.tabIndex = 0;
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', 'step timeline: host threads, device streams and the launch lines between them');
    frame.insertBefore(canvas, frame.firstChild);
    var card = section.querySelector('.tl-card');
    var caption = section.querySelector('.tl-caption');
    var legend = section.querySelector('.tl-legend');
    var markList = section.querySelector('.tl-marklist');
    var select = section.querySelector('select.tl-step');
    function nameOf(i) { return typeof names[i] === 'string' ? names[i] : '?'; }
    var colorCache = {};
    function sliceColor(nameIdx) {
      var c = colorCache[nameIdx];
      if (!c) c = colorCache[nameIdx] = PALETTE[hash(nameOf(nameIdx)) % PALETTE.length];
      return c;
    }
    // Red up to the vertical threshold (the device waited on the host), then orange to blue as
    // the host runs further ahead (log scale, blue at 20x the threshold and beyond).
    function lagColor(lag) {
      if (lag <= verticalNs) return '#d62728';
      var f = Math.min(1, Math.log(lag / verticalNs) / Math.log(20));
      var a = [240, 160, 48], b = [47, 127, 193];
      return 'rgb(' + [0, 1, 2].map(function (k) { return Math.round(a[k] + (b[k] - a[k]) * f); }).join(',') + ')';
    }
    function evidenceText(src, off) {
      var s = sources[src];
      if (!s) return '';
      var file = String(s.file || '');
      return file + (s.table ? ' table ' + s.table + ' rowid ' + off : ' byte ' + off);
    }
    // ---- state ----
    var step = null, layout = null, view = { t0: 0, t1: 1 }, self = null;
    var opts = { secondary: false, marks: true };
    var dpr = Math.max(1, window.devicePixelRatio || 1);
    var ctx = canvas.getContext('2d');

    function computeLayout(s) {
      var rows = Array.isArray(s.rows) ? s.rows : [];
      var y = AXIS_H + MARK_H + 4, out = [], prevDevice = null;
      rows.forEach(function (r, i) {
        var device = r.kind === 'device' || r.kind === 'communication';
        if (prevDevice === false && device) y += GROUP_GAP;  // room for the launch lines to show their slant
        prevDevice = device;
        var lh = device ? DEV_LEVEL_H : LEVEL_H;
        var h = Math.max(1, Math.min(r.depth || 1, device ? MAX_DEVICE_LEVELS : MAX_LEVELS)) * lh;
        out.push({ row: r, y: y, h: h, lh: lh, device: device, index: i });
        y += h + ROW_GAP;
      });
      var bandY = y + 4;
      return { rows: out, bandY: bandY, height: bandY + BAND_H + BOTTOM + 14 };
    }

    function plotLeft() { return Math.min(LABEL_W, canvas.clientWidth * 0.3); }
    function plotWidth() { return Math.max(50, canvas.clientWidth - plotLeft() - RIGHT); }
    function xOf(t) { return plotLeft() + (t - view.t0) / (view.t1 - view.t0) * plotWidth(); }
    function tOf(x) { return view.t0 + (x - plotLeft()) / plotWidth() * (view.t1 - view.t0); }

    function setStep(i) {
      step = steps[i] || steps[0];
      layout = computeLayout(step);
      resetView();
      describe();
      resize();
    }
    // [lo, hi] window-relative: this step's window, widened to the other timelines of the page
    // (aligned at the step start), so that one pixel is the same time in each.
    function range() {
      var lo = -(step.step_t_ns || 0), hi = (step.window_ns || 1) - (step.step_t_ns || 0);
      group.forEach(function (g) { var r = g.span(); lo = Math.min(lo, r[0]); hi = Math.max(hi, r[1]); });
      return [lo + (step.step_t_ns || 0), Math.max(lo + 1, hi) + (step.step_t_ns || 0)];
    }
    function sync() {
      var a = view.t0 - (step.step_t_ns || 0), b = view.t1 - (step.step_t_ns || 0);
      group.forEach(function (g) { if (g !== self) g.follow(a, b); });
    }
    function resetView() {
      var r = range();
      view.t0 = r[0];
      view.t1 = r[1];
      sync();
    }
    function resize() {
      var w = canvas.clientWidth || canvas.parentNode.clientWidth || 800;
      canvas.style.height = layout.height + 'px';
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(layout.height * dpr);
      draw();
    }

    var pending = false;
    function redraw() {
      if (pending) return;
      pending = true;
      window.requestAnimationFrame(function () { pending = false; draw(); });
    }

    // ---- drawing ----
    function niceStep(span, px) {
      var raw = span / Math.max(1, px / 95);
      var p = Math.pow(10, Math.floor(Math.log(raw) / Math.LN10));
      var m = raw / p;
      return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
    }

    function draw() {
      if (!step) return;
      var W = canvas.clientWidth, H = layout.height, L = plotLeft(), R = L + plotWidth();
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, W, H);
      ctx.font = '11px system-ui, "DejaVu Sans", sans-serif';
      ctx.textBaseline = 'middle';

      // Row backgrounds and labels.
      layout.rows.forEach(function (lr, i) {
        ctx.fillStyle = lr.device ? '#f1f5fb' : (i % 2 ? '#fafbfc' : '#f5f6f8');
        ctx.fillRect(L, lr.y - 1, R - L, lr.h + 2);
      });
      ctx.fillStyle = '#fbf3f2';
      ctx.fillRect(L, layout.bandY - 1, R - L, BAND_H + 2);

      // Outside the step (the margin) is greyed.
      ctx.save();
      ctx.beginPath();
      ctx.rect(L, 0, R - L, H);
      ctx.clip();
      drawAxis(L, R, H);
      drawBand(L, R);
      drawSlices(L, R);
      if (opts.marks) drawMarkShades(L, R);
      drawFlows(L, R);
      if (opts.marks) drawMarks(L, R);
      var s0 = xOf(step.step_t_ns), s1 = xOf(step.step_end_t_ns);
      ctx.fillStyle = 'rgba(120,128,140,0.16)';
      if (s0 > L) ctx.fillRect(L, AXIS_H, s0 - L, H - AXIS_H);
      if (s1 < R) ctx.fillRect(s1, AXIS_H, R - s1, H - AXIS_H);
      ctx.restore();

      drawLabels(L);
      canvas.setAttribute('data-rendered', 'true');
    }

    function drawAxis(L, R, H) {
      var span = view.t1 - view.t0, st = niceStep(span, R - L);
      var origin = step.step_t_ns || 0;  // labels: time since the step start
      var first = Math.ceil((view.t0 - origin) / st) * st;
      ctx.strokeStyle = '#e3e7ee';
      ctx.fillStyle = '#5b6474';
      ctx.lineWidth = 1;
      ctx.textAlign = 'center';
      for (var t = first; t <= view.t1 - origin; t += st) {
        var x = Math.round(xOf(t + origin)) + 0.5;
        ctx.beginPath();
        ctx.moveTo(x, AXIS_H - 4);
        ctx.lineTo(x, H - BOTTOM);
        ctx.stroke();
        ctx.fillText(fmtDur(Math.round(t)), x, AXIS_H / 2);
      }
      ctx.textAlign = 'left';
    }

    function drawBand(L, R) {
      var band = Array.isArray(step.band) ? step.band : [];
      var y = layout.bandY;
      band.forEach(function (b) {
        var x0 = xOf(b[0]), x1 = xOf(b[0] + b[1]);
        if (x1 < L || x0 > R) return;
        var w = Math.max(1, x1 - x0);
        if (b[2] !== 3) {
          ctx.fillStyle = bandStyle(b).color;
          ctx.fillRect(x0, y, w, BAND_H);
          return;
        }
        // A run of segments below a pixel: the shares stacked.
        var tot = (b[3] || 0) + (b[4] || 0) + (b[5] || 0) + (b[6] || 0) || 1, yy = y;
        for (var k = 0; k < MIXED_KINDS.length; k++) {
          var h = BAND_H * (b[3 + k] || 0) / tot;
          ctx.fillStyle = BAND[MIXED_KINDS[k]].color;
          ctx.fillRect(x0, yy, w, h);
          yy += h;
        }
      });
    }

    function drawSlices(L, R) {
      layout.rows.forEach(function (lr) {
        var items = lr.row.items || [];
        for (var i = 0; i < items.length; i++) {
          var it = items[i];
          var x0 = xOf(it[0]), x1 = xOf(it[0] + it[1]);
          if (x1 < L || x0 > R) continue;
          var depth = Math.min(it[3], (lr.device ? MAX_DEVICE_LEVELS : MAX_LEVELS) - 1);
          var y = lr.y + depth * lr.lh, h = lr.lh - 1;
          var w = Math.max(1, x1 - x0);
          var agg = it.length > 6;
          ctx.globalAlpha = agg ? 0.55 : 1;
          ctx.fillStyle = sliceColor(it[2]);
          ctx.fillRect(x0, y, w, h);
          ctx.globalAlpha = 1;
          if (w > 40 && h >= 10) {
            var xs = Math.max(x0, L) + 3, avail = Math.min(x1, R) - xs - 2;
            if (avail > 24) {
              ctx.fillStyle = '#1d2330';
              ctx.save();
              ctx.beginPath();
              ctx.rect(xs, y, avail, h);
              ctx.clip();
              ctx.fillText((agg ? it[6] + '\u00d7 ' : '') + nameOf(it[2]), xs, y + h / 2 + 0.5);
              ctx.restore();
            }
          }
        }
      });
    }

    function flowVisible(f) {
      return f[9] === 0 || opts.secondary;
    }
    function flowGeom(f) {
      var a = layout.rows[f[0]], b = layout.rows[f[2]];
      if (!a || !b) return null;
      var down = a.y < b.y;
      return { x0: xOf(f[1]), y0: down ? a.y + a.h : a.y, x1: xOf(f[3]), y1: down ? b.y : b.y + b.h };
    }
    function drawFlows(L, R) {
      var flows = (step.flows && step.flows.items) || [];
      ctx.lineWidth = 1;
      for (var pass = 1; pass >= 0; pass--) {  // async_npu (faint) under HostToDevice
        for (var i = 0; i < flows.length; i++) {
          var f = flows[i];
          if (f[9] !== pass || !flowVisible(f)) continue;
          var g = flowGeom(f);
          if (!g || (g.x0 < L && g.x1 < L) || (g.x0 > R && g.x1 > R)) continue;
          ctx.strokeStyle = pass ? 'rgba(110,120,135,0.45)' : lagColor(f[4]);
          ctx.globalAlpha = pass ? 1 : 0.8;
          ctx.beginPath();
          ctx.moveTo(g.x0, g.y0);
          ctx.lineTo(g.x1, g.y1);
          ctx.stroke();
          if (!pass) {
            ctx.fillStyle = ctx.strokeStyle;
            ctx.fillRect(g.x1 - 1.5, g.y1 - 1.5, 3, 3);
          }
        }
      }
      ctx.globalAlpha = 1;
    }

    function marks() { return (step.marks && step.marks.items) || []; }
    function markX(m, L, R) {
      var x0 = xOf(m.t_ns), x1 = xOf(m.t_ns + m.dur_ns);
      if (x1 - x0 < 5) { var c = (x0 + x1) / 2; x0 = c - 2.5; x1 = c + 2.5; }
      return { x0: x0, x1: x1 };
    }
    // Where a mark happens, shaded over its row (or over the device rows and the band for the
    // device-side marks: idle gaps, interruptions).
    function drawMarkShades(L, R) {
      var dev = layout.rows.filter(function (r) { return r.device; });
      var devTop = dev.length ? dev[0].y - 2 : layout.bandY - 2;
      marks().forEach(function (m) {
        var k = KIND[m.kind];
        if (!k) return;
        var p = markX(m, L, R);
        if (p.x1 < L || p.x0 > R) return;
        ctx.fillStyle = k.color;
        ctx.globalAlpha = 0.16;
        var lr = m.row !== null && m.row !== undefined ? layout.rows[m.row] : null;
        if (lr) ctx.fillRect(p.x0, lr.y - 2, p.x1 - p.x0, lr.h + 4);
        else ctx.fillRect(p.x0, devTop, p.x1 - p.x0, layout.bandY + BAND_H + 2 - devTop);
        ctx.globalAlpha = 1;
      });
    }
    // Two lanes: what the host did (compile, sync, GC, data loading) above what the device
    // suffered (idle gaps, interruptions, long collectives), so neither hides the other.
    function markLaneY(m) { return AXIS_H + 2 + (m.row === null || m.row === undefined || DEVICE_KINDS[m.kind] ? 13 : 0); }
    function drawMarks(L, R) {
      var h = 12;
      ctx.font = 'bold 10px system-ui, "DejaVu Sans", sans-serif';
      ctx.textAlign = 'center';
      marks().forEach(function (m) {
        var k = KIND[m.kind];
        if (!k) return;
        var p = markX(m, L, R);
        if (p.x1 < L || p.x0 > R) return;
        var y = markLaneY(m);
        ctx.fillStyle = k.color;
        ctx.fillRect(p.x0, y, p.x1 - p.x0, h);
        if (p.x1 - p.x0 >= 9) {
          ctx.fillStyle = '#fff';
          ctx.fillText(k.glyph, (Math.max(p.x0, L) + Math.min(p.x1, R)) / 2, y + h / 2 + 0.5);
        }
      });
      ctx.textAlign = 'left';
      ctx.font = '11px system-ui, "DejaVu Sans", sans-serif';
    }

    function drawLabels(L) {
      var H = layout.height;
      ctx.fillStyle = '#fff';
      ctx.fillRect(0, 0, L, H);
      ctx.strokeStyle = '#dde2ea';
      ctx.beginPath();
      ctx.moveTo(L - 0.5, 0);
      ctx.lineTo(L - 0.5, H);
      ctx.stroke();
      function label(text, y, h, color, bold) {
        ctx.save();
        ctx.beginPath();
        ctx.rect(4, y, L - 10, h);
        ctx.clip();
        ctx.fillStyle = color || '#394252';
        ctx.font = (bold ? '600 ' : '') + '11px system-ui, "DejaVu Sans", sans-serif';
        ctx.fillText(text, 6, y + Math.min(h, 14) / 2 + 0.5);
        ctx.restore();
      }
      label('time since step start', 0, AXIS_H, '#5b6474');
      label('marks: host', AXIS_H + 2, 12, '#5b6474', true);
      label('marks: device', AXIS_H + 15, 12, '#5b6474', true);
      layout.rows.forEach(function (lr) { label(String(lr.row.label || ''), lr.y, Math.max(lr.h, 12), null, lr.device); });
      label('Computing / Comm / Free', layout.bandY, BAND_H, '#394252', true);
    }

    // ---- what is under the pointer ----
    function hit(x, y) {
      var L = plotLeft(), R = L + plotWidth();
      if (x < L) {
        for (var q = 0; q < layout.rows.length; q++)
          if (y >= layout.rows[q].y && y < layout.rows[q].y + Math.max(layout.rows[q].h, 12)) return { label: layout.rows[q].row };
        return null;
      }
      if (x > R) return null;
      var t = tOf(x), tol = 2 * (view.t1 - view.t0) / plotWidth();
      if (opts.marks && y >= AXIS_H && y < AXIS_H + MARK_H) {
        var best = null;
        marks().forEach(function (m) {
          var p = markX(m, L, R), ly = markLaneY(m);
          if (y < ly - 1 || y > ly + 13) return;
          if (x >= p.x0 - 2 && x <= p.x1 + 2 && (!best || m.dur_ns < best.dur_ns)) best = m;
        });
        if (best) return { mark: best };
      }
      // A launch line close to the pointer (within 3 px), between its two rows.
      var flows = (step.flows && step.flows.items) || [], bestF = null, bestD = 3.5;
      flows.forEach(function (f) {
        if (!flowVisible(f)) return;
        var g = flowGeom(f);
        if (!g || y < Math.min(g.y0, g.y1) || y > Math.max(g.y0, g.y1)) return;
        var dx = g.x1 - g.x0, dy = g.y1 - g.y0;
        var d = Math.abs(dy * x - dx * y + g.x1 * g.y0 - g.y1 * g.x0) / Math.sqrt(dx * dx + dy * dy || 1);
        if (d < bestD) { bestD = d; bestF = f; }
      });
      if (bestF) return { flow: bestF };
      if (y >= layout.bandY && y < layout.bandY + BAND_H) {
        var band = step.band || [];
        for (var b = 0; b < band.length; b++)
          if (t >= band[b][0] - tol && t <= band[b][0] + band[b][1] + tol) return { band: band[b] };
        return null;
      }
      for (var r = 0; r < layout.rows.length; r++) {
        var lr = layout.rows[r];
        if (y < lr.y || y >= lr.y + lr.h) continue;
        var depth = Math.floor((y - lr.y) / lr.lh), found = null;
        (lr.row.items || []).forEach(function (it) {
          if (Math.min(it[3], (lr.device ? MAX_DEVICE_LEVELS : MAX_LEVELS) - 1) !== depth) return;
          if (t >= it[0] - tol && t <= it[0] + it[1] + tol && (!found || it[1] < found[1])) found = it;
        });
        return found ? { item: found, row: lr.row } : null;
      }
      return null;
    }

    function line(parent, text, cls) {
      var d = document.createElement('div');
      if (cls) d.className = cls;
      d.textContent = text;
      parent.appendChild(d);
      return d;
    }
    function showCard(h, x, y) {
      card.textContent = '';
      var origin = step.step_t_ns || 0;
      if (h.label) {
        var rb = document.createElement('b');
        rb.textContent = String(h.label.label || '');
        card.appendChild(rb);
        line(card, (h.label.slices || 0) + ' slices in the window' +
             (h.label.aggregated ? ', ' + h.label.aggregated + ' of them drawn as aggregates' : ''));
        var enc = Array.isArray(h.label.enclosing) ? h.label.enclosing : [];
        if (enc.length) line(card, 'inside (spanning the whole window, not drawn): ' + enc.map(nameOf).join(' \u203a '));
      } else if (h.item) {
        var it = h.item, agg = it.length > 6;
        var b = document.createElement('b');
        b.textContent = agg ? it[6] + ' events aggregated (each shorter than ' + fmtDur(step.aggregate_below_ns) + ')'
                            : nameOf(it[2]);
        card.appendChild(b);
        if (agg) line(card, 'longest: ' + nameOf(it[2]) + '; busy ' + fmtDur(it[7]) + ' of ' + fmtDur(it[1]));
        else line(card, 'duration ' + fmtDur(it[1]));
        line(card, 'starts ' + fmtDur(it[0] - origin) + ' into the step; ' + String(h.row.label || ''));
        line(card, evidenceText(it[4], it[5]), 'tl-ev');
      } else if (h.flow) {
        var f = h.flow, kind = f[9] === 1 ? 'async_npu (Python operator \u2192 device task)' : String(tl.flow_kind || 'launch') + ' (launch \u2192 device task)';
        var bb = document.createElement('b');
        bb.textContent = 'launch lag ' + fmtDur(f[4]) + (f[4] <= verticalNs ? ': vertical, the device waited on the host' : ': the host ran ahead');
        card.appendChild(bb);
        line(card, kind);
        line(card, 'launched ' + fmtDur(f[1] - origin) + ', device task started ' + fmtDur(f[3] - origin) + ' into the step');
        line(card, 'host: ' + evidenceText(f[5], f[6]), 'tl-ev');
        line(card, 'device: ' + evidenceText(f[7], f[8]), 'tl-ev');
      } else if (h.band) {
        var s = h.band, bt = document.createElement('b');
        if (s[2] !== 3) {
          bt.textContent = bandStyle(s).name + ' ' + fmtDur(s[1]);
          card.appendChild(bt);
        } else {
          bt.textContent = 'segments below a pixel, over ' + fmtDur(s[1]);
          card.appendChild(bt);
          line(card, 'computing ' + fmtDur(s[3]) + ', communication ' + fmtDur(s[4]) + ', free ' + fmtDur(s[5]) +
               (s.length > 6 ? ', copies ' + fmtDur(s[6]) : ''));
        }
        line(card, 'starts ' + fmtDur(s[0] - origin) + ' into the step');
      } else if (h.mark) {
        var m = h.mark, k = KIND[m.kind] || {}, bm = document.createElement('b');
        bm.textContent = String(m.label || k.label);
        card.appendChild(bm);
        line(card, 'starts ' + fmtDur(m.t_ns - origin) + ' into the step, lasts ' + fmtDur(m.dur_ns));
        findingsFor(m.kind).forEach(function (fd) { line(card, 'finding #' + fd.rank + ': ' + fd.title); });
        if (m.evidence) line(card, evidenceObjText(m.evidence), 'tl-ev');
      }
      card.hidden = false;
      var fw = canvas.clientWidth;
      var cw = card.offsetWidth, ch = card.offsetHeight;
      card.style.left = Math.max(0, Math.min(x + 14, fw - cw - 4)) + 'px';
      card.style.top = (y + 16 + ch > layout.height ? Math.max(0, y - ch - 8) : y + 16) + 'px';
    }

    // ---- zoom and pan ----
    function zoomAt(factor, t) {
      var r = range();
      var span = Math.min(r[1] - r[0], Math.max(1000, (view.t1 - view.t0) * factor));
      var f = (t - view.t0) / (view.t1 - view.t0);
      view.t0 = t - f * span;
      view.t1 = view.t0 + span;
      clampView();
      redraw();
    }
    function pan(dt) {
      view.t0 += dt;
      view.t1 += dt;
      clampView();
      redraw();
    }
    function clampView() {
      var r = range(), span = view.t1 - view.t0;
      if (view.t0 < r[0]) { view.t0 = r[0]; view.t1 = r[0] + span; }
      if (view.t1 > r[1]) { view.t1 = r[1]; view.t0 = Math.max(r[0], r[1] - span); }
      sync();
    }
    canvas.addEventListener('wheel', function (e) {
      e.preventDefault();
      var r = canvas.getBoundingClientRect();
      if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
        pan((e.deltaX || e.deltaY) / plotWidth() * (view.t1 - view.t0));
        return;
      }
      zoomAt(Math.exp(e.deltaY * 0.0015), tOf(e.clientX - r.left));
    }, { passive: false });
    var drag = null;
    canvas.addEventListener('mousedown', function (e) {
      drag = { x: e.clientX, t0: view.t0, t1: view.t1 };
      canvas.classList.add('dragging');
      card.hidden = true;
    });
    window.addEventListener('mouseup', function () {
      drag = null;
      canvas.classList.remove('dragging');
    });
    canvas.addEventListener('mousemove', function (e) {
      var r = canvas.getBoundingClientRect(), x = e.clientX - r.left, y = e.clientY - r.top;
      if (drag) {
        var dt = (drag.x - e.clientX) / plotWidth() * (drag.t1 - drag.t0);
        view.t0 = drag.t0 + dt;
        view.t1 = drag.t1 + dt;
        clampView();
        redraw();
        return;
      }
      var h = hit(x, y);
      if (h) showCard(h, x, y);
      else card.hidden = true;
    });
    canvas.addEventListener('mouseleave', function () { card.hidden = true; });
    canvas.addEventListener('dblclick', function () { resetView(); redraw(); });
    canvas.addEventListener('keydown', function (e) {
      var span = view.t1 - view.t0, mid = (view.t0 + view.t1) / 2, k = e.key;
      if (k === '+' || k === '=' || k === 'w') zoomAt(1 / 1.5, mid);
      else if (k === '-' || k === '_' || k === 's') zoomAt(1.5, mid);
      else if (k === 'ArrowLeft' || k === 'a') pan(-0.2 * span);
      else if (k === 'ArrowRight' || k === 'd') pan(0.2 * span);
      else if (k === '0' || k === 'Home') { resetView(); redraw(); }
      else return;
      e.preventDefault();
    });
    section.querySelector('.tl-zoom-in').addEventListener('click', function () { zoomAt(1 / 1.5, (view.t0 + view.t1) / 2); });
    section.querySelector('.tl-zoom-out').addEventListener('click', function () { zoomAt(1.5, (view.t0 + view.t1) / 2); });
    section.querySelector('.tl-reset').addEventListener('click', function () { resetView(); redraw(); });
    var secondaryBox = section.querySelector('input.tl-secondary');
    var marksBox = section.querySelector('input.tl-marks');
    if (secondaryBox) secondaryBox.addEventListener('change', function () { opts.secondary = secondaryBox.checked; redraw(); });
    if (marksBox) marksBox.addEventListener('change', function () { opts.marks = marksBox.checked; redraw(); });
    if (select) select.addEventListener('change', function () { setStep(Number(select.value)); });
    window.addEventListener('resize', function () { if (step) resize(); });
    window.addEventListener('beforeprint', function () { resetView(); resize(); });

    // ---- the words around the picture ----
    function describe() {
      caption.textContent = '';
      var flows = ((step.flows && step.flows.items) || []).filter(function (f) { return f[9] === 0; });
      var vertical = flows.filter(function (f) { return f[4] <= verticalNs; }).length;
      var share = flows.length ? vertical / flows.length : 0;
      var v = document.createElement('span');
      v.className = 'tl-verdict';
      var what = stepName(step) + ' (' + chosenAs(step) + ', ' + fmtDur(step.step_time_ns) + '): ';
      if (!flows.length) v.textContent = what + 'no launch lines in this step.';
      else v.textContent = what + Math.round(100 * share) + '% of ' + flows.length + ' launch lines are vertical' +
          (share >= 0.5 ? ' \u2014 the device waits on the host.' : share <= 0.2 ? ' \u2014 the host runs ahead of the device.' : '.');
      caption.appendChild(v);
      var notes = [];
      var fl = step.flows || {};
      if (fl.total > fl.drawn) notes.push(fl.drawn + ' of ' + fl.total + ' launch lines drawn (evenly sampled)');
      var rows = step.rows || [], agg = 0, slices = 0, deep = 0;
      rows.forEach(function (r) { agg += r.aggregated || 0; slices += r.slices || 0; deep += r.deeper_not_drawn || 0; });
      if (agg) notes.push(agg + ' of ' + slices + ' slices shorter than ' + fmtDur(step.aggregate_below_ns) +
                          ' are drawn as aggregates');
      if (deep) notes.push(deep + ' slices nested deeper than ' + MAX_LEVELS + ' levels are not drawn');
      if (step.rows_not_drawn) notes.push(step.rows_not_drawn + ' quieter rows not drawn');
      if (fl.ends_on_rows_not_drawn) notes.push(fl.ends_on_rows_not_drawn + ' lines end on rows not drawn');
      if (notes.length) caption.appendChild(document.createTextNode(' ' + notes.join('; ') + '.'));

      legend.textContent = '';
      function key(color, text, cls) {
        var s = document.createElement('span'), i = document.createElement('i');
        if (cls) i.className = cls; else i.style.background = color;
        s.appendChild(i);
        s.appendChild(document.createTextNode(text));
        legend.appendChild(s);
      }
      key(null, 'launch lag: red \u2264 ' + fmtDur(verticalNs) + ' (device waited), orange to blue: host ahead by up to ' +
          fmtDur(20 * verticalNs) + '+', 'tl-grad');
      BAND.forEach(function (b, k) {
        if (b && (k !== 4 || (step.band || []).some(function (x) { return x[2] === 4 || x[6] > 0; }))) key(b.color, b.name);
      });
      var causes = {};
      (Array.isArray(step.band) ? step.band : []).forEach(function (b) {
        if (b[2] === 2 && typeof b[3] === 'string' && IDLE_CAUSE[b[3]]) causes[b[3]] = true;
      });
      Object.keys(IDLE_CAUSE).forEach(function (c) { if (causes[c]) key(IDLE_CAUSE[c].color, IDLE_CAUSE[c].name); });
      key('rgba(120,128,140,0.35)', 'outside the step');

      markList.textContent = '';
      var counts = (step.marks && step.marks.counts) || {};
      Object.keys(KIND).forEach(function (kind) {
        var n = counts[kind];
        if (!n) return;
        var k = KIND[kind], li = document.createElement('li'), sw = document.createElement('span');
        sw.className = 'tl-swatch';
        sw.style.background = k.color;
        li.appendChild(sw);
        var shown = marks().filter(function (m) { return m.kind === kind; });
        var longest = shown.reduce(function (a, m) { return Math.max(a, m.dur_ns); }, 0);
        li.appendChild(document.createTextNode(k.glyph + ' ' + k.label + ': ' + n + (n > 1 ? ' marks' : ' mark') +
            (shown.length < n ? ' (the ' + shown.length + ' longest drawn)' : '') + ', longest ' + fmtDur(longest)));
        findingsFor(kind).forEach(function (fd) {
          li.appendChild(document.createTextNode(' \u2192 '));
          var a = document.createElement('a');
          a.href = '#finding-' + fd.rank;
          a.textContent = 'finding #' + fd.rank + ': ' + fd.title;
          a.addEventListener('click', function () {
            var d = document.getElementById('finding-' + fd.rank);
            if (d && d.tagName === 'DETAILS') d.open = true;
          });
          li.appendChild(a);
        });
        markList.appendChild(li);
      });
      canvas.setAttribute('data-step', stepName(step));
      canvas.setAttribute('data-rows', String(rows.length));
      canvas.setAttribute('data-flows', String(flows.length));
      canvas.setAttribute('data-marks', String(marks().length));
    }


    self = {
      start: function () { setStep(0); },
      // The shared scale: [lo, hi] in ns since the step start, over every timeline of the page.
      span: function () {
        var s = step || steps[0];  // before start(): the step it will draw first
        return [-(s.step_t_ns || 0), (s.window_ns || 1) - (s.step_t_ns || 0)];
      },
      follow: function (a, b) {
        if (!step) return;  // not started yet: start() sets its own view
        view.t0 = a + (step.step_t_ns || 0);
        view.t1 = b + (step.step_t_ns || 0);
        redraw();
      }
    };
    return self;
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
    a.addEventListener('click', function () { if (marksBox && !marksBox.checked) marksBox.click(); });
    p.appendChild(a);
    body.appendChild(p);
  });

  Array.prototype.forEach.call(document.querySelectorAll('.tl-section'), function (section) {
    var which = section.getAttribute('data-timeline') || '';
    var tl = which === 'facts' ? (report.facts || {}).timeline
           : /^run-\d+$/.test(which) ? ((report.timelines || [])[Number(which.slice(4))] || {}).timeline : null;
    var t = makeTimeline(section, tl || {});
    if (t) group.push(t);
  });
  group.forEach(function (t) { t.start(); });
})();
