// npu-advisor HTML report: what the page's scripts share, inlined before them. The report
// document embedded in #report-data, parsed once (npuReport) for report.js, timeline.js and
// modules.js; and number formatting, so the charts' tooltips and the timeline's cards write a
// duration the same way (and as the static tables do: dur() in reports/html/kit.cpp).
var npuReport = (function () {
  'use strict';
  var el = document.getElementById('report-data');
  if (!el) return null;
  try {
    return JSON.parse(el.textContent);
  } catch (e) {
    console.error('npu-advisor: cannot parse the embedded report: ' + e.message);
    return null;
  }
})();

var npuFormat = (function () {
  'use strict';
  function isNum(v) { return typeof v === 'number' && isFinite(v); }
  // 850 ns, 12.3 µs, 4.567 ms, 1.234 s; '-' for a missing value.
  function fmtDur(ns) {
    if (!isNum(ns)) return '-';
    var a = Math.abs(ns);
    if (a < 1e3) return ns.toFixed(0) + ' ns';
    if (a < 1e6) return (ns / 1e3).toFixed(1) + ' \u00b5s';
    if (a < 1e9) return (ns / 1e6).toFixed(3) + ' ms';
    return (ns / 1e9).toFixed(3) + ' s';
  }
  return { isNum: isNum, fmtDur: fmtDur };
})();
