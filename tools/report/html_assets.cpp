#include "report/html_assets.h"

namespace flopspy::tools::html {

const char kStyleSheet[] = R"css(
:root { --fg: #1a202c; --muted: #718096; --line: #e2e8f0; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
       margin: 0 auto; max-width: 1320px; padding: 16px 24px 64px; background: #fff; }
h1 { font-size: 24px; margin: 8px 0 4px; }
h2 { font-size: 20px; border-bottom: 2px solid var(--line); padding-bottom: 4px; margin-top: 40px; }
h3 { font-size: 16px; margin: 24px 0 6px; }
h4 { font-size: 14px; margin: 14px 0 4px; }
a { color: #2b6cb0; }
.muted, .note { color: var(--muted); }
.note { font-size: 13px; }
.warn { color: #c05621; }
.bad { color: #c53030; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; word-break: break-all; }
pre { font: 12px ui-monospace, monospace; background: #f7fafc; padding: 8px; overflow-x: auto; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 8px 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
.table-wrap { overflow: auto; margin: 8px 0; max-height: 80vh; max-width: 100%; }
table { border-collapse: collapse; font-size: 12.5px; max-width: 100%; }
th, td { padding: 3px 8px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { background: #f7fafc; position: sticky; top: 0; z-index: 1; vertical-align: bottom; }
.js table.sortable th { cursor: pointer; user-select: none; }
.js table.sortable th:hover { background: #edf2f7; }
th[aria-sort=ascending]::after { content: " \25B2"; }
th[aria-sort=descending]::after { content: " \25BC"; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num { white-space: nowrap; }
td.name { min-width: 180px; max-width: 440px; overflow-wrap: anywhere; }
td.name summary, td.diag summary { cursor: pointer; }
td.name details[open] { max-width: 440px; }
td.diag { min-width: 120px; max-width: 360px; }
td.diag summary.warn { color: #c05621; }
td.diag ul { margin: 0; padding-left: 16px; }
td.diag li.warning, td.diag li.critical { color: #c05621; }
tr.hl td { background: #fefcbf; }
.regime { padding: 0 6px; border-radius: 8px; color: #fff; font-size: 11.5px; white-space: nowrap; }
.regime.compute_bound { background: #2b6cb0; }
.regime.memory_bound { background: #dd6b20; }
.regime.overhead_bound { background: #805ad5; }
.regime.unknown { background: #718096; }
figure.chart { margin: 8px 0 16px; }
figcaption { color: var(--muted); font-size: 12.5px; max-width: 840px; }
svg.roofline, svg.timeline { max-width: 100%; height: auto; font: 11px system-ui, sans-serif; }
svg .plot { fill: #fff; stroke: #a0aec0; }
svg .grid line { stroke: #edf2f7; }
svg .grid line.minor { stroke: #a0aec0; }
svg .ticks text { fill: #4a5568; }
svg .axis-title { font-size: 12px; fill: #2d3748; }
svg .roof { stroke: #1a202c; stroke-width: 1.6; }
svg .roof.secondary { stroke: #4a5568; stroke-dasharray: 6 4; }
svg .roof-label { fill: #1a202c; font-size: 10.5px; }
svg .roof-label.secondary { fill: #4a5568; }
svg .leader { fill: none; stroke: #a0aec0; }
svg .ridge { fill: #1a202c; }
svg .legend text { fill: #2d3748; }
svg .legend circle.library { stroke: #1a202c; stroke-width: 2; }
svg .pt { fill-opacity: .72; stroke: #fff; stroke-width: 1; }
svg .pt.library { stroke: #1a202c; stroke-width: 2; }
svg .pt:hover, svg .pt.hl { stroke: #000; stroke-width: 3; fill-opacity: 1; }
svg.coverage { vertical-align: middle; border: 1px solid var(--line); }
.swatch { display: inline-block; width: 10px; height: 10px; margin: 0 3px 0 2px; border-radius: 2px;
          vertical-align: -1px; }
.timeline .idle { fill: #edf2f7; }
.timeline .busy { fill: #2b6cb0; }
.timeline .tick { stroke: #a0aec0; }
.timeline text.muted { fill: #718096; }
details.unplaced ul, details.roofs { font-size: 13px; }
ol.advice li { margin: 10px 0; }
.badge { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 11px; background: #cbd5e0; }
.sev-warning .badge { background: #f6ad55; }
.sev-critical .badge, .sev-error .badge { background: #fc8181; }
.gain { font-weight: 600; white-space: nowrap; color: #276749; }
ol.advice p { margin: 2px 0; }
ol.advice .basis { font-size: 12.5px; }
td.nowrap { white-space: nowrap; }
dl.facts dd { overflow-wrap: anywhere; }
nav.toc { margin: 8px 0 4px; font-size: 13px; }
nav.toc .toc-title { color: var(--muted); margin-right: 6px; }
nav.toc ul { display: inline; margin: 0; padding: 0; }
nav.toc li { display: inline-block; margin: 0 10px 2px 0; }
details.sec { margin: 6px 0; border-top: 1px solid var(--line); }
details.sec > summary { cursor: pointer; list-style-position: outside; margin-left: 16px; }
details.sec > summary h3 { display: inline-block; margin: 12px 0 6px; }
details.sec .sec-body { padding-left: 4px; }
details.sub > summary { cursor: pointer; margin: 10px 0 4px; font-weight: 600; font-size: 13.5px; }
.pair { display: grid; grid-template-columns: repeat(auto-fit, minmax(560px, 1fr)); gap: 0 24px; }
.pair > div { min-width: 0; }
p.verdict { margin: 6px 0 8px; }
p.path { margin: 0 0 4px; }
.timeline-tools { font-size: 12px; margin: 4px 0; }
.timeline-tools button { font: inherit; padding: 1px 8px; margin-right: 4px; }
#tip { position: fixed; z-index: 10; max-width: 560px; background: #1a202c; color: #fff;
       font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; padding: 6px 8px;
       border-radius: 4px; white-space: pre-wrap; pointer-events: none; }
.icicle { position: relative; width: 100%; overflow: hidden; margin: 8px 0 4px;
          border: 1px solid var(--line); background: #fff; }
.icicle .ice { position: absolute; height: 17px; box-sizing: border-box; padding: 0 3px;
               border-right: 1px solid #fff; background: #bee3f8; cursor: pointer;
               font: 11px/17px system-ui, sans-serif; white-space: nowrap; overflow: hidden;
               text-overflow: ellipsis; }
.icicle .ice.site { background: #f6ad55; }
.icicle .ice.root { background: #cbd5e0; }
.icicle .ice.above { opacity: .6; }
.icicle .ice.narrow { color: transparent; }
.icicle .ice:hover, .icicle .ice:focus, .icicle .ice.hl { outline: 2px solid #1a202c;
                                                          outline-offset: -2px; }
svg.mix { vertical-align: middle; border: 1px solid var(--line); }
ol.stack, ol.site-kernels { margin: 2px 0; padding-left: 22px; font-size: 12px; }
ol.stack li.user { font-weight: 600; }
tr.picked td { background: #fefcbf; }
footer { margin-top: 48px; font-size: 12px; }
@media print { .table-wrap { overflow: visible; max-height: none; } th { position: static; } }
)css";

// Sorting on a header click (numbers by data-v, text by data-s or the cell's text; blanks last),
// and details on hover: a point's tooltip, and the point and its table row lit together.
const char kScript[] = R"js(
(function () {
  'use strict';
  document.documentElement.classList.add('js');
  function sortKey(cell, numeric) {
    if (!cell) return null;
    if (numeric) {
      var v = cell.getAttribute('data-v');
      if (v === null) return null;
      var n = parseFloat(v);
      return isNaN(n) ? null : n;
    }
    var s = cell.getAttribute('data-s');
    s = (s !== null ? s : cell.textContent).trim().toLowerCase();
    return s === '' || s === '-' ? null : s;
  }
  function sortBy(table, th, col) {
    var numeric = th.classList.contains('num');
    var current = th.getAttribute('aria-sort');
    var dir = current === 'descending' ? 'ascending'
            : current === 'ascending' ? 'descending'
            : (numeric ? 'descending' : 'ascending');
    Array.prototype.forEach.call(th.parentNode.cells, function (h) {
      h.removeAttribute('aria-sort');
    });
    th.setAttribute('aria-sort', dir);
    var sign = dir === 'ascending' ? 1 : -1;
    var body = table.tBodies[0];
    var keyed = Array.prototype.map.call(body.rows, function (r, i) {
      return {row: r, key: sortKey(r.cells[col], numeric), i: i};
    });
    keyed.sort(function (a, b) {
      if (a.key === null || b.key === null) {
        return ((a.key === null) - (b.key === null)) || a.i - b.i;
      }
      var c = numeric ? a.key - b.key : a.key.localeCompare(b.key);
      return c ? sign * c : a.i - b.i;
    });
    keyed.forEach(function (k) { body.appendChild(k.row); });
  }
  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
    if (!table.tHead || !table.tBodies.length) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.tabIndex = 0;
      th.addEventListener('click', function () { sortBy(table, th, col); });
      th.addEventListener('keydown', function (e) {
        if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sortBy(table, th, col); }
      });
    });
    table.setAttribute('data-sortable', 'ready');
  });

  var tip = document.createElement('div');
  tip.id = 'tip';
  tip.hidden = true;
  document.body.appendChild(tip);
  var byRow = {};
  function light(rowId, on) {
    var row = rowId && document.getElementById(rowId);
    if (row) row.classList.toggle('hl', on);
    (byRow[rowId] || []).forEach(function (p) {
      if (p.classList) p.classList.toggle('hl', on);
    });
  }
  function place(e) {
    var x = e.clientX + 14, y = e.clientY + 14;
    var w = tip.offsetWidth, h = tip.offsetHeight;
    if (x + w > window.innerWidth - 8) x = Math.max(8, e.clientX - w - 14);
    if (y + h > window.innerHeight - 8) y = Math.max(8, e.clientY - h - 14);
    tip.style.left = x + 'px';
    tip.style.top = y + 'px';
  }
  Array.prototype.forEach.call(document.querySelectorAll('svg .pt'), function (pt) {
    var title = pt.querySelector('title');
    if (title) {
      pt.setAttribute('data-tip', title.textContent);
      pt.removeChild(title);
    }
    var rowId = pt.getAttribute('data-row');
    if (rowId) (byRow[rowId] = byRow[rowId] || []).push(pt);
    pt.addEventListener('mouseenter', function (e) {
      tip.textContent = pt.getAttribute('data-tip') || '';
      tip.hidden = false;
      place(e);
      light(rowId, true);
    });
    pt.addEventListener('mousemove', place);
    pt.addEventListener('mouseleave', function () {
      tip.hidden = true;
      light(rowId, false);
    });
    pt.addEventListener('click', function () {
      var row = rowId && document.getElementById(rowId);
      if (row) row.scrollIntoView({block: 'center', behavior: 'smooth'});
    });
  });
  Object.keys(byRow).forEach(function (rowId) {
    var row = document.getElementById(rowId);
    if (!row) return;
    row.addEventListener('mouseenter', function () { light(rowId, true); });
    row.addEventListener('mouseleave', function () { light(rowId, false); });
  });
  // Timelines: zoom and pan every lane of a chart together (buttons, wheel, drag).
  Array.prototype.forEach.call(document.querySelectorAll('svg.timeline'), function (svg) {
    var lanes = svg.querySelectorAll('svg.zoom');
    if (!lanes.length) return;
    var W = parseFloat(lanes[0].getAttribute('width'));
    var H = lanes[0].getAttribute('height');
    var start = parseFloat(svg.getAttribute('data-start-ns'));
    var span = parseFloat(svg.getAttribute('data-end-ns')) - start;
    var ticks = svg.querySelectorAll('text.tick-label');
    var view = [0, W];
    function text(ns) {
      if (ns < 999.5) return ns.toFixed(0) + ' ns';
      if (ns < 999.5e3) return (ns / 1e3).toPrecision(3) + ' us';
      if (ns < 999.5e6) return (ns / 1e6).toPrecision(3) + ' ms';
      return (ns / 1e9).toPrecision(3) + ' s';
    }
    function apply() {
      lanes.forEach(function (l) { l.setAttribute('viewBox', view[0] + ' 0 ' + view[1] + ' ' + H); });
      ticks.forEach(function (t, i) {
        t.textContent = text((view[0] + view[1] * i / (ticks.length - 1)) / W * span);
      });
      svg.setAttribute('data-view', view[0].toFixed(2) + ' ' + view[1].toFixed(2));
    }
    function zoom(factor, at) {  // at: 0..1 across the lanes, the point that stays put
      var w = Math.min(W, Math.max(W / 400, view[1] * factor));
      var x = view[0] + (view[1] - w) * at;
      view = [Math.max(0, Math.min(W - w, x)), w];
      apply();
    }
    function where(e) {
      var r = lanes[0].getBoundingClientRect();
      return Math.max(0, Math.min(1, (e.clientX - r.left) / r.width));
    }
    var tools = document.createElement('div');
    tools.className = 'timeline-tools';
    [['zoom in', function () { zoom(0.5, 0.5); }], ['zoom out', function () { zoom(2, 0.5); }],
     ['whole run', function () { view = [0, W]; apply(); }]].forEach(function (b) {
      var button = document.createElement('button');
      button.type = 'button';
      button.textContent = b[0];
      button.addEventListener('click', b[1]);
      tools.appendChild(button);
    });
    svg.parentNode.insertBefore(tools, svg);
    svg.addEventListener('wheel', function (e) {
      e.preventDefault();
      zoom(e.deltaY < 0 ? 0.8 : 1.25, where(e));
    }, {passive: false});
    var drag = null;
    svg.addEventListener('mousedown', function (e) { drag = {x: e.clientX, v: view[0]}; });
    window.addEventListener('mouseup', function () { drag = null; });
    svg.addEventListener('mousemove', function (e) {
      if (!drag) return;
      var r = lanes[0].getBoundingClientRect();
      var x = drag.v - (e.clientX - drag.x) / r.width * view[1];
      view = [Math.max(0, Math.min(W - view[1], x)), view[1]];
      apply();
    });
  });
  // Icicle charts (the Call sites section): a click zooms into a frame's subtree (the root
  // zooms out) and lights its call site's row; Enter and Space do the same from the keyboard.
  Array.prototype.forEach.call(document.querySelectorAll('.icicle'), function (chart) {
    var nodes = Array.prototype.slice.call(chart.querySelectorAll('.ice'));
    nodes.forEach(function (n) {
      n.setAttribute('data-tip', n.getAttribute('title') || '');
      n.removeAttribute('title');
    });
    function fit() {
      var w = chart.clientWidth;
      nodes.forEach(function (n) {
        if (!n.hidden) n.classList.toggle('narrow', n.offsetWidth < 28 || w === 0);
      });
    }
    function zoom(k) {
      var i0 = +k.getAttribute('data-i'), end = +k.getAttribute('data-end');
      var x0 = +k.getAttribute('data-x'), w0 = +k.getAttribute('data-w');
      nodes.forEach(function (n) {
        var i = +n.getAttribute('data-i'), e = +n.getAttribute('data-end');
        var inside = i >= i0 && i <= end, above = i < i0 && e >= end;
        n.hidden = !inside && !above;
        n.classList.toggle('above', above);
        if (inside) {
          n.style.left = ((+n.getAttribute('data-x') - x0) / w0 * 100) + '%';
          n.style.width = (+n.getAttribute('data-w') / w0 * 100) + '%';
        } else if (above) {
          n.style.left = '0%';
          n.style.width = '100%';
        }
      });
      chart.setAttribute('data-zoom', i0);
      fit();
    }
    var picked = null;
    function pick(n) {
      zoom(n);
      if (picked) picked.classList.remove('picked');
      var row = document.getElementById(n.getAttribute('data-row'));
      picked = row;
      if (!row) return;
      row.classList.add('picked');
      row.scrollIntoView({block: 'nearest'});
    }
    nodes.forEach(function (n) {
      n.addEventListener('click', function () { pick(n); });
      n.addEventListener('keydown', function (e) {
        if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); pick(n); }
      });
      n.addEventListener('mouseenter', function (e) {
        tip.textContent = n.getAttribute('data-tip');
        tip.hidden = false;
        place(e);
      });
      n.addEventListener('mousemove', place);
      n.addEventListener('mouseleave', function () { tip.hidden = true; });
    });
    window.addEventListener('resize', fit);
    fit();
  });
  document.body.setAttribute('data-script', 'ready');
})();
)js";

}  // namespace flopspy::tools::html
