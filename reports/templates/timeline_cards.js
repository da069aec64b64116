// npu-advisor HTML report: the step timeline's words (docs/reports.md "Step timeline"): what is
// under the pointer (a row label, a slice, a launch line, a band segment or a finding mark) and
// the card that describes it, and the caption, legend and mark list around the picture. Every
// function takes the timeline's state T (timeline.js). Names from the input are only ever set as
// text (textContent).
var npuTimelineCards = (function () {
  'use strict';
  var look = npuTimelineLook, draw = npuTimelineDraw;  // timeline_look.js, timeline_draw.js
  var AXIS_H = look.AXIS_H, MARK_H = look.MARK_H, BAND_H = look.BAND_H, MAX_LEVELS = look.MAX_LEVELS,
      MAX_DEVICE_LEVELS = look.MAX_DEVICE_LEVELS;
  var KIND = look.KIND, BAND = look.BAND, IDLE_CAUSE = look.IDLE_CAUSE, bandStyle = look.bandStyle,
      chosenAs = look.chosenAs, stepName = look.stepName, evidenceObjText = look.evidenceObjText;
  var nameOf = draw.nameOf, plotLeft = draw.plotLeft, plotWidth = draw.plotWidth, tOf = draw.tOf,
      flowVisible = draw.flowVisible, flowGeom = draw.flowGeom, marks = draw.marks, markX = draw.markX,
      markLaneY = draw.markLaneY;
  var fmtDur = npuFormat.fmtDur;  // format.js

  function evidenceText(T, src, off) {
    var s = T.sources[src];
    if (!s) return '';
    var file = String(s.file || '');
    return file + (s.table ? ' table ' + s.table + ' rowid ' + off : ' byte ' + off);
  }
  // ---- what is under the pointer ----
  function hit(T, x, y) {
    var layout = T.layout, view = T.view, step = T.step, opts = T.opts;
    var L = plotLeft(T), R = L + plotWidth(T);
    if (x < L) {
      for (var q = 0; q < layout.rows.length; q++)
        if (y >= layout.rows[q].y && y < layout.rows[q].y + Math.max(layout.rows[q].h, 12)) return { label: layout.rows[q].row };
      return null;
    }
    if (x > R) return null;
    var t = tOf(T, x), tol = 2 * (view.t1 - view.t0) / plotWidth(T);
    if (opts.marks && y >= AXIS_H && y < AXIS_H + MARK_H) {
      var best = null;
      marks(T).forEach(function (m) {
        var p = markX(T, m), ly = markLaneY(m);
        if (y < ly - 1 || y > ly + 13) return;
        if (x >= p.x0 - 2 && x <= p.x1 + 2 && (!best || m.dur_ns < best.dur_ns)) best = m;
      });
      if (best) return { mark: best };
    }
    // A launch line close to the pointer (within 3 px), between its two rows.
    var flows = (step.flows && step.flows.items) || [], bestF = null, bestD = 3.5;
    flows.forEach(function (f) {
      if (!flowVisible(T, f)) return;
      var g = flowGeom(T, f);
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
  function showCard(T, h, x, y) {
    var card = T.card, step = T.step, tl = T.data, verticalNs = T.verticalNs;
    card.textContent = '';
    var origin = step.step_t_ns || 0;
    if (h.label) {
      var rb = document.createElement('b');
      rb.textContent = String(h.label.label || '');
      card.appendChild(rb);
      line(card, (h.label.slices || 0) + ' slices in the window' +
           (h.label.aggregated ? ', ' + h.label.aggregated + ' of them drawn as aggregates' : ''));
      var enc = Array.isArray(h.label.enclosing) ? h.label.enclosing : [];
      if (enc.length) line(card, 'inside (spanning the whole window, not drawn): ' + enc.map(function (i) { return nameOf(T, i); }).join(' \u203a '));
    } else if (h.item) {
      var it = h.item, agg = it.length > 6;
      var b = document.createElement('b');
      b.textContent = agg ? it[6] + ' events aggregated (each shorter than ' + fmtDur(step.aggregate_below_ns) + ')'
                          : nameOf(T, it[2]);
      card.appendChild(b);
      if (agg) line(card, 'longest: ' + nameOf(T, it[2]) + '; busy ' + fmtDur(it[7]) + ' of ' + fmtDur(it[1]));
      else line(card, 'duration ' + fmtDur(it[1]));
      line(card, 'starts ' + fmtDur(it[0] - origin) + ' into the step; ' + String(h.row.label || ''));
      line(card, evidenceText(T, it[4], it[5]), 'tl-ev');
    } else if (h.flow) {
      var f = h.flow, kind = f[9] === 1 ? 'async_npu (Python operator \u2192 device task)' : String(tl.flow_kind || 'launch') + ' (launch \u2192 device task)';
      var bb = document.createElement('b');
      bb.textContent = 'launch lag ' + fmtDur(f[4]) + (f[4] <= verticalNs ? ': vertical, the device waited on the host' : ': the host ran ahead');
      card.appendChild(bb);
      line(card, kind);
      line(card, 'launched ' + fmtDur(f[1] - origin) + ', device task started ' + fmtDur(f[3] - origin) + ' into the step');
      line(card, 'host: ' + evidenceText(T, f[5], f[6]), 'tl-ev');
      line(card, 'device: ' + evidenceText(T, f[7], f[8]), 'tl-ev');
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
      T.findingsFor(m.kind).forEach(function (fd) { line(card, 'finding #' + fd.rank + ': ' + fd.title); });
      if (m.evidence) line(card, evidenceObjText(m.evidence), 'tl-ev');
    }
    card.hidden = false;
    var fw = T.canvas.clientWidth;
    var cw = card.offsetWidth, ch = card.offsetHeight;
    card.style.left = Math.max(0, Math.min(x + 14, fw - cw - 4)) + 'px';
    card.style.top = (y + 16 + ch > T.layout.height ? Math.max(0, y - ch - 8) : y + 16) + 'px';
  }
  // ---- the words around the picture ----
  function describe(T) {
    var step = T.step, caption = T.caption, legend = T.legend, markList = T.markList, canvas = T.canvas;
    var verticalNs = T.verticalNs;
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
      var shown = marks(T).filter(function (m) { return m.kind === kind; });
      var longest = shown.reduce(function (a, m) { return Math.max(a, m.dur_ns); }, 0);
      li.appendChild(document.createTextNode(k.glyph + ' ' + k.label + ': ' + n + (n > 1 ? ' marks' : ' mark') +
          (shown.length < n ? ' (the ' + shown.length + ' longest drawn)' : '') + ', longest ' + fmtDur(longest)));
      T.findingsFor(kind).forEach(function (fd) {
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
    canvas.setAttribute('data-marks', String(marks(T).length));
  }

  return { hit: hit, showCard: showCard, describe: describe };
})();
