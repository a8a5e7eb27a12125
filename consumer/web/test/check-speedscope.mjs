// check-speedscope.mjs: open a profile of `rtscope pprof` in speedscope
// (its static build from node_modules, pinned in package-lock.json) in
// Debian's headless chromium, the way a user does: speedscope served over
// HTTP with the profile, loaded by `#profileURL=`. Prints, as JSON, what
// the page shows:
//
//   node check-speedscope.mjs PROFILE.pb.gz SCREENSHOT.png [NAME...]
//
// {errors[], requests[], title, loaded, names{NAME: seen}}: `loaded` is
// true when speedscope drew a profile (its flame chart's canvas, no import
// error); names are looked up in the sandwich view's table of functions
// (DOM text, unlike the canvas). Exit status 0 if loaded with no console
// error, nothing asked of another host, and every NAME seen; else 1.
import { createServer } from 'node:http';
import { readFileSync, existsSync } from 'node:fs';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withPage } from './browser.mjs';

const [profilePath, shot, ...names] = process.argv.slice(2);
if (!profilePath || !shot) {
  console.error('usage: check-speedscope.mjs PROFILE.pb.gz SCREENSHOT.png [NAME...]');
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const release = join(here, '..', 'node_modules', 'speedscope', 'dist', 'release');
if (!existsSync(join(release, 'index.html'))) {
  console.error(`check-speedscope: no speedscope build in ${release} (npm ci in consumer/web)`);
  process.exit(2);
}
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css',
  '.wasm': 'application/wasm', '.png': 'image/png', '.woff2': 'font/woff2', '.json': 'application/json' };
const profile = readFileSync(resolve(profilePath));
const server = createServer((req, res) => {
  const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  if (path === '/profile.pb.gz') {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    return res.end(profile);
  }
  const file = normalize(join(release, path === '/' ? 'index.html' : path));
  if (!file.startsWith(release) || !existsSync(file)) {
    res.writeHead(404);
    return res.end();
  }
  res.writeHead(200, { 'content-type': types[extname(file)] || 'application/octet-stream' });
  res.end(readFileSync(file));
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const origin = `http://127.0.0.1:${server.address().port}`;

const result = { errors: [], requests: [], names: {} };
// speedscope must need nothing but the server's files
await withPage(result, { name: 'check-speedscope', allow: (url) => url.startsWith(origin) }, async (page) => {
  await page.goto(`${origin}/index.html#profileURL=${encodeURIComponent(`${origin}/profile.pb.gz`)}&title=rtscope`,
    { waitUntil: 'load', timeout: 60000 });
  // speedscope draws the flame chart on a canvas once the profile is in
  await page.waitForFunction(() => {
    const t = document.body.innerText;
    return /Time Order|Left Heavy|Sandwich/.test(t) || /went wrong|unrecognized|error/i.test(t);
  }, null, { timeout: 30000 });
  const text = await page.evaluate(() => document.body.innerText);
  result.loaded = /Sandwich/.test(text) && !/went wrong|unrecognized format/i.test(text);
  result.title = await page.title();
  await page.screenshot({ path: shot, fullPage: false });
  if (result.loaded) {
    await page.keyboard.press('3'); // the sandwich view
    await page.waitForTimeout(500);
    const table = await page.evaluate(() => document.body.innerText);
    for (const n of names) result.names[n] = table.includes(n);
    await page.screenshot({ path: shot.replace(/\.png$/, '') + '-sandwich.png', fullPage: false });
  }
});
server.close();
console.log(JSON.stringify(result, null, 1));
const ok = result.loaded && !result.errors.length && !result.requests.length &&
  names.every((n) => result.names[n]);
process.exit(ok ? 0 : 1);
