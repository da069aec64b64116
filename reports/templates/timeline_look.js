// npu-advisor HTML report: the step timeline's look (docs/reports.md "Step timeline"): its sizes,
// the colour, glyph and rules of each finding-mark kind, the band's kinds and the idle causes, and
// the small helpers that timeline_draw.js, timeline_cards.js and timeline.js share. Inlined after
// format.js and before them.
var npuTimelineLook = (function () {
  'use strict';
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

  var isNum = npuFormat.isNum;  // format.js
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

  return {
    // Sizes in CSS pixels; deeper items are drawn on the last level.
    LABEL_W: 240, AXIS_H: 22, MARK_H: 30, LEVEL_H: 11, DEV_LEVEL_H: 18, ROW_GAP: 5, GROUP_GAP: 34, BAND_H: 18,
    RIGHT: 10, BOTTOM: 6, MAX_LEVELS: 16, MAX_DEVICE_LEVELS: 4,
    KIND: KIND, DEVICE_KINDS: DEVICE_KINDS, BAND: BAND, MIXED_KINDS: MIXED_KINDS, IDLE_CAUSE: IDLE_CAUSE,
    PALETTE: PALETTE, bandStyle: bandStyle, chosenAs: chosenAs, stepName: stepName, hash: hash,
    evidenceObjText: evidenceObjText
  };
})();
