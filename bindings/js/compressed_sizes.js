// The sizes of a result after gzip (level 6, as web servers use) and brotli (quality 9), taken on a
// worker thread while the engine writes the result (Node only; the CLI's summary table).
//
// The engine runs on the main thread in one synchronous call. A zlib stream there takes its next
// chunk only when the main thread is free, so it compressed nothing until the engine returned
// (the 151.5 MB conv stack: 0 of 39 MB taken in the engine's 424 ms). On a thread of its own the
// compression runs beside the engine. This file is both: imported, it gives compressedSizes();
// started as a worker (workerData.role), it compresses what it is sent.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { constants, createBrotliCompress, createGzip } from 'node:zlib';

const ROLE = 'onnx-shrink compressed sizes';

// The compressed size of bytes given in pieces, or null past `limit` bytes or once stopped.
function counter(stream, limit) {
  let size = 0, given = 0, stopped = false;
  stream.on('data', (chunk) => (size += chunk.byteLength));
  const done = new Promise((resolve, reject) => stream.on('end', resolve).on('error', reject));
  return {
    stream,
    write(chunk) {
      if (stopped) return;
      given += chunk.byteLength;
      if (given > limit) return this.stop();
      stream.write(chunk);
    },
    stop() {
      stopped = true;
      stream.destroy();
    },
    async size() {
      if (stopped) return null;
      stream.end();
      await done;
      return size;
    },
  };
}

// The worker: messages { part: 'model' | 'data', chunk } (and perhaps { stopBrotli: true }), then
// { end: true }; answers
// { fed } (bytes brotli has taken) now and then, and { gzip: { model, data }, brotli } at the end.
// Brotli measures the model alone: it stops at the first external data (see compressedSizes).
function work({ limit, brotli: withBrotli, sizeHint }) {
  const gzip = { model: counter(createGzip({ level: 6 }), limit), data: counter(createGzip({ level: 6 }), limit) };
  const params = { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: sizeHint };
  const brotli = withBrotli ? counter(createBrotliCompress({ params }), limit) : null;
  let reported = 0;
  brotli?.stream.on('data', () => {
    const fed = brotli.stream.bytesWritten;
    if (fed - reported >= 1 << 20) parentPort.postMessage({ fed: (reported = fed) });
  });
  parentPort.on('message', async (m) => {
    if (m.stopBrotli) return brotli?.stop();
    if (m.chunk) {
      gzip[m.part].write(m.chunk);
      if (m.part === 'model') brotli?.write(m.chunk);
      else brotli?.stop();
      return;
    }
    const settle = (c) => c?.size().catch(() => null) ?? null;
    const [model, data, b] = await Promise.all([settle(gzip.model), settle(gzip.data), settle(brotli)]);
    parentPort.postMessage({ gzip: { model, data }, brotli: b });
    parentPort.close();
  });
}

if (!isMainThread && workerData?.role === ROLE) work(workerData);

/**
 * Sizes of a result written in pieces: `write(part, chunk, owned)` with part 'model' or 'data' (its
 * external data file), then `done()` gives { gzip: { model, data }, brotli } (null where not
 * measured, past `limit` bytes, or on an error). Brotli (with `brotli: true`) measures the model
 * only, and not at all once external data comes. `fed()`: the bytes brotli has taken so far.
 *
 * `sizeHint`: brotli's size hint, which a stream must be given to compress as one call does. At
 * quality 9 only whether it reaches 1 MB matters (brotli picks its hash table by it): any hint of
 * 1 MB or more gives the bytes of the real size's for a result of 1 MB or more (checked: the conv
 * stack's 39 MB result with hints of 20, 39, 80 and 151 MB; PP-OCR det's 1.7 MB with 1.7 and 4.7 MB).
 */
export function compressedSizes({ limit = 64e6, brotli = false, sizeHint = 0 } = {}) {
  const worker = new Worker(new URL(import.meta.url), { workerData: { role: ROLE, limit, brotli, sizeHint } });
  let fed = 0, ended = null, onFed = null;
  const result = new Promise((resolve) => {
    worker.on('message', (m) => {
      if (m.fed !== undefined) return onFed?.((fed = m.fed));
      resolve(m);
    });
    worker.on('error', () => resolve({ gzip: { model: null, data: null }, brotli: null }));
    worker.on('exit', () => resolve({ gzip: { model: null, data: null }, brotli: null }));
  });
  worker.unref();  // (after its listeners) it keeps the process alive only while done() is awaited
  return {
    // `owned`: the caller is done with `chunk`, and its buffer (when the chunk spans all of it) is
    // handed to the worker rather than copied (the chunks the engine gives onModelData: one
    // result's bytes copied once less).
    write(part, chunk, owned = false) {
      const whole = owned && chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength;
      worker.postMessage({ part, chunk }, whole ? [chunk.buffer] : []);
    },
    done() {
      if (!ended) {
        worker.ref();
        worker.postMessage({ end: true });
        ended = result;
      }
      return ended;
    },
    // Brotli's size is not wanted after all: it stops, and done() gives null for it.
    stopBrotli() {
      worker.postMessage({ stopBrotli: true });
    },
    fed: () => fed,
    // Called with the bytes brotli has taken, as they grow.
    onFed(f) {
      onFed = f;
    },
    terminate() {
      worker.terminate();
    },
  };
}
