// "Check accuracy": runs the original and the shrunk model in onnxruntime-web (served from this
// site) on the same seeded random inputs of the declared shapes, and compares the outputs.
import * as ort from './vendor/ort/ort.wasm.min.mjs';

ort.env.wasm.wasmPaths = new URL('./vendor/ort/', import.meta.url).href;
ort.env.wasm.numThreads = 1;
ort.env.logLevel = 'error';

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

// Seeded random values of each input's shape, or its fixed value when one is given.
function feeds(inputs) {
  const r = random(0x2545f491);
  const out = {};
  for (const input of inputs) {
    const shape = input.shape;
    const n = shape.reduce((a, b) => a * b, 1);
    let data;
    const v = input.value;
    if (v !== undefined) {
      switch (input.dtype) {
        case 'float32': data = new Float32Array(n).fill(v); break;
        case 'float64': data = new Float64Array(n).fill(v); break;
        case 'int64': data = new BigInt64Array(n).fill(BigInt(Math.round(v))); break;
        case 'int32': data = new Int32Array(n).fill(Math.round(v)); break;
        case 'bool': data = new Uint8Array(n).fill(v ? 1 : 0); break;
        default: throw new Error(`cannot make values of type ${input.dtype} for input '${input.name}'`);
      }
      out[input.name] = new ort.Tensor(input.dtype, data, shape);
      continue;
    }
    switch (input.dtype) {
      case 'float32': data = Float32Array.from({ length: n }, r.normal); break;
      case 'float64': data = Float64Array.from({ length: n }, r.normal); break;
      case 'int64': data = BigInt64Array.from({ length: n }, () => BigInt(Math.floor(r.uniform() * 8))); break;
      case 'int32': data = Int32Array.from({ length: n }, () => Math.floor(r.uniform() * 8)); break;
      case 'bool': data = Uint8Array.from({ length: n }, () => (r.uniform() < 0.5 ? 1 : 0)); break;
      default: throw new Error(`cannot make random values of type ${input.dtype} for input '${input.name}'`);
    }
    out[input.name] = new ort.Tensor(input.dtype, data, shape);
  }
  return out;
}

async function session(model, external) {
  const externalData = [];
  for (const [path, data] of Object.entries(external)) {
    externalData.push({ path, data: data instanceof Blob ? new Uint8Array(await data.arrayBuffer()) : data });
  }
  return ort.InferenceSession.create(model, externalData.length ? { externalData } : {});
}

self.onmessage = async (event) => {
  const { id, original, originalExternal, shrunk, shrunkExternal, inputs } = event.data;
  try {
    const bytes = new Uint8Array(await original.arrayBuffer());
    const external = originalExternal;
    const f = feeds(inputs);
    let a, b;
    try {
      a = await (await session(bytes, external)).run(f);
    } catch (e) {
      throw new Error(`the original model does not run on these inputs (set their shapes and values above): ${e.message}`);
    }
    b = await (await session(new Uint8Array(await shrunk.arrayBuffer()), shrunkExternal)).run(f);
    const outputs = [];
    for (const name of Object.keys(a)) {
      const x = Array.from(a[name].data, Number), y = Array.from(b[name].data, Number);
      let maxAbs = 0, sumAbs = 0, dot = 0, nx = 0, ny = 0;
      for (let i = 0; i < x.length; i++) {
        const d = Math.abs(x[i] - y[i]);
        maxAbs = Math.max(maxAbs, d);
        sumAbs += d;
        dot += x[i] * y[i];
        nx += x[i] * x[i];
        ny += y[i] * y[i];
      }
      outputs.push({ name, maxAbs, meanAbs: x.length ? sumAbs / x.length : 0, cosine: nx && ny ? dot / Math.sqrt(nx * ny) : nx === ny ? 1 : 0 });
    }
    self.postMessage({ id, outputs });
  } catch (e) {
    self.postMessage({ id, error: e.message || String(e) });
  }
};
