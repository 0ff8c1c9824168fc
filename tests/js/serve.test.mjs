// The page's static server (tools/serve.mjs): types and headers, and requests that must not
// reach outside its folder or stop it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from './temp_dir.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let server, port;

before(async () => {
  const dir = tempDir('serve');
  mkdirSync(path.join(dir, 'site'));
  writeFileSync(path.join(dir, 'site', 'index.html'), '<!doctype html><title>t</title>');
  writeFileSync(path.join(dir, 'site', 'a.wasm'), new Uint8Array([0, 97, 115, 109]));
  mkdirSync(path.join(dir, 'site-private'));  // a sibling whose name starts with the served folder's
  writeFileSync(path.join(dir, 'site-private', 'secret.txt'), 'secret');
  server = spawn(process.execPath, [path.join(root, 'tools', 'serve.mjs'), path.join(dir, 'site'), '0']);
  const [line] = await once(server.stdout, 'data');
  port = Number(/localhost:(\d+)/.exec(String(line))[1]);
});
after(() => server.kill());

// A request sent as written (fetch would normalise the path first).
function get(rawPath) {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: rawPath }, (response) => {
      let body = '';
      response.on('data', (c) => (body += c)).on('end', () => resolve({ status: response.statusCode, headers: response.headers, body }));
    }).on('error', reject).end();
  });
}

test('serves the folder with the types and the Content-Security-Policy the page needs', async () => {
  const index = await get('/');
  assert.equal(index.status, 200);
  assert.match(index.headers['content-type'], /^text\/html/);
  assert.match(index.headers['content-security-policy'], /connect-src 'self'/);
  assert.equal((await get('/a.wasm')).headers['content-type'], 'application/wasm');
  assert.equal((await get('/missing.js')).status, 404);
});

test('a malformed escape is a bad request, and the server keeps serving', async () => {
  assert.equal((await get('/%E0%A4%A')).status, 400);
  assert.equal((await get('/')).status, 200);
});

test('nothing outside the folder, not even a sibling whose name starts the same', async () => {
  const sibling = await get('/..%2fsite-private/secret.txt');
  assert.equal(sibling.status, 403);
  assert.doesNotMatch(sibling.body, /secret/);
  assert.equal((await get('/..%2f..%2fetc/passwd')).status, 403);
});
