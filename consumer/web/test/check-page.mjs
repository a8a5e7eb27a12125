// check-page.mjs: open one of rtscope's script-free report pages (rtscope
// debug dominators --html) in Debian's headless chromium (playwright-core,
// no browser downloaded) and print, as JSON, what a reader sees:
//
//   node check-page.mjs PAGE.html SCREENSHOT.png
//
// {errors[], requests[], scripts, title, headings[], tables{id: rows},
//  pre[]: the text of <pre> blocks}
// Exit status 0 if the page loaded with no console error and asked for
// nothing beyond its own file, else 1 (the JSON is printed either way).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { withPage } from './browser.mjs';

const [page_, shot] = process.argv.slice(2);
if (!page_ || !shot) {
  console.error('usage: check-page.mjs PAGE.html SCREENSHOT.png');
  process.exit(2);
}
const result = { errors: [], requests: [] };
await withPage(result, { name: 'check-page', allow: (url) => url.startsWith('file:') }, async (page) => {
  await page.goto(pathToFileURL(resolve(page_)).href, { waitUntil: 'load', timeout: 60000 });
  Object.assign(result, await page.evaluate(() => ({
    scripts: document.querySelectorAll('script').length,
    title: document.title,
    headings: [...document.querySelectorAll('h1, h2, h3')].map((h) => h.textContent),
    tables: Object.fromEntries([...document.querySelectorAll('table[id]')]
      .map((t) => [t.id, t.querySelectorAll('tr').length - 1])),
    pre: [...document.querySelectorAll('pre')].map((p) => p.textContent),
  })));
  await page.screenshot({ path: shot, fullPage: false });
});
console.log(JSON.stringify(result, null, 1));
process.exit(result.errors.length || result.requests.length ? 1 : 0);
