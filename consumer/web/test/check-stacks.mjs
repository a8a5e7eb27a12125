// check-stacks.mjs: open an rtscope HTML report of an eventlog with sampled
// call stacks in Debian's headless chromium and report, as JSON on stdout,
// what its "Sampled call stacks" pane shows:
//
//   node check-stacks.mjs REPORT.html OUTDIR NAME...
//
// {ready, errors[], requests[], kinds[], boxes, width,
//  shares{NAME: {json, drawn, labelled}}, tip, zoom{name, drawn, reset},
//  sites{rows, count, first, firstBytes}, sitesUi{sortedBySamples, search,
//  found, allMatch}, time{boxes, sites, first}, renderMs}
// For each NAME (a substring of a function's name, e.g. Main.$wcallerA),
// `json` is the share of the allocation samples with a frame of it on the
// stack, from the page's data (the outermost such node of each path, so
// recursion counts once, as pprof's cum does), `drawn` the width of those
// nodes' boxes over the root's, and `labelled` how many of the boxes show
// text containing NAME. Screenshots (page.png, pane-stacks.png,
// zoomed.png, sites.png, time.png) go to OUTDIR. The sites table is
// sorted by samples and searched for its first site's binding. Exit status 0 if the page became
// ready with no error and no request, else 1 (the JSON is printed either
// way).
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { withPage } from './browser.mjs';

const argv = process.argv.slice(2);
if (argv.length < 3) {
  console.error('usage: check-stacks.mjs REPORT.html OUTDIR NAME...');
  process.exit(2);
}
const [report, outdir, ...names] = argv;
mkdirSync(outdir, { recursive: true });
const result = { ready: false, errors: [], requests: [], shares: {} };

await withPage(result, { name: 'driver', allow: (url) => url.startsWith('file:') }, async (page) => {
  await page.goto(pathToFileURL(resolve(report)).href, { waitUntil: 'load', timeout: 60000 });
  await page.waitForFunction(() => document.body && document.body.dataset.ready, null, { timeout: 60000 });
  const state = await page.evaluate((names) => {
    const D = window.rtscope.data, S = D.strings, K = D.samples && D.samples.alloc;
    const area = document.querySelector('#pane-stacks .flame');
    const out = {
      ready: document.body.dataset.ready,
      renderMs: window.rtscope.renderMs,
      jsErrors: window.rtscope.errors || [],
      kinds: [...document.querySelectorAll('.stacks-switch button')].map((b) => b.dataset.kind),
      shares: {},
    };
    if (!K || !area) return out;
    const T = K.tree, boxes = [...area.querySelectorAll('.flame-box')];
    const byNode = new Map(boxes.map((b) => [Number(b.dataset.node), b]));
    const root = byNode.get(0);
    out.boxes = boxes.length;
    out.width = root ? root.getBoundingClientRect().width : 0;
    const nameOf = (i) => (T.name[i] >= 0 ? S[T.name[i]] : '');
    for (const want of names) {
      let json = 0, drawn = 0, labelled = 0;
      for (let i = 1; i < T.parent.length; i++) {
        if (!nameOf(i).includes(want)) continue;
        let p = T.parent[i], under = false;
        for (; p > 0; p = T.parent[p]) if (nameOf(p).includes(want)) under = true;
        if (under) continue;
        json += T.weight[i] / T.weight[0];
        const b = byNode.get(i);
        if (b) {
          /* the box is drawn 1 px narrower than its share, as a gap */
          drawn += (b.getBoundingClientRect().width + 1) / (out.width + 1);
          if (b.textContent.includes(want)) labelled++;
        }
      }
      out.shares[want] = { json, drawn, labelled };
    }
    const rows = [...document.querySelectorAll('#pane-stacks .sites .vt-row')];
    out.sites = {
      rows: rows.length,
      count: Number(document.querySelector('#pane-stacks .sites .vt-count').dataset.rows),
      first: rows.length ? rows[0].querySelector('.c-site').textContent : null,
      firstBytes: K.sites.weight[0],
    };
    return out;
  }, names);
  result.ready = state.ready === '1';
  result.renderMs = state.renderMs;
  result.errors.push(...state.jsErrors);
  result.kinds = state.kinds;
  result.boxes = state.boxes;
  result.width = state.width;
  result.shares = state.shares;
  result.sites = state.sites;
  await page.screenshot({ path: join(outdir, 'page.png'), fullPage: true });
  await page.locator('#pane-stacks').screenshot({ path: join(outdir, 'pane-stacks.png') });

  // The sites table sorts and searches as the Bands table does: by samples,
  // largest first; the site column's search keeps only matching rows.
  const sitesRows = (col) => page.evaluate((col) => [...document.querySelectorAll('#pane-stacks .sites .vt-row')]
    .sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top))
    .map((r) => r.querySelector('.c-' + col).textContent), col);
  await page.locator('#pane-stacks .sites .vt-head [data-col="samples"]').first().click();
  const bySamples = (await sitesRows('samples')).map(Number);
  // the search: the heaviest site's binding (after its module), upper case
  const search = (state.sites.first || '').replace(/^.*\./, '').replace(/ .*$/, '').toUpperCase();
  await page.locator('#pane-stacks .sites input[data-col="site"]').fill(search);
  const found = await sitesRows('site');
  result.sitesUi = {
    sortedBySamples: bySamples.length > 1 && bySamples.every((v, i) => i === 0 || bySamples[i - 1] >= v),
    search, found: found.length,
    allMatch: found.every((t) => t.toUpperCase().includes(search)),
  };
  await page.locator('#pane-stacks .sites input[data-col="site"]').fill('');
  await page.locator('#pane-stacks .sites').screenshot({ path: join(outdir, 'sites.png') });

  // Hover the first NAME's box: its tooltip names it, with bytes and share.
  const box = page.locator('#pane-stacks .flame-box', { hasText: names[0] }).first();
  await box.hover();
  result.tip = await page.locator('#pane-stacks .flame-tip').textContent();
  // Click it: it fills the width; Reset zoom gives the root back.
  await box.click();
  result.zoom = await page.evaluate((want) => {
    const area = document.querySelector('#pane-stacks .flame');
    const z = area.querySelector(`.flame-box[data-node="${area.dataset.zoom}"]`);
    return { name: z ? z.textContent : null, drawn: z ? (z.getBoundingClientRect().width + 1) / area.clientWidth : 0,
      crumbs: document.querySelector('#pane-stacks .flame-crumbs').textContent, has: z ? z.textContent.includes(want) : false };
  }, names[0]);
  await page.locator('#pane-stacks').screenshot({ path: join(outdir, 'zoomed.png') });
  await page.locator('#pane-stacks .flame-bar button').click();
  result.zoom.reset = await page.evaluate(() => document.querySelector('#pane-stacks .flame').dataset.zoom);

  // The time samples, when there are any.
  if (result.kinds.includes('time')) {
    await page.locator('.stacks-switch button[data-kind="time"]').click();
    result.time = await page.evaluate(() => {
      const rows = [...document.querySelectorAll('#pane-stacks .sites .vt-row')];
      return { kind: document.querySelector('#pane-stacks .flame').dataset.kind,
        boxes: document.querySelectorAll('#pane-stacks .flame-box').length, sites: rows.length,
        first: rows.length ? rows[0].querySelector('.c-site').textContent : null };
    });
    await page.locator('#pane-stacks').screenshot({ path: join(outdir, 'time.png') });
  }
});
console.log(JSON.stringify(result, null, 1));
process.exit(result.ready && result.errors.length === 0 && result.requests.length === 0 ? 0 : 1);
