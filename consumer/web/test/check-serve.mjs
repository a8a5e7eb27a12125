// check-serve.mjs: a user's session with `rtscope serve` in Debian's
// headless chromium (playwright-core; no browser downloaded), as JSON on
// stdout:
//
//   node check-serve.mjs URL OUTDIR [--start CMD] [--restart CMD] [--soak SECS] [--band TEXT] [--refused]
//                        [--watch-only | --once]
//
// With --once: open URL, take page.png, report, and stop there.
// 1. Open URL (a served page); with --start, run CMD once the page is
//    ready (start the program: the page sees its whole run). The page must
//    become ready and then update
//    without a reload while the program runs (censuses grow).
// 2. (Not with --watch-only, for a stream that is not a program.) Zoom the area chart (a mouse drag), hide the first band (a legend
//    click), filter the table's Band column by TEXT (default: the first
//    band's name) and select its first row; after the next updates each of
//    these must still hold.
// 3. (Not with --watch-only.) Click "Census now": the answer names the program, and the number of
//    censuses grows by at least one within 5 s.
// 4. With --restart, run CMD (kill the program and start it again): the
//    same page must show run 2 with its censuses still growing, no reload.
// 5. With --soak, leave the page open SECS while updates arrive and report
//    its JS heap (start, end, peak), the number of updates drawn and the
//    longest wait for one while the stream went on (maxGapMs).
//
// {ready, errors[], requests[], reloads, updates, samples{first, later},
//  zoom{before, after}, hidden{label, after}, filter{text, rows, after},
//  selected{label, after}, census{message, before, after},
//  restart{runs, samples, reloads}, soak{updates, maxGapMs, heapStart,
//  heapEnd, heapPeak}, redrawMs}
// Screenshots page.png, table.png and live-bar.png go to OUTDIR. Exit status 0 if
// no console error and no request left the server, else 1.
import { execSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { withPage } from './browser.mjs';

const argv = process.argv.slice(2);
if (argv.length < 2) {
  console.error('usage: check-serve.mjs URL OUTDIR [--restart CMD] [--soak SECS] [--band TEXT]');
  process.exit(2);
}
const [url, outdir] = argv;
let start = null, restart = null, soak = 0, bandText = null, watchOnly = false, once = false, refused = false;
for (let i = 2; i < argv.length; i++) {
  if (argv[i] === '--restart') restart = argv[++i];
  else if (argv[i] === '--start') start = argv[++i];
  else if (argv[i] === '--soak') soak = Number(argv[++i]);
  else if (argv[i] === '--band') bandText = argv[++i];
  else if (argv[i] === '--watch-only') watchOnly = true;
  else if (argv[i] === '--refused') refused = true;
  else if (argv[i] === '--once') once = true;
  else { console.error(`check-serve: unknown argument ${argv[i]}`); process.exit(2); }
}
mkdirSync(outdir, { recursive: true });
const origin = new URL(url).origin;
const result = { ready: false, errors: [], requests: [], reloads: 0 };

const live = (page) => page.evaluate(() => ({
  seq: window.rtscope.live.seq,
  updates: window.rtscope.live.updates,
  samples: window.rtscope.data.profile.meta.samples,
  runs: window.rtscope.data.live.runs,
  state: window.rtscope.data.live.state,
  token: window.__rtscopeToken,
  polling: !!window.rtscope.live.polling,
}));

// Wait until pred(live state) holds, up to ms; returns the last state.
async function until(page, pred, ms, what) {
  const end = Date.now() + ms;
  let s = await live(page);
  while (!pred(s)) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}: ${JSON.stringify(s)}`);
    await page.waitForTimeout(200);
    s = await live(page);
  }
  return s;
}

const heap = async (cdp) => (await cdp.send('Runtime.getHeapUsage')).usedSize;

async function interact(page) {
  // what a user chooses: zoom, a hidden band, a filter, a selected row
  // the drag is held across an update: the update waits for the release
  const box = await boxOf(page.locator('#pane-area .u-over'));
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.45, box.y + box.height / 2, { steps: 3 });
  const { seq: held, updates: u0 } = await live(page);
  const heldEnd = Date.now() + 5000;
  const arrived = () => page.evaluate((u) => !!window.rtscope.live.held || window.rtscope.live.updates > u, u0);
  while (Date.now() < heldEnd && !(await arrived())) await page.waitForTimeout(100);
  const heldUpdate = await page.evaluate(() => !!window.rtscope.live.held);
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 3 });
  await page.mouse.up();
  await until(page, (s) => !heldUpdate || s.seq > held, 5000, 'the held update drawn');
  const zoomOf = () => page.evaluate(() => {
    const u = window.rtscope.charts.area, x = u.scales.x, xs = u.data[0];
    return [x.min, x.max, x.max < xs[xs.length - 1]];
  });
  result.zoom = { heldUpdate, before: await zoomOf() };
  const legend = page.locator('#pane-area .u-legend .u-series').nth(1);
  const hiddenLabel = await legend.locator('.u-label').textContent();
  await legend.click();
  const filter = bandText || hiddenLabel;
  await fillLive(page, page.locator('#pane-table input[data-col="label"]'), filter);
  const rowsBefore = Number(await page.locator('#table-count').getAttribute('data-rows'));
  await page.locator('#pane-table .vt-row').first().click();
  const selectedLabel = await page.locator('#pane-table .vt-row.vt-selected .c-label').textContent();
  const before = await live(page);
  await until(page, (s) => s.updates >= before.updates + 2, 30000, 'two more updates');
  result.zoom.after = await zoomOf();
  result.hidden = {
    label: hiddenLabel,
    after: await page.evaluate((l) => window.rtscope.charts.area.series.some((se) => se.label === l && !se.show), hiddenLabel),
  };
  result.filter = {
    text: filter, rows: rowsBefore,
    after: await page.locator('#pane-table input[data-col="label"]').inputValue(),
    rowsAfter: Number(await page.locator('#table-count').getAttribute('data-rows')),
  };
  result.selected = {
    label: selectedLabel,
    after: await page.locator('#pane-table .vt-row.vt-selected .c-label').textContent().catch(() => null),
  };
  await shot(page.locator('#pane-table'), join(outdir, 'table.png'));
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(outdir, 'page.png'), fullPage: false });
  await shot(page.locator('header .live'), join(outdir, 'live-bar.png'));

  // census now
  const c0 = await live(page);
  await page.locator('button[data-control="request-heap-census"]').click();
  await page.waitForFunction(() => /sent|no program|not connected/.test(document.querySelector('.live-msg').textContent),
    null, { timeout: 10000 });
  const message = await page.locator('.live-msg').textContent();
  const c1 = await until(page, (s) => s.samples > c0.samples, 5000, 'the requested census');
  result.census = { message, before: c0.samples, after: c1.samples };
}

// Type into an input of a live page: an update may replace the input
// between finding it and typing (the text then goes to the old one), so
// it is typed again until the page's input shows it.
async function fillLive(page, locator, text) {
  for (let i = 0; i < 10; i++) {
    await locator.fill(text);
    await page.waitForTimeout(150);
    if ((await locator.inputValue().catch(() => null)) === text) return;
  }
  throw new Error(`the input did not keep '${text}'`);
}

// An element's box on a live page: null while an update redraws it (live
// pages update every 0.5 s, now that a live stream is not held back), so
// asked again until it is there.
async function boxOf(locator) {
  for (let i = 0; i < 50; i++) {
    const b = await locator.boundingBox();
    if (b) return b;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the element has no box after 5 s');
}

// A screenshot of an element of a live page: an update may redraw the
// element while it is taken, and a locator's own screenshot needs the one
// node attached throughout ("Element is not attached to the DOM", five
// times running on a loaded machine). A clip of the page at the element's
// box (boxOf: asked again while a redraw has none) needs no node at all.
async function shot(locator, path) {
  await locator.page().screenshot({ path, clip: await boxOf(locator), timeout: 10000 });
}

// --refused: the server has as many live pages as it serves; the browser
// logs the refused event stream (503), and the page polls instead.
const quiet = refused ? /status of 503/ : null;
await withPage(result, { name: 'driver', allow: (u) => u.startsWith(origin), quiet }, async (page) => {
  page.on('load', () => { result.reloads++; });
  await page.goto(url, { waitUntil: 'load', timeout: 60000 });
  await page.waitForFunction(() => document.body && document.body.dataset.ready, null, { timeout: 60000 });
  result.reloads = 0; // the first load is not a reload
  result.ready = await page.evaluate(() => document.body.dataset.ready === '1');
  await page.evaluate(() => { window.__rtscopeToken = Math.random(); });
  const token = (await live(page)).token;
  if (start) execSync(start, { stdio: 'ignore', shell: '/bin/bash' });
  if (once) {
    await page.waitForFunction(() => window.rtscope.live.connected, null, { timeout: 10000 });
    await page.screenshot({ path: join(outdir, 'page.png'), fullPage: false });
    Object.assign(result, await live(page));
    return;
  }
  const first = await until(page, (s) => s.samples >= 2, 60000, 'two censuses');
  const grown = await until(page, (s) => s.samples > first.samples && s.updates > first.updates, 30000,
    'a census drawn without a reload');
  result.samples = { first: first.samples, later: grown.samples };
  if (!watchOnly) await interact(page);
  if (restart) {
    const r0 = await live(page);
    execSync(restart, { stdio: 'ignore', shell: '/bin/bash' });
    const r1 = await until(page, (s) => s.runs > r0.runs && s.state === 'streaming', 30000, 'the restarted run');
    const r2 = await until(page, (s) => s.samples > r1.samples, 30000, 'censuses of the restarted run');
    result.restart = { runs: r2.runs, samples: [r0.samples, r2.samples], sameToken: r2.token === token };
  }
  if (soak > 0) {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('HeapProfiler.collectGarbage');
    const s0 = await live(page);
    const h0 = await heap(cdp);
    let peak = h0;
    // The longest wait for a redraw while the stream still brings censuses:
    // from one drawn update to the next (or to the soak's end), counted
    // only while the drawn data says 'streaming'. What a viewer sees as
    // the page keeping up, whatever the machine's speed sets the count to.
    let last = { at: Date.now(), updates: s0.updates, state: s0.state }, maxGapMs = 0;
    const end = Date.now() + soak * 1000;
    for (let tick = 1; Date.now() < end; tick++) {
      await page.waitForTimeout(250);
      const s = await live(page), now = Date.now();
      if (last.state === 'streaming') maxGapMs = Math.max(maxGapMs, now - last.at);
      if (s.updates !== last.updates) last = { at: now, updates: s.updates, state: s.state };
      if (tick % 4 === 0) peak = Math.max(peak, await heap(cdp));
    }
    await cdp.send('HeapProfiler.collectGarbage');
    const s1 = await live(page);
    result.soak = { updates: s1.updates - s0.updates, samples: [s0.samples, s1.samples], maxGapMs,
      heapStart: h0, heapEnd: await heap(cdp), heapPeak: peak, polling: s1.polling };
    await page.screenshot({ path: join(outdir, 'soak.png'), fullPage: false });
  }
  result.updates = (await live(page)).updates;
  result.redrawMs = await page.evaluate(() => window.rtscope.redrawMs);
  result.errors.push(...await page.evaluate(() => window.rtscope.errors));
});
console.log(JSON.stringify(result, null, 1));
process.exit(result.ready && result.errors.length === 0 && result.requests.length === 0 ? 0 : 1);
