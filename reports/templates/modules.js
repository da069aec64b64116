// npu-advisor HTML report: the module icicle (docs/reports.md "Modules"). Draws facts.modules of
// the embedded report into <section id="modules"> <div class="icicle">: a bar for the step's
// device work, below it the top-level modules and the part outside every module, each module's
// children below it, every block as wide as its device time per step. A card describes the block
// under the pointer; a click zooms into a block, the top bar or the path above zooms out.
// Names from the input are only ever set as text (textContent).
(function () {
  'use strict';

  var box = document.querySelector('#modules .icicle');
  if (!box) return;
  var report = npuReport;  // format.js
  if (!report) return;
  var m = (report.facts || {}).modules;
  if (!m || typeof m !== 'object') return;
  var isNum = npuFormat.isNum, fmtDur = npuFormat.fmtDur;  // format.js

  // ---- look ----
  var ROW_H = 24, MAX_ROWS = 9, LABEL_MIN_PX = 44, DRAW_MIN_PX = 0.5;
  // Shades per row below the bar in view, darkest first: computing, communication, copies.
  var SHADES = {
    computing: ['#2f5fa8', '#3b6fb6', '#5283c4', '#6c97cf', '#87abd9', '#a3bfe3', '#bdd1ec'],
    communication: ['#c06f0c', '#e08a1e', '#e89c43', '#eeae68', '#f3c18e', '#f6d0a8', '#f9dfc3'],
    copies: ['#a3831a', '#c9a227', '#d4b34e', '#dec475', '#e6d398', '#eddfb3', '#f3e9cc']
  };
  var DARK_TEXT_FROM = 3;  // rows from here on are light enough for dark text

  // ---- the tree: index -> children; virtual nodes for the step and what lies outside ----
  var tree = Array.isArray(m.tree) ? m.tree : [];
  var step = isNum(m.step_device_ns) ? m.step_device_ns : 0;
  var kids = tree.map(function () { return []; });
  var tops = [];
  tree.forEach(function (t, i) {
    if (isNum(t.parent) && t.parent >= 0 && t.parent < i) kids[t.parent].push(i);
    else tops.push(i);
  });
  function dev(i) { var t = tree[i]; return t && isNum(t.device_ns) ? Math.max(0, t.device_ns) : 0; }
  var outside = isNum(m.outside_ns) ? Math.max(0, m.outside_ns) : 0;
  var unjoined = isNum(m.unjoined_ns) ? Math.min(outside, Math.max(0, m.unjoined_ns)) : 0;
  var graph = m.graph || {};
  // Graph replays launch their kernels from one call: that time counts for the module that launched
  // the replay, else here.
  var graphLine = isNum(graph.device_ns) && graph.device_ns > 0
    ? [fmtDur(graph.device_ns) + ' of the step (' + pct(graph.device_ns) + ') runs in graph replays, ' +
       'not mapped to the modules that captured them'] : [];
  var ROOT = -1, MODULES = -2;  // the whole step; the modules only (when they are a small part)

  // ---- the card ----
  var card = document.createElement('div');
  card.className = 'ic-card';
  card.hidden = true;
  function pct(v) { return step > 0 ? (100 * v / step).toFixed(1) + '%' : '-'; }
  function lines(b) {
    if (b.text) return b.text;
    var t = tree[b.idx];
    var out = [t.path || t.name || '?',
               fmtDur(dev(b.idx)) + ' device time per step, ' + pct(dev(b.idx)) + ' of the step\u2019s device work',
               'computing ' + fmtDur(t.computing_ns) + ', communication ' + fmtDur(t.communication_ns) +
                 ', copies ' + fmtDur(t.copies_ns) +
                 (isNum(t.backward_ns) ? '; backward ' + fmtDur(t.backward_ns) + ' of it' : ''),
               'self ' + fmtDur(t.self_ns) + ', host ' + fmtDur(t.host_ns) + ' per step, ' +
                 (isNum(t.calls) ? t.calls : '?') + (t.calls === 1 ? ' call' : ' calls') +
                 (t.kind === 'annotation' ? ' (record_function / mstx range)' : '')];
    if (kids[b.idx].length) out.push(b.focus ? 'click to zoom out' : 'click to zoom in');
    return out;
  }
  function showCard(el, ev) {
    var b = el.icBlock;
    card.textContent = '';
    lines(b).forEach(function (l, k) {
      var d = document.createElement('div');
      if (k === 0) d.className = 'ic-card-title';
      d.textContent = l;
      card.appendChild(d);
    });
    card.hidden = false;
    var r = box.getBoundingClientRect(), er = el.getBoundingClientRect();
    var x = ev && isNum(ev.clientX) ? ev.clientX - r.left : er.left - r.left + er.width / 2;
    var y = er.bottom - r.top + 6;
    card.style.left = Math.max(0, Math.min(x - 12, box.clientWidth - card.offsetWidth)) + 'px';
    card.style.top = y + 'px';
  }

  // ---- layout: the bar in view on row 0, its children below, each within its parent ----
  var focus = ROOT;
  function focusValue() {
    if (focus === ROOT) return step;
    if (focus === MODULES) return tops.reduce(function (s, i) { return s + dev(i); }, 0);
    return dev(focus);
  }
  function colorOf(i, row) {
    var t = tree[i], c = t.computing_ns || 0, n = t.communication_ns || 0, p = t.copies_ns || 0;
    var kind = n > c && n >= p ? 'communication' : (p > c && p > n ? 'copies' : 'computing');
    var shades = SHADES[kind];
    return { bg: shades[Math.min(row - 1, shades.length - 1)], cls: row - 1 >= DARK_TEXT_FROM ? 'dark' : '' };
  }
  function layout() {
    var blocks = [];
    var total = focusValue();
    if (!(total > 0)) return blocks;
    var title = focus === ROOT ? 'step device work' : focus === MODULES ? 'in modules' : tree[focus].name;
    blocks.push({ idx: focus >= 0 ? focus : null, focus: true, x: 0, w: 1, row: 0, label: title,
                  sub: fmtDur(total) + (focus === ROOT ? ' per step' : ' \u00b7 ' + pct(total)),
                  text: focus >= 0 ? null : [title, fmtDur(total) + ' device time per step' +
                                             (focus === ROOT ? '' : ', ' + pct(total) + ' of the step\u2019s'),
                                             focus === ROOT ? 'the sum of the device tasks the step launched'
                                                            : 'click to see the whole step'] });
    function place(list, x0, span, row) {  // span: the parent's width as a fraction of the view
      if (row > MAX_ROWS) return;
      var sum = list.reduce(function (s, i) { return s + dev(i); }, 0);
      var scale = sum > span * total ? span / sum : 1 / total;  // rounding: never wider than the parent
      var x = x0;
      list.forEach(function (i) {
        var w = dev(i) * scale;
        if (w > 0) {
          var col = colorOf(i, row);
          blocks.push({ idx: i, x: x, w: w, row: row, label: tree[i].name || '?', sub: pct(dev(i)), bg: col.bg,
                        cls: col.cls });
          place(kids[i], x, w, row + 1);
        }
        x += w;
      });
      return x;
    }
    var end = place(focus === ROOT || focus === MODULES ? tops : kids[focus], 0, 1, 1);
    if (focus === ROOT && outside > 0) {
      var rest = outside / total, joined = (outside - unjoined) / total;
      if (joined > 0)
        blocks.push({ x: end, w: joined, row: 1, label: 'outside modules', sub: pct(outside - unjoined), cls: 'outside',
                      text: ['outside modules', fmtDur(outside - unjoined) + ' per step, ' + pct(outside - unjoined),
                             'launched in no module\u2019s forward or its backward: optimizer steps and ' +
                             'gradient work without a range, ...'].concat(graphLine) });
      if (unjoined > 0)
        blocks.push({ x: end + Math.max(0, joined), w: rest - Math.max(0, joined), row: 1,
                      label: 'joined to no launch', sub: pct(unjoined), cls: 'outside unjoined',
                      text: ['joined to no host launch', fmtDur(unjoined) + ' per step, ' + pct(unjoined),
                             'no launch arrow or correlation id joins it to the host (Ascend communication, ' +
                             'graph-launched tasks)'] });
    }
    return blocks;
  }

  // ---- drawing: absolutely placed divs, widths in %, labels only where they fit ----
  var crumbs = document.createElement('div');
  crumbs.className = 'ic-crumbs';
  var area = document.createElement('div');
  area.className = 'ic-area';
  var note = document.createElement('p');
  note.className = 'ic-note';
  function crumb(label, target) {
    var b = document.createElement('button');
    b.type = 'button';
    b.textContent = label;
    b.addEventListener('click', function () { zoom(target); });
    crumbs.appendChild(b);
  }
  function drawCrumbs() {
    crumbs.textContent = '';
    crumbs.hidden = !tree.length;
    crumb('whole step', ROOT);
    var coverage = isNum(m.coverage) ? m.coverage : 1;
    if (tops.length && coverage < 0.5) crumb('modules only (' + (100 * coverage).toFixed(1) + '% of the step)', MODULES);
    if (focus < 0) {
      crumbs.querySelectorAll('button')[focus === ROOT ? 0 : 1].className = 'on';
      return;
    }
    var path = [];
    for (var i = focus; i >= 0; i = isNum(tree[i].parent) && tree[i].parent < i ? tree[i].parent : -1) path.unshift(i);
    path.forEach(function (k) {
      var s = document.createElement('span');
      s.textContent = '\u203a';
      crumbs.appendChild(s);
      crumb(tree[k].name || '?', k);
    });
    crumbs.lastChild.className = 'on';
  }
  function draw() {
    var width = area.clientWidth || box.clientWidth || 1000;
    var blocks = layout();
    area.textContent = '';
    var rows = 0, drawn = 0, small = 0;
    blocks.forEach(function (b) {
      var px = b.w * width;
      if (px < DRAW_MIN_PX) { small++; return; }
      var el = document.createElement('div');
      el.className = 'ic-block' + (b.focus ? ' focus' : '') + (b.cls ? ' ' + b.cls : '') + (px < 3 ? ' thin' : '');
      el.style.left = (100 * b.x) + '%';
      el.style.width = (100 * b.w) + '%';
      el.style.top = (b.row * ROW_H) + 'px';
      if (b.bg) el.style.background = b.bg;
      if (px >= LABEL_MIN_PX) {
        var lab = document.createElement('span');
        lab.className = 'ic-label';
        lab.textContent = b.label;
        if (px >= LABEL_MIN_PX * 3) {
          var sub = document.createElement('small');
          sub.textContent = ' ' + b.sub;
          lab.appendChild(sub);
        }
        el.appendChild(lab);
      }
      el.icBlock = b;
      el.setAttribute('aria-label', lines(b).join('; '));
      var target = b.focus ? up() : (isNum(b.idx) && kids[b.idx].length ? b.idx : null);
      if (target !== null) {
        el.tabIndex = 0;
        el.classList.add('zoomable');
        el.addEventListener('click', function () { zoom(target); });
        el.addEventListener('keydown', function (e) { if (e.key === 'Enter') zoom(target); });
      }
      el.addEventListener('mousemove', function (e) { showCard(el, e); });
      el.addEventListener('focus', function () { showCard(el, null); });
      el.addEventListener('mouseleave', function () { card.hidden = true; });
      el.addEventListener('blur', function () { card.hidden = true; });
      area.appendChild(el);
      drawn++;
      rows = Math.max(rows, b.row + 1);
    });
    area.style.height = (rows * ROW_H) + 'px';
    box.setAttribute('data-blocks', String(drawn));
    box.setAttribute('data-focus', focus >= 0 ? tree[focus].path : focus === ROOT ? 'step' : 'modules');
    var deeper = tree.some(function (t) { return isNum(t.depth) && t.depth > MAX_ROWS; });
    note.textContent = (small ? small + (small === 1 ? ' block is' : ' blocks are') + ' too narrow to draw. ' : '') +
                       (deeper && focus === ROOT ? 'Deeper levels show when you zoom in. ' : '') +
                       (focus === ROOT && tops.length && isNum(m.coverage) && m.coverage < 0.5
                          ? 'The modules are ' + (100 * m.coverage).toFixed(1) + '% of the step: \u201cmodules only\u201d ' +
                            'scales the chart to them. ' : '') +
                       'Width: device time per step' +
                       (tree.length ? '; click a block to zoom in, the top bar to zoom out.' : '.');
  }
  function up() {
    if (focus === ROOT) return null;
    if (focus === MODULES) return ROOT;
    var p = tree[focus].parent;
    return isNum(p) && p >= 0 && p < focus ? p : ROOT;
  }
  function zoom(target) {
    if (target === null || target === undefined) return;
    focus = target;
    card.hidden = true;
    drawCrumbs();
    draw();
  }

  var legend = document.createElement('p');
  legend.className = 'split-text ic-legend';
  function any(key) { return tree.some(function (t) { return isNum(t[key]) && t[key] > 0; }); }
  [['computing', SHADES.computing[1], tree.length > 0], ['communication', SHADES.communication[1], any('communication_ns')],
   ['copies', SHADES.copies[1], any('copies_ns')], ['outside modules', '#c5ccd6', outside > unjoined],
   ['joined to no launch', '#9aa3b2', unjoined > 0]].forEach(function (k) {
    if (!k[2]) return;
    var s = document.createElement('span');
    s.className = 'split-key';
    var i = document.createElement('i');
    i.style.background = k[1];
    s.appendChild(i);
    s.appendChild(document.createTextNode(k[0]));
    legend.appendChild(s);
  });
  if (tree.length) legend.appendChild(document.createTextNode('(a module\u2019s colour: what most of its device time is)'));

  box.textContent = '';
  box.appendChild(crumbs);
  box.appendChild(area);
  box.appendChild(card);
  box.appendChild(note);
  box.appendChild(legend);
  if (!(step > 0)) {
    area.textContent = 'no device work in the steps';
    return;
  }
  drawCrumbs();
  draw();
  box.setAttribute('data-rendered', 'true');
  var over = false;  // Esc zooms out while the pointer or the focus is on the chart (a zoom redraws the focus away)
  box.addEventListener('mouseenter', function () { over = true; });
  box.addEventListener('mouseleave', function () { over = false; });
  document.addEventListener('keydown', function (e) {
    if (e.key === 'Escape' && (over || box.contains(document.activeElement))) zoom(up());
  });
  var lastWidth = area.clientWidth;
  function redrawIfResized() {
    if (area.clientWidth !== lastWidth) { lastWidth = area.clientWidth; draw(); }
  }
  window.addEventListener('resize', redrawIfResized);
  window.addEventListener('beforeprint', redrawIfResized);
  window.addEventListener('afterprint', redrawIfResized);
})();
