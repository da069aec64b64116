// npu-advisor HTML report: sortable tables, copy buttons, print support and the charts, drawn
// from the report document embedded in #report-data. Inlined into the page by
// reports/html/page.cpp; no network access of any kind.
(function () {
  'use strict';

  var report = npuReport || {};  // format.js
  var facts = report.facts || {};

  function each(selector, fn) {
    Array.prototype.forEach.call(document.querySelectorAll(selector), fn);
  }

  // ---- sortable tables: click (or Enter on) a header; numbers sort by data-v ----
  function sortKey(td) {
    if (!td) return { s: '' };
    var v = td.getAttribute('data-v');
    if (v !== null && v !== '' && !isNaN(Number(v))) return { n: Number(v) };
    return { s: td.textContent.trim() };
  }
  function compareKeys(a, b) {
    if ('n' in a && 'n' in b) return a.n - b.n;
    if ('n' in a) return -1;
    if ('n' in b) return 1;
    return a.s.localeCompare(b.s, undefined, { numeric: true, sensitivity: 'base' });
  }
  each('table.sortable', function (table) {
    if (!table.tHead || !table.tBodies.length) return;
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, col) {
      th.tabIndex = 0;
      th.title = 'Sort by ' + th.textContent;
      function sort() {
        var current = th.getAttribute('aria-sort');
        var numeric = th.classList.contains('num');
        var dir = current ? (current === 'ascending' ? 'descending' : 'ascending') : (numeric ? 'descending' : 'ascending');
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', dir);
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (ra, rb) {
          var c = compareKeys(sortKey(ra.cells[col]), sortKey(rb.cells[col]));
          return dir === 'ascending' ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      }
      th.addEventListener('click', sort);
      th.addEventListener('keydown', function (e) {
        if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sort(); }
      });
    });
  });

  // ---- copy buttons (clipboard API where allowed, else a hidden textarea) ----
  each('button.copy', function (btn) {
    btn.addEventListener('click', function () {
      var target = document.getElementById(btn.getAttribute('data-target'));
      var text = target ? target.textContent : '';
      function done(ok) {
        btn.textContent = ok ? 'Copied' : 'Press Ctrl+C';
        setTimeout(function () { btn.textContent = 'Copy'; }, 1500);
      }
      function fallback() {
        var ta = document.createElement('textarea');
        ta.value = text;
        ta.setAttribute('readonly', '');
        ta.style.position = 'fixed';
        ta.style.top = '0';
        ta.style.opacity = '0';
        document.body.appendChild(ta);
        ta.select();
        var ok = false;
        try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
        document.body.removeChild(ta);
        if (!ok && target) {
          var range = document.createRange();
          range.selectNodeContents(target);
          var sel = window.getSelection();
          sel.removeAllRanges();
          sel.addRange(range);
        }
        done(ok);
      }
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(function () { done(true); }, fallback);
      } else {
        fallback();
      }
    });
  });

  // ---- expand / collapse findings; everything open when printing ----
  each('button.expand-all', function (b) {
    b.addEventListener('click', function () { each('details.finding', function (d) { d.open = true; }); });
  });
  each('button.collapse-all', function (b) {
    b.addEventListener('click', function () { each('details.finding', function (d) { d.open = false; }); });
  });
  // Charts are redrawn at a size that fits a portrait A4/Letter page (the print CSS scales
  // them down further if the page is narrower), and back to the window's size afterwards.
  var closedForPrint = [];
  function charts() {
    var out = [];
    if (typeof Chart === 'undefined') return out;
    each('canvas[data-chart]', function (c) { var ch = Chart.getChart(c); if (ch) out.push(ch); });
    return out;
  }
  window.addEventListener('beforeprint', function () {
    closedForPrint = [];
    each('details', function (d) { if (!d.open) { closedForPrint.push(d); d.open = true; } });
    charts().forEach(function (ch) { ch.resize(680, ch.canvas.getAttribute('data-chart') === 'operators' ? 250 : 230); });
  });
  window.addEventListener('afterprint', function () {
    closedForPrint.forEach(function (d) { d.open = false; });
    closedForPrint = [];
    charts().forEach(function (ch) { ch.resize(); });
  });

  // ---- charts ----
  var canvases = document.querySelectorAll('canvas[data-chart]');
  if (!canvases.length) return;
  if (typeof Chart === 'undefined') {
    Array.prototype.forEach.call(canvases, function (c) {
      var p = document.createElement('p');
      p.className = 'na';
      p.textContent = 'chart not available: this npu-advisor was built without Chart.js (libjs-chart.js); ' +
                      'the table below has the same numbers';
      c.parentNode.replaceWith(p);
    });
    return;
  }

  var css = getComputedStyle(document.documentElement);
  function color(name, fallback) { return (css.getPropertyValue(name) || '').trim() || fallback; }
  var C = {
    computing: color('--computing', '#3b6fb6'),
    comm: color('--comm', '#e08a1e'),
    free: color('--free', '#d64545'),
    muted: '#5b6474'
  };
  Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
  Chart.defaults.font.size = 12;
  Chart.defaults.color = '#394252';
  Chart.defaults.animation = false;
  Chart.defaults.responsive = true;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.plugins.legend.position = 'bottom';
  Chart.defaults.plugins.legend.labels.boxWidth = 14;

  var isNum = npuFormat.isNum, fmtDur = npuFormat.fmtDur;  // format.js
  function ms(ns) { return isNum(ns) ? ns / 1e6 : null; }
  function stepLabel(s) { return s.id === null || s.id === undefined ? 'whole run' : 'step ' + s.id; }
  function shorten(s, n) { s = String(s); return s.length > n ? s.slice(0, n - 1) + '\u2026' : s; }

  function stepsChart() {
    var steps = Array.isArray(facts.steps) ? facts.steps : [];
    function ds(label, key, col) {
      return { label: label, data: steps.map(function (s) { return ms(s[key]); }), backgroundColor: col, stack: 'device',
               borderWidth: 0, maxBarThickness: 70 };
    }
    return {
      type: 'bar',
      data: {
        labels: steps.map(stepLabel),
        datasets: [ds('Computing', 'computing_ns', C.computing),
                   ds('Communication not overlapped', 'comm_not_overlapped_ns', C.comm),
                   ds('Free (device idle)', 'free_ns', C.free)]
      },
      options: {
        interaction: { mode: 'index', intersect: false },
        scales: {
          x: { stacked: true, grid: { display: false } },
          y: { stacked: true, beginAtZero: true, title: { display: true, text: 'device time (ms)' } }
        },
        plugins: {
          tooltip: {
            callbacks: {
              label: function (ctx) { return ctx.dataset.label + ': ' + fmtDur(ctx.parsed.y * 1e6); },
              footer: function (items) {
                var s = steps[items[0].dataIndex] || {};
                return 'device time ' + fmtDur(s.device_time_ns) +
                       (isNum(s.free_ratio) ? ', free ' + (100 * s.free_ratio).toFixed(1) + '%' : '');
              }
            }
          }
        }
      }
    };
  }

  // The unit (ns, us or ms) that reads best for the largest magnitude of `values` (in ns).
  function unitFor(values) {
    var m = 0;
    values.forEach(function (v) { if (isNum(v)) m = Math.max(m, Math.abs(v)); });
    if (m >= 1e6) return { name: 'ms', div: 1e6 };
    if (m >= 1e3) return { name: '\u00b5s', div: 1e3 };
    return { name: 'ns', div: 1 };
  }

  function dispatchChart() {
    var d = facts.dispatch || {};
    var steps = Array.isArray(d.steps) ? d.steps : [];
    // The class of each step as the rules decided it (report.verdicts, docs/rules.md).
    var decided = ((report.verdicts || {}).dispatch || {}).step_class || {};
    var classes = Array.isArray(decided.steps) ? decided.steps : [];
    var lagUnit = unitFor([].concat(steps.map(function (s) { return s.lag_p90_ns; }),
                                    steps.map(function (s) { return s.lag_p10_ns; })));
    var slopeUnit = unitFor(steps.map(function (s) { return s.slope_ns_per_ms; }));
    function lag(key) { return steps.map(function (s) { return isNum(s[key]) ? s[key] / lagUnit.div : null; }); }
    var slope = steps.map(function (s) { return isNum(s.slope_ns_per_ms) ? s.slope_ns_per_ms / slopeUnit.div : null; });
    return {
      type: 'line',
      data: {
        labels: steps.map(stepLabel),
        datasets: [
          { label: 'lag p10', data: lag('lag_p10_ns'), borderColor: '#8fb0dd', backgroundColor: '#8fb0dd',
            borderDash: [4, 3], pointRadius: 3, yAxisID: 'y', order: 1 },
          { label: 'lag p50', data: lag('lag_p50_ns'), borderColor: C.computing, backgroundColor: C.computing,
            borderWidth: 2.5, pointRadius: 4, yAxisID: 'y', order: 1 },
          { label: 'lag p90 (band: p10\u2013p90)', data: lag('lag_p90_ns'), borderColor: '#8fb0dd',
            backgroundColor: 'rgba(59,111,182,0.12)', borderDash: [4, 3], pointRadius: 3, fill: 0, yAxisID: 'y', order: 1 },
          { type: 'bar', label: 'fitted slope (' + slopeUnit.name + ' of lag per ms of step)', data: slope, yAxisID: 'slope',
            backgroundColor: 'rgba(224,138,30,0.35)', borderColor: C.comm, borderWidth: 1, maxBarThickness: 40, order: 2 }
        ]
      },
      options: {
        interaction: { mode: 'index', intersect: false },
        scales: {
          x: { grid: { display: false }, offset: true },
          y: { beginAtZero: true, title: { display: true, text: 'H2D launch lag (' + lagUnit.name + ')' } },
          slope: { position: 'right', beginAtZero: true, grid: { drawOnChartArea: false },
                   title: { display: true, text: 'slope (' + slopeUnit.name + ' of lag per ms)' } }
        },
        plugins: {
          tooltip: {
            callbacks: {
              label: function (ctx) {
                if (ctx.dataset.yAxisID === 'slope') {
                  var s = steps[ctx.dataIndex] || {};
                  return 'slope: ' + fmtDur(s.slope_ns_per_ms) + ' of lag per ms' +
                         (isNum(s.r2) ? ' (r\u00b2 ' + s.r2.toFixed(2) + ')' : '');
                }
                return ctx.dataset.label.split(' (')[0] + ': ' + fmtDur(ctx.parsed.y * lagUnit.div);
              },
              footer: function (items) {
                var s = steps[items[0].dataIndex] || {};
                var c = (classes[items[0].dataIndex] || {})['class'] || '';
                return c + (isNum(s.count) ? ', ' + s.count + ' launches' : '');
              }
            }
          }
        }
      }
    };
  }

  function operatorsChart() {
    var ops = facts.operators || {};
    var byType = Array.isArray(ops.by_type) && ops.by_type.length > 0;
    var items = (byType ? ops.by_type : (Array.isArray(ops.by_name) ? ops.by_name : [])).slice(0, 12);
    var key = byType ? 'type' : 'name';
    var coreColors = { AI_CORE: C.computing, AI_VECTOR_CORE: '#5aa9a1', MIX_AIC: '#7f6bb8', MIX_AIV: '#9b7fd0',
                       AI_CPU: C.free, HCCL: C.comm };
    return {
      type: 'bar',
      data: {
        labels: items.map(function (o) { return shorten(o[key], 48); }),
        datasets: [{
          label: 'total device time (ms)',
          data: items.map(function (o) { return ms(o.total_ns); }),
          backgroundColor: items.map(function (o) { return coreColors[o.accelerator_core] || '#8a94a6'; }),
          maxBarThickness: 18
        }]
      },
      options: {
        indexAxis: 'y',
        scales: {
          x: { beginAtZero: true, title: { display: true, text: 'total device time over the run (ms)' } },
          y: { grid: { display: false },
               ticks: { autoSkip: false, font: { family: css.getPropertyValue('--mono') || 'monospace', size: 11 } } }
        },
        plugins: {
          legend: {
            display: true,
            position: 'top',
            align: 'end',
            labels: {
              generateLabels: function () {
                var seen = {};
                var out = [];
                items.forEach(function (o) {
                  var core = o.accelerator_core || '?';
                  if (seen[core]) return;
                  seen[core] = true;
                  out.push({ text: core, fillStyle: coreColors[core] || '#8a94a6', strokeStyle: 'transparent',
                             lineWidth: 0, hidden: false, datasetIndex: 0 });
                });
                return out;
              }
            },
            onClick: function () {}
          },
          title: { display: true, text: 'Top operator ' + (byType ? 'types' : 'kernel names') +
                   ' by device time over the run', align: 'start', font: { weight: '600' } },
          tooltip: {
            callbacks: {
              title: function (its) { var o = items[its[0].dataIndex] || {}; return String(o[key]); },
              label: function (ctx) {
                var o = items[ctx.dataIndex] || {};
                return [fmtDur(o.total_ns) + ' in ' + o.count + ' calls (' + (o.accelerator_core || '?') + ')',
                        isNum(o.share_of_compute) ? (100 * o.share_of_compute).toFixed(1) + '% of compute' : ''];
              }
            }
          }
        }
      }
    };
  }

  var builders = { steps: stepsChart, dispatch: dispatchChart, operators: operatorsChart };
  Array.prototype.forEach.call(canvases, function (canvas) {
    var kind = canvas.getAttribute('data-chart');
    var build = builders[kind];
    if (!build) {
      console.error('npu-advisor: unknown chart ' + kind);
      return;
    }
    try {
      new Chart(canvas, build());
      canvas.setAttribute('data-rendered', 'true');
    } catch (e) {
      console.error('npu-advisor: chart ' + kind + ' failed: ' + e.message);
    }
  });
})();
