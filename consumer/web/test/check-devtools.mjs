// check-devtools.mjs: open a V8 heap snapshot (`rtscope debug
// heapsnapshot`) in Chrome DevTools' Memory panel, the way a user does,
// in Debian's headless chromium (playwright-core; no browser downloaded):
// DevTools' own frontend, the one chromium bundles, served by chromium's
// --remote-debugging-port and attached to a blank page; Memory, "Load
// profile", the file; then the Summary sorted by Retained size, CLASS
// opened and its first object (the one retaining most) selected, so that
// the Retainers pane shows what keeps it; the screenshot is taken then.
// Prints, as JSON, what the panel shows:
//
//   node check-devtools.mjs FILE.heapsnapshot SCREENSHOT.png [CLASS [NAME]]
//
// (CLASS default `(CONSTR)`, NAME default `containers:Data.Map.Internal.Bin`.)
// {errors[], requests[], step, loaded, objects, sortedBy,
//  summary[{name, retained}], top{name, retained, bytes}, retainers[]}:
// `loaded` is true when the Summary lists CLASS among its first rows;
// `top` is CLASS's first object (`NAME @ID`; bytes: its retained size as
// DevTools rounds it), `retainers` the first rows of its Retainers pane.
// Exit status 0 if every step was done (`step` is "done"), the Summary is
// sorted by retained size, top is named NAME and the Retainers pane lists
// something; else 1, with a message on stderr saying what failed.
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const [snapPath, shot, cls = '(CONSTR)', want = 'containers:Data.Map.Internal.Bin'] = process.argv.slice(2);
if (!snapPath || !shot) {
  console.error('usage: check-devtools.mjs FILE.heapsnapshot SCREENSHOT.png [CLASS [NAME]]');
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '..', 'package.json'));
const { chromium } = require('playwright-core');

const result = { errors: [], requests: [], loaded: false, summary: [], retainers: [] };
const step = (s) => { result.step = s; };
const profileDir = mkdtempSync(join(tmpdir(), 'rtscope-devtools-'));
const browser = await chromium.launchPersistentContext(profileDir, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1400, height: 900 },
  // port 0: chromium picks one and writes it to DevToolsActivePort
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--remote-debugging-address=127.0.0.1', '--remote-debugging-port=0'],
});
try {
  step('DevTools frontend');
  const portFile = join(profileDir, 'DevToolsActivePort');
  for (let i = 0; i < 100 && !existsSync(portFile); i++) await new Promise((ok) => setTimeout(ok, 100));
  const port = Number(readFileSync(portFile, 'utf8').split('\n')[0]);
  const origin = `http://127.0.0.1:${port}`;
  // the inspected page: a blank one (its own heap is not what we look at)
  const target = browser.pages()[0] || await browser.newPage();
  await target.goto('about:blank');
  const cdp = await browser.newCDPSession(target);
  const { targetInfo } = await cdp.send('Target.getTargetInfo');
  await cdp.detach();

  const page = await browser.newPage();
  page.on('console', (m) => {
    // DevTools asks its host for a favicon and a few optional files the
    // remote-debugging server does not serve: a 404 is not an error here
    if (m.type() === 'error' && !/status of 404/.test(m.text())) result.errors.push(`console: ${m.text()}`);
  });
  // an exception while DevTools reads the file (its worker's parse errors
  // come here) ends the wait for it
  let pageFailed;
  const failure = new Promise((_, no) => { pageFailed = no; });
  failure.catch(() => {});
  page.on('pageerror', (e) => {
    result.errors.push(`page: ${e.message}`);
    pageFailed(new Error(`DevTools failed: ${e.message}`));
  });
  page.on('dialog', (d) => { result.errors.push(`dialog: ${d.message()}`); d.dismiss(); });
  // DevTools must need nothing but chromium's own server
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    result.requests.push(url);
    return route.abort();
  });
  await page.goto(`${origin}/devtools/devtools_app.html?ws=127.0.0.1:${port}/devtools/page/${targetInfo.targetId}`,
    { waitUntil: 'load', timeout: 60000 });

  step('Memory panel');
  await page.getByRole('tab', { name: 'Memory' }).click({ timeout: 30000 });
  step('Load profile');
  const [chooser] = await Promise.all([
    page.waitForEvent('filechooser', { timeout: 30000 }),
    page.getByRole('button', { name: 'Load profile', exact: true }).click({ timeout: 30000 }),
  ]);
  await chooser.setFiles(resolve(snapPath));

  // the sidebar lists the file by its name; its size replaces the
  // progress once the worker has parsed it
  step('snapshot parsed');
  const title = basename(snapPath).replace(/\.heapsnapshot$/, '');
  const item = page.getByRole('treeitem', { name: new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, [0-9.,]+ [kMG]?B$`) });
  await Promise.race([item.waitFor({ timeout: 120000 }), failure]);
  // select it until its view shows the Summary (a click while the view is
  // being built may leave the launcher shown)
  step('Summary');
  const rows = page.locator('.heap-snapshot-view .data-grid').first().locator('.data-grid-data-grid-node');
  const clsRow = rows.filter({ hasText: cls }).first();
  let shown = false;
  for (let i = 0; i < 20 && !shown; i++) {
    await item.click();
    try {
      await rows.first().waitFor({ timeout: 3000 });
      shown = true;
    } catch {
      await page.getByRole('treeitem', { name: 'Profiles' }).click();
    }
  }
  if (!shown) throw new Error('the snapshot\'s view does not show its Summary');
  result.loaded = await clsRow.count() > 0;
  if (!result.loaded) throw new Error(`the Summary does not list ${cls}`);
  result.objects = await page.getByText(/^[0-9,]+ objects \(/).first().innerText().catch(() => '');

  // sorted by Retained size, largest first (DevTools' default; clicked if not)
  step('sort by Retained size');
  const header = page.locator('th.retainedSize-column').first();
  for (let i = 0; i < 2 && !/sort-descending/.test(await header.getAttribute('class') || ''); i++) {
    await header.click();
    await page.waitForTimeout(300);
  }
  result.sortedBy = /sort-descending/.test(await header.getAttribute('class') || '') ? 'retained size, descending' : 'other';
  // a row's name (without its count) and its retained size (the 4th cell)
  // (an object's name is followed by its id: `NAME @ID`)
  const name = async (row) => (await row.locator('td.object-column').first().evaluate((td) => {
    const parts = [];
    const walk = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
    while (walk.nextNode()) parts.push(walk.currentNode.textContent.trim());
    return parts.filter((t) => t).join(' ');
  })).replace(/\s+/g, ' ').replace(/ ?× ?[0-9,]+$/, '').replace(/@ ([0-9]+)$/, '@$1');
  // DevTools' units are powers of 1000 (kB, MB)
  const bytes = (t) => {
    const m = /^([0-9.,]+)\s*(B|kB|MB|GB)/.exec(t);
    return m ? Number(m[1].replace(/,/g, '')) * { B: 1, kB: 1e3, MB: 1e6, GB: 1e9 }[m[2]] : null;
  };
  const retained = async (row) => (await row.locator('td').nth(3).getAttribute('aria-label') || '').replace(/\s+/g, ' ');
  const n = Math.min(await rows.count(), 8);
  for (let i = 0; i < n; i++) {
    const r = rows.nth(i);
    result.summary.push({ name: await name(r), retained: await retained(r) });
  }

  // open CLASS: its objects, largest retained first; select the first
  step(`open ${cls}`);
  await clsRow.click();
  await page.keyboard.press('ArrowRight');
  const child = rows.filter({ has: page.locator('.object-value-id') }).first();
  await child.waitFor({ timeout: 30000 });
  result.top = { name: await name(child), retained: await retained(child) };
  result.top.bytes = bytes(result.top.retained);
  step('Retainers');
  await child.click();
  const retainerRows = page.locator('.retaining-paths-view .data-grid-data-grid-node');
  try {
    await retainerRows.first().waitFor({ timeout: 15000 });
    await page.waitForTimeout(800); // DevTools opens the first path a few levels
    const m = Math.min(await retainerRows.count(), 8);
    for (let i = 0; i < m; i++) result.retainers.push(await name(retainerRows.nth(i)));
  } catch {
    // (reported below: no retainers)
  }
  step('screenshot');
  await page.screenshot({ path: shot });
  step('done');
} catch (e) {
  result.errors.push(`check-devtools: at "${result.step}": ${e.message.split('\n')[0]}`);
} finally {
  await browser.close();
  rmSync(profileDir, { recursive: true, force: true });
}
console.log(JSON.stringify(result, null, 1));
const topOk = result.top && (result.top.name === want || result.top.name.startsWith(`${want} @`));
const fail = !result.loaded ? `DevTools did not show the snapshot (${cls} not in its Summary)`
  : result.sortedBy !== 'retained size, descending' ? 'the Summary is not sorted by retained size'
  : !topOk ? `${cls}'s first object is ${result.top ? result.top.name : 'missing'}, not ${want}`
  : !result.retainers.length ? `the Retainers pane of ${want} stayed empty`
  : result.step !== 'done' ? 'DevTools stopped before the screenshot' : '';
if (fail) console.error(`check-devtools: ${snapPath}: ${fail}${result.errors.length ? `: ${result.errors.join('; ')}` : ''}`);
process.exit(fail ? 1 : 0);
