// The parity check users of the original tool run by hand, shared by the CLI's --verify
// (onnxruntime-node) and the page's "check accuracy" (onnxruntime-web): the same inputs for both
// models (the user's data, sample by sample, or seeded random values), and how far each output moved.

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

// A declared input shape made concrete: open (symbolic or unknown) dimensions become `open`, and
// `guessed` says whether there were any.
export function declaredShape(declared, open = 1) {
  const known = (d) => typeof d === 'number' && d >= 0;
  return { shape: (declared ?? []).map((d) => (known(d) ? d : open)), guessed: !(declared ?? []).every(known) };
}

// The dimensions a check would have to guess: every open (symbolic or unknown) dimension of the
// model's inputs that the user gave no shape or data for. `inputs`: the report's model inputs
// ({ name, shape }, where the report holds a symbolic dimension as its name and an unknown one as
// null; a separate `symbols` list is read too); `given`: the names of the inputs the user set.
// Each entry names the input, the axis and its symbol ('' when it has none).
export function guessedDimensions(inputs, given = []) {
  const set = new Set(given);
  const out = [];
  for (const input of inputs ?? []) {
    if (set.has(input.name)) continue;
    (input.shape ?? []).forEach((d, axis) => {
      if (typeof d === 'number' && d >= 0) return;
      const symbol = typeof d === 'string' && d ? d : input.symbols?.[axis] ?? '';
      out.push({ input: input.name, axis, symbol });
    });
  }
  return out;
}

// What makes a check's numbers say little, from OutputComparison's results: an output that is
// constant in the original (its values, more than one, all the same on every sample), or identical in both models on
// every sample (a check on guessed 1x1 inputs can leave the weights out of it entirely). One
// sentence per output, or none.
export function suspicions(results, { unchanged = false } = {}) {
  const out = [];
  for (const r of results) {
    if (r.nonFinite) out.push(`output '${r.name}' holds NaN or infinity in the original model on these inputs: its errors cannot be measured against it (are the inputs the values the model takes?)`);
    else if (r.constant) out.push(`output '${r.name}' has the same value everywhere in the original model: the check says nothing about it`);
    else if (r.identical) {
      out.push(`output '${r.name}' is identical in both models on every sample: ${unchanged ? 'nothing was shrunk, so the check compared the model with itself'
                                                                                            : 'the inputs may not exercise the changed weights'}`);
    }
  }
  return out;
}

// With a threshold: each output whose values in the original are all on one side of it, where
// every model keeps every decision (sentences; warnings, not a failed check: the errors still
// tell).
export function oneSidedOutputs(results, threshold) {
  return results.filter((r) => !r.constant && r.oneDecision)
    .map((r) => `output '${r.name}' is on one side of ${threshold} on every sample (every value ${r.oneDecision.above ? 'above' : 'at or below'} it): ` +
                'the share on the same side says nothing about it');
}

// IEEE half precision, which onnxruntime's JS API holds as the bits in a Uint16Array where the
// engine has no Float16Array (Node 20, older browsers): to half bits with round-to-nearest-even,
// and back.
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export function toHalfBits(value) {
  f32[0] = value;
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000, exponent = (x >>> 23) & 0xff;
  let mantissa = x & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);  // infinity, NaN
  const e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;  // beyond 65504 (after rounding too): infinity
  // Normal halves keep 10 of the 23 mantissa bits; subnormal ones fewer, with the implicit 1.
  let shift = 13;
  if (e <= 0) {
    if (e < -10) return sign;  // under half the smallest subnormal: zero
    mantissa |= 0x800000;
    shift = 14 - e;
  }
  let h = (e > 0 ? e << 10 : 0) | (mantissa >>> shift);
  const rest = mantissa & ((1 << shift) - 1), half = 1 << (shift - 1);
  if (rest > half || (rest === half && h & 1)) h += 1;  // a carry into the exponent is still right
  return sign | h;
}

export function fromHalfBits(h) {
  const sign = h & 0x8000 ? -1 : 1, e = (h >>> 10) & 0x1f, m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 0x1f) return m ? NaN : sign * Infinity;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}

// The input types a check can fill: the typed array onnxruntime takes for each, and its values
// from a number (random normal floats, small random integers, or --value's number).
const TYPES = {
  float32: { Typed: Float32Array, float: true, make: (v) => v },
  float64: { Typed: Float64Array, float: true, make: (v) => v },
  float16: { Typed: Uint16Array, float: true, make: toHalfBits },
  int8: { Typed: Int8Array, make: Math.round },
  uint8: { Typed: Uint8Array, make: Math.round },
  int16: { Typed: Int16Array, make: Math.round },
  uint16: { Typed: Uint16Array, make: Math.round },
  int32: { Typed: Int32Array, make: Math.round },
  uint32: { Typed: Uint32Array, make: Math.round },
  int64: { Typed: BigInt64Array, make: (v) => (typeof v === 'bigint' ? v : BigInt(Math.round(v))) },
  uint64: { Typed: BigUint64Array, make: (v) => (typeof v === 'bigint' ? v : BigInt(Math.round(v))) },
  bool: { Typed: Uint8Array, make: (v) => (v ? 1 : 0) },
};

function typeOf({ name, dtype }) {
  const type = TYPES[dtype];
  if (!type) {
    throw new Error(`input '${name}' is of type ${dtype}, for which a check cannot make values ` +
                    `(it can for ${Object.keys(TYPES).join(', ')})`);
  }
  return type;
}

// The most values one input of a check may have: 2^28 (1 GiB of float32). A shape beyond it is
// a typing slip (1x512x512x512x3), and would otherwise end in an out-of-memory crash.
export const MAX_INPUT_VALUES = 2 ** 28;

function valueCount({ name, shape }) {
  const n = shape.reduce((a, b) => a * b, 1);
  if (n > MAX_INPUT_VALUES) {
    throw new Error(`input '${name}' of shape [${shape.join(', ')}] has ${n.toLocaleString('en-US')} values, more than a check makes ` +
                    `(${MAX_INPUT_VALUES.toLocaleString('en-US')}): set a smaller shape`);
  }
  return n;
}

// A value to fill an input with: a number (a whole one for integer types), or a bigint for int64
// and uint64.
function checkValue({ name, dtype, value }, Typed, float) {
  const wide = Typed === BigInt64Array || Typed === BigUint64Array;
  if (typeof value === 'bigint' ? !wide : typeof value !== 'number') {
    throw new Error(`input '${name}' (${dtype}) is filled with a number${wide ? ' or a bigint' : ''}, not ${typeof value === 'bigint' ? 'a bigint' : JSON.stringify(value) ?? typeof value}`);
  }
  if (typeof value === 'bigint' && (Typed === BigInt64Array ? BigInt.asIntN(64, value) : BigInt.asUintN(64, value)) !== value) {
    throw new Error(`input '${name}' is ${dtype}: ${value} is out of its range`);
  }
  if (!float && dtype !== 'bool' && typeof value === 'number' && !Number.isInteger(value)) {
    throw new Error(`input '${name}' is ${dtype}: fill it with a whole number, not ${value}`);
  }
}

// How many samples the inputs' data hold: a data file holds one or more values of its input's
// shape back to back (e.g. 208 chunks of speech, or 16 images), and every file must hold as many.
// 1 when no input has data. An input whose shape was guessed (`guessed`: the model leaves
// dimensions open) must hold exactly one sample, as a guess cannot tell samples apart.
export function sampleCount(inputs) {
  let count = null, first = null;
  for (const input of inputs) {
    const { name, dtype, shape, bytes, guessed } = input;
    const values = valueCount(input);
    const { Typed, float } = typeOf(input);
    if (input.value !== undefined) checkValue(input, Typed, float);
    if (!bytes) continue;
    const each = values * Typed.BYTES_PER_ELEMENT;
    const n = each ? bytes.byteLength / each : 0;
    if (guessed && n !== 1) {
      throw new Error(`input '${name}' leaves some of its dimensions open, guessed here as [${shape.join(', ')}] (${each} bytes of ${dtype} ` +
                      `a sample); the data given has ${bytes.byteLength} bytes, which a guess cannot split into samples: set its shape`);
    }
    if (!Number.isInteger(n) || n < 1) {
      throw new Error(`input '${name}' of shape [${shape.join(', ')}] and type ${dtype} takes ${each} bytes per sample, ` +
                      `the data given has ${bytes.byteLength} bytes` + (each && bytes.byteLength > each ? ', not a whole number of samples' : ''));
    }
    // A bool is one byte, 0 or 1 (onnxruntime reads 7 and 255 as false).
    const at = dtype === 'bool' ? bytes.findIndex((b) => b > 1) : -1;
    if (at >= 0) throw new Error(`input '${name}' is bool: each of its bytes must be 0 or 1, but byte ${at} of the data given is ${bytes[at]}`);
    if (count !== null && n !== count) {
      throw new Error(`the data for '${first}' holds ${count} samples, the data for '${name}' ${n}: give every input as many`);
    }
    if (count === null) count = n, first = name;
  }
  return count ?? 1;
}

// The feeds for each sample (see sampleCount), one object of tensors at a time: `bytes` (raw
// little-endian values of the input's type, e.g. a file) gives an input its real data, `value`
// fills it with one number, otherwise floats are standard normal and integers small (0..7), from a
// fixed seed, drawn afresh for each sample. `Tensor` is onnxruntime's Tensor class (node or web).
export function* sampleFeeds(Tensor, inputs) {
  const count = sampleCount(inputs);
  const r = random(0x2545f491);
  for (let sample = 0; sample < count; sample++) {
    const feeds = {};
    for (const input of inputs) {
      const { name, dtype, shape, value, bytes } = input;
      const { Typed, float, make } = typeOf(input);
      const n = shape.reduce((a, b) => a * b, 1);
      let data;
      if (bytes) {
        const each = n * Typed.BYTES_PER_ELEMENT;
        const copy = new Uint8Array(each);  // aligned for the typed array
        copy.set(bytes.subarray(sample * each, (sample + 1) * each));
        data = new Typed(copy.buffer);
      } else {
        // Filled in place: a list of numbers first would take several times the tensor's memory.
        const next = value !== undefined ? () => value : float ? r.normal : dtype === 'bool' ? () => r.uniform() < 0.5 : () => Math.floor(r.uniform() * 8);
        const fixed = value !== undefined ? make(value) : undefined;
        data = new Typed(n);
        for (let i = 0; i < n; i++) data[i] = fixed ?? make(next());
      }
      feeds[name] = new Tensor(dtype, data, shape);
    }
    yield feeds;
  }
}

// A sample's feeds for a model that takes some of its own outputs of the sample before as inputs
// (a streaming model's state): `feedBack` maps input names to output names, `previous` is the
// model's results for the sample before (null for the first sample, which keeps its feeds).
export function carryOver(feeds, previous, feedBack) {
  if (!previous) return feeds;
  const next = { ...feeds };
  for (const [input, output] of Object.entries(feedBack)) next[input] = previous[output];
  return next;
}

// Runs two models on the same inputs, sample by sample, and compares their outputs: `runA(feeds)`
// and `runB(feeds)` run the original and the other model, each given its own outputs of the
// sample before as `feedBack` says (see carryOver; the outputs fed back are state, not decisions);
// `threshold` as in OutputComparison;
// `onSample(done)` after each sample. Resolves with OutputComparison's results.
export async function compareModels(Tensor, inputs, runA, runB, { feedBack = {}, threshold, onSample } = {}) {
  const comparison = new OutputComparison({ threshold, stateOutputs: Object.values(feedBack) });
  let a = null, b = null, done = 0;
  for (const feeds of sampleFeeds(Tensor, inputs)) {
    a = await runA(carryOver(feeds, a, feedBack));
    b = await runB(carryOver(feeds, b, feedBack));
    comparison.add(a, b);
    onSample?.(++done);
  }
  return comparison.results();
}

// Fewer samples than this make a weak verdict between two good schemes: on the halves of PP-OCR
// det's page, the one that moved less on one half did on the other in only 8 of 16 roundings
// (BENCHMARKS.md, "One input's verdict on another"). The CLI and the page say so.
export const FEW_SAMPLES = 16;

// The output that moved most (highest relative L2 error; NaN counts as the most) of `results`,
// leaving out `states` (outputs fed back as the next sample's inputs: the model's results are
// judged, its state through them) unless nothing else is left.
export function worstOutput(results, states = []) {
  const judged = results.filter((o) => !states.includes(o.name));
  return (judged.length ? judged : results).reduce((w, o) => (o.relL2 > w.relL2 || (Number.isNaN(o.relL2) && !Number.isNaN(w.relL2)) ? o : w));
}

// How to read one value of an output tensor as a number: float16 data without a Float16Array
// comes as the bits in a Uint16Array.
function valueOf(tensor) {
  return tensor.type === 'float16' && tensor.data instanceof Uint16Array ? fromHalfBits : Number;
}

// The one side of `t` every value of the original is on, or null (both sides, or no values).
const oneSide = (s, t) => (!s.count || (s.min <= t && s.max > t) ? null : { above: s.min > t });

// How far each output of a model moved from the original's, over any number of samples: `add`
// the original's results and the other model's for each sample, then `results()` gives per output
// the max and mean absolute difference, the cosine of the two, and the relative L2 error
// |b - a| / |a| (all over every sample's values together), whether the original's values (more
// than one) were all the same (`constant`) and whether the two were identical (`identical`: see suspicions()); with a
// `threshold`, also the share of values on the same side of it in both (a detector's or
// classifier's decisions).
// `argmax`: also the share of rows (over the last axis) whose largest value is at the same place in
// both (a classifier's or a CTC recognizer's decisions), as `agreement`; only of outputs whose last
// axis has two values or more (argmax of one value, or of a scalar, agrees whatever the values).
// With either, `oneDecision`: null when the original decides more than one way, else its one
// decision ({ above: true|false } for a threshold, { index } for argmax).
// `stateOutputs`: names of outputs that are not decisions (a streaming model's state, fed back as
// an input of the next sample): compared as values, without `agreement` or `oneDecision`.
export class OutputComparison {
  #sums = new Map();
  #threshold;
  #argmax;
  #state;

  constructor({ threshold, argmax = false, stateOutputs = [] } = {}) {
    this.#threshold = threshold;
    this.#argmax = argmax;
    this.#state = new Set(stateOutputs);
  }

  add(a, b) {
    for (const name of Object.keys(a)) {
      let s = this.#sums.get(name);
      if (!s) this.#sums.set(name, (s = { count: 0, agree: 0, maxAbs: 0, sumAbs: 0, sumSq: 0, dot: 0, nx: 0, ny: 0, min: Infinity, max: -Infinity }));
      const x = a[name].data, y = b[name].data, t = this.#threshold;
      const xValue = valueOf(a[name]), yValue = valueOf(b[name]);
      if (this.#argmax && a[name].dims.at(-1) >= 2) {
        const width = a[name].dims.at(-1);
        for (let row = 0; row + width <= x.length; row += width) {
          let i = row, j = row;
          for (let k = row + 1; k < row + width; k++) {
            if (xValue(x[k]) > xValue(x[i])) i = k;
            if (yValue(y[k]) > yValue(y[j])) j = k;
          }
          s.rows = (s.rows ?? 0) + 1;
          if (i === j) s.agree++;
          if (s.rows === 1) s.index = i - row;
          else if (s.index !== i - row) s.index = null;
        }
      }
      for (let i = 0; i < x.length; i++) {
        const xi = xValue(x[i]), yi = yValue(y[i]);
        const d = Math.abs(xi - yi);
        if (d > s.maxAbs || Number.isNaN(d)) s.maxAbs = d;
        s.sumAbs += d;
        s.sumSq += d * d;
        s.dot += xi * yi;
        s.nx += xi * xi;
        s.ny += yi * yi;
        if (t !== undefined && !this.#argmax && xi > t === yi > t) s.agree++;
        if (!Number.isFinite(xi)) s.nonFinite = true;
        if (xi < s.min) s.min = xi;
        if (xi > s.max) s.max = xi;
      }
      s.count += x.length;
    }
  }

  results() {
    return [...this.#sums].map(([name, s]) => ({
      name, maxAbs: s.maxAbs, meanAbs: s.count ? s.sumAbs / s.count : 0,
      cosine: Number.isNaN(s.nx + s.ny) ? NaN : s.nx && s.ny ? s.dot / (Math.sqrt(s.nx) * Math.sqrt(s.ny)) : s.nx === s.ny ? 1 : 0,  // no product of two large sums
      // (NaN when either side holds NaN or both an infinity: never 0 by accident.)
      relL2: Number.isNaN(s.nx + s.sumSq) ? NaN : s.nx ? Math.sqrt(s.sumSq / s.nx) : s.sumSq ? Infinity : 0,
      constant: s.count > 1 && s.min === s.max, identical: s.maxAbs === 0, nonFinite: Boolean(s.nonFinite),
      ...(this.#state.has(name) ? {} : this.#argmax ? (s.rows ? { agreement: s.agree / s.rows, oneDecision: s.index !== null ? { index: s.index } : null } : {})
        : this.#threshold !== undefined ? { agreement: s.count ? s.agree / s.count : 1, oneDecision: oneSide(s, this.#threshold) } : {}),
    }));
  }
}
