// Target mode's activation probe: each large tensor's sensitivity from ONE run of the original model
// on the calibration samples, instead of one model built and run per tensor (target.js's
// sensitivities chooses which).
//
// The graph gets the inputs and outputs of every Conv, MatMul and Gemm that reads a large tensor
// as its weight as extra outputs (onnx_graph.js), and the run sums their energies. Rounding noise
// of relative power `noise` (10^(-SQNR/10), each output channel's noise in proportion to its
// energy, independent from value to value) moves a reader's output Y = X * W by
//   E|dY|^2 = noise * (P_out / P_in) * sum over groups g of |W_g|^2 / K_g * |X_g|^2
// where K_g is the number of weights each output value sums over per spatial tap (the input
// channels of the group; for MatMul and Gemm the reduction axis), |X_g|^2 the energy of the input
// channels the group reads (per input channel: a depthwise convolution's channels differ) and
// P_out / P_in the ratio of output to input positions (a stride). The gain is E|dY|^2 / |Y|^2 per
// unit noise: the reader's squared relative output error, summed over the tensor's readers. It
// counts each layer's own error and not how the layers after it carry that error to the model's
// outputs (the one-at-a-time probe measures that): the descent ranks tensors by it, and the
// bisection on measured points corrects the overall scale. A tensor read some other way (a Gather,
// through a Transpose, ...) gets the median gain of the others.
import { DATA_TYPE, float16, initializerValues, readGraph, withOutputs } from './onnx_graph.js';

// The readers whose weight input is understood, and which input that is (MatMul: either side).
const WEIGHT_INPUTS = { Conv: [1], MatMul: [0, 1], Gemm: [1] };

// Each large tensor's readers: { tensor, node, side (the weight's input index), x, y }.
export function readersOf(graph, names) {
  const wanted = new Set(names);
  const readers = [];
  for (const node of graph.nodes) {
    for (const side of WEIGHT_INPUTS[node.opType] ?? []) {
      const tensor = node.inputs[side];
      if (!wanted.has(tensor) || !node.outputs[0]) continue;
      const x = node.inputs[node.opType === 'MatMul' ? 1 - side : 0];
      if (!x || graph.initializers.has(x)) continue;
      readers.push({ tensor, node, side, x, y: node.outputs[0] });
    }
  }
  return readers;
}

// An output tensor's values as numbers, or null for a type that is not float.
function valuesOf(tensor) {
  const { type, data } = tensor;
  if (type === 'float32' || type === 'float64') return data;
  if (type === 'float16') return data instanceof Uint16Array ? { length: data.length, get: (i) => float16(data[i]) } : data;
  return null;
}

// Sums of squares over the calibration samples: the whole value's, and per channel of axis 1
// (`channels`: for a Conv's input), with the element counts.
class Energy {
  constructor(channels) {
    this.total = 0;
    this.elements = 0;
    this.perChannel = channels ? [] : null;
  }

  add(tensor) {
    const v = valuesOf(tensor);
    if (!v) return false;
    const get = v.get ?? ((i) => v[i]);
    const n = v.length;
    const dims = tensor.dims;
    const c = this.perChannel ? (dims.length >= 2 ? Number(dims[1]) : 1) : 1;
    const inner = n / ((dims.length >= 1 ? Number(dims[0]) : 1) * c) || 1;
    let total = 0;
    for (let i = 0; i < n; i++) {
      const x = get(i);
      const e = x * x;
      total += e;
      if (this.perChannel) {
        const ch = Math.floor(i / inner) % c;
        this.perChannel[ch] = (this.perChannel[ch] ?? 0) + e;
      }
    }
    this.total += total;
    this.elements += n;
    this.channelCount = c;
    return true;
  }
}

// Energies of each output channel of a weight (axis `axis`), as `groups` sums of equal runs.
function groupEnergies(values, dims, axis, groups) {
  const channels = dims[axis];
  const inner = dims.slice(axis + 1).reduce((a, b) => a * b, 1);
  const out = new Float64Array(groups);
  for (let i = 0; i < values.length; i++) {
    const ch = Math.floor(i / inner) % channels;
    out[Math.floor((ch * groups) / channels)] += values[i] * values[i];
  }
  return out;
}

// One reader's squared relative output error per unit weight noise (see the header), or null.
function readerGain(reader, weight, values, energy) {
  const x = energy.get(reader.x), y = energy.get(reader.y);
  if (!x?.elements || !y?.elements || !(y.total > 0)) return null;
  const dims = weight.dims, count = values.length;
  const { opType, attributes } = reader.node;
  if (opType === 'Conv') {
    const groups = attributes.group ?? 1;
    if (dims.length < 3 || !x.perChannel || x.channelCount !== dims[1] * groups || dims[0] % groups) return null;
    const w = groupEnergies(values, dims, 0, groups);
    const perGroup = dims[1];
    let e = 0;
    for (let g = 0; g < groups; g++) {
      let xg = 0;
      for (let c = g * perGroup; c < (g + 1) * perGroup; c++) xg += x.perChannel[c] ?? 0;
      e += (w[g] / perGroup) * xg;
    }
    const positions = (y.elements / dims[0]) / (x.elements / x.channelCount);
    return (e * positions) / y.total;
  }
  const w = values.reduce((s, v) => s + v * v, 0);
  let k, scale = 1;
  if (opType === 'MatMul') {
    if (dims.length < 2) return null;
    k = count / dims[reader.side === 1 ? dims.length - 1 : dims.length - 2];
  } else {  // Gemm: the weight is B, [K, N] or with transB [N, K]
    if (dims.length !== 2) return null;
    k = attributes.transB ? dims[1] : dims[0];
    scale = (attributes.alpha ?? 1) ** 2;
  }
  return (scale * w * x.total) / (k * y.total);
}

/**
 * Runs `model` on the calibration samples (`observe`: target.js's makeEvaluator's) with the values
 * named by `accumulators` (Map name -> { add(tensor, sample, samples) -> false when it cannot take
 * it }) as extra outputs (or as they are, for the graph's own inputs and outputs), and gives each
 * its value of every sample. An accumulator that cannot take a value is dropped from the map.
 * `elemType(name)`: the extra output's TensorProto type (float); `onSample(done, samples)`.
 * Resolves with the number of calibration samples.
 */
export async function observeValues(model, graph, accumulators, observe, { elemType = () => DATA_TYPE.float, onSample = () => {} } = {}) {
  const present = new Set([...graph.inputs, ...graph.outputs]);
  const extra = [...accumulators.keys()].filter((name) => !present.has(name)).map((name) => ({ name, elemType: elemType(name) }));
  let sample = 0, count = 0;
  await observe(withOutputs(model, graph, extra), (feeds, outputs, samples) => {
    for (const [name, a] of accumulators) {
      const t = outputs[name] ?? feeds[name];
      if (!t || !a.add(t, sample, samples)) accumulators.delete(name);
    }
    count = samples;
    onSample(++sample, samples);
  });
  return count;
}

/**
 * The gain of each tensor in `names` (its readers' squared relative output error per unit of its
 * noise power) from one run of `model` with its readers' values as extra outputs.
 * `observe(model, onSample(feeds, outputs))`: runs a model on the calibration samples (target.js's
 * makeEvaluator); `progress(fraction, what)`.
 */
export async function activationGains(model, names, observe, progress = () => {}) {
  const graph = readGraph(model);
  const readers = readersOf(graph, names);
  const energy = new Map();
  for (const r of readers) {
    energy.set(r.x, energy.get(r.x) ?? new Energy(r.node.opType === 'Conv'));
    if (r.node.opType === 'Conv' && !energy.get(r.x).perChannel) energy.set(r.x, new Energy(true));
    if (!energy.has(r.y)) energy.set(r.y, new Energy(false));
  }
  const type = (name) => graph.initializers.get(readers.find((r) => r.x === name || r.y === name).tensor)?.dataType || DATA_TYPE.float;
  progress(0, 'measuring how much each tensor moves the outputs');
  await observeValues(model, graph, energy, observe, {
    elemType: type, onSample: (done, samples) => progress(done / samples, 'measuring how much each tensor moves the outputs'),
  });
  const gains = names.map(() => null);
  for (const r of readers) {
    const weight = graph.initializers.get(r.tensor);
    const values = weight && initializerValues(model, weight);
    const g = values && readerGain(r, weight, values, energy);
    if (g === null || !Number.isFinite(g)) continue;
    const i = names.indexOf(r.tensor);
    gains[i] = (gains[i] ?? 0) + g;
  }
  const found = gains.filter((g) => g !== null).sort((a, b) => a - b);
  const median = found.length ? found[Math.floor(found.length / 2)] : 1;
  return gains.map((g) => g ?? median);
}
