// The parity check users of the original tool run by hand, shared by the CLI's --verify
// (onnxruntime-node) and the page's "check accuracy" (onnxruntime-web): the same seeded random
// inputs for both models, and how far each output moved.

// mulberry32: small, seedable, and the same sequence in every JS engine.
function random(seed) {
  let state = seed | 0;
  const uniform = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { uniform, normal: () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform()) };
}

// Typed arrays for the input types the checks can fill.
const ARRAYS = { float32: Float32Array, float64: Float64Array, int64: BigInt64Array, int32: Int32Array, bool: Uint8Array };

// Tensors for `inputs` ({ name, dtype, shape, value?, bytes? }): `bytes` (raw little-endian values
// of the input's type, e.g. a file) gives an input its real data, `value` fills it with one number,
// otherwise floats are standard normal and integers small (0..7), from a fixed seed.
// `Tensor` is onnxruntime's Tensor class (node or web).
export function seededFeeds(Tensor, inputs) {
  const r = random(0x2545f491);
  const feeds = {};
  for (const { name, dtype, shape, value, bytes } of inputs) {
    const n = shape.reduce((a, b) => a * b, 1);
    if (bytes) {
      const Typed = ARRAYS[dtype];
      if (!Typed) throw new Error(`cannot read values of type ${dtype} for input '${name}'`);
      const expected = n * Typed.BYTES_PER_ELEMENT;
      if (bytes.byteLength !== expected) {
        throw new Error(`input '${name}' of shape [${shape.join(', ')}] and type ${dtype} takes ${expected} bytes, ` +
                        `the data given has ${bytes.byteLength}`);
      }
      const copy = new Uint8Array(expected);  // aligned for the typed array
      copy.set(bytes);
      feeds[name] = new Tensor(dtype, new Typed(copy.buffer), shape);
      continue;
    }
    const fill = (make) => Array.from({ length: n }, make);
    let data;
    switch (dtype) {
      case 'float32': data = Float32Array.from(value !== undefined ? fill(() => value) : fill(r.normal)); break;
      case 'float64': data = Float64Array.from(value !== undefined ? fill(() => value) : fill(r.normal)); break;
      case 'int64': data = BigInt64Array.from(fill(() => BigInt(value !== undefined ? Math.round(value) : Math.floor(r.uniform() * 8)))); break;
      case 'int32': data = Int32Array.from(fill(() => (value !== undefined ? Math.round(value) : Math.floor(r.uniform() * 8)))); break;
      case 'bool': data = Uint8Array.from(fill(() => ((value !== undefined ? value : r.uniform() < 0.5) ? 1 : 0))); break;
      default: throw new Error(`cannot make values of type ${dtype} for input '${name}'`);
    }
    feeds[name] = new Tensor(dtype, data, shape);
  }
  return feeds;
}

// Per output of `a` (the original's results by name): max and mean absolute difference from `b`'s,
// the cosine of the two, and the relative L2 error |b - a| / |a|.
export function compareOutputs(a, b) {
  return Object.keys(a).map((name) => {
    const x = Array.from(a[name].data, Number), y = Array.from(b[name].data, Number);
    let maxAbs = 0, sumAbs = 0, sumSq = 0, dot = 0, nx = 0, ny = 0;
    for (let i = 0; i < x.length; i++) {
      const d = Math.abs(x[i] - y[i]);
      maxAbs = Math.max(maxAbs, d);
      sumAbs += d;
      sumSq += d * d;
      dot += x[i] * y[i];
      nx += x[i] * x[i];
      ny += y[i] * y[i];
    }
    return { name, maxAbs, meanAbs: x.length ? sumAbs / x.length : 0, cosine: nx && ny ? dot / Math.sqrt(nx * ny) : nx === ny ? 1 : 0,
             relL2: nx ? Math.sqrt(sumSq / nx) : sumSq ? Infinity : 0 };
  });
}
