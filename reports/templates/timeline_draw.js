// npu-advisor HTML report: the step timeline's picture (docs/reports.md "Step timeline"): the
// layout of the rows, the time scale, and the drawing of one step on the canvas: the axis, the
// Computing / Communication / Free band, the slices, the launch lines coloured by lag, the finding
// marks and the row labels. Every function takes the timeline's state T (made by timeline.js:
// canvas, ctx, dpr, names, verticalNs, step, layout, view, opts, colorCache). Names from the input
// are only ever drawn as text (fillText).
var npuTimelineDraw = (function () {
  'use strict';
  var look = npuTimelineLook;  // timeline_look.js
  var LABEL_W = look.LABEL_W, AXIS_H = look.AXIS_H, MARK_H = look.MARK_H, LEVEL_H = look.LEVEL_H,
      DEV_LEVEL_H = look.DEV_LEVEL_H, ROW_GAP = look.ROW_GAP, GROUP_GAP = look.GROUP_GAP, BAND_H = look.BAND_H,
      RIGHT = look.RIGHT, BOTTOM = look.BOTTOM, MAX_LEVELS = look.MAX_LEVELS, MAX_DEVICE_LEVELS = look.MAX_DEVICE_LEVELS;
  var KIND = look.KIND, DEVICE_KINDS = look.DEVICE_KINDS, BAND = look.BAND, MIXED_KINDS = look.MIXED_KINDS,
      PALETTE = look.PALETTE, bandStyle = look.bandStyle, hash = look.hash;
  var fmtDur = npuFormat.fmtDur;  // format.js

  function nameOf(T, i) { return typeof T.names[i] === 'string' ? T.names[i] : '?'; }
  function sliceColor(T, nameIdx) {
    var c = T.colorCache[nameIdx];
    if (!c) c = T.colorCache[nameIdx] = PALETTE[hash(nameOf(T, nameIdx)) % PALETTE.length];
    return c;
  }
  // Red up to the vertical threshold (the device waited on the host), then orange to blue as
  // the host runs further ahead (log scale, blue at 20x the threshold and beyond).
  function lagColor(T, lag) {
    var verticalNs = T.verticalNs;
    if (lag <= verticalNs) return '#d62728';
    var f = Math.min(1, Math.log(lag / verticalNs) / Math.log(20));
    var a = [240, 160, 48], b = [47, 127, 193];
    return 'rgb(' + [0, 1, 2].map(function (k) { return Math.round(a[k] + (b[k] - a[k]) * f); }).join(',') + ')';
  }
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

  function plotLeft(T) { return Math.min(LABEL_W, T.canvas.clientWidth * 0.3); }
  function plotWidth(T) { return Math.max(50, T.canvas.clientWidth - plotLeft(T) - RIGHT); }
  function xOf(T, t) { var view = T.view; return plotLeft(T) + (t - view.t0) / (view.t1 - view.t0) * plotWidth(T); }
  function tOf(T, x) { var view = T.view; return view.t0 + (x - plotLeft(T)) / plotWidth(T) * (view.t1 - view.t0); }
  // ---- drawing ----
  function niceStep(span, px) {
    var raw = span / Math.max(1, px / 95);
    var p = Math.pow(10, Math.floor(Math.log(raw) / Math.LN10));
    var m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }

  function draw(T) {
    var step = T.step, layout = T.layout, ctx = T.ctx, canvas = T.canvas, dpr = T.dpr, opts = T.opts;
    if (!step) return;
    var W = canvas.clientWidth, H = layout.height, L = plotLeft(T), R = L + plotWidth(T);
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
    drawAxis(T, L, R, H);
    drawBand(T, L, R);
    drawSlices(T, L, R);
    if (opts.marks) drawMarkShades(T, L, R);
    drawFlows(T, L, R);
    if (opts.marks) drawMarks(T, L, R);
    var s0 = xOf(T, step.step_t_ns), s1 = xOf(T, step.step_end_t_ns);
    ctx.fillStyle = 'rgba(120,128,140,0.16)';
    if (s0 > L) ctx.fillRect(L, AXIS_H, s0 - L, H - AXIS_H);
    if (s1 < R) ctx.fillRect(s1, AXIS_H, R - s1, H - AXIS_H);
    ctx.restore();

    drawLabels(T, L);
    canvas.setAttribute('data-rendered', 'true');
  }

  function drawAxis(T, L, R, H) {
    var view = T.view, step = T.step, ctx = T.ctx;
    var span = view.t1 - view.t0, st = niceStep(span, R - L);
    var origin = step.step_t_ns || 0;  // labels: time since the step start
    var first = Math.ceil((view.t0 - origin) / st) * st;
    ctx.strokeStyle = '#e3e7ee';
    ctx.fillStyle = '#5b6474';
    ctx.lineWidth = 1;
    ctx.textAlign = 'center';
    for (var t = first; t <= view.t1 - origin; t += st) {
      var x = Math.round(xOf(T, t + origin)) + 0.5;
      ctx.beginPath();
      ctx.moveTo(x, AXIS_H - 4);
      ctx.lineTo(x, H - BOTTOM);
      ctx.stroke();
      ctx.fillText(fmtDur(Math.round(t)), x, AXIS_H / 2);
    }
    ctx.textAlign = 'left';
  }

  function drawBand(T, L, R) {
    var step = T.step, layout = T.layout, ctx = T.ctx;
    var band = Array.isArray(step.band) ? step.band : [];
    var y = layout.bandY;
    band.forEach(function (b) {
      var x0 = xOf(T, b[0]), x1 = xOf(T, b[0] + b[1]);
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

  function drawSlices(T, L, R) {
    var layout = T.layout, ctx = T.ctx;
    layout.rows.forEach(function (lr) {
      var items = lr.row.items || [];
      for (var i = 0; i < items.length; i++) {
        var it = items[i];
        var x0 = xOf(T, it[0]), x1 = xOf(T, it[0] + it[1]);
        if (x1 < L || x0 > R) continue;
        var depth = Math.min(it[3], (lr.device ? MAX_DEVICE_LEVELS : MAX_LEVELS) - 1);
        var y = lr.y + depth * lr.lh, h = lr.lh - 1;
        var w = Math.max(1, x1 - x0);
        var agg = it.length > 6;
        ctx.globalAlpha = agg ? 0.55 : 1;
        ctx.fillStyle = sliceColor(T, it[2]);
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
            ctx.fillText((agg ? it[6] + '\u00d7 ' : '') + nameOf(T, it[2]), xs, y + h / 2 + 0.5);
            ctx.restore();
          }
        }
      }
    });
  }

  function flowVisible(T, f) {
    return f[9] === 0 || T.opts.secondary;
  }
  function flowGeom(T, f) {
    var a = T.layout.rows[f[0]], b = T.layout.rows[f[2]];
    if (!a || !b) return null;
    var down = a.y < b.y;
    return { x0: xOf(T, f[1]), y0: down ? a.y + a.h : a.y, x1: xOf(T, f[3]), y1: down ? b.y : b.y + b.h };
  }
  function drawFlows(T, L, R) {
    var step = T.step, ctx = T.ctx;
    var flows = (step.flows && step.flows.items) || [];
    ctx.lineWidth = 1;
    for (var pass = 1; pass >= 0; pass--) {  // async_npu (faint) under HostToDevice
      for (var i = 0; i < flows.length; i++) {
        var f = flows[i];
        if (f[9] !== pass || !flowVisible(T, f)) continue;
        var g = flowGeom(T, f);
        if (!g || (g.x0 < L && g.x1 < L) || (g.x0 > R && g.x1 > R)) continue;
        ctx.strokeStyle = pass ? 'rgba(110,120,135,0.45)' : lagColor(T, f[4]);
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

  function marks(T) { return (T.step.marks && T.step.marks.items) || []; }
  function markX(T, m) {
    var x0 = xOf(T, m.t_ns), x1 = xOf(T, m.t_ns + m.dur_ns);
    if (x1 - x0 < 5) { var c = (x0 + x1) / 2; x0 = c - 2.5; x1 = c + 2.5; }
    return { x0: x0, x1: x1 };
  }
  // Where a mark happens, shaded over its row (or over the device rows and the band for the
  // device-side marks: idle gaps, interruptions).
  function drawMarkShades(T, L, R) {
    var layout = T.layout, ctx = T.ctx;
    var dev = layout.rows.filter(function (r) { return r.device; });
    var devTop = dev.length ? dev[0].y - 2 : layout.bandY - 2;
    marks(T).forEach(function (m) {
      var k = KIND[m.kind];
      if (!k) return;
      var p = markX(T, m);
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
  function drawMarks(T, L, R) {
    var ctx = T.ctx;
    var h = 12;
    ctx.font = 'bold 10px system-ui, "DejaVu Sans", sans-serif';
    ctx.textAlign = 'center';
    marks(T).forEach(function (m) {
      var k = KIND[m.kind];
      if (!k) return;
      var p = markX(T, m);
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

  function drawLabels(T, L) {
    var layout = T.layout, ctx = T.ctx;
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

  return {
    nameOf: nameOf, lagColor: lagColor, computeLayout: computeLayout, plotLeft: plotLeft, plotWidth: plotWidth,
    xOf: xOf, tOf: tOf, draw: draw, flowVisible: flowVisible, flowGeom: flowGeom, marks: marks, markX: markX,
    markLaneY: markLaneY
  };
})();
