// Target mode's data-aware rounding for plain per-channel codes: each weight rounded with the
// layer's inputs in view (GPTQ, Frantar et al., 2022), not to its nearest code.
//
// A layer computes y_n = sum_k x_k W_kn. With the calibration samples' H = sum over positions of
// x x^T (K x K), rounding one input row k of W leaves an error that the rows after it can partly
// cancel: the error, divided by the k-th diagonal of the upper Cholesky factor U of H^-1 (damped
// by a share of H's mean diagonal: GPTQ_DAMPINGS), times U's row k, is taken off the rows not yet
// rounded. Measured on the char transformer (its MatMul weights, every one at 6 bits, damped by
// 0.01): the output error falls from 7.6e-3 to 3.0e-3 on the calibration samples and from 7.4e-3
// to 3.4e-3 on the held-out ones.
//
// The codes stay on the grid the engine gives plain per-channel codes: each output channel's
// minimum to maximum in 2^bits - 1 equal steps. The rounded values are written into a copy of the
// model, and shrinking that copy with `scheme: 'channel'` and the same bits gives back exactly
// these codes. For that, every output channel keeps its two extremes at the first and last code
// (its original minimum and maximum elements are set there when the rounding moved them).
//
// Layers: MatMul with the weight on the right ([K, N]), Gemm ([K, N], or [N, K] with transB), and
// Conv with 1x1 kernels and one group ([N, K, 1, 1]), up to GPTQ_MAX_INPUTS inputs and
// GPTQ_MAX_WORK multiply-adds; other layers keep the nearest codes.
import { observeValues, readersOf } from './activation_probe.js';
import { DATA_TYPE, initializerValues, readGraph, withEdits } from './onnx_graph.js';

// The largest depth rounded this way (the engine's grid above it is not assumed).
export const GPTQ_MAX_BITS = 8;
// The largest layers rounded this way: K inputs (H is K x K, inverted in O(K^3)) and K * K * N
// multiply-adds per rounding. Past either, a layer keeps the nearest codes, so that the work stays
// at seconds (a [4096, 4096] weight would take minutes and 128 MB per H).
export const GPTQ_MAX_INPUTS = 1024;
export const GPTQ_MAX_WORK = 2 ** 28;
// H's diagonal is raised by one of these shares of its mean before inversion; target mode takes the
// one whose rounding errs least on calibration samples it did not see (target.js: checkRounding).
// More damping fits the samples less closely: on the char transformer (8 calibration sequences),
// the check's error on the unseen half was 7.89e-3 at 0.01 (GPTQ's usual share), 7.77e-3 at 0.03,
// 7.82e-3 at 0.1, 7.87e-3 at 0.3 and 8.23e-3 at 1 (every tensor at 6 bits; 9.99e-3 nearest).
export const GPTQ_DAMPINGS = [0.01, 0.03, 0.1];

// A reader's weight as a K x N matrix: where element (k, n) lies, and which axis of its input holds k.
function layoutOf(reader, dims) {
  const { opType, attributes } = reader.node;
  if (opType === 'MatMul' && reader.side === 1 && dims.length === 2) return { K: dims[0], N: dims[1], at: (k, n) => k * dims[1] + n, axis: 'last' };
  if (opType === 'Gemm' && !attributes.transA && dims.length === 2) {
    return attributes.transB ? { K: dims[1], N: dims[0], at: (k, n) => n * dims[1] + k, axis: 'last' }
                             : { K: dims[0], N: dims[1], at: (k, n) => k * dims[1] + n, axis: 'last' };
  }
  if (opType === 'Conv' && (attributes.group ?? 1) === 1 && dims.length === 4 && dims[2] === 1 && dims[3] === 1) {
    return { K: dims[1], N: dims[0], at: (k, n) => n * dims[1] + k, axis: 'channel' };
  }
  return null;
}

// Adds one input value's x x^T into h (K x K): rows along the last axis, or a Conv's channels (axis 1).
function addProducts(h, K, tensor, axis) {
  if (tensor.type !== 'float32') return false;
  const dims = tensor.dims.map(Number), data = tensor.data;
  const x = new Float64Array(K);
  if (axis === 'last') {
    if (dims.at(-1) !== K) return false;
    for (let r = 0; r < data.length; r += K) {
      for (let i = 0; i < K; i++) x[i] = data[r + i];
      outer(h, x, K);
    }
    return true;
  }
  if (dims.length < 2 || dims[1] !== K) return false;
  const inner = dims.slice(2).reduce((a, b) => a * b, 1);
  for (let b = 0; b < dims[0]; b++) {
    for (let p = 0; p < inner; p++) {
      for (let i = 0; i < K; i++) x[i] = data[(b * K + i) * inner + p];
      outer(h, x, K);
    }
  }
  return true;
}

function outer(h, x, K) {
  for (let i = 0; i < K; i++) {
    const xi = x[i];
    if (!xi) continue;
    for (let j = 0; j < K; j++) h[i * K + j] += xi * x[j];
  }
}

// The upper Cholesky factor U of (H + damping)^-1 (H^-1 = U^T U), or null when H is not positive.
function inverseFactor(h, K, damping) {
  const a = Float64Array.from(h);
  let mean = 0;
  for (let i = 0; i < K; i++) mean += a[i * K + i];
  mean = mean / K || 1;
  for (let i = 0; i < K; i++) a[i * K + i] += damping * mean;
  const l = cholesky(a, K);
  if (!l) return null;
  // H^-1 = L^-T L^-1, from L^-1 (lower), kept transposed (t[j * K + i] = L^-1[i][j]) so that the
  // sums below run along contiguous memory; the same products in the same order.
  const t = new Float64Array(K * K);
  for (let i = 0; i < K; i++) {
    t[i * K + i] = 1 / l[i * K + i];
    for (let j = 0; j < i; j++) {
      let s = 0;
      for (let k = j; k < i; k++) s -= l[i * K + k] * t[j * K + k];
      t[j * K + i] = s / l[i * K + i];
    }
  }
  const inv = new Float64Array(K * K);
  for (let i = 0; i < K; i++) {
    for (let j = i; j < K; j++) {
      let s = 0;
      for (let k = j; k < K; k++) s += t[i * K + k] * t[j * K + k];
      inv[i * K + j] = inv[j * K + i] = s;
    }
  }
  // Upper factor: the transpose of the lower Cholesky factor of H^-1 taken from the far end, built
  // as its transpose (c[j * K + i] = U[i][j]: contiguous sums, the same order) and turned at the end.
  const c = new Float64Array(K * K);
  for (let i = 0; i < K; i++) {
    let s = inv[i * K + i];
    for (let k = 0; k < i; k++) s -= c[i * K + k] ** 2;
    if (!(s > 0)) return null;
    c[i * K + i] = Math.sqrt(s);
    for (let j = i + 1; j < K; j++) {
      let t = inv[i * K + j];
      for (let k = 0; k < i; k++) t -= c[i * K + k] * c[j * K + k];
      c[j * K + i] = t / c[i * K + i];
    }
  }
  const u = new Float64Array(K * K);
  for (let i = 0; i < K; i++) for (let j = i; j < K; j++) u[i * K + j] = c[j * K + i];
  return u;
}

function cholesky(a, K) {
  const l = new Float64Array(K * K);
  for (let i = 0; i < K; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i * K + j];
      for (let k = 0; k < j; k++) s -= l[i * K + k] * l[j * K + k];
      if (i === j) {
        if (!(s > 0)) return null;
        l[i * K + i] = Math.sqrt(s);
      } else {
        l[i * K + j] = s / l[j * K + j];
      }
    }
  }
  return l;
}

// The weight rounded to `bits` per output channel, the error carried to the rows not yet rounded.
export function roundWithInputs(w, { K, N, at }, bits, u) {
  const levels = 2 ** bits - 1;
  const lo = new Float64Array(N), step = new Float64Array(N), amin = new Int32Array(N), amax = new Int32Array(N);
  for (let n = 0; n < N; n++) {
    for (let k = 1; k < K; k++) {
      if (w[at(k, n)] < w[at(amin[n], n)]) amin[n] = k;
      if (w[at(k, n)] > w[at(amax[n], n)]) amax[n] = k;
    }
    lo[n] = w[at(amin[n], n)];
    step[n] = (w[at(amax[n], n)] - lo[n]) / levels;
  }
  // The weight as rows of K (input) by N (output), whatever its layout, so that carrying a row's
  // error to the rows below runs along contiguous memory; each value gets the same updates in the
  // same order as walking the layout itself.
  const rest = new Float64Array(w.length), out = new Float32Array(w.length);
  for (let k = 0; k < K; k++) for (let n = 0; n < N; n++) rest[k * N + n] = w[at(k, n)];
  const codes = new Int32Array(w.length), e = new Float64Array(N);
  for (let k = 0; k < K; k++) {
    const row = k * N, diagonal = u[k * K + k];
    for (let n = 0; n < N; n++) {
      if (!(step[n] > 0)) {
        out[at(k, n)] = w[at(k, n)];
        e[n] = 0;
        continue;
      }
      const q = Math.min(levels, Math.max(0, Math.round((rest[row + n] - lo[n]) / step[n])));
      codes[at(k, n)] = q;
      e[n] = (rest[row + n] - (lo[n] + q * step[n])) / diagonal;
    }
    for (let j = k + 1; j < K; j++) {
      const f = u[k * K + j], below = j * N;
      for (let n = 0; n < N; n++) rest[below + n] -= e[n] * f;
    }
  }
  for (let n = 0; n < N; n++) {
    if (!(step[n] > 0)) continue;
    let first = false, last = false;
    for (let k = 0; k < K; k++) (codes[at(k, n)] === 0 && (first = true)), (codes[at(k, n)] === levels && (last = true));
    if (!first) codes[at(amin[n], n)] = 0;
    if (!last) codes[at(amax[n], n)] = levels;
    for (let k = 0; k < K; k++) out[at(k, n)] = lo[n] + codes[at(k, n)] * step[n];
  }
  return out;
}

/**
 * The calibration samples' input products of every layer above that reads one of `names` (one run
 * of `model` with their inputs as extra outputs; `observe` as makeEvaluator's). Resolves with a
 * rounder, or null when no such layer reads them: `layers`, and `model(tensorBits)`: a copy of
 * `model` with those layers' weights at their bits (up to GPTQ_MAX_BITS) rounded as above.
 */
export async function gptqRounder(model, names, observe) {
  const graph = readGraph(model);
  const layers = [];
  for (const r of readersOf(graph, names)) {
    const t = graph.initializers.get(r.tensor);
    const layout = t && t.dataType === DATA_TYPE.float && !t.external && layoutOf(r, t.dims);
    if (layout && (layout.K > GPTQ_MAX_INPUTS || layout.K * layout.K * layout.N > GPTQ_MAX_WORK)) continue;
    // One reader per weight: a weight read by two layers has two sets of inputs.
    if (layout && !layers.some((l) => l.tensor === r.tensor) && readersOf(graph, [r.tensor]).length === 1) layers.push({ ...r, t, layout });
  }
  if (!layers.length) return null;
  // The products of each half of the calibration samples apart (the first ceil(n / 2), the rest),
  // so that the rounding can be checked on samples it did not come from (target.js).
  const products = new Map(layers.map((l) => {
    const p = { halves: [0, 1].map(() => new Float64Array(l.layout.K ** 2)), K: l.layout.K, axis: l.layout.axis };
    p.add = (t, sample, samples) => addProducts(p.halves[sample < Math.ceil(samples / 2) ? 0 : 1], p.K, t, p.axis);
    return [l.x, p];
  }));
  const calibrate = await observeValues(model, graph, products, observe);
  const usable = layers.filter((l) => products.has(l.x));
  const factors = new Map(), rounded = new Map();
  const productsOf = (x, from) => {
    const { halves } = products.get(x);
    return from === undefined ? halves[0].map((v, i) => v + halves[1][i]) : halves[from];  // (inverseFactor copies it)
  };
  const factorOf = (x, from, damping) => {
    const key = `${x}\n${from}\n${damping}`;
    if (!factors.has(key)) factors.set(key, inverseFactor(productsOf(x, from), products.get(x).K, damping));
    return factors.get(key);
  };
  const valuesAt = (l, bits, from, damping) => {
    const key = `${l.tensor}\n${bits}\n${from}\n${damping}`;
    if (!rounded.has(key)) {
      const u = factorOf(l.x, from, damping);
      l.values ??= initializerValues(model, l.t);  // read from the model once per layer, not per depth and half
      rounded.set(key, u ? roundWithInputs(l.values, l.layout, bits, u) : null);
    }
    return rounded.get(key);
  };
  return {
    layers: usable.length,
    /** How many calibration samples the products come from (two halves when two or more). */
    samples: calibrate,
    /** The share of H's mean diagonal added to it (one of GPTQ_DAMPINGS; target.js settles on one). */
    damping: GPTQ_DAMPINGS[0],
    /**
     * Keeps `damping` from now on and drops the roundings and factors made so far (the check's, of
     * the halves at each damping: a weight's copy each), which the search with all samples does not use.
     */
    settle(damping) {
      this.damping = damping;
      factors.clear();
      rounded.clear();
    },
    /**
     * `from`: 0 or 1, the products of that half of the calibration samples only (all when not
     * given); `damping`: this rounder's when not given.
     */
    model(tensorBits, from, damping = this.damping) {
      const values = [];
      for (const l of usable) {
        const bits = tensorBits[l.tensor];
        const v = bits && bits <= GPTQ_MAX_BITS ? valuesAt(l, bits, from, damping) : null;
        if (v) values.push({ tensor: l.t, values: v });
      }
      return values.length ? withEdits(model, graph, { values }) : model;
    },
  };
}
