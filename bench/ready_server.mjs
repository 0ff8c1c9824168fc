// The static server of bench/ready.mjs, on 127.0.0.1 only: the built page's vendor files
// (build-web/vendor: onnxruntime-web and the engine), the bench page, and the models, each model
// either as it is (/models/NAME) or precompressed with brotli and sent with Content-Encoding: br
// (/models-br/NAME, from NAME.br), as a host with compression serves it. Nothing is cached
// (Cache-Control: no-store), and the bytes sent per path are counted (the bytes on the wire).
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm',
                '.json': 'application/json', '.onnx': 'application/octet-stream' };

const PAGE = '<!doctype html><meta charset="utf-8"><title>time until ready</title><script type="module" src="/bench/ready_page.mjs"></script>';

// Where a request path's bytes are: [file, contentEncoding] or null.
function locate(pathname, { root, models }) {
  const inside = (base, rest) => {
    const file = path.join(base, rest);
    return file.startsWith(base + path.sep) && existsSync(file) && statSync(file).isFile() ? file : null;
  };
  if (pathname.startsWith('/vendor/')) return [inside(path.join(root, 'build-web', 'vendor'), pathname.slice(8)), null];
  if (pathname === '/bench/ready_page.mjs') return [path.join(root, 'bench', 'ready_page.mjs'), null];
  if (pathname.startsWith('/models/')) return [inside(models, pathname.slice(8)), null];
  if (pathname.startsWith('/models-br/')) return [inside(models, `${pathname.slice(11)}.br`), 'br'];
  return [null, null];
}

/** Starts the server on a free port of 127.0.0.1; resolves to { port, sent, acceptEncoding, close }. */
export function startServer({ root, models }) {
  const sent = new Map();  // path -> bytes of the last response body sent
  const acceptEncoding = new Map();  // path -> the request's Accept-Encoding
  const server = createServer((request, response) => {
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(request.url, 'http://127.0.0.1').pathname);
    } catch {
      response.writeHead(400).end();
      return;
    }
    acceptEncoding.set(pathname, request.headers['accept-encoding'] ?? '');
    if (pathname === '/' || pathname === '/ready.html') {
      response.writeHead(200, { 'Content-Type': TYPES['.html'], 'Cache-Control': 'no-store' }).end(PAGE);
      return;
    }
    const [file, encoding] = locate(pathname, { root, models });
    if (!file) {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    const size = statSync(file).size;
    response.writeHead(200, {
      'Content-Type': TYPES[path.extname(pathname)] || 'application/octet-stream',
      'Content-Length': size,
      ...(encoding ? { 'Content-Encoding': encoding } : {}),
      'Cache-Control': 'no-store',
    });
    sent.set(pathname, size);
    createReadStream(file).pipe(response);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    port: server.address().port, sent, acceptEncoding,
    close: () => new Promise((done) => { server.closeAllConnections(); server.close(done); }),
  })));
}
