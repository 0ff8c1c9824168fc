// Target mode's data-aware bias correction: the shift of whole output channels that rounding a
// weight causes, measured from the samples' channel means and moved into the layer's bias.
//
// A reader computes y_o = sum_j W_oj x_j (+ b_o). Rounding W to Q adds sum_j e_oj x_j with
// e = Q - W; its part sum_j e_oj mean(x_j) is the same at every position and time step, a shift
// of output channel o that later layers carry on. The engine's data-free correction makes each
// channel's errors sum to zero, which removes the shift only when every input channel has the same
// mean; on PP-OCR det the inputs of its neck's convolutions are mostly their channels' means, and
// those differ (BENCHMARKS.md). With samples, the means are known: this moves
//   b_o -= sum_j e_oj * mean(x_j)         (Conv: summed over the kernel's taps too)
// for every reader of a rounded tensor that has a bias to move (a Conv's B, added when it has
// none; a Gemm's C; the Add of a constant after a MatMul). The model is then shrunk again with
// the same bits: the weights get the same codes, the biases the corrected values. Near a
// convolution's padded border the shift is not the same, so the correction is an estimate there;
// target mode keeps it only where it lowers the measured error (target.js).
import { observeValues, readersOf } from './activation_probe.js';
import { DATA_TYPE, initializerValues, readGraph, withEdits } from './onnx_graph.js';

// Per-channel sums of a Conv's input (axis 1) or a MatMul's or Gemm's (the last axis), per sample.
class ChannelMeans {
  constructor(axis) {
    this.axis = axis;
    this.samples = [];  // [{ sums, count }]
  }

  add(tensor, sample) {
    if (tensor.type !== 'float32') return false;
    const dims = tensor.dims.map(Number), data = tensor.data;
    const axis = this.axis === 'last' ? dims.length - 1 : 1;
    if (dims.length <= axis) return false;
    const c = dims[axis], inner = dims.slice(axis + 1).reduce((a, b) => a * b, 1);
    if (this.samples.some((s) => s.sums.length !== c)) return false;
    const sums = new Float64Array(c);
    for (let i = 0; i < data.length; i++) sums[Math.floor(i / inner) % c] += data[i];
    this.samples[sample] = { sums, count: data.length / c };
    return true;
  }

  // The means over these samples (indices; all when not given).
  means(which) {
    const picked = [...(which ?? this.samples.keys())].map((k) => this.samples[k]).filter(Boolean);
    const count = picked.reduce((a, s) => a + s.count, 0);
    if (!picked.length || !count) return null;
    const out = new Float64Array(picked[0].sums.length);
    for (const s of picked) s.sums.forEach((v, c) => (out[c] += v));
    return out.map((v) => v / count);
  }
}

// How many nodes read each value (a bias read by more than its own layer is not moved).
function readCounts(graph) {
  const counts = new Map();
  for (const node of graph.nodes) for (const name of node.inputs) counts.set(name, (counts.get(name) ?? 0) + 1);
  return counts;
}

// Where a reader's shift can go: { tensor } (an initializer to move), or { add: name } (a Conv's or
// Gemm's bias input to add, as `name`), and the factor the shift is divided by; null when there is none.
function biasOf(reader, graph, counts, name) {
  const { node } = reader;
  const own = (name) => {
    const t = graph.initializers.get(name);
    return t && counts.get(name) === 1 && t.dataType === DATA_TYPE.float && !t.external && (t.data?.raw || t.data?.floats) ? t : null;
  };
  const outputs = node.opType === 'Conv' ? reader.weightDims[0] : null;
  if (node.opType === 'Conv') {
    if (node.inputs.length === 2) return { add: name, divide: 1, dims: [outputs] };
    const t = own(node.inputs[2]);
    return t && t.dims.reduce((a, b) => a * b, 1) === outputs ? { tensor: t, divide: 1 } : null;
  }
  if (node.opType === 'Gemm') {
    const beta = node.attributes.beta ?? 1, n = reader.outputs;
    if (node.inputs.length === 2) return beta ? { add: name, divide: beta, dims: [n] } : null;
    const t = own(node.inputs[2]);
    return t && beta !== 0 && t.dims.reduce((a, b) => a * b, 1) === n && t.dims.at(-1) === n ? { tensor: t, divide: beta } : null;
  }
  // MatMul: its only reader an Add of a constant with one value per output column.
  const after = graph.nodes.filter((n) => n.inputs.includes(reader.y));
  if (after.length !== 1 || after[0].opType !== 'Add' || counts.get(reader.y) !== 1) return null;
  const other = after[0].inputs.find((name) => name !== reader.y);
  const t = other && own(other);
  return t && t.dims.reduce((a, b) => a * b, 1) === reader.outputs && t.dims.at(-1) === reader.outputs ? { tensor: t, divide: 1 } : null;
}

// The shift of each output channel: sum over the reduction of e * mean(input channel); null when
// the reader's layout is not understood.
function shiftOf(reader, e, means) {
  const { node } = reader, dims = reader.weightDims;
  if (node.opType === 'Conv') {
    const groups = node.attributes.group ?? 1, [o, cg] = dims, taps = dims.slice(2).reduce((a, b) => a * b, 1);
    if (means.length !== cg * groups || o % groups) return null;
    const shift = new Float64Array(o);
    for (let i = 0; i < o; i++) {
      const g = Math.floor(i / (o / groups));
      let s = 0;
      for (let c = 0; c < cg; c++) {
        let sum = 0;
        for (let t = 0, at = (i * cg + c) * taps; t < taps; t++) sum += e[at + t];
        s += sum * means[g * cg + c];
      }
      shift[i] = s;
    }
    return shift;
  }
  if (dims.length !== 2) return null;
  // [K, N] (MatMul's right side, Gemm's B) or [N, K] (Gemm with transB).
  const transposed = node.opType === 'Gemm' && node.attributes.transB;
  const [k, n] = transposed ? [dims[1], dims[0]] : dims;
  if (means.length !== k) return null;
  const alpha = node.opType === 'Gemm' ? node.attributes.alpha ?? 1 : 1;
  const shift = new Float64Array(n);
  for (let r = 0; r < k; r++) for (let c = 0; c < n; c++) shift[c] += alpha * means[r] * e[transposed ? c * k + r : r * n + c];
  return shift;
}

/**
 * The calibration samples' channel means of the inputs of every Conv, MatMul (weight on the
 * right) and Gemm that reads one of `names` with a bias to move. `observe`: as makeEvaluator's.
 * Resolves with a corrector: `correct(expanded)` takes the shrunk model expanded to floats and
 * returns a copy of the original with the readers' biases moved (null when nothing moves).
 */
export async function biasCorrector(model, names, observe) {
  const graph = readGraph(model);
  const counts = readCounts(graph);
  const readers = [];
  for (const r of readersOf(graph, names)) {
    const weight = graph.initializers.get(r.tensor);
    if (!weight || (r.node.opType === 'MatMul' && r.side !== 1) || (r.node.opType === 'Gemm' && r.node.attributes.transA)) continue;
    const dims = weight.dims;
    const reader = { ...r, weightDims: dims, outputs: r.node.opType === 'Gemm' && r.node.attributes.transB ? dims[0] : dims.at(-1) };
    // A bias added gets a name of its own (a weight read by two layers without one gets two).
    const name = `${r.tensor}::bias_shift${readers.some((x) => x.tensor === r.tensor) ? `.${readers.length}` : ''}`;
    reader.bias = biasOf(reader, graph, counts, name);
    if (reader.bias) readers.push(reader);
  }
  if (!readers.length) return null;
  const sums = new Map(readers.map((r) => [r.x, new ChannelMeans(r.node.opType === 'Conv' ? 'channel' : 'last')]));
  const calibrate = await observeValues(model, graph, sums, observe);
  const originals = new Map();
  const valuesOf = (name) => originals.get(name) ?? originals.set(name, initializerValues(model, graph.initializers.get(name))).get(name);
  return {
    layers: readers.filter((r) => sums.has(r.x)).length,
    /** How many calibration samples the means come from. */
    samples: calibrate,
    /**
     * `from`: the calibration samples whose means to use (indices; all when not given); `base`: the
     * model whose biases are moved (the original, or a copy of it with other weight values).
     */
    correct(expanded, from, base = model) {
      const after = readGraph(expanded);
      const edits = { values: [], inputs: [], initializers: [] };
      for (const r of readers) {
        const means = sums.get(r.x)?.means(from);
        const w = valuesOf(r.tensor), q = after.initializers.get(r.tensor) && initializerValues(expanded, after.initializers.get(r.tensor));
        if (!means || !w || !q || q.length !== w.length) continue;
        const e = q.map((v, i) => v - w[i]);
        const shift = shiftOf(r, e, means);
        if (!shift) continue;
        const { bias } = r;
        if (bias.tensor) {
          const b = valuesOf(bias.tensor.name);
          if (!b) continue;
          edits.values.push({ tensor: bias.tensor, values: b.map((v, i) => v - shift[i] / bias.divide) });
        } else {
          edits.inputs.push({ node: r.node, name: bias.add });
          edits.initializers.push({ name: bias.add, dims: bias.dims, values: shift.map((s) => -s / bias.divide) });
        }
      }
      return edits.values.length + edits.inputs.length ? withEdits(base, graph, edits) : null;
    },
  };
}
