// browser.mjs: what rtscope's browser checks share. withPage(result, opts,
// body) opens Debian's chromium headless under playwright-core (no browser
// downloaded) with a fresh profile directory, records console errors, page
// errors and dialogs in result.errors and every request `opts.allow(url)`
// refuses in result.requests (aborted), runs body(page), records what it
// throws as "NAME: message", and always closes the browser and removes
// the profile.
//
//   opts: { name, allow(url) -> bool, width = 1400, height = 900 }
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function withPage(result, opts, body) {
  // quiet: console errors the page is expected to log (a RegExp), or null
  const { name, allow, width = 1400, height = 900, quiet = null } = opts;
  // a fresh profile each run (playwright passes it as --user-data-dir)
  const profileDir = mkdtempSync(join(tmpdir(), 'rtscope-chromium-'));
  const browser = await chromium.launchPersistentContext(profileDir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width, height },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = browser.pages()[0] || await browser.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' && !(quiet && quiet.test(m.text()))) result.errors.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => result.errors.push(`page: ${e.message}`));
    page.on('dialog', (d) => { result.errors.push(`dialog: ${d.message()}`); d.dismiss(); });
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (allow(url)) return route.continue();
      result.requests.push(url);
      return route.abort();
    });
    await body(page);
  } catch (e) {
    result.errors.push(`${name}: ${e.message}`);
  } finally {
    await browser.close();
    rmSync(profileDir, { recursive: true, force: true });
  }
}
