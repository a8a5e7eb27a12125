/* rtscope html report: draws the data block (see docs/html.md, "The data")
 * with uPlot. Strings from the program only ever reach the page through
 * textContent (see Note [untrusted strings in the page] in report.c). */
(function () {
  'use strict';
  var t0 = performance.now();
  var D = JSON.parse(document.getElementById('rtscope-data').textContent);
  var S = D.strings;
  var errors = [];

  /* ---- helpers -------------------------------------------------------- */

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function fmtBytes(v) {
    if (v === null || v === undefined || !isFinite(v)) return '';
    var a = Math.abs(v), units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'], i = 0;
    while (a >= 1024 && i < units.length - 1) { a /= 1024; v /= 1024; i++; }
    return (i === 0 ? v.toFixed(0) : v.toFixed(a >= 100 ? 0 : a >= 10 ? 1 : 2)) + ' ' + units[i];
  }

  function fmtNum(v, digits) {
    if (v === null || v === undefined || !isFinite(v)) return '';
    var a = Math.abs(v);
    if (a !== 0 && (a >= 1e7 || a < 1e-3)) return v.toExponential(digits || 3);
    return v.toLocaleString('en-US', { maximumFractionDigits: digits === undefined ? 3 : digits });
  }

  function fmtTime(s) { return s.toFixed(s < 10 ? 2 : 1) + ' s'; }

  /* 20 distinct colours; bands keep theirs in every chart (and in both
   * profiles of a diff, where chart labels come in the same order). */
  var PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948',
    '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac', '#1f77b4', '#aec7e8', '#ff7f0e',
    '#98df8a', '#d62728', '#9467bd', '#c5b0d5', '#8c564b', '#e377c2', '#17becf'];
  function colour(i) {
    if (i < PALETTE.length) return PALETTE[i];
    return 'hsl(' + ((i * 137.508) % 360).toFixed(0) + ',55%,55%)';
  }
  function withAlpha(hex, a) {
    if (hex.charAt(0) !== '#') return hex;
    var n = parseInt(hex.slice(1), 16);
    return 'rgba(' + (n >> 16) + ',' + ((n >> 8) & 255) + ',' + (n & 255) + ',' + a + ')';
  }

  var SPARK = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_';
  function drawSpark(canvas, code, col) {
    var w = canvas.width, h = canvas.height, g = canvas.getContext('2d');
    g.clearRect(0, 0, w, h);
    if (!code) return;
    g.beginPath();
    for (var i = 0; i < code.length; i++) {
      var x = code.length === 1 ? w / 2 : i * (w - 2) / (code.length - 1) + 1;
      var y = h - 1 - SPARK.indexOf(code.charAt(i)) / 63 * (h - 3);
      if (i === 0) g.moveTo(x, y); else g.lineTo(x, y);
    }
    g.strokeStyle = col || '#2f6fdf';
    g.lineWidth = 1.2;
    g.stroke();
  }

  /* ---- chart data ------------------------------------------------------ */

  /* Band series of a profile as dense arrays over chart.times. */
  function bandSeries(P) {
    var n = P.chart.times.length, out = [];
    P.chart.series.forEach(function (s) {
      var a = new Float64Array(n);
      for (var i = 0; i < s.v.length; i++) a[s.s + i] = s.v[i];
      out.push(a);
    });
    return out;
  }

  function bandLabels(P) {
    var l = P.chart.labels.map(function (i) { return S[i]; });
    if (P.chart.other) l.push('other (' + P.chart.other + ' bands)');
    return l;
  }

  function chartWidth(container) {
    return Math.max(320, container.clientWidth || document.body.clientWidth - 40);
  }

  /* Markers as vertical rules, their text on hover. */
  function markerPlugin(P, tip) {
    var traces = P.traces || [];
    return {
      hooks: {
        draw: [function (u) {
          var g = u.ctx, top = u.bbox.top, h = u.bbox.height;
          g.save();
          g.lineWidth = 1;
          traces.forEach(function (tr) {
            var x = Math.round(u.valToPos(tr[0], 'x', true)) + 0.5;
            if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
            g.strokeStyle = tr[2] ? 'rgba(120,120,120,0.55)' : 'rgba(200,30,30,0.7)';
            g.setLineDash(tr[2] ? [2, 3] : []);
            g.beginPath();
            g.moveTo(x, top);
            g.lineTo(x, top + h);
            g.stroke();
          });
          g.restore();
        }],
        setCursor: [function (u) {
          var left = u.cursor.left;
          if (left === undefined || left < 0 || !traces.length) { tip.style.display = 'none'; return; }
          var best = null, bd = 5;
          traces.forEach(function (tr) {
            var d = Math.abs(u.valToPos(tr[0], 'x') - left);
            if (d <= bd) { bd = d; best = tr; }
          });
          if (!best) { tip.style.display = 'none'; return; }
          tip.textContent = (best[2] ? 'event: ' : 'marker: ') + S[best[1]] + '  @ ' + fmtTime(best[0]);
          tip.style.display = 'block';
          tip.style.left = (u.over.offsetLeft + left + 8) + 'px';
          tip.style.top = (u.over.offsetTop + 4) + 'px';
        }]
      }
    };
  }

  /* mode: 'area' (stacked bytes), 'norm' (stacked %), 'line' (each band
   * over its own maximum). */
  function profileChart(container, P, mode, yMax) {
    var times = P.chart.times, raw = bandSeries(P), labels = bandLabels(P);
    var n = times.length, k = raw.length, data = [times], shown = [];
    var totals = new Float64Array(n);
    raw.forEach(function (a) { for (var i = 0; i < n; i++) totals[i] += a[i]; });
    if (mode === 'line') {
      raw.forEach(function (a) {
        var m = 0, i, b = new Float64Array(n);
        for (i = 0; i < n; i++) if (a[i] > m) m = a[i];
        for (i = 0; i < n; i++) b[i] = m > 0 ? a[i] / m : 0;
        data.push(b);
      });
    } else {
      var acc = new Float64Array(n);
      raw.forEach(function (a) {
        var b = new Float64Array(n);
        for (var i = 0; i < n; i++) {
          acc[i] += a[i];
          b[i] = mode === 'norm' ? (totals[i] > 0 ? acc[i] / totals[i] * 100 : 0) : acc[i];
        }
        data.push(b);
      });
    }
    var series = [{ label: 'time', value: function (u, v) { return v === null ? '' : fmtTime(v); } }];
    var bands = [];
    for (var j = 0; j < k; j++) {
      var c = colour(j);
      (function (j) {
        series.push({
          label: labels[j],
          stroke: c,
          width: mode === 'line' ? 1.5 : 1,
          fill: mode === 'line' ? undefined : withAlpha(c, 0.85),
          points: { show: n === 1 }, /* one census: no area to draw */
          value: function (u, v, si, i) {
            if (i === null || i === undefined) return '';
            if (mode === 'line') return fmtNum(data[si][i] * 100, 1) + '%';
            if (mode === 'norm') return fmtNum(totals[i] > 0 ? raw[j][i] / totals[i] * 100 : 0, 1) + '%';
            return fmtBytes(raw[j][i]);
          }
        });
      })(j);
      if (mode !== 'line' && j > 0) bands.push({ series: [j + 1, j], fill: withAlpha(c, 0.85) });
      shown.push(labels[j]);
    }
    var tip = el('div', 'marker-tip');
    container.appendChild(tip);
    var yr;
    if (mode === 'norm') yr = [0, 100];
    else if (mode === 'line') yr = [0, 1.05];
    var opts = {
      width: chartWidth(container),
      height: 340,
      series: series,
      bands: bands,
      legend: { live: true },
      cursor: { drag: { x: true, y: false } },
      scales: {
        x: { time: false },
        y: { range: function (u, min, max) {
          if (yr) return yr;
          if (yMax) return [0, yMax];
          return [0, max > 0 ? max * 1.05 : 1];
        } }
      },
      axes: [
        { label: 'seconds since start' },
        { size: 70, values: function (u, vals) {
          return vals.map(function (v) {
            return mode === 'norm' ? v + '%' : mode === 'line' ? (v * 100).toFixed(0) + '%' : fmtBytes(v);
          });
        } }
      ],
      plugins: [markerPlugin(P, tip)]
    };
    var u = new uPlot(opts, data, container);
    container.dataset.bands = String(k);
    return u;
  }

  function heapChart(container, P) {
    var H = P.heap;
    if (!H.times.length) {
      container.appendChild(el('p', 'notice', 'No heap events (HEAP_SIZE, HEAP_LIVE, BLOCKS_SIZE, MEM_RETURN) in this input.'));
    }
    var names = [['heap_size', 'heap size', '#4e79a7'], ['blocks_size', 'blocks size', '#59a14f'],
      ['live_bytes', 'live bytes', '#e15759'], ['returned', 'memory returned', '#b07aa1']];
    var data = [H.times.length ? H.times : [0]], series = [{ label: 'time', value: function (u, v) { return v === null ? '' : fmtTime(v); } }];
    names.forEach(function (nm) {
      data.push(H.times.length ? H[nm[0]] : [null]);
      series.push({ label: nm[1], stroke: nm[2], width: 1.5, spanGaps: true, points: { show: false },
        value: function (u, v) { return fmtBytes(v); } });
    });
    var tip = el('div', 'marker-tip');
    container.appendChild(tip);
    var u = new uPlot({
      width: chartWidth(container), height: 260, series: series,
      scales: { x: { time: false }, y: { range: function (u, min, max) { return [0, max > 0 ? max * 1.05 : 1]; } } },
      axes: [{ label: 'seconds since start' }, { size: 70, values: function (u, vals) { return vals.map(fmtBytes); } }],
      plugins: [markerPlugin(P, tip)]
    }, data, container);
    container.dataset.series = String(names.length);
    return u;
  }

  /* ---- meta ------------------------------------------------------------ */

  function metaPane(container, P) {
    var M = P.meta, dl = el('dl', 'meta');
    function row(k, v) { dl.appendChild(el('dt', null, k)); dl.appendChild(el('dd', null, v)); }
    var words = function (a) { return a.map(function (i) { return S[i]; }).join(' '); };
    row('program', S[M.program] || '(unknown)');
    row('arguments', words(M.args) || '(none)');
    row('RTS flags', words(M.rts_flags) || (M.from_hp ? '(not in a .hp file)' : '(none)'));
    row('sampling interval', M.interval_s === null ? '(unknown)' : M.interval_s + ' s');
    row('GHC / RTS', S[M.ghc] || '(unknown)');
    row('profile', (S[M.breakdown] || '(none)') + ', ' + M.samples + ' censuses, ' + M.bands + ' bands');
    row('duration', M.duration_s === null ? '' : fmtTime(M.duration_s));
    if (S[M.date]) row('date', S[M.date] + (M.runs > 1 ? ' (run ' + M.runs + ')' : ''));
    if (M.runs > 1 && S[M.first_date]) row('first run', S[M.first_date]);
    if (M.ipe_entries) row('IPE entries', M.ipe_entries);
    row('input', S[M.input] + (M.from_hp ? ' (.hp)' : ', ' + M.events + ' events read'));
    if (M.traces_dropped) row('markers not shown', M.traces_dropped + (D.live ? ' (only the latest 10000 are kept)' : ' (only the first 10000 are kept)'));
    container.appendChild(dl);
  }

  /* ---- the detailed table ------------------------------------------------ */

  /* cols: {key, title, num, get(row) -> value, fmt(value) -> text, width,
   * spark(row) -> code}. A virtualised grid: only the rows in view exist.
   * opts: countId, noun (what the count says: bands), fit (no taller than
   * its rows), state (a state() of the table this one replaces), and
   * isSelected, onSelect, selectedText for a selectable row. */
  function VTable(container, nrows, cols, opts) {
    var ROW = 24, self = this;
    var template = cols.map(function (c) { return c.width || 'minmax(80px,1fr)'; }).join(' ');
    var wrap = el('div', 'vt-wrap');
    var head = el('div', 'vt-head');
    var titles = el('div', 'vt-grid');
    var filters = el('div', 'vt-grid vt-filters');
    titles.style.gridTemplateColumns = filters.style.gridTemplateColumns = template;
    var body = el('div', 'vt-body'), spacer = el('div', 'vt-spacer');
    body.appendChild(spacer);
    /* opts.fit: a short table is as high as its rows, not the full 480 px */
    if (opts.fit && nrows * ROW < 480) body.style.height = (nrows * ROW + 2) + 'px';
    var count = el('div', 'vt-count');
    if (opts.countId) count.id = opts.countId;
    var query = cols.map(function () { return ''; });
    var sortCol = -1, sortDir = 1, rows = [], i, keepScroll = false;
    for (i = 0; i < nrows; i++) rows.push(i);
    var all = rows.slice();

    var st0 = opts.state; /* rtscope serve: the state before a redraw */
    if (st0) {
      for (i = 0; i < cols.length; i++) query[i] = st0.query[i] || '';
      if (st0.sortCol < cols.length) { sortCol = st0.sortCol; sortDir = st0.sortDir; }
    }

    cols.forEach(function (c, ci) {
      var h = el('div', null, c.title);
      h.dataset.col = c.key;
      h.title = c.help || c.title;
      if (c.sortable !== false) {
        h.addEventListener('click', function () {
          if (sortCol === ci) sortDir = -sortDir; else { sortCol = ci; sortDir = c.num ? -1 : 1; }
          apply();
        });
      }
      titles.appendChild(h);
      var f = el('div');
      if (c.filter !== false) {
        var inp = el('input');
        inp.type = 'search';
        inp.placeholder = c.num ? '>1e6' : 'search';
        inp.dataset.col = c.key;
        inp.setAttribute('aria-label', 'search ' + c.title);
        inp.value = query[ci];
        inp.addEventListener('input', function () { query[ci] = inp.value; apply(); });
        f.appendChild(inp);
      }
      filters.appendChild(f);
    });
    head.appendChild(titles);
    head.appendChild(filters);
    wrap.appendChild(head);
    wrap.appendChild(body);
    container.appendChild(count);
    container.appendChild(wrap);

    function numTest(q) {
      var m = /^\s*(>=|<=|>|<|=)\s*(-?[0-9.eE+-]+)\s*$/.exec(q);
      if (!m) return null;
      var x = parseFloat(m[2]);
      if (!isFinite(x)) return null;
      return function (v) {
        if (v === null || v === undefined) return false;
        switch (m[1]) {
          case '>': return v > x; case '<': return v < x; case '>=': return v >= x;
          case '<=': return v <= x; default: return v === x;
        }
      };
    }

    function apply() {
      var tests = cols.map(function (c, ci) {
        var q = query[ci].trim();
        if (!q) return null;
        var nt = c.num ? numTest(q) : null;
        if (nt) return function (r) { return nt(c.get(r)); };
        var ql = q.toLowerCase();
        return function (r) {
          var v = c.get(r);
          return String(c.fmt ? c.fmt(v) : v).toLowerCase().indexOf(ql) >= 0;
        };
      }).filter(Boolean);
      rows = tests.length ? all.filter(function (r) {
        for (var t = 0; t < tests.length; t++) if (!tests[t](r)) return false;
        return true;
      }) : all.slice();
      if (sortCol >= 0) {
        var c = cols[sortCol];
        rows.sort(function (a, b) {
          var x = c.get(a), y = c.get(b);
          if (x === y) return a - b;
          if (x === null || x === undefined) return 1;
          if (y === null || y === undefined) return -1;
          if (c.num) return (x - y) * sortDir;
          return (x < y ? -1 : 1) * sortDir;
        });
      }
      Array.prototype.forEach.call(titles.children, function (h, ci) {
        h.className = ci === sortCol ? (sortDir < 0 ? 'sorted-desc' : 'sorted-asc') : '';
      });
      count.textContent = rows.length + ' of ' + nrows + ' ' + (opts.noun || 'bands') +
        (opts.selectedText && opts.selectedText() ? ' · selected: ' + opts.selectedText() : '');
      count.dataset.rows = String(rows.length);
      spacer.style.height = (rows.length * ROW) + 'px';
      if (!keepScroll) body.scrollTop = 0;
      keepScroll = false;
      render(true);
    }

    var drawn = { from: -1, to: -1 };
    function render(force) {
      var from = Math.max(0, Math.floor(body.scrollTop / ROW) - 5);
      var to = Math.min(rows.length, from + Math.ceil((body.clientHeight || 480) / ROW) + 10);
      if (!force && from === drawn.from && to === drawn.to) return;
      drawn = { from: from, to: to };
      while (spacer.firstChild) spacer.removeChild(spacer.firstChild);
      for (var p = from; p < to; p++) {
        var r = rows[p], line = el('div', 'vt-row vt-grid');
        line.style.gridTemplateColumns = template;
        line.style.top = (p * ROW) + 'px';
        line.dataset.row = String(r);
        if (opts.isSelected && opts.isSelected(r)) line.className += ' vt-selected';
        if (opts.onSelect) line.addEventListener('click', select.bind(null, r));
        cols.forEach(function (c) {
          var cell = el('div', 'c-' + c.key + (c.num ? ' num' : ''));
          if (c.spark) {
            var cv = el('canvas', 'spark');
            cv.width = 80; cv.height = 18;
            drawSpark(cv, c.spark(r), c.sparkColour ? c.sparkColour(r) : null);
            cell.appendChild(cv);
          } else {
            var v = c.get(r), text = c.fmt ? c.fmt(v) : (v === null ? '' : String(v));
            if (c.swatch) {
              var sw = el('span', 'swatch');
              var col = c.swatch(r);
              if (col) { sw.style.background = col; cell.appendChild(sw); }
            }
            cell.appendChild(document.createTextNode(text));
            cell.title = c.tip ? c.tip(r) : text;
          }
          line.appendChild(cell);
        });
        spacer.appendChild(line);
      }
    }
    function select(r) {
      opts.onSelect(r);
      keepScroll = true;
      apply();
    }
    body.addEventListener('scroll', function () { render(false); });
    apply();
    if (st0) { body.scrollTop = st0.scroll; render(true); }
    self.rows = function () { return rows.slice(); };
    self.render = render;
    self.state = function () {
      return { query: query.slice(), sortCol: sortCol, sortDir: sortDir, scroll: body.scrollTop };
    };
  }

  function ipeCols(T) {
    if (!T.ipe) return [];
    return [['desc', 'Description', 'the info table\'s label'], ['ctype', 'Closure type', 'closure type of the info table'],
      ['type', 'Type', 'package:Module of the constructor\'s type'], ['module', 'Module', 'module that defines it'],
      ['loc', 'Source location', 'file:line:col-col']].map(function (d) {
      return { key: d[0], title: d[1], help: d[2], width: 'minmax(60px,1fr)', get: function (r) { return S[T[d[0]][r]]; } };
    });
  }

  function numCol(T, key, title, fmt, help) {
    return { key: key, title: title, help: help, num: true, width: 'minmax(64px,0.7fr)',
      get: function (r) { return T[key][r]; }, fmt: fmt || function (v) { return fmtNum(v); } };
  }

  function chartColourOf(P) {
    var m = {};
    P.chart.labels.forEach(function (l, i) { m[S[l]] = colour(i); });
    return function (label) { return m[label] || null; };
  }

  /* state: the table's before a redraw (rtscope serve), or undefined. */
  function profileTable(container, T, P, state) {
    var col = chartColourOf(P);
    var cols = [
      { key: 'rank', title: '#', num: true, width: '44px', get: function (r) { return r + 1; } },
      { key: 'spark', title: 'over time', width: '90px', filter: false, sortable: false,
        get: function () { return null; }, spark: function (r) { return T.spark[r]; },
        sparkColour: function (r) { return col(S[T.label[r]]); } },
      { key: 'label', title: 'Band', width: 'minmax(180px,2.5fr)', get: function (r) { return S[T.label[r]]; },
        swatch: function (r) { return col(S[T.label[r]]); },
        tip: function (r) { return S[T.label[r]] + (T.key && S[T.key[r]] !== S[T.label[r]] ? '  (' + S[T.key[r]] + ')' : ''); } }
    ].concat(ipeCols(T)).concat([
      numCol(T, 'size', 'Integrated (MiB·s)', function (v) { return fmtNum(v, 3); }, 'bytes integrated over time (trapezoids between censuses), MiB·s'),
      numCol(T, 'stddev', 'Stddev', fmtBytes, 'standard deviation of the band over all censuses'),
      numCol(T, 'intercept', 'Intercept', fmtBytes, 'least-squares line: bytes at t = 0'),
      numCol(T, 'slope', 'Slope (/s)', fmtBytes, 'least-squares line: growth in bytes per second'),
      numCol(T, 'r2', 'Fit (R²)', function (v) { return fmtNum(v, 3); }, 'R² of the least-squares line')
    ]);
    return new VTable(container, T.n, cols, {
      countId: 'table-count', state: state,
      isSelected: function (r) { return S[T.label[r]] === selected; },
      onSelect: function (r) { selected = S[T.label[r]] === selected ? null : S[T.label[r]]; },
      selectedText: function () { return selected; }
    });
  }

  function diffTable(container, T, A, B) {
    var colA = chartColourOf(A);
    var cols = [
      { key: 'rank', title: '#', num: true, width: '44px', get: function (r) { return r + 1; } },
      { key: 'spark_a', title: 'A', width: '90px', filter: false, sortable: false, get: function () { return null; },
        spark: function (r) { return T.spark_a[r]; } },
      { key: 'spark_b', title: 'B', width: '90px', filter: false, sortable: false, get: function () { return null; },
        spark: function (r) { return T.spark_b[r]; }, sparkColour: function () { return '#e15759'; } },
      { key: 'label', title: 'Band', width: 'minmax(180px,2.5fr)', get: function (r) { return S[T.label[r]]; },
        swatch: function (r) { return colA(S[T.label[r]]); } }
    ].concat(ipeCols(T)).concat([
      numCol(T, 'growth', 'Growth', fmtBytes, 'mean bytes in B minus mean bytes in A'),
      numCol(T, 'mean_a', 'Mean A', fmtBytes), numCol(T, 'mean_b', 'Mean B', fmtBytes),
      numCol(T, 'max_a', 'Peak A', fmtBytes), numCol(T, 'max_b', 'Peak B', fmtBytes),
      numCol(T, 'slope_a', 'Slope A (/s)', fmtBytes), numCol(T, 'slope_b', 'Slope B (/s)', fmtBytes)
    ]);
    return new VTable(container, T.n, cols, { countId: 'table-count' });
  }

  /* ---- sampled call stacks: flame graph and sites ------------------------- */

  /* D.samples (docs/html.md, "Sampled call stacks: flame graph and sites"):
   * per kind a call tree in preorder (parent before child, children
   * heaviest first, node 0 the root) and the heaviest sites. The graph is
   * an icicle, root on top as pprof's and speedscope's: a box per node,
   * as wide as its weight, its children under it from the left. What the
   * user chose (kind, zoomed node as a path of names) outlives a redraw. */
  var stacksView = { kind: null, path: [] };
  var flameRelayout = null;

  function fmtNs(v) {
    var s = v / 1e9;
    if (s >= 1) return fmtNum(s, 3) + ' s';
    return fmtNum(v / 1e6, 3) + ' ms';
  }

  function fmtShare(x) {
    if (x > 0 && x < 0.0001) return '<0.01%';
    return (x * 100).toFixed(x >= 0.1 ? 1 : 2) + '%';
  }

  function hashStr(t) {
    var h = 2166136261;
    for (var i = 0; i < t.length; i++) { h ^= t.charCodeAt(i); h = Math.imul(h, 16777619); }
    return h >>> 0;
  }

  /* Warm colours (as flame graphs have them) by package, lightness by
   * name; frames without a binding (an address, a return frame) grey. */
  function flameColour(name, other) {
    if (other) return '#c8ccd4';
    if (/^0x|^\(no stack\)|^[A-Z_]+ 0x/.test(name)) return '#b9bec8';
    var colon = name.indexOf(':'), pkg = colon > 0 ? name.slice(0, colon) : name;
    var h = hashStr(pkg), l = hashStr(name);
    var hue = pkg === 'main' ? 22 : 5 + h % 50;
    return 'hsl(' + hue + ',' + (62 + h % 20) + '%,' + (58 + l % 16) + '%)';
  }

  function stackTree(K) {
    var T = K.tree, n = T.parent.length, kids = [], depth = new Array(n), i;
    for (i = 0; i < n; i++) kids.push([]);
    for (i = 0; i < n; i++) {
      var p = T.parent[i];
      depth[i] = p < 0 ? 0 : depth[p] + 1;
      if (p >= 0) kids[p].push(i);
    }
    return {
      n: n, kids: kids, depth: depth, weight: T.weight, samples: T.samples, other: T.other, parent: T.parent,
      name: function (i) {
        if (i === 0) return 'all';
        if (T.name[i] < 0) return 'other (' + T.other[i] + (T.other[i] === 1 ? ' frame' : ' frames') + ')';
        return S[T.name[i]];
      }
    };
  }

  /* The node at a path of names from the root (the zoom kept across a
   * redraw), or as far as it still goes. */
  function nodeAt(G, path) {
    var at = 0;
    for (var d = 0; d < path.length; d++) {
      var next = -1;
      G.kids[at].forEach(function (c) { if (next < 0 && G.name(c) === path[d]) next = c; });
      if (next < 0) break;
      at = next;
    }
    return at;
  }

  function pathOf(G, i) {
    var out = [];
    for (; i > 0; i = G.parent[i]) out.unshift(G.name(i));
    return out;
  }

  function flameGraph(box, K, kind) {
    var G = stackTree(K), ROW = 18, total = G.weight[0] || 1;
    var fmtW = kind === 'alloc' ? fmtBytes : fmtNs;
    var bar = el('div', 'flame-bar');
    var crumbs = el('span', 'flame-crumbs');
    var reset = el('button', null, 'Reset zoom');
    reset.type = 'button';
    bar.appendChild(reset);
    bar.appendChild(crumbs);
    var area = el('div', 'flame'), inner = el('div', 'flame-inner');
    area.appendChild(inner);
    area.dataset.kind = kind;
    var tip = el('div', 'flame-tip');
    box.appendChild(bar);
    box.appendChild(area);
    box.appendChild(tip);
    var zoom = nodeAt(G, stacksView.path);

    function describe(i) {
      var w = G.weight[i], lines = [G.name(i)];
      lines.push(fmtW(w) + ' · ' + fmtShare(w / total) + ' of all' +
        (zoom > 0 && i !== zoom && G.weight[zoom] ? ' · ' + fmtShare(w / G.weight[zoom]) + ' of the zoomed frame' : '') +
        ' · ' + G.samples[i] + (G.samples[i] === 1 ? ' sample' : ' samples'));
      var self = w;
      G.kids[i].forEach(function (c) { self -= G.weight[c]; });
      if (self > 0 && G.kids[i].length) lines.push('itself (innermost frame): ' + fmtW(self) + ' · ' + fmtShare(self / total));
      if (G.other[i]) lines.push('frames under ' + (K.min_share * 100) + '% of the total (or beyond the ' + K.max_nodes + ' heaviest), merged');
      return lines.join('\n');
    }

    function layout() {
      while (inner.firstChild) inner.removeChild(inner.firstChild);
      var W = Math.max(320, inner.clientWidth || box.clientWidth || document.body.clientWidth - 40);
      var maxDepth = 0, zd = G.depth[zoom];
      function put(i, x, w, dim) {
        var b = el('div', 'flame-box' + (dim ? ' flame-up' : '') + (G.other[i] ? ' flame-other' : '') + (i === 0 ? ' flame-root' : ''));
        var name = G.name(i);
        b.style.left = x.toFixed(2) + 'px';
        b.style.width = Math.max(1, w - 1).toFixed(2) + 'px';
        b.style.top = (G.depth[i] * ROW) + 'px';
        b.style.background = i === 0 ? '#d9dde5' : flameColour(name, G.other[i]);
        b.dataset.node = String(i);
        b.dataset.weight = String(G.weight[i]);
        if (w >= 28) b.appendChild(el('span', null, name));
        b.addEventListener('mousemove', function (e) {
          tip.textContent = describe(i);
          tip.style.display = 'block';
          var r = box.getBoundingClientRect();
          var left = e.clientX - r.left + 12;
          if (left + 360 > r.width) left = Math.max(0, e.clientX - r.left - 372);
          tip.style.left = left + 'px';
          tip.style.top = (e.clientY - r.top + 14) + 'px';
        });
        b.addEventListener('mouseleave', function () { tip.style.display = 'none'; });
        b.addEventListener('click', function () {
          zoom = i === zoom && i > 0 ? G.parent[i] : i;
          stacksView.path = pathOf(G, zoom);
          tip.style.display = 'none';
          layout();
        });
        if (G.depth[i] > maxDepth) maxDepth = G.depth[i];
        inner.appendChild(b);
      }
      /* the zoomed node's ancestors, full width */
      for (var a = G.parent[zoom]; a !== undefined && a >= 0; a = G.parent[a]) put(a, 0, W, true);
      var scale = W / (G.weight[zoom] || 1);
      (function walk(i, x) {
        var w = G.weight[i] * scale;
        if (w < 0.5) return;
        put(i, x, w, false);
        G.kids[i].forEach(function (c) {
          walk(c, x);
          x += G.weight[c] * scale;
        });
      })(zoom, 0);
      inner.style.height = ((Math.max(maxDepth, zd) + 1) * ROW) + 'px';
      while (crumbs.firstChild) crumbs.removeChild(crumbs.firstChild);
      crumbs.textContent = zoom > 0 ? 'zoomed on ' + G.name(zoom) + ' (' + fmtShare(G.weight[zoom] / total) + ' of all)' +
        ' · click a frame above it to zoom out' : 'click a frame to zoom into it';
      reset.disabled = zoom === 0;
      area.dataset.zoom = String(zoom);
    }
    reset.addEventListener('click', function () { zoom = 0; stacksView.path = []; layout(); });
    layout();
    flameRelayout = layout;
    return { layout: layout, zoom: function (i) { zoom = i; stacksView.path = pathOf(G, i); layout(); } };
  }

  /* The heaviest sites as a VTable: sorted and searched as the Bands table
   * is (a site's name, `>1e6` on bytes), heaviest first. */
  function sitesTable(box, K, kind) {
    var T = K.sites, total = K.weight || 1, fmtW = kind === 'alloc' ? fmtBytes : fmtNs;
    var wrap = el('div', 'sites');
    wrap.dataset.kind = kind;
    box.appendChild(wrap);
    var cols = [
      { key: 'rank', title: '#', num: true, width: '44px', get: function (r) { return r + 1; } },
      { key: 'site', title: 'Site (innermost frame)', help: 'the innermost frame, named as -hi names its table',
        width: 'minmax(240px,4fr)', get: function (r) { return S[T.name[r]]; } },
      { key: 'weight', title: kind === 'alloc' ? 'Bytes' : 'Time', num: true, width: 'minmax(80px,0.7fr)',
        get: function (r) { return T.weight[r]; }, fmt: fmtW,
        tip: function (r) { return T.weight[r] + (kind === 'alloc' ? ' bytes' : ' ns'); } },
      { key: 'share', title: 'Share', num: true, width: 'minmax(64px,0.6fr)', help: 'share of the kind\'s sampled total',
        get: function (r) { return T.weight[r] / total; }, fmt: fmtShare },
      { key: 'samples', title: 'Samples', num: true, width: 'minmax(64px,0.6fr)', get: function (r) { return T.samples[r]; } }
    ];
    var st = stacksView.sites && stacksView.sites.kind === kind ? stacksView.sites.state : undefined;
    var vt = new VTable(wrap, T.name.length, cols, { noun: 'sites', fit: true, state: st });
    if (T.n > T.name.length) box.appendChild(el('p', 'pane-note', 'The ' + T.name.length + ' heaviest of ' + T.n + ' sites.'));
    return { kind: kind, state: vt.state };
  }

  function stacksPane() {
    var SM = D.samples;
    flameRelayout = null;
    if (!SM) return;
    var kinds = [];
    if (SM.alloc) kinds.push(['alloc', 'Allocation']);
    if (SM.time) kinds.push(['time', 'Time']);
    if (!kinds.length) return;
    var kind = stacksView.kind;
    if (!SM[kind]) kind = kinds[0][0];
    if (kind !== stacksView.kind) { stacksView.kind = kind; stacksView.path = []; }
    var sp = pane('stacks', 'Sampled call stacks',
      'Where the program was when it was sampled (+RTS --sample-alloc: about every 512 KiB a capability allocates, by default; ' +
      '--sample-time: every 10 ms), the stacks rtscope pprof --stacks writes. Root on top, callees below; a frame\'s width is its share. ' +
      'Hover a frame for its numbers, click to zoom into it. The RTS\'s own frames are left out.');
    var sw = el('div', 'stacks-switch');
    var body = el('div', 'stacks-body');
    kinds.forEach(function (k) {
      var b = el('button', k[0] === kind ? 'on' : null, k[1]);
      b.type = 'button';
      b.dataset.kind = k[0];
      b.addEventListener('click', function () {
        if (stacksView.kind === k[0]) return;
        stacksView.kind = k[0];
        stacksView.path = [];
        Array.prototype.forEach.call(sw.children, function (x) { x.className = x.dataset.kind === k[0] ? 'on' : ''; });
        drawKind();
      });
      sw.appendChild(b);
    });
    sp.appendChild(sw);
    sp.appendChild(body);
    function drawKind() {
      while (body.firstChild) body.removeChild(body.firstChild);
      var k = stacksView.kind, K = SM[k];
      var sum = K.samples + (K.samples === 1 ? ' sample, ' : ' samples, ') +
        (k === 'alloc' ? fmtBytes(K.weight) + ' allocated, ~' + Math.round(K.objects).toLocaleString('en-US') + ' objects (estimated)' : fmtNs(K.weight) + ' of running time') +
        (K.late ? ', ' + K.late + ' late' : '') + (K.truncated ? ', ' + K.truncated + ' truncated' : '') +
        '. ' + K.nodes + ' distinct call paths' +
        (K.tree.other.some(function (x) { return x > 0; }) ? '; those under ' + (K.min_share * 100) + '% of the total (or beyond the ' + K.max_nodes + ' heaviest) are merged into "other" per caller' : '') + '.';
      body.appendChild(el('p', 'stacks-sum', sum));
      var fb = el('div', 'flame-wrap');
      body.appendChild(fb);
      charts.flame = guarded('flame graph', function () { return flameGraph(fb, K, k); });
      body.appendChild(el('h3', null, (k === 'alloc' ? 'Top allocating sites' : 'Top sites by time') +
        ' (the innermost frame, as rtscope stats prints them)'));
      charts.sites = guarded('sites', function () { return sitesTable(body, K, k); });
    }
    drawKind();
  }

  /* ---- the page ---------------------------------------------------------- */

  var app = document.getElementById('app');
  var charts = {}, main, selected = null;

  function pane(id, title, note) {
    var s = el('section', 'pane');
    s.id = 'pane-' + id;
    s.dataset.pane = id;
    s.appendChild(el('h2', null, title));
    if (note) s.appendChild(el('p', 'pane-note', note));
    main.appendChild(s);
    return s;
  }

  function guarded(name, fn) {
    try { return fn(); } catch (e) {
      errors.push(name + ': ' + e);
      if (window.console) console.error('rtscope: ' + name, e);
      return null;
    }
  }

  function noSamples(P, where) {
    if (P.meta.samples > 0) return false;
    var bd = S[P.meta.breakdown];
    if (bd) { /* profiling was on, but no census came */
      where.appendChild(el('p', 'notice',
        'No heap profile samples in this input: the program ran with ' + bd +
        (P.meta.interval_s > 0 ? ' (a census every ' + P.meta.interval_s + ' s of its running time)' : '') +
        ' but took no census yet. -i counts the time the program runs, not the time it waits: ' +
        (D.live ? 'press "Census now" above, or ' : '') +
        'use a shorter -i, or ask for a census (requestHeapCensus). ' +
        'The heap pane below still shows the GC\'s view of the heap.'));
      return true;
    }
    where.appendChild(el('p', 'notice',
      'No heap profile samples in this input: the program ran without heap profiling. ' +
      'Run it with +RTS -hT -l (by closure type) or, on rtscope\'s RTS, +RTS -hi -l (by info table), ' +
      (D.live ? 'or press "Start profiling" above if the program has an eventlog socket. '
        : 'then make the report again. ') +
      'The heap pane below still shows the GC\'s view of the heap' +
      (D.samples ? '; the sampled call stacks are at the end of the page.' : '.')));
    return true;
  }

  function drawHeader() {
    var header = el('header', 'top');
    var P0 = D.kind === 'diff' ? D.a : D.profile;
    header.appendChild(el('h1', null, (D.kind === 'diff' ? 'rtscope diff: ' : 'rtscope: ') +
      (S[P0.meta.program] || S[P0.meta.input])));
    var nav = el('nav');
    [['area', 'Area'], ['normalized', 'Normalized'], ['line', 'Lines'], ['heap', 'Heap'], ['meta', 'Run'], ['table', 'Bands'],
      ['stacks', 'Stacks']]
      .forEach(function (p) {
        if (D.kind === 'diff' && (p[0] === 'normalized' || p[0] === 'line')) return;
        if (p[0] === 'stacks' && !D.samples) return;
        var a = el('a', null, p[1]);
        a.href = '#pane-' + p[0];
        nav.appendChild(a);
      });
    header.appendChild(nav);
    if (D.live) header.appendChild(liveBar());
    app.appendChild(header);
  }

  function drawDiff(yMax) {
    var A = D.a, B = D.b;
    var area = pane('area', 'Area chart: A and B', 'The ' + A.chart.labels.length +
      ' largest bands of either run, stacked on one scale; the rest as "other".');
    var side = el('div', 'side');
    area.appendChild(side);
    var maxOf = function (P) {
      var raw = bandSeries(P), m = 0;
      for (var i = 0; i < P.chart.times.length; i++) {
        var s = 0;
        raw.forEach(function (a) { s += a[i]; });
        if (s > m) m = s;
      }
      return m;
    };
    var common = yMax || Math.max(maxOf(A), maxOf(B)) * 1.05 || 1;
    [['A', A, 'a'], ['B', B, 'b']].forEach(function (x) {
      var box = el('div');
      box.appendChild(el('h3', null, x[0] + ': ' + S[x[1].meta.input]));
      side.appendChild(box);
      if (!noSamples(x[1], box)) {
        var c = el('div', 'chart');
        box.appendChild(c);
        charts['area_' + x[2]] = guarded('area ' + x[0], function () { return profileChart(c, x[1], 'area', common); });
      }
    });
    var heapP = pane('heap', 'Heap: A and B');
    var hs = el('div', 'side');
    heapP.appendChild(hs);
    [['A', A, 'a'], ['B', B, 'b']].forEach(function (x) {
      var box = el('div'), c = el('div', 'chart');
      box.appendChild(el('h3', null, x[0]));
      box.appendChild(c);
      hs.appendChild(box);
      charts['heap_' + x[2]] = guarded('heap ' + x[0], function () { return heapChart(c, x[1]); });
    });
    var metaP = pane('meta', 'Runs');
    var ms = el('div', 'side');
    metaP.appendChild(ms);
    [['A', A], ['B', B]].forEach(function (x) {
      var box = el('div');
      box.appendChild(el('h3', null, x[0]));
      ms.appendChild(box);
      guarded('meta ' + x[0], function () { metaPane(box, x[1]); });
    });
    var tab = pane('table', 'Bands, by growth', 'Every band of either run, matched by name. ' +
      'Search any column (numbers: >1e6, <0); click a heading to sort.');
    charts.table = guarded('table', function () { return diffTable(tab, D.table, A, B); });
  }

  /* tableState: the table's before a redraw (rtscope serve), or undefined. */
  function drawProfile(yMax, tableState) {
    var P = D.profile;
    var nb = P.chart.labels.length;
    var bandNote = nb + ' bands by ' + D.options.sort + (D.options.reverse ? ' (reversed)' : '') +
      (P.chart.other ? ', the other ' + P.chart.other + ' summed as "other"' : '') +
      '. Red rules: markers (hover for their text). Drag to zoom, double-click to reset.';
    var a1 = pane('area', 'Area chart', bandNote);
    if (!noSamples(P, a1)) {
      var c1 = el('div', 'chart');
      a1.appendChild(c1);
      charts.area = guarded('area', function () { return profileChart(c1, P, 'area', yMax); });
      var a2 = pane('normalized', 'Normalized', 'Each census as 100%.');
      var c2 = el('div', 'chart');
      a2.appendChild(c2);
      charts.normalized = guarded('normalized', function () { return profileChart(c2, P, 'norm'); });
      var a3 = pane('line', 'Line chart', 'Each band over its own maximum.');
      var c3 = el('div', 'chart');
      a3.appendChild(c3);
      charts.line = guarded('line', function () { return profileChart(c3, P, 'line'); });
    }
    var hp = pane('heap', 'Heap', 'What the GC saw: heap size, blocks size, live bytes after each GC, memory returned to the OS.');
    var hc = el('div', 'chart');
    hp.appendChild(hc);
    charts.heap = guarded('heap', function () { return heapChart(hc, P); });
    var mp = pane('meta', 'Run');
    guarded('meta', function () { metaPane(mp, P); });
    var tp = pane('table', 'Bands', 'Every band of the profile' + (D.table.ipe ? ', with its info-table provenance' : '') +
      '. Search any column (numbers: >1e6, <0); click a heading to sort' + (D.live ? ', a row to select it' : '') +
      '. Slope and fit are of the least-squares line through the band over all censuses.');
    charts.table = guarded('table', function () { return profileTable(tp, D.table, P, tableState); });
    guarded('stacks', stacksPane);
  }

  function draw(tableState) {
    S = D.strings;
    while (app.firstChild) app.removeChild(app.firstChild);
    charts = {};
    drawHeader();
    main = el('main');
    app.appendChild(main);
    var yMax = D.options && D.options.y_axis ? D.options.y_axis : null;
    if (D.kind === 'diff') drawDiff(yMax); else drawProfile(yMax, tableState);
    app.appendChild(el('footer', null, D.live
      ? 'rtscope serve · live: new data is drawn as it arrives · drawn with uPlot.'
      : 'rtscope html · data: ' + D.kind + ' · drawn with uPlot, offline.'));
  }

  /* ---- live: rtscope serve ------------------------------------------------ */

  /* A page served by rtscope serve (D.live: see docs/html.md, "Watching a
   * service") listens to /t/N/events and, when the data's version moves on,
   * fetches data.json and draws it again, keeping what the user chose:
   * zoom, hidden series, table filters, sort, scroll and selected band. */
  var live = { seq: 0, updates: 0, connected: false, fetching: false, pending: false,
    message: '', bar: null, pressed: false, held: null };

  var CONTROLS = [['request-heap-census', 'Census now'], ['start-heap-profiling', 'Start profiling'],
    ['stop-heap-profiling', 'Stop profiling']];

  function liveBar() {
    var L = D.live, bar = el('div', 'live');
    var state = live.connected || live.polling ? L.state : 'disconnected';
    bar.dataset.state = state;
    bar.appendChild(el('span', 'live-dot ' + state));
    var me = L.targets[L.target] || {};
    bar.appendChild(el('span', 'live-what', state + (me.pid !== null && me.pid !== undefined ? ' · pid ' + me.pid : '') +
      ' · ' + D.profile.meta.samples + (D.profile.meta.samples === 1 ? ' census' : ' censuses') +
      (L.runs > 1 ? ' · run ' + L.runs : '')));
    if (L.targets.length > 1) {
      var list = el('span', 'live-targets');
      L.targets.forEach(function (x) {
        var a = el('a', x.id === L.target ? 'current' : null,
          (x.program || x.spec) + (x.pid !== null ? ' ' + x.pid : '') + ' · ' + x.state);
        a.href = '/t/' + x.id + '/';
        a.title = x.spec;
        list.appendChild(a);
      });
      bar.appendChild(list);
    }
    CONTROLS.forEach(function (c) {
      var b = el('button', null, c[1]);
      b.type = 'button';
      b.dataset.control = c[0];
      b.disabled = L.state !== 'streaming';
      b.addEventListener('click', function () { control(c[0]); });
      bar.appendChild(b);
    });
    var dl = el('a', 'live-download', 'Download');
    dl.href = 'report.html';
    dl.title = 'the static report of what was received so far';
    bar.appendChild(dl);
    if (L.dropped_bytes) {
      bar.appendChild(el('span', 'live-loss', 'lost ' + fmtBytes(L.dropped_bytes) + ' (' + L.dropped_events +
        ' events): the eventlog socket dropped them while rtscope serve fell behind'));
    }
    bar.appendChild(el('span', 'live-msg', live.message));
    live.bar = bar;
    return bar;
  }

  function refreshBar() {
    if (!D.live || !live.bar || !live.bar.parentNode) return;
    var old = live.bar;
    old.parentNode.replaceChild(liveBar(), old);
  }

  function control(name) {
    live.message = name.replace(/-/g, ' ') + '...';
    refreshBar();
    fetch('control/' + name, { method: 'POST', cache: 'no-store' }).then(function (r) {
      return r.text();
    }).then(function (t) {
      live.message = t.trim();
    }, function (e) {
      live.message = 'could not reach rtscope serve: ' + e.message;
    }).then(refreshBar);
  }

  function chartState() {
    var out = {};
    ['area', 'normalized', 'line', 'heap'].forEach(function (k) {
      var u = charts[k];
      if (!u || !u.scales || !u.data || !u.data[0]) return;
      var xs = u.data[0], n = xs.length, x = u.scales.x;
      var zoomed = n > 1 && (x.min > xs[0] + 1e-9 || x.max < xs[n - 1] - 1e-9);
      out[k] = {
        zoom: zoomed ? [x.min, x.max] : null,
        hidden: u.series.filter(function (se, i) { return i > 0 && !se.show; }).map(function (se) { return se.label; })
      };
    });
    return out;
  }

  function restoreCharts(st) {
    Object.keys(st).forEach(function (k) {
      var u = charts[k], c = st[k];
      if (!u) return;
      u.batch(function () {
        u.series.forEach(function (se, i) {
          if (i > 0 && c.hidden.indexOf(se.label) >= 0) u.setSeries(i, { show: false });
        });
        if (c.zoom) u.setScale('x', { min: c.zoom[0], max: c.zoom[1] });
      });
    });
  }

  function redraw(nd) {
    var scrollY = window.scrollY, cs = chartState();
    var ts = charts.table && charts.table.state ? charts.table.state() : undefined;
    /* the sites table's sort, searches and scroll, kept as the Bands table's */
    stacksView.sites = charts.sites ? { kind: charts.sites.kind, state: charts.sites.state() } : null;
    Object.keys(charts).forEach(function (k) {
      if (charts[k] && charts[k].destroy) charts[k].destroy();
    });
    D = nd;
    live.seq = nd.live.seq;
    live.updates++;
    var t1 = performance.now();
    draw(ts);
    restoreCharts(cs);
    window.scrollTo(0, scrollY);
    window.rtscope.data = D;
    window.rtscope.charts = charts;
    window.rtscope.redrawMs = performance.now() - t1;
  }

  function fetchData() {
    if (live.fetching) { live.pending = true; return; }
    live.fetching = true;
    fetch('data.json', { cache: 'no-store' }).then(function (r) {
      if (!r.ok) throw new Error('data.json: HTTP ' + r.status);
      return r.json();
    }).then(function (nd) {
      if (!nd.live || nd.live.seq < live.seq) return;
      /* A redraw replaces the charts: in the middle of a drag it would
       * lose the zoom being drawn. The update waits for the button's release. */
      if (live.pressed) live.held = nd;
      else guarded('update', function () { redraw(nd); });
    }, function (e) {
      live.message = String(e.message || e);
      refreshBar();
    }).then(function () {
      live.fetching = false;
      if (live.pending) { live.pending = false; fetchData(); }
    });
  }

  function startLive() {
    live.seq = D.live.seq;
    document.addEventListener('mousedown', function () { live.pressed = true; }, true);
    /* a release outside the window is never seen: the next update draws */
    window.addEventListener('blur', function () { live.pressed = false; });
    document.addEventListener('mouseup', function () {
      live.pressed = false;
      if (!live.held) return;
      /* after uPlot's own mouseup has applied the zoom */
      setTimeout(function () {
        var nd = live.held;
        live.held = null;
        if (nd && !live.pressed && nd.live.seq >= live.seq) guarded('update', function () { redraw(nd); });
      }, 0);
    }, true);
    var es = new EventSource('events');
    es.addEventListener('update', function (e) {
      var m = JSON.parse(e.data);
      live.everConnected = true;
      if (!live.connected) { live.connected = true; refreshBar(); }
      if (m.seq > live.seq) fetchData();
    });
    es.onerror = function () {
      if (live.connected) { live.connected = false; refreshBar(); }
      /* Refused before it ever connected (the server has as many live pages
       * as it serves, and answers 503): ask for the data every few seconds
       * instead of waiting for news. */
      if (!live.everConnected && !live.polling) {
        es.close();
        live.polling = setInterval(fetchData, 3000);
        live.message = 'many pages are open: this one asks for updates every 3 s';
        refreshBar();
      }
    };
  }

  draw();
  if (D.live) startLive();

  window.addEventListener('resize', function () {
    Object.keys(charts).forEach(function (k) {
      var u = charts[k];
      if (u && u.setSize && u.root && u.root.parentNode) u.setSize({ width: chartWidth(u.root.parentNode), height: u.height });
    });
    if (flameRelayout) flameRelayout();
  });

  /* For the browser test and benchmark. */
  window.rtscope = { data: D, charts: charts, errors: errors, renderMs: performance.now() - t0, live: live };
  document.body.dataset.ready = errors.length ? 'error' : '1';
})();
