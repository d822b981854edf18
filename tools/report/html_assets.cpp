#include "report/html_assets.h"

namespace flopspy::tools::html {

const char kStyleSheet[] = R"css(
:root { --fg: #1a202c; --muted: #718096; --line: #e2e8f0; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
       margin: 0 auto; max-width: 1240px; padding: 16px 24px 64px; background: #fff; }
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
.table-wrap { overflow-x: auto; margin: 8px 0; max-height: 80vh; }
table { border-collapse: collapse; font-size: 12.5px; }
th, td { padding: 3px 8px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { background: #f7fafc; position: sticky; top: 0; white-space: nowrap; z-index: 1; }
.js table.sortable th { cursor: pointer; user-select: none; }
.js table.sortable th:hover { background: #edf2f7; }
th[aria-sort=ascending]::after { content: " \25B2"; }
th[aria-sort=descending]::after { content: " \25BC"; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.name { min-width: 260px; max-width: 560px; }
td.name summary { cursor: pointer; }
td.diag { min-width: 240px; }
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
.gain { font-weight: 600; margin: 2px 0; }
nav.toc ul { margin: 4px 0; }
#tip { position: fixed; z-index: 10; max-width: 560px; background: #1a202c; color: #fff;
       font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; padding: 6px 8px;
       border-radius: 4px; white-space: pre-wrap; pointer-events: none; }
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
  document.body.setAttribute('data-script', 'ready');
})();
)js";

}  // namespace flopspy::tools::html
