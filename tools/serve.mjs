// A static file server for the page (any static host works; this one sets the same
// Content-Security-Policy the page declares, and serves .wasm and .mjs with the right types).
//
//   node tools/serve.mjs FOLDER [PORT]
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';

const root = path.resolve(process.argv[2] || 'build-web');
const port = Number(process.argv[3] || process.env.PORT || 8080);
const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.wasm': 'application/wasm', '.json': 'application/json', '.onnx': 'application/octet-stream', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.ico': 'image/x-icon', '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',  // the README, readable in the browser
};
// The same policy as the page's <meta http-equiv="Content-Security-Policy">.
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; img-src 'self' data: blob:; " +
  "style-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'";

createServer((request, response) => {
  const url = new URL(request.url, 'http://localhost');
  let file;
  try {
    file = path.join(root, decodeURIComponent(url.pathname));
  } catch {
    response.writeHead(400, { 'Content-Type': 'text/plain' }).end('bad request');  // a malformed %-escape
    return;
  }
  if (file !== root && !file.startsWith(root + path.sep)) {  // not "build-web-other/" either
    response.writeHead(403).end();
    return;
  }
  if (existsSync(file) && statSync(file).isDirectory()) file = path.join(file, 'index.html');
  if (!existsSync(file)) {
    response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    return;
  }
  response.writeHead(200, {
    'Content-Type': types[path.extname(file)] || 'application/octet-stream',
    'Content-Length': statSync(file).size,
    'Content-Security-Policy': CSP,
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Embedder-Policy': 'require-corp',
    'Cache-Control': 'no-cache',
  });
  createReadStream(file).pipe(response);
}).listen(port, '127.0.0.1', function listening() {
  console.log(`onnx-shrink page: http://localhost:${this.address().port}/ (serving ${root})`);  // port 0: a free one
});
