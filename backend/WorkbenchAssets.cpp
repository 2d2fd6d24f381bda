//===- WorkbenchAssets.cpp - the workbench page's style and script --------===//
//
// Inline in every page that --emit=html writes, so the page needs no
// network. The script reads the JSON the emitter puts in #mapc-data, draws
// heat maps on canvases, and draws each statement's device after the step
// shown: cell by cell (SVG, as SvgEmitter draws layouts) up to
// maxDrawnCells, as a heat map beyond. A cell is highlighted when it holds
// another value than it did before the step. Colours follow
// SvgEmitter.cpp's dataColour.
//
//===----------------------------------------------------------------------===//
#include "backend/HtmlEmitter.h"

const char *const mapc::kWorkbenchCss = R"CSS(
body { font-family: sans-serif; margin: 1em 2em; color: #222; }
h1 { font-size: 1.4em; margin-bottom: 0.2em; }
h2 { border-bottom: 1px solid #ccc; margin-top: 1.5em; }
h3 { margin: 0.2em 0; font-family: monospace; font-size: 1.1em; }
h4 { margin: 0.6em 0 0.2em; }
.where { color: #777; font-weight: normal; font-size: 0.85em; }
.machine, .help, .note { color: #555; }
.note { font-style: italic; }
pre { background: #f6f6f6; padding: 0.4em 0.6em; margin: 0.2em 0;
      white-space: pre-wrap; }
figure.layout { margin: 0.8em 0; overflow-x: auto; }
svg.defs { position: absolute; }
.statement { border: 1px solid #ddd; border-radius: 4px; padding: 0.6em 1em;
             margin: 1em 0; }
.statement.active { border-color: #36c; box-shadow: 0 0 0 2px #cde; }
.statement:focus { outline: none; }
.controls { margin: 0.6em 0 0.3em; }
.controls button { font-size: 1em; padding: 0.2em 0.8em; }
.stepname { font-family: monospace; margin: 0 0.8em; }
.device { overflow-x: auto; }
.device text, .layout text { font-family: monospace; font-size: 11px; }
text[data-m] { text-anchor: middle; dominant-baseline: central; }
rect.moved { stroke: #d00; stroke-width: 2; }
canvas.heatmap { image-rendering: pixelated; border: 1px solid #aaa; }
.heatcaption { color: #555; font-size: 0.9em; }
)CSS";

const char *const mapc::kWorkbenchScript = R"JS(
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('mapc-data').textContent);
  var CELL_H = 18, TITLE_H = 18, NODE_LABEL_H = 14, NODE_GAP = 10;

  // SvgEmitter.cpp's dataColour: hue from the coordinate in dim 0,
  // lightness from the rest.
  function hsl(v, shape) {
    var len0 = Math.max(shape.length ? shape[0] : 1, 1), rest = 1;
    for (var i = 1; i < shape.length; ++i) rest *= Math.max(shape[i], 1);
    var hue = Math.floor((v % len0) * 300 / len0);
    var light = 86 - (rest > 1
        ? Math.floor((Math.floor(v / len0) % rest) * 40 / rest) : 0);
    return [hue, 70, light];
  }
  function rgb(h, s, l) {
    s /= 100; l /= 100;
    var k = function (n) { return (n + h / 30) % 12; };
    var a = s * Math.min(l, 1 - l);
    var f = function (n) {
      return Math.round(255 * (l - a * Math.max(-1, Math.min(k(n) - 3,
          Math.min(9 - k(n), 1)))));
    };
    return [f(0), f(8), f(4)];
  }

  // Which cells of `cur` hold another value than before the step.
  function movedCells(prev, cur) {
    if (!prev || !cur) return null;
    var moved = new Uint8Array(cur.cells.length);
    for (var r = 0; r < cur.rows; ++r)
      for (var c = 0; c < cur.rowLen; ++c) {
        var i = r * cur.rowLen + c, v = cur.cells[i];
        if (v < 0) continue;
        var before = r < prev.rows && c < prev.rowLen
            ? prev.cells[r * prev.rowLen + c] : -1;
        if (before !== v) moved[i] = 1;
      }
    return moved;
  }

  function log2Exact(n) {
    var b = 0;
    while ((1 << b) < n) ++b;
    return (1 << b) === n ? b : -1;
  }

  // Cell by cell, one row per PE, or a hypercube's node grid.
  function drawCells(box, dev, shape, moved) {
    var maxv = 0;
    dev.cells.forEach(function (v) { if (v > maxv) maxv = v; });
    var chars = Math.max(String(maxv).length, String(dev.rowLen - 1).length);
    var cellW = Math.max(20, chars * 7 + 8);
    var bits = log2Exact(dev.rows);
    var grid = data.hypercube && bits > 0;
    var cols = grid ? 1 << ((bits + 1) >> 1) : 1;
    var labelW = grid ? 0 : ('PE ' + (dev.rows - 1)).length * 7 + 10;
    var top = function (r) {
      return grid ? TITLE_H + Math.floor(r / cols) *
          (NODE_LABEL_H + CELL_H + NODE_GAP) + NODE_LABEL_H
          : TITLE_H + r * CELL_H;
    };
    var left = function (r) {
      return grid ? 8 + (r % cols) * (dev.rowLen * cellW + NODE_GAP)
          : 8 + labelW;
    };
    var width = grid ? 16 + cols * (dev.rowLen * cellW + NODE_GAP)
        : 16 + labelW + dev.rowLen * cellW;
    var height = top(dev.rows - 1) + CELL_H + 8;
    var out = ['<svg xmlns="http://www.w3.org/2000/svg" width="', width,
        '" height="', height, '" data-pes="', dev.rows, '" data-memory="',
        dev.rowLen, '">'];
    if (!grid)
      for (var c = 0; c < dev.rowLen; ++c)
        out.push('<text fill="#666" x="', left(0) + c * cellW + 2, '" y="',
            TITLE_H - 4, '">', c, '</text>');
    for (var r = 0; r < dev.rows; ++r) {
      var y = top(r), x0 = left(r);
      if (grid) {
        var name = '';
        for (var b = bits - 1; b >= 0; --b) name += (r >> b) & 1;
        out.push('<rect fill="none" stroke="#888" x="', x0 - 2, '" y="',
            y - NODE_LABEL_H, '" width="', dev.rowLen * cellW + 4,
            '" height="', NODE_LABEL_H + CELL_H + 2, '"/>',
            '<text fill="#666" x="', x0, '" y="', y - 3, '">node ', name,
            '</text>');
      } else {
        out.push('<text fill="#666" x="8" y="', y + 13, '">PE ', r,
            '</text>');
      }
      for (var m = 0; m < dev.rowLen; ++m) {
        var i = r * dev.rowLen + m, v = dev.cells[i], x = x0 + m * cellW;
        var hit = moved && moved[i];
        var c3 = v < 0 ? null : hsl(v, shape);
        var fill = v < 0 ? 'url(#mapc-hatch)'
            : 'hsl(' + c3[0] + ',' + c3[1] + '%,' + c3[2] + '%)';
        // In a step, the cells that kept their element fade.
        out.push('<rect', hit ? ' class="moved"' : ' stroke="#fff"',
            moved && !hit ? ' opacity="0.35"' : '',
            ' x="', x, '" y="', y, '" width="', cellW, '" height="', CELL_H,
            '" fill="', fill, '"/>');
        if (v >= 0)
          out.push('<text x="', x + (cellW >> 1), '" y="', y + CELL_H / 2,
              '" data-m="', m, '" data-pe="', r, '"',
              hit ? ' data-moved="1"' : '', '>', v, '</text>');
      }
    }
    out.push('</svg>');
    box.innerHTML = out.join('');
  }

  // One pixel per cell (per sampled cell), scaled up; with `moved`, the
  // cells that did not move fade.
  function drawHeat(box, dev, shape, moved) {
    var canvas = document.createElement('canvas');
    canvas.className = 'heatmap';
    canvas.width = dev.rowLen;
    canvas.height = dev.rows;
    // 8 px a cell and 16 a row, shrunk to at most 1100 x 600 px.
    canvas.style.width = Math.min(1100, dev.rowLen * 8) + 'px';
    canvas.style.height = Math.min(600, dev.rows * 16) + 'px';
    var ctx = canvas.getContext('2d');
    var img = ctx.createImageData(dev.rowLen, dev.rows);
    for (var i = 0; i < dev.cells.length; ++i) {
      var v = dev.cells[i], px = v < 0 ? [225, 225, 225]
          : rgb.apply(null, hsl(v, shape));
      if (moved && !moved[i])
        px = px.map(function (x) { return Math.round(x * 0.25 + 191); });
      img.data[4 * i] = px[0];
      img.data[4 * i + 1] = px[1];
      img.data[4 * i + 2] = px[2];
      img.data[4 * i + 3] = 255;
    }
    ctx.putImageData(img, 0, 0);
    var caption = document.createElement('div');
    caption.className = 'heatcaption';
    caption.textContent = dev.sampled
        ? 'heat map of data index: ' + dev.fullRows + ' PEs x ' +
          dev.fullRowLen + ' memory cells, one cell of every block drawn'
        : 'heat map of data index: ' + dev.rows + ' PEs (top to bottom) x ' +
          dev.rowLen + ' memory cells (left to right)';
    box.textContent = '';
    box.appendChild(caption);
    box.appendChild(canvas);
  }

  function drawDevice(box, dev, shape, moved) {
    if (!dev) {
      box.textContent = 'not drawn: the page holds at most ' +
          'its cap of cell values';
      return;
    }
    if (!dev.sampled && dev.rows * dev.rowLen <= data.maxDrawnCells)
      drawCells(box, dev, shape, moved);
    else
      drawHeat(box, dev, shape, moved);
  }

  document.querySelectorAll('.heat[data-layout-index]').forEach(
      function (box) {
        var l = data.layouts[Number(box.dataset.layoutIndex)];
        if (l.heat) drawHeat(box, l.heat, l.shape || [], null);
      });

  var viewers = [], active = 0;
  document.querySelectorAll('article.statement').forEach(function (art) {
    var index = Number(art.dataset.statement);
    var st = data.statements[index];
    var view = art.querySelector('.viewer');
    if (!view || !st.states.length) return;
    var last = st.states.length - 1, state = 0;
    var prevButton = view.querySelector('.prev');
    var nextButton = view.querySelector('.next');
    function show(k) {
      state = Math.max(0, Math.min(last, k));
      var s = st.states[state];
      var moved = state > 0
          ? movedCells(st.states[state - 1].device, s.device) : null;
      var count = 0;
      if (moved) moved.forEach(function (x) { count += x; });
      var when = !st.traced
          ? (state === 0 ? ': before the statement'
                         : ': after the statement, ' + count +
                           ' sampled cells changed')
          : (state === 0 ? ': before the first step'
                         : ': after step ' + state + ', ' + count +
                           ' cells changed');
      view.querySelector('.stepname').textContent =
          'state ' + state + ' of ' + last + when;
      view.querySelector('.steptext').textContent =
          s.text || 'the array as it starts';
      drawDevice(view.querySelector('.device'), s.device, st.shape, moved);
      art.dataset.state = String(state);
      art.dataset.changed = String(count);
      prevButton.disabled = state === 0;
      nextButton.disabled = state === last;
    }
    function activate() {
      active = viewers.indexOf(viewer);
      document.querySelectorAll('article.statement.active').forEach(
          function (a) { a.classList.remove('active'); });
      art.classList.add('active');
    }
    var viewer = { art: art, step: function (d) { show(state + d); } };
    prevButton.addEventListener('click', function () { activate(); show(state - 1); });
    nextButton.addEventListener('click', function () { activate(); show(state + 1); });
    art.addEventListener('focus', activate);
    art.addEventListener('click', activate);
    viewers.push(viewer);
    show(0);
  });
  if (viewers.length)
    viewers[0].art.classList.add('active');
  document.addEventListener('keydown', function (e) {
    if (!viewers.length || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === 'ArrowRight') viewers[active].step(1);
    else if (e.key === 'ArrowLeft') viewers[active].step(-1);
    else return;
    e.preventDefault();
  });
  document.body.dataset.ready = '1';
})();
)JS";
