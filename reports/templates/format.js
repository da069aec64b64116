// npu-advisor HTML report: number formatting shared by report.js and timeline.js, so the charts'
// tooltips and the timeline's cards write a duration the same way (and as the static tables do:
// dur() in reports/html/kit.cpp). Inlined into the page before both scripts.
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
