// check-report.mjs: open an rtscope HTML report in Debian's headless
// chromium (driven by playwright-core; no browser is ever downloaded) and
// report, as JSON on stdout, what a user would see:
//
//   node check-report.mjs REPORT.html OUTDIR [--search COL=TEXT]... [--sort COL]
//                         [--width PX] [--no-screenshots]
//
// {ready, errors[], requests[], panes{name: canvases}, bands{chart: n},
//  rows, search[{col, text, rows, mismatches}], sorted{col, first[]},
//  pwned, loadMs, renderMs}
// Screenshots (page.png and pane-NAME.png) go to OUTDIR. Exit status 0 if
// the page became ready with no console error, else 1 (the JSON is printed
// either way).
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { withPage } from './browser.mjs';

const argv = process.argv.slice(2);
if (argv.length < 2) {
  console.error('usage: check-report.mjs REPORT.html OUTDIR [--search COL=TEXT]... [--sort COL] [--width PX] [--no-screenshots]');
  process.exit(2);
}
const [report, outdir] = argv;
const searches = [];
let sortCol = null, width = 1400, shots = true;
for (let i = 2; i < argv.length; i++) {
  if (argv[i] === '--search') { const [c, ...t] = argv[++i].split('='); searches.push([c, t.join('=')]); }
  else if (argv[i] === '--sort') sortCol = argv[++i];
  else if (argv[i] === '--width') width = Number(argv[++i]);
  else if (argv[i] === '--no-screenshots') shots = false;
  else { console.error(`check-report: unknown argument ${argv[i]}`); process.exit(2); }
}
mkdirSync(outdir, { recursive: true });
const result = { ready: false, errors: [], requests: [], panes: {}, bands: {}, search: [] };

// The report must need nothing but its own file.
await withPage(result, { name: 'driver', width, allow: (url) => url.startsWith('file:') }, async (page) => {
  const t0 = Date.now();
  await page.goto(pathToFileURL(resolve(report)).href, { waitUntil: 'load', timeout: 60000 });
  await page.waitForFunction(() => document.body && document.body.dataset.ready, null, { timeout: 60000 });
  result.loadMs = Date.now() - t0;
  const state = await page.evaluate(() => ({
    ready: document.body.dataset.ready,
    renderMs: window.rtscope && window.rtscope.renderMs,
    jsErrors: (window.rtscope && window.rtscope.errors) || [],
    panes: Object.fromEntries([...document.querySelectorAll('section.pane')].map((s) =>
      [s.dataset.pane, [...s.querySelectorAll('canvas')].filter((c) => c.width > 0 && c.height > 0).length])),
    bands: Object.fromEntries([...document.querySelectorAll('.chart[data-bands]')].map((c, i) =>
      [c.closest('section').dataset.pane + (i ? `_${i}` : ''), Number(c.dataset.bands)])),
    rows: Number(document.getElementById('table-count')?.dataset.rows),
    notices: [...document.querySelectorAll('.notice')].map((n) => n.textContent),
    pwned: window.__pwned,
  }));
  result.ready = state.ready === '1';
  result.renderMs = state.renderMs;
  result.errors.push(...state.jsErrors);
  result.panes = state.panes;
  result.bands = state.bands;
  result.rows = state.rows;
  result.notices = state.notices;
  result.pwned = state.pwned === undefined ? null : state.pwned;

  if (shots) {
    await page.screenshot({ path: join(outdir, 'page.png'), fullPage: true });
    for (const pane of Object.keys(result.panes)) {
      await page.locator(`#pane-${pane}`).screenshot({ path: join(outdir, `pane-${pane}.png`) });
    }
  }

  const firstRows = () => page.evaluate(() =>
    [...document.querySelectorAll('.vt-row')].sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top))
      .slice(0, 5).map((r) => r.querySelector('.c-label').textContent));

  for (const [col, text] of searches) {
    const input = page.locator(`input[data-col="${col}"]`);
    await input.fill(text);
    const got = await page.evaluate(([c, t]) => {
      const rows = [...document.querySelectorAll('.vt-row')];
      const bad = rows.filter((r) => !r.querySelector(`.c-${c}`).textContent.toLowerCase().includes(t.toLowerCase()));
      return { rows: Number(document.getElementById('table-count').dataset.rows), shown: rows.length, mismatches: bad.length };
    }, [col, text]);
    result.search.push({ col, text, ...got });
    if (shots) await page.locator('#pane-table').screenshot({ path: join(outdir, `search-${col}.png`) });
    await input.fill('');
  }
  if (sortCol) {
    await page.locator(`.vt-head [data-col="${sortCol}"]`).first().click();
    result.sorted = { col: sortCol, first: await firstRows() };
    if (shots) await page.locator('#pane-table').screenshot({ path: join(outdir, `sorted-${sortCol}.png`) });
  }
  // Hover the first marker of the area chart: its text must show.
  const tip = await page.evaluate(() => {
    const u = window.rtscope.charts.area || window.rtscope.charts.area_a;
    const P = window.rtscope.data.profile || window.rtscope.data.a;
    if (!u || !P.traces.length) return null;
    u.setCursor({ left: u.valToPos(P.traces[0][0], 'x'), top: 20 });
    const t = u.root.parentNode.querySelector('.marker-tip');
    return t && t.style.display === 'block' ? t.textContent : '';
  });
  result.markerTip = tip;
});
console.log(JSON.stringify(result, null, 1));
process.exit(result.ready && result.errors.length === 0 && result.requests.length === 0 ? 0 : 1);
