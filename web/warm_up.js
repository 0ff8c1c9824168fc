// A small model made here, for the engine worker to shrink while the page waits for a file: V8
// runs a new WebAssembly module's functions as quickly made baseline code first and replaces the
// hot ones with optimized code in the background. Shrinking this model (3.6 MB of conv weights,
// about 70 ms in the default mode and in palette) lets that happen before the user's file comes:
// measured in Chromium on the 151.5 MB conv stack of bench/make_shapes.py, the page's engine time
// was 413-552 ms after a warm-up against 540-700 ms without (BENCHMARKS.md, "the page's worker,
// warmed"). Nothing is fetched.

// Conv weights shaped as in a real network (3x3 and 1x1 kernels, hundreds of channels).
const WEIGHTS = [[128, 64, 3, 3], [128, 128, 3, 3], [256, 128, 1, 1], [256, 256, 3, 3], [256, 256, 1, 1]];

// Protocol buffer wire format: what an ONNX file is made of.
const utf8 = new TextEncoder();
function varint(n) {
  const out = [];
  for (; n >= 0x80; n = Math.floor(n / 128)) out.push((n % 128) | 0x80);
  out.push(n);
  return out;
}
const join = (parts) => {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) out.set(p, at), (at += p.length);
  return out;
};
const int = (field, n) => Uint8Array.from([...varint(field * 8), ...varint(n)]);
const bytes = (field, b) => join([Uint8Array.from([...varint(field * 8 + 2), ...varint(b.length)]), b]);
const text = (field, s) => bytes(field, utf8.encode(s));

// Weights of about the spread of trained ones (a triangular distribution), the same every time.
function values(count, scale) {
  const out = new Float32Array(count);
  let s = 0x9e3779b9;
  const next = () => ((s ^= s << 13, s ^= s >>> 17, s ^= s << 5) >>> 0) / 4294967296;
  for (let i = 0; i < count; i++) out[i] = (next() + next() - 1) * scale;
  return new Uint8Array(out.buffer);
}

const tensorType = (dims) => bytes(1, join([int(1, 1), bytes(2, join(dims.map((d) => bytes(1, int(1, d)))))]));
const valueInfo = (name, dims) => join([text(1, name), bytes(2, tensorType(dims))]);

// ONNX bytes: x -> Conv -> Conv -> ... with the weights above (opset 13).
export function warmUpModel() {
  const parts = [];
  let input = 'x';
  WEIGHTS.forEach((dims, i) => {
    const weight = `w${i}`, output = i + 1 < WEIGHTS.length ? `y${i}` : 'y';
    const count = dims.reduce((a, b) => a * b, 1);
    const fanIn = count / dims[0];
    parts.push(bytes(1, join([text(1, input), text(1, weight), text(2, output), text(3, `conv${i}`), text(4, 'Conv')])));
    parts.push(bytes(5, join([...dims.map((d) => int(1, d)), int(2, 1), text(8, weight), bytes(9, values(count, 1 / Math.sqrt(fanIn)))])));
    input = output;
  });
  parts.push(text(2, 'warm-up'));
  parts.push(bytes(11, valueInfo('x', [1, WEIGHTS[0][1], 16, 16])));
  parts.push(bytes(12, valueInfo('y', [1, WEIGHTS.at(-1)[0], 10, 10])));
  return join([int(1, 8), bytes(8, join([text(1, ''), int(2, 13)])), bytes(7, join(parts))]);
}
