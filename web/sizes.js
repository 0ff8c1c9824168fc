// Compressed sizes as the page measures them, in a worker: gzip by the browser (CompressionStream)
// and brotli by brotli-wasm, both read from Blobs in slices; and the brotli quality for a size.
import initBrotli, { CompressStream, BrotliStreamResultCode } from './vendor/brotli-wasm/pkg.web/brotli_wasm.js';

const SLICE = 4 << 20;
let brotliReady = null;

// The sizes table's brotli quality, by the original's size: 11 (what static hosts precompress
// with) runs at about 0.2 MB a second here; 9 is a few percent larger and many times faster, 5
// faster still for the largest models.
export function brotliQuality(bytes) {
  return bytes <= 4e6 ? 11 : bytes <= 256e6 ? 9 : 5;
}

// Target mode's brotli quality, one for every file of a search (a dozen or more, of up to the
// original's raw size: palette keeps it): 11 up to 8 MB originals, as the points' differences are
// what the plot shows, and quality 9 would not keep them (PP-OCR det: 9 makes the per-tensor int8
// file 9 % and the palette file 17 % larger than 11 does, the 8-bit default 3 %); above, as the
// sizes table, for time.
export function targetBrotliQuality(bytes) {
  return bytes <= 8e6 ? 11 : brotliQuality(bytes);
}

// gzip size of a Blob; `onBytes(n)` as its bytes go in.
export async function gzipSize(blob, onBytes = () => {}) {
  const count = new TransformStream({
    transform(chunk, controller) {
      onBytes(chunk.byteLength);
      controller.enqueue(chunk);
    },
  });
  const reader = blob.stream().pipeThrough(count).pipeThrough(new CompressionStream('gzip')).getReader();
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return size;
    size += value.byteLength;
  }
}

// Brotli size of a Blob, read in slices so that the whole file is never in brotli's memory;
// `onBytes(n)` as its bytes go in. At quality 9 and 11 each slice is fed in pieces of 256 kB, for
// progress on a slice that takes seconds (the output is the same however the input is cut at those
// qualities; at 5 it is not, and a slice is quick).
export async function brotliSize(blob, quality, onBytes = () => {}) {
  brotliReady ??= initBrotli();
  await brotliReady;
  const stream = new CompressStream(quality);
  const piece = quality >= 9 ? 1 << 18 : SLICE;
  let size = 0;
  for (let at = 0; at < blob.size; at += SLICE) {
    const slice = new Uint8Array(await blob.slice(at, at + SLICE).arrayBuffer());
    for (let from = 0; from < slice.byteLength; from += piece) {
      let input = slice.subarray(from, from + piece);
      for (;;) {
        const r = stream.compress(input, SLICE);
        size += r.buf.byteLength;
        const code = r.code;
        input = input.subarray(r.input_offset);
        r.free();
        if (code !== BrotliStreamResultCode.NeedsMoreOutput && input.byteLength === 0) break;
      }
      onBytes(Math.min(piece, slice.byteLength - from));
    }
  }
  for (;;) {
    const r = stream.compress(undefined, SLICE);
    size += r.buf.byteLength;
    const code = r.code;
    r.free();
    if (code === BrotliStreamResultCode.ResultSuccess) break;
  }
  stream.free();
  return size;
}
