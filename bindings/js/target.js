// Target mode: the smallest file (bytes on the wire: brotli, gzip or raw) that meets a target on
// the user's own samples, with the evidence. Shared by the Node API and the CLI (onnxruntime-node);
// the search itself only needs the engine (shrink, inspect) and a `measure` of a candidate.
//
// How it searches:
//  1. Dry runs at every bit depth (2 ... 8, 9, 10) give each large tensor's SQNR, the entropy of its
//     codes (about what brotli and gzip store for them) and its stored bytes at each depth.
//  2. Sensitivity: with samples, one tensor at a time is rounded to PROBE_BITS and the others kept,
//     and the model's outputs measured: how much that tensor's rounding moves them. Rounding noise
//     scales with the weight's noise power (10^(-SQNR/10)), and the tensors' contributions add up,
//     which predicts the output error of any mix of depths. That builds and runs one model per
//     tensor: past EACH_PROBE_BYTES of such models (a 150 MB model with 85 tensors: 13 GB, minutes),
//     the activation probe instead runs the original once with its Conv, MatMul and Gemm readers'
//     inputs and outputs as extra outputs, and predicts each reader's relative output error per unit
//     noise from their energies (activation_probe.js). Without samples, each tensor's relative
//     noise counts alike: an estimate, and said to be one.
//  3. A path from every tensor at 10 bits (8 with form 'dq') down to every tensor at 2: each step
//     lowers the depth of the tensor that saves the most bytes for the least predicted error (a
//     greedy descent of the rate-distortion curve).
//  4. The point on that path: with samples, bisection on measured results (the file is built and
//     run; with the activation probe, a search guided by the predictions, guided_search.js, as each
//     point of a large model costs seconds); without, the predicted error. The points measured are
//     the evidence.
//  5. With samples and the one-at-a-time probe, each point's biases can also take the shift that
//     its rounding causes with the samples' channel means (bias_shift.js), if that holds on samples
//     the means did not come from (crossCheck: two halves of the calibration samples, each
//     corrected by the other's means). Then the probes, the path and every point take it.
//  6. With plain per-channel codes (the second search, or `scheme: 'channel'`), samples and the
//     one-at-a-time probe, the weights of MatMul, Gemm and 1x1 Conv layers are rounded with their
//     inputs in view (gptq.js) instead of to the nearest code, at every point and probe.
//  7. With samples, an error target that the path's first point misses: files past the path's top
//     (BEYOND_PATH: every tensor at 12 or 16 bits, small tensors kept, the model left alone),
//     smallest first, until one meets it.
import { activationGains } from './activation_probe.js';
import { biasCorrector } from './bias_shift.js';
import { GPTQ_DAMPINGS, gptqRounder } from './gptq.js';
import { guidedSearch } from './guided_search.js';
import { OutputComparison, carryOver, sampleFeeds } from './verify.js';
import { wireEstimator } from './wire_estimate.js';

export const TARGET_BITS = [2, 3, 4, 5, 6, 7, 8, 9, 10];
// The depths a search walks: TARGET_BITS, up to 8 with DequantizeLinear (form 'dq': 8-bit codes).
export const depthsFor = (options = {}) => ((options.form ?? 'fold') === 'fold' ? TARGET_BITS : TARGET_BITS.filter((b) => b <= 8));
export const PROBE_BITS = 4;
export const OBJECTIVES = ['brotli', 'gzip', 'raw'];
// What a target can bound, each written KIND=N; the kinds measured on samples (a size can be met
// by estimates); how `agree` counts decisions.
export const TARGET_FORMS = { relL2: 'relL2=N', maxAbs: 'maxAbs=N', agree: 'agree=N (a share, e.g. 0.999)',
                              size: 'size=N (bytes, kB, MB, or a fraction of the original)' };
export const TARGET_KINDS = Object.keys(TARGET_FORMS);
export const MEASURED_KINDS = ['relL2', 'maxAbs', 'agree'];
export const DECISIONS = ['argmax', 'threshold:N'];

// 'a, b or c' (the items may hold commas of their own).
export const oneOf = (items) => (items.length > 1 ? `${items.slice(0, -1).join(', ')} or ${items.at(-1)}` : String(items[0]));

// 'relL2=0.01', 'maxAbs=0.05', 'agree=0.999', 'size=1.2MB' (or kB, B, or a fraction of the
// original such as 'size=0.25') -> { kind, value } (size: `bytes`, or `fraction`).
export function parseTarget(text) {
  const m = new RegExp(`^(${TARGET_KINDS.join('|')})=(.+)$`).exec(String(text ?? ''));
  if (!m) throw new Error(`a target is ${oneOf([...Object.values(TARGET_FORMS), 'default (the default file\'s error)'])}, not '${text}'`);
  const [, kind, value] = m;
  if (kind === 'size') {
    const s = /^(\d+(?:\.\d+)?(?:e\d+)?)\s*(B|kB|KB|MB|GB)?$/i.exec(value);
    const unit = s?.[2] ? { b: 'B', kb: 'kB', mb: 'MB', gb: 'GB' }[s[2].toLowerCase()] : undefined;
    const n = s ? Number(s[1]) : NaN;
    // Without a unit: a fraction below 1, or a whole number of bytes written without a point (1.5
    // and 1.0 are neither); never 0.
    if (!s || (!unit && n >= 1 && (!Number.isInteger(n) || /^\d+\.\d+$/.test(s[1]))) || !(n > 0)) {
      throw new Error(`size=${value}: give bytes (e.g. 1200000, 1.2MB) or a fraction of the original between 0 and 1 (e.g. 0.25)`);
    }
    if (!unit && n < 1) return { kind, fraction: n };
    const bytes = Math.round(n * { B: 1, kB: 1e3, MB: 1e6, GB: 1e9 }[unit ?? 'B']);
    if (bytes < 1) throw new Error(`size=${value}: that is under one byte`);
    return { kind, bytes };
  }
  // A plain decimal number (not '', ' ', 0x10 or Infinity, which Number() also takes).
  const n = /^\d+(?:\.\d*)?(?:e[-+]?\d+)?$|^\.\d+(?:e[-+]?\d+)?$/i.test(value) ? Number(value) : NaN;
  if (!(n >= 0) || (kind === 'agree' && n > 1)) throw new Error(`${kind}=${value}: give a number${kind === 'agree' ? ' from 0 to 1' : ' of 0 or more'}`);
  return { kind, value: n };
}

// 'argmax' (over each output's last axis) or 'threshold:0.3' (values on the same side of it).
export function parseDecision(text) {
  if (text === 'argmax') return { argmax: true };
  const m = /^threshold:(-?\d+(?:\.\d+)?(?:e-?\d+)?)$/.exec(String(text ?? ''));
  if (!m) throw new Error(`a decision is ${oneOf(DECISIONS)} (e.g. threshold:0.3), not '${text}'`);
  return { threshold: Number(m[1]) };
}

// What makes the calibration samples say little (one sentence each, or none), from the original's
// outputs on them: an output with one value everywhere, or with a decision, one decision
// everywhere: any file keeps that (e.g. a voice detector calibrated on silence).
export function calibrationDoubts(outputs, decision = {}) {
  const c = new OutputComparison(decision);
  for (const o of outputs) c.add(o, o);
  const count = outputs.length === 1 ? 'the calibration sample' : `the ${outputs.length} calibration samples`;
  const doubts = [];
  for (const r of c.results()) {
    if (r.constant) {
      doubts.push(`output '${r.name}' has the same value everywhere on ${count}: how far a file moves it says little about other inputs`);
    } else if (r.oneDecision) {
      const one = r.oneDecision.index !== undefined ? `its largest value always at index ${r.oneDecision.index} of the last axis`
                                                    : `every value ${r.oneDecision.above ? 'above' : 'at or below'} ${decision.threshold}`;
      doubts.push(`output '${r.name}' decides one way on ${count} (${one}), so keeping its decisions there says little: give samples on which it decides both ways`);
    }
  }
  return doubts;
}

// Every sample's outputs in the original the same (two or more samples): the samples held out
// repeat the calibration's. One sentence, or none.
function alikeDoubts(outputs) {
  if (outputs.length < 2) return [];
  const [first, ...rest] = outputs;
  const same = (a, b) => a.data.length === b.data.length && a.data.every((v, i) => Object.is(v, b.data[i]));
  if (!rest.every((o) => Object.keys(first).every((name) => o[name] && same(first[name], o[name])))) return [];
  return [`${outputs.length === 2 ? 'both samples give' : `all ${outputs.length} samples give`} the original model the same outputs: ` +
          'the samples held out check nothing the calibration samples did not'];
}

// Every file measured (three or more) moved the outputs exactly alike on the calibration samples:
// they do not tell files apart (outputs saturated, or not reached by the weights), so the smallest
// file wins whatever its accuracy. One sentence, or none.
export function indistinctDoubts(points) {
  const measured = points.filter((p) => p.measured && !p.beyond);
  const key = (m) => `${m.relL2} ${m.maxAbs} ${m.agreement}`;
  if (measured.length < 3 || measured.some((p) => key(p.measured) !== key(measured[0].measured))) return [];
  return [`all ${measured.length} files tried moved the outputs exactly alike on the calibration samples (rel. L2 ${measured[0].measured.relL2.toExponential(2)}): ` +
          'the samples do not tell the files apart, so the smallest was taken whatever its accuracy (are they the values the model takes?)'];
}

// The first value of a float tensor that is not finite in `samples` (a list of { name: tensor }),
// as { k, name, value, at }, or null.
function firstNonFinite(samples) {
  for (const [k, sample] of samples.entries()) {
    for (const [name, tensor] of Object.entries(sample)) {
      if (!(tensor.data instanceof Float32Array || tensor.data instanceof Float64Array)) continue;
      const at = tensor.data.findIndex((v) => !Number.isFinite(v));
      if (at >= 0) return { k, name, value: tensor.data[at], at };
    }
  }
  return null;
}

// Runs candidates beside the original on every sample and says how far the outputs moved: on the
// samples calibrated on (the first half, when there are two or more) and on the ones held back;
// `doubts`: calibrationDoubts() of the calibration samples, and whether every sample is alike.
// `ort`: onnxruntime (node or web); `inputs`: as verify.js's sampleFeeds takes them.
export async function makeEvaluator(ort, original, inputs, { feedBack = {}, decision: given = {}, externalData } = {}) {
  // (The original's external data files, [{ path, data }], for every session: files built from it
  // have theirs inline, the original and the probes' copies of it do not.)
  const sessionOptions = { logSeverityLevel: 4, ...(externalData ? { externalData } : {}) };
  const decision = { ...given, stateOutputs: Object.values(feedBack) };  // a fed-back state decides nothing
  const feeds = [...sampleFeeds(ort.Tensor, inputs)];
  // The samples' float values must be finite: a NaN input gives NaN or saturated outputs, on which
  // every file errs alike (16-bit audio read as float32 holds NaNs).
  const badInput = firstNonFinite(feeds);
  if (badInput) {
    const { k, name, value, at } = badInput;
    throw new Error(`sample ${k + 1}'s input '${name}' holds ${Number.isNaN(value) ? 'NaN' : 'an infinite value'} at index ${at}: ` +
                    'the samples must be the float values the model takes (16-bit audio or 8-bit pixels read as float32 look like this)');
  }
  const count = feeds.length;
  const calibrate = count >= 2 ? Math.ceil(count / 2) : count;
  const run = async (model) => {
    const session = await ort.InferenceSession.create(model, sessionOptions);
    const outputs = [];
    let previous = null;
    for (const f of feeds) outputs.push((previous = await session.run(carryOver(f, previous, feedBack))));
    await session.release?.();
    return outputs;
  };
  const reference = await run(original);
  // argmax decides only over a last axis of two values or more (OutputComparison): some output must.
  if (decision.argmax) {
    const comparison = new OutputComparison(decision);
    comparison.add(reference[0], reference[0]);
    if (!comparison.results().some((r) => r.agreement !== undefined)) {
      const shapes = Object.entries(reference[0]).map(([name, t]) => `'${name}' [${t.dims.join(', ')}]`).join(', ');
      throw new Error(`decision argmax takes the largest value over an output's last axis, and no output has two values or more there (${shapes}): ` +
                      'every decision would count as kept. Give an output of scores per class, or threshold:N');
    }
  }
  // The original's outputs must be finite to measure errors against (a NaN would compare as no
  // error at all).
  const badOutput = firstNonFinite(reference);
  if (badOutput) {
    throw new Error(`the original's output '${badOutput.name}' is ${Number.isNaN(badOutput.value) ? 'NaN' : 'infinite'} on sample ${badOutput.k + 1}: errors cannot be measured against it ` +
                    "(are the samples' values what the model takes?)");
  }
  // Runs `model` (e.g. the original with more outputs) on the calibration samples, calling
  // onSample(feeds, outputs, calibrate) after each (the activation probe).
  const observe = async (model, onSample) => {
    const session = await ort.InferenceSession.create(model, sessionOptions);
    let previous = null;
    try {
      for (const f of feeds.slice(0, calibrate)) {
        const fed = carryOver(f, previous, feedBack);
        onSample(fed, (previous = await session.run(fed)), calibrate);
      }
    } finally {
      await session.release?.();
    }
  };
  const summary = (comparison) => {
    const results = comparison.results();
    const worst = (key) => Math.max(...results.map((r) => (Number.isNaN(r[key]) ? Infinity : r[key])));
    const agree = results.filter((r) => r.agreement !== undefined).map((r) => r.agreement);
    return { relL2: worst('relL2'), maxAbs: worst('maxAbs'), agreement: agree.length ? Math.min(...agree) : undefined,
             perOutput: results.map((r) => ({ name: r.name, relL2: r.relL2, maxAbs: r.maxAbs, agreement: r.agreement })) };
  };
  return {
    samples: count,
    calibrate,
    doubts: [...calibrationDoubts(reference.slice(0, calibrate), decision), ...alikeDoubts(reference)],
    observe,
    // `parts`: lists of calibration samples (indices) to summarise apart as well, from the same run.
    async measure(model, { parts } = {}) {
      const outputs = await run(model);
      const compare = (ks) => {
        const c = new OutputComparison(decision);
        for (const k of ks) c.add(reference[k], outputs[k]);
        return summary(c);
      };
      const all = [...outputs.keys()];
      return { calibration: compare(all.slice(0, calibrate)), heldOut: count > calibrate ? compare(all.slice(calibrate)) : null,
               ...(parts ? { parts: parts.map(compare) } : {}) };
    },
  };
}

// Each changed tensor's facts at each bit depth, from dry runs: name -> { elements, at: {bits: {...}} }
// (`codes`: the entropy of its codes; `entropy`: that plus its other stored bytes, scales and offsets).
export async function depthTable(inspect, model, options, progress) {
  const table = new Map();
  const depths = depthsFor(options);
  for (const [k, bits] of depths.entries()) {
    progress(k / depths.length, 'measuring each tensor at each bit depth');
    const report = await inspect(model, { ...options, bits });
    for (const t of report.tensors) {
      if (!t.changed || t.bits === undefined) continue;
      const row = table.get(t.name) ?? { name: t.name, elements: t.shape.reduce((a, b) => a * b, 1), at: {} };
      const codeBytes = row.elements * (1 + Math.max(0, t.bits - 8) / 8);
      row.at[bits] = { bits: t.bits, noise: t.exact ? 0 : 10 ** (-(t.sqnrDb ?? 0) / 10), raw: t.bytesAfter, codes: t.entropyBytes,
                       elements: row.elements,
                       entropy: t.entropyBytes + Math.max(0, t.bytesAfter - codeBytes) };
      table.set(t.name, row);
    }
  }
  return [...table.values()].filter((row) => depths.every((b) => row.at[b]));
}

// Sensitivities are measured one tensor at a time (a model built and run per tensor) while those
// models add up to at most this many bytes (PP-OCR det: 18 tensors of a 4.7 MB file, 85 MB; the
// 150 MB bench models: 2 to 13 GB); beyond it, by the activation probe (one run of the original).
export const EACH_PROBE_BYTES = 1e9;
export const PROBES = ['each', 'activations'];

// Which probe measures the sensitivities of `rows` in a model of `modelBytes`.
export function chooseProbe(rows, modelBytes) {
  return rows.length * modelBytes <= EACH_PROBE_BYTES ? 'each' : 'activations';
}

// The predicted squared relative output error each tensor adds per unit of its weight noise power.
// `probe`: 'each' or 'activations' (chooseProbe's choice when not given); `observe`: as
// makeEvaluator's, for the activation probe.
// `corrected(made)`: the probe's file with its biases moved (bias_shift.js), measured beside it:
// `correctedGains` are then the gains with the correction.
export async function sensitivities(rows, { shrink, model, options, measure, observe, probe, progress, corrected }) {
  if (!measure) return { estimated: true, probe: null, gains: rows.map(() => 1 / rows.length) };
  probe ??= observe ? chooseProbe(rows, model.byteLength) : 'each';
  if (!PROBES.includes(probe)) throw refusal(`the probe is ${oneOf(PROBES)}, not '${probe}'`);
  if (probe === 'activations') {
    if (!observe) throw new Error('the activation probe runs the model on the samples: give observe (makeEvaluator\'s)');
    return { estimated: false, probe, gains: await activationGains(model, rows.map((r) => r.name), observe, progress) };
  }
  const gains = [], correctedGains = [];
  for (const [k, row] of rows.entries()) {
    progress(k / rows.length, 'measuring how much each tensor moves the outputs');
    const exclude = rows.filter((r) => r !== row).map((r) => r.name);
    const settings = { ...options, tensorBits: { [row.name]: PROBE_BITS }, exclude: [...(options.exclude ?? []), ...exclude], small: 'keep' };
    const made = await shrink(model, settings);
    const noise = row.at[PROBE_BITS].noise;
    const gain = async (file) => (noise > 0 ? (await measure(file)).calibration.relL2 ** 2 / noise : 0);
    gains.push(await gain(made.model));
    if (corrected) {
      const fixed = await corrected({ ...made, tensorBits: settings.tensorBits }, settings);
      correctedGains.push(fixed ? await gain(fixed.model) : gains.at(-1));
    }
  }
  return { estimated: false, probe, gains, ...(corrected ? { correctedGains } : {}) };
}

// The greedy path: configurations (bits per tensor) from the most bytes to the fewest; `cost(d)`: a
// tensor's bytes at one depth (d = row.at[bits]); `depths`: those the rows have, fewest bits first.
export function descent(rows, gains, cost, depths = TARGET_BITS) {
  const index = (b) => depths.indexOf(b);
  const bits = rows.map(() => depths.at(-1));
  const path = [];
  const point = () => {
    const bytes = rows.reduce((s, r, i) => s + cost(r.at[bits[i]]), 0);
    const error2 = rows.reduce((s, r, i) => s + gains[i] * r.at[bits[i]].noise, 0);
    path.push({ bits: [...bits], bytes, predicted: Math.sqrt(error2) });
  };
  point();
  for (;;) {
    let best = -1, bestRatio = Infinity;
    for (let i = 0; i < rows.length; i++) {
      const k = index(bits[i]);
      if (k === 0) continue;
      const here = rows[i].at[bits[i]], lower = rows[i].at[depths[k - 1]];
      const saved = cost(here) - cost(lower), added = gains[i] * (lower.noise - here.noise);
      if (saved <= 0) continue;
      const ratio = Math.max(0, added) / saved;
      if (ratio < bestRatio) best = i, bestRatio = ratio;
    }
    if (best < 0) break;
    bits[best] = depths[index(bits[best]) - 1];
    point();
  }
  return path;
}

// Whether measurements meet the target (a size target: always; the size is checked apart).
export function meets(target, m) {
  if (target.kind === 'relL2') return m.relL2 <= target.value;
  if (target.kind === 'maxAbs') return m.maxAbs <= target.value;
  if (target.kind === 'agree') return (m.agreement ?? 0) >= target.value;
  return true;
}

// Decisions near a threshold flip from one sample to the next, so the share kept on the calibration
// half overstates the share kept on other data. The search asks the calibration half for this share
// of the loss an agree target allows (agree=0.999: at most 0.05 % lost). Measured on PP-OCR det with
// its page cut into 2x2 crops (two calibrate, two held back): calibrated to the target's own loss,
// the held-back crops kept 99.87 % (a miss); to half of it, 99.957 %, at 0.70x the default's bytes.
export const AGREE_CALIBRATION_SHARE = 0.5;

// The target the calibration half is held to (see AGREE_CALIBRATION_SHARE), and tighter by
// `overfit` when the weights were rounded with the calibration samples' inputs in view (their error
// on other samples is larger by about that factor: checkRounding).
export function calibrationAim(target, overfit = 1) {
  if (target.kind === 'agree') return { ...target, value: 1 - ((1 - target.value) * AGREE_CALIBRATION_SHARE) / overfit };
  return overfit > 1 && (target.kind === 'relL2' || target.kind === 'maxAbs') ? { ...target, value: target.value / overfit } : target;
}

// The search. `engine`: { shrink, inspect } (the API's); `measure`: makeEvaluator(...).measure, or
// undefined without samples; `size(bytes, onFraction)`: the objective's size of a file (brotli, gzip
// or raw), perhaps telling onFraction(f) the fraction of it compressed as it goes;
// `brotliQuality`: the quality `size` compresses brotli at (the estimate's correction depends on it).
// Resolves with the chosen file, its report and the evidence.
export async function searchTarget(model, settings) {
  const result = await searchAll(model, settings);
  delete result.rounded;
  // The bits each tensor has in the file (a codebook's stay 8 whatever the point asked).
  if (result.target.tensorBits) {
    result.target.tensorBits = Object.fromEntries(result.report.tensors.filter((t) => t.changed && t.bits !== undefined).map((t) => [t.name, t.bits]));
  }
  return result;
}

async function searchAll(model, settings) {
  const refused = targetRefusal(settings.options);
  if (refused) throw refusal(refused);
  // With samples, 'default' is the default's measured error (rel. L2 on the calibration samples),
  // and the default's file answers when no smaller one meets it.
  const byDefault = settings.target.kind === 'default' && settings.measure ? await measuredDefault(model, settings) : null;
  if (byDefault) settings = { ...settings, target: byDefault.target };
  const several = await searchesSeveral(model, settings);
  const progress = settings.onProgress;
  const share = several ? 1 / 3 : 1;
  const part = (k, what = (w) => w) => progress && ((f, w) => progress(Math.min(1, (k + f) * share), what(w)));
  const result = await searchPath(model, { ...settings, onProgress: part(0) });
  if (result.target.goal.kind === 'default') return noLargerThanDefault(model, settings, result);
  if (!several) return byDefault ? await byDefault.noLarger(result) : result;
  // Plain per-channel codes, rounded with the inputs in view where that holds, and without.
  const channel = { ...settings.options, scheme: ALSO_SCHEME };
  const rounded = await searchPath(model, { ...settings, options: channel, onProgress: part(1, (w) => `${w} (per-channel codes)`) });
  const searches = [['auto', result], [rounded.target.rounding?.kept ? 'channel+gptq' : 'channel', rounded]];
  if (rounded.target.rounding?.kept) {
    const nearest = await searchPath(model, { ...settings, options: channel, rounding: false,
                                              onProgress: part(2, (w) => `${w} (per-channel codes, nearest)`) });
    searches.push(['channel', nearest]);
  }
  return byDefault ? await byDefault.noLarger(best(searches)) : best(searches);
}

// 'default' with samples: a rel. L2 target at the default's measured error, and noLarger(result):
// the default's file (a point of the evidence either way) when the result is not smaller.
// (The default's file is sized last, after the search's points, as the page's worker counts them.)
async function measuredDefault(model, { engine, options = {}, measure, size }) {
  const made = await engine.shrink(model, options);
  const measured = await measure(made.model);
  const tensorBits = Object.fromEntries(made.report.tensors.filter((t) => t.changed && t.bits !== undefined).map((t) => [t.name, t.bits]));
  return {
    target: { kind: 'relL2', value: measured.calibration.relL2, ofDefault: true },
    async noLarger(result) {
      const point = { step: -1, default: true, predicted: null, bytes: await size(made.model), raw: made.model.byteLength,
                      measured: measured.calibration, heldOut: measured.heldOut };
      result.target.points.push(point);
      if (result.target.met && result.target.chosen.bytes <= point.bytes) return result;
      return { ...made, target: { ...result.target, met: true, why: undefined, chosen: point, tensorBits } };
    },
  };
}

// An error of what was asked (options, target, model), not of the search: `refused` tells them apart.
const refusal = (message) => Object.assign(new Error(message), { refused: true });

// Why target mode cannot search with these options, in words (null: it can). It gives each tensor
// 2 to 10 bits of int8 codes (to 8 with form 'dq'; 12 or 16 past the path's top). The API and the
// CLI say 'target: ' before it. Options that would change the points' files after they are sized
// (external data, a result handed out in pieces) are refused too: the evidence is of the files written.
export function targetRefusal({ mode = 'int8', scheme = 'auto', bits = 'auto', tensorBits = {}, externalData = 'auto', chunks, onModelData, onExternalData } = {}) {
  if (mode !== 'int8') return `each tensor gets int8 codes of 2 to 10 bits, so mode must be 'int8', not '${mode}'`;
  if (scheme === 'tensor') return "each tensor gets its own bits, and scheme 'tensor' (the original tool's formula) has 8 only: give scheme 'auto' or 'channel'";
  if (bits !== 'auto' || Object.keys(tensorBits ?? {}).length) return 'the search chooses each tensor\'s bits: give neither bits nor tensorBits (exclude keeps a tensor as it is)';
  if (externalData === 'external') return "the points are sized as single files: externalData 'external' is not taken (give 'auto' or 'inline')";
  const pieces = [['onModelData', onModelData], ['onExternalData', onExternalData], ['chunks', chunks]].filter(([, v]) => v !== undefined).map(([k]) => k);
  if (pieces.length) return `the result comes whole (target.chosen is its evidence): ${pieces.join(', ')} ${pieces.length === 1 ? 'is' : 'are'} not taken`;
  return null;
}

// With samples, models small enough for the one-at-a-time probe are searched more than once: with
// the default's codes (per output channel with a factor per input channel, or codebooks), with plain
// per-channel codes rounded with the inputs in view (gptq.js, where that holds), and with plain
// per-channel codes rounded to the nearest code. The smallest file that meets the target is kept.
// None wins everywhere (bench/wire_accuracy.mjs, at the default's error): PP-OCR det's file is
// 0.775x the default's with nearest per-channel codes and 0.887x with the default's; silero VAD's
// 0.636x with the default's and 1.445x with per-channel codes; the char transformer's 0.71x with
// per-channel codes rounded with its inputs in view and 0.85x without. A large model (the activation probe) is searched once, to stay
// within its time.
export const ALSO_SCHEME = 'channel';
async function searchesSeveral(model, { options = {}, measure, observe, probe, engine }) {
  if (!measure || (options.scheme ?? 'auto') !== 'auto' || (options.mode ?? 'int8') !== 'int8') return false;
  if (probe) return probe === 'each';
  if (!observe) return true;
  if (model.byteLength > EACH_PROBE_BYTES) return false;
  const report = await engine.inspect(model, options);
  return chooseProbe(report.tensors.filter((t) => t.changed && t.bits !== undefined), model.byteLength) === 'each';
}

// Of [key, result] pairs, the result whose chosen file meets the target with the fewest bytes (a
// size target: with the least error; none met: the least error, or for a size the fewest bytes);
// its evidence carries every search's points, each with its `scheme` and `rounding` ('gptq' or
// 'nearest'), and each search's outcome.
function best(searches) {
  const goal = searches[0][1].target.goal;
  const score = (t) => (goal.kind === 'size' ? badness({ kind: 'relL2' }, t.chosen.measured) : t.chosen.bytes);
  const missScore = (t) => (goal.kind === 'size' ? t.chosen.bytes : badness(goal, t.chosen.measured));
  let pick = searches[0];
  for (const s of searches) {
    // (Points of the GPTQ search above GPTQ_MAX_BITS everywhere have nearest codes.)
    for (const p of s[1].target.points) p.scheme = s[0] === 'auto' ? 'auto' : ALSO_SCHEME, (p.rounding = p.rounding === 'gptq' ? 'gptq' : 'nearest');
    const [t, u] = [s[1].target, pick[1].target];
    // (Equal error, as files left alone have: the fewer bytes.)
    const less = t.met && u.met && score(t) === score(u) ? t.chosen.bytes < u.chosen.bytes : score(t) < score(u);
    if (t.met ? !u.met || less : !u.met && missScore(t) < missScore(u)) pick = s;
  }
  const [key, result] = pick;
  return { ...result, target: { ...result.target, scheme: key === 'auto' ? 'auto' : ALSO_SCHEME, search: key,
                                points: searches.flatMap(([, r]) => r.target.points),
                                searches: Object.fromEntries(searches.map(([k, r]) => [k, outcome(r.target)])) } };
}
const outcome = (t) => ({ met: t.met, bytes: t.chosen.bytes, measured: t.chosen.measured ?? null, biasCorrection: t.biasCorrection ?? null, rounding: t.rounding ?? null });

// A target of 'default' promises no more bytes than the default at its estimated error. The path's
// point meets that error by the estimates, but its real size can still come out a little above
// the default's (measured: silero, 1.002x): then the default's own file is the answer. It is a
// point of the evidence either way.
async function noLargerThanDefault(model, { engine, options = {}, size }, result) {
  const made = await engine.shrink(model, options);
  const point = { step: -1, default: true, predicted: result.target.goal.predicted / (1 + 1e-9), bytes: await size(made.model), raw: made.model.byteLength };
  result.target.points.push(point);
  if (!result.target.met || point.bytes >= result.target.chosen.bytes) return result;
  const tensorBits = Object.fromEntries(made.report.tensors.filter((t) => t.changed && t.bits !== undefined).map((t) => [t.name, t.bits]));
  return { ...made, target: { ...result.target, chosen: point, tensorBits } };
}

// The mean bits per value of the tensors a point chooses bits for (`bits`, in the order of `rows`),
// weighted by their values; undefined when it chooses none (the model left alone).
function meanBits(rows, bits) {
  let sum = 0, values = 0;
  rows.forEach((r, i) => bits[i] !== undefined && ((sum += bits[i] * r.elements), (values += r.elements)));
  return values ? sum / values : undefined;
}

async function searchPath(model, { engine, options = {}, target, objective = 'brotli', measure, observe, probe, size, onProgress, originalBytes, rounding,
                                   brotliQuality = 9 }) {
  if (!OBJECTIVES.includes(objective)) throw refusal(`the objective is ${OBJECTIVES.join(', ')}, not '${objective}'`);
  if (!measure && MEASURED_KINDS.includes(target.kind)) {
    throw refusal(`${target.kind === 'agree' ? 'an' : 'a'} ${target.kind} target needs samples to measure it on: data for the inputs (samples with bytes, or the CLI's --input; values alone are not samples)`);
  }
  const stage = (from, to) => (f, what) => onProgress?.(from + (to - from) * f, what);
  const rows = await depthTable(engine.inspect, model, options, stage(0, 0.2));
  if (!rows.length) throw refusal('no tensor of this model takes codes of 2 to 10 bits: nothing for a target to choose');
  const probing = measure ? probe ?? (observe ? chooseProbe(rows, model.byteLength) : 'each') : null;
  // Plain per-channel codes with the one-at-a-time probe: rounded with the inputs in view (step 6),
  // if that holds on samples the inputs did not come from.
  const rounder = probing === 'each' && observe && options.scheme === 'channel' && rounding !== false ? await gptqRounder(model, rows.map((r) => r.name), observe) : null;
  if (rounder) await checkRounding(rounder, { rows, shrink: engine.shrink, model, options, measure, target, progress: stage(0.2, 0.2) });
  // The model a configuration is shrunk from: the original, or its copy with those rounded weights.
  const base = (tensorBits) => (rounder?.kept ? rounder.model(tensorBits) : model);
  // (`rounded`: the weights of its file were rounded with the inputs in view; none above GPTQ_MAX_BITS are.)
  const shrinkAt = async (settings) => {
    const from = base(settings.tensorBits);
    return { ...(await engine.shrink(from, settings)), rounded: from !== model };
  };
  const build = async (p) => {
    const tensorBits = Object.fromEntries(rows.map((r, i) => [r.name, p.bits[i]]));
    const made = await shrinkAt({ ...options, tensorBits });
    return { ...made, tensorBits };
  };
  // The data-aware bias correction (step 5), for the one-at-a-time probe: null without it.
  const correction = probing === 'each' && observe && engine.expand ? await biasCorrector(model, rows.map((r) => r.name), observe) : null;
  // `from`: the calibration samples whose means move the biases (all when not given).
  const corrected = async (made, settings = options, from) => {
    const edited = correction.correct(await engine.expand(made.model), from, base(made.tensorBits));
    return edited && { ...(await engine.shrink(edited, { ...settings, tensorBits: made.tensorBits })), tensorBits: made.tensorBits, biasesMoved: correction.layers,
                       rounded: made.rounded };
  };
  if (correction) await crossCheck(correction, { rows, build, corrected, measure, target });
  const keep = correction?.kept ? corrected : undefined;
  const sensed = await sensitivities(rows, { shrink: (m, settings) => shrinkAt(settings), model, options, measure, observe, probe: probing ?? probe, progress: stage(0.2, 0.6), corrected: keep });
  const { estimated, probe: probed } = sensed;
  // The path follows the gains with the correction when it is kept.
  const gains = keep ? sensed.correctedGains : sensed.gains;
  if (target.kind === 'default') {
    // Without samples: the default's own estimated error, under the same estimates.
    const report = await engine.inspect(model, options);
    target = { ...target, predicted: defaultPrediction(rows, gains, report) * (1 + 1e-9) };
  }
  // Each point's bytes estimated (wire_estimate.js), the rest of the file calibrated on the first built.
  const wire = wireEstimator(rows, objective, brotliQuality);
  const path = descent(rows, gains, wire.cost, depthsFor(options));
  // A point's file, its size (started once the file is known: Node's zlib compresses on another
  // thread, beside the measures) and its measurements. When the correction is kept, the point's file
  // with its biases moved and without, whichever errs less on the calibration samples: the
  // cross-check holds at CROSS_CHECK_BITS, and at other depths the moved biases can err more than
  // the rounding they correct (PP-OCR det, calibrated on its right two quadrants: every tensor at
  // 10 bits, rel. L2 8.5e-3 without, 2.7e-2 with; BENCHMARKS.md, "The held-out row on every split").
  const buildAndMeasure = async (p) => {
    const plain = await build(p);
    const moved = correction?.kept ? await corrected(plain) : null;
    if (!moved) return { made: plain, sizing: sizeOf(plain.model), measured: measure ? await measure(plain.model) : null };
    const [a, b] = [await measure(plain.model), await measure(moved.model)];
    const made = lessError(target, b.calibration, a.calibration) ? moved : plain;
    return { made, sizing: sizeOf(made.model), measured: made === moved ? b : a, compared: { without: a.calibration, with: b.calibration } };
  };
  // Each file being sized, with the fraction of it compressed so far (size() may tell it as it
  // goes): what sized() reports while it waits (150 MB models: up to 20 s without a word).
  const compressing = [];
  let onCompressed = null;
  const sizeOf = (bytes) => {
    const job = { raw: bytes.byteLength, done: 0 };
    compressing.push(job);
    // size() calls step from a stream's callbacks, where an onProgress that throws would end the
    // process: its error waits for this file's size, and the search rejects with it.
    let failed = null;
    const step = (f) => {
      job.done = Math.max(job.done, f);
      try {
        onCompressed?.();
      } catch (e) {
        failed ??= { e };
      }
    };
    const sizing = Promise.resolve(size(bytes, step)).then((b) => {
      step(1);
      if (failed) throw failed.e;
      return b;
    });
    sizing.catch(() => {});  // (a search that stops early leaves sizes it never awaits: cancelled, not unhandled)
    return sizing;
  };
  const points = [];
  // A size target's files measured on samples, by point: the least error in the size may be held
  // by more than one (their error set by something no point changes).
  const built = new Map();
  let calibrated = null;
  const evaluate = async (k) => {
    // A size target needs the bytes at once, an error target once the search is over (`sized`).
    const { made, measured, sizing, compared } = await buildAndMeasure(path[k]);
    const point = { step: k, bits: meanBits(rows, path[k].bits), predicted: path[k].predicted, estimatedBytes: undefined, bytes: bySize ? await sizing : sizing,
                    raw: made.model.byteLength, ...(made.rounded ? { rounding: 'gptq' } : {}), ...(measured ? { measured: measured.calibration, heldOut: measured.heldOut } : {}),
                    ...(made.biasesMoved ? { biasesMoved: made.biasesMoved } : {}),
                    ...(compared ? { biasMove: { without: compared.without.relL2, with: compared.with.relL2 } } : {}) };
    if (bySize && measure) built.set(point, made);
    if (!points.length) {
      calibrated = Promise.resolve(point.bytes).then((b) => wire.calibrate(path[k].bits, b));
      calibrated.catch(() => {});  // (as sizeOf's)
    }
    points.push(point);
    return { made, point };
  };
  // The points' sizes, awaited once the search is over; progress from `from` to the end.
  const sized = async (result, from = 1) => {
    // (Said at least once whenever the sizes are awaited here, however far they got: the stage
    // does not depend on the timing.)
    const waiting = compressing.filter((job) => job.done < 1);
    const total = waiting.reduce((sum, job) => sum + job.raw, 0);
    let said = -1;
    onCompressed = () => {
      const f = total ? waiting.reduce((sum, job) => sum + job.raw * job.done, 0) / total : 1;
      if (f - said < 0.01 && f < 1) return;
      progress(from + (1 - from) * (said = f), `sizing the points tried (${objective})`);
    };
    if (points.some((p) => typeof p.bytes !== 'number')) onCompressed();
    try {
      for (const p of points) p.bytes = await p.bytes;
    } finally {
      onCompressed = null;
    }
    await calibrated;
    for (const p of points) p.estimatedBytes = p.beyond ? undefined : wire.estimate(path[p.step].bits);
    return result;
  };
  // Past the path's top (step 7 above), for an error target that its first point misses: the
  // files of BEYOND_PATH, smallest raw first (by dry runs), each built and measured until one meets
  // the target. Resolves with that one ({ made, point }), or null.
  const beyondFiles = async () => {
    const files = [];
    for (const rung of beyondPath(options)) {
      const settings = rung.original ? { ...options, tensorBits: {}, small: 'keep', exclude: [...(options.exclude ?? []), ...rows.map((r) => r.name)] }
                                     : { ...options, tensorBits: Object.fromEntries(rows.map((r) => [r.name, rung.bits])), ...(rung.small ? { small: rung.small } : {}) };
      files.push({ rung, settings, raw: (await engine.inspect(base(settings.tensorBits), settings)).totals.modelBytesAfter });
    }
    return files.sort((a, b) => a.raw - b.raw);
  };
  // The i-th file past the path as a point (measured when there are samples), among the points;
  // its size awaited at once (`sizeFirst`, a size target) or later, as the path's points are.
  const beyondPoint = async (i, rung, settings, sizeFirst) => {
    const made = { ...(await shrinkAt(settings)), tensorBits: settings.tensorBits };
    const bytes = sizeFirst ? await sizeOf(made.model) : sizeOf(made.model);
    const measured = measure ? await measure(made.model) : null;
    const point = { step: -(i + 1), beyond: beyondName(rung), bits: settings.tensorBits && meanBits(rows, rows.map((r) => settings.tensorBits[r.name])),
                    predicted: null, estimatedBytes: undefined, bytes, raw: made.model.byteLength,
                    ...(made.rounded ? { rounding: 'gptq' } : {}), ...(measured ? { measured: measured.calibration, heldOut: measured.heldOut } : {}) };
    points.push(point);
    return { made, point };
  };
  // For a size target that the path's top (its least error) meets: the largest of those files
  // that also meets it (more bits, less error), or null. Each file sized is a point.
  const beyondInSize = async () => {
    const files = (await beyondFiles()).filter((f) => f.raw <= goal || objective !== 'raw');
    for (const [i, { rung, settings }] of files.reverse().entries()) {
      progress(1, `building and sizing candidates: ${beyondName(rung)}`);
      const { made, point } = await beyondPoint(i, rung, settings, true);
      if (point.bytes <= goal) return { made, point };
    }
    return null;
  };
  const beyond = async () => {
    const files = await beyondFiles();
    for (const [i, { rung, settings }] of files.entries()) {
      progress(1, `building and measuring candidates: ${beyondName(rung)}`);
      const { made, point } = await beyondPoint(i, rung, settings, false);
      if (ok(point)) return { made, point };
    }
    return null;
  };
  // Bisection along the path (bytes fall with k). An error bound holds from the first point (every
  // tensor at 10 bits) up to some k: the last k that meets it. A size bound holds from some k to the
  // last point (every tensor at 2 bits): the first k that meets it, the least error in that size.
  const goal = target.kind === 'size' ? (target.bytes ?? Math.floor(target.fraction * (originalBytes ?? 0))) : null;
  const overfit = rounder?.kept ? rounder.overfit : 1;
  const ok = (point) => (target.kind === 'size' ? point.bytes <= goal : target.kind === 'default' ? point.predicted <= target.predicted : meets(calibrationAim(target, overfit), point.measured));
  const bySize = target.kind === 'size';
  // The goal as met: a size in bytes of the objective; for 'default', the error predicted for it.
  const aim = { ...target, ...(bySize ? { bytes: goal } : {}) };
  // What the evidence says of every outcome, besides whether it met the target and the point chosen.
  const evidence = { estimated, probe: probed, biasCorrection: correctionSummary(correction), rounding: roundingSummary(rounder),
                     aim: MEASURED_KINDS.includes(target.kind) ? calibrationAim(target, overfit) : null, objective, goal: aim, points };
  // (Raw, codes of fewer than 8 bits still take a byte a value: the path's smallest raw file is at 8.)
  const smallest = objective === 'raw' ? 'the smallest raw file (every tensor at 8 bits or fewer: a byte a value)' : 'even every tensor at 2 bits';
  const missed = bySize ? `${smallest} is larger than ${goal.toLocaleString('en')} byte${goal === 1 ? '' : 's'}` : `even every tensor at ${depthsFor(options).at(-1)} bits misses the target`;
  // Only an error target measured on samples goes past the path's top (a size or 'default' is met
  // on the path, or by no file).
  const pastTop = measure && MEASURED_KINDS.includes(target.kind);
  // An error target that even the model left alone misses (measured: onnxruntime's outputs differ).
  const missedAll = pastTop ? `${missed}, and so do ${beyondPath(options).filter((r) => !r.original).map(beyondName).join(', ')} and the model left alone` : missed;
  const progress = stage(0.6, 1);
  if (probed === 'activations') {
    // A large model: few points, guided by the predictions (guided_search.js).
    const a = calibrationAim(target, overfit);
    const limit = bySize ? goal : badness(a, { relL2: a.value, maxAbs: a.value, agreement: a.value });
    const { met, chosen } = await guidedSearch(path.length, {
      evaluate, ok, limit, prefix: !bySize,
      measured: (p) => (bySize ? p.bytes : badness(target, p.measured)),
      predicted: (k) => (bySize ? wire.estimate(path[k].bits) : path[k].predicted),
      nearEnough: (a, b) => Math.abs(path[a].bytes - path[b].bytes) <= GUIDED_BYTES_TOLERANCE * Math.max(path[a].bytes, path[b].bytes),
      onStep: (f) => progress(GUIDED_SHARE * f, 'building and measuring candidates'),
    });
    const past = met ? (bySize && chosen.point.step === 0 ? await beyondInSize() : null) : pastTop ? await beyond() : null;
    if (past) return sized({ ...past.made, target: { met: true, ...evidence, chosen: past.point, tensorBits: past.made.tensorBits } }, GUIDED_SHARE);
    const why = met ? undefined : missedAll;
    return sized({ ...chosen.made, target: { met, ...evidence, chosen: chosen.point,
                                             ...(met ? { tensorBits: chosen.made.tensorBits } : { why }) } }, GUIDED_SHARE);
  }
  let steps = 0;
  const total = Math.ceil(Math.log2(path.length + 1)) + 1;
  let lo = 0, hi = path.length - 1;
  const first = await evaluate(bySize ? hi : lo);
  progress(++steps / total, 'building and measuring candidates');
  if (!ok(first.point)) {
    const past = pastTop ? await beyond() : null;
    if (past) return sized({ ...past.made, target: { met: true, ...evidence, chosen: past.point, tensorBits: past.made.tensorBits } });
    return sized({ ...first.made, target: { met: false, ...evidence, chosen: first.point, why: missedAll } });
  }
  let chosen = first;
  while (lo < hi) {
    const mid = bySize ? Math.floor((lo + hi) / 2) : Math.ceil((lo + hi) / 2);
    const tried = await evaluate(mid);
    progress(Math.min(1, ++steps / total), 'building and measuring candidates');
    if (ok(tried.point)) chosen = tried, bySize ? (hi = mid) : (lo = mid);
    else if (bySize) lo = mid + 1;
    else hi = mid - 1;
  }
  // Of the points that fit, none erring more than the one found: the fewest bytes (silero VAD: five
  // points of 408 to 551 kB erred alike, bit for bit, and bisection found a 425 kB one).
  for (const [point, made] of built) {
    const c = chosen.point, rel = { kind: 'relL2' };
    if (point.bytes <= goal && point.bytes < c.bytes && badness(rel, point.measured) <= badness(rel, c.measured)) chosen = { made, point };
  }
  const roomier = bySize && chosen.point.step === 0 ? await beyondInSize() : null;
  if (roomier) chosen = roomier;
  return sized({ ...chosen.made, target: { met: true, ...evidence, chosen: chosen.point, tensorBits: chosen.made.tensorBits } });
}

// Past the path's top: an error target that every tensor at 10 bits misses (PP-OCR det: the
// default errs 1.4e-2 in rel. L2, every tensor at 10 bits no less, as float16 small tensors alone
// move its outputs by 4.7e-3) is met by one of these files, tried smallest first: every tensor at
// 12 or 16 bits, with the small tensors as float16 (the default) or kept as they are, and the
// model left alone (which meets any error target, as onnxruntime runs it alike). On PP-OCR det, by
// brotli -q 9 against the default's file: 1.17x (rel. L2 3.7e-3 on the calibration half), 1.34x
// small ones kept (1.6e-3), 1.50x at 16 bits (4.7e-3), 1.67x small ones kept (9.5e-5). Their
// biases are not moved.
export const BEYOND_PATH = [{ bits: 12 }, { bits: 12, small: 'keep' }, { bits: 16 }, { bits: 16, small: 'keep' }, { original: true }];
// With DequantizeLinear (8-bit codes): the small tensors kept, and the model left alone.
const beyondPath = (options) => (depthsFor(options).at(-1) > 8 ? BEYOND_PATH : [{ bits: 8, small: 'keep' }, { original: true }]);

// A file of BEYOND_PATH in words.
export function beyondName(rung) {
  if (rung.original) return 'the model left alone';
  return `every tensor at ${rung.bits} bits${rung.small === 'keep' ? ', small ones kept' : ''}`;
}

// With the activation probe, the guided search stops when the points either side of the boundary
// differ by at most this share of their estimated bytes.
export const GUIDED_BYTES_TOLERANCE = 0.01;
// The guided search's share of its stage's progress; the points' sizes that it left to compress
// take the rest.
const GUIDED_SHARE = 0.9;

// What the evidence says of the bias correction: the layers it can move, whether the search kept
// it, and the cross-check's errors without and with it.
function correctionSummary(c) {
  return c ? { layers: c.layers, kept: c.kept, measured: c.measured } : null;
}

// The depth every tensor gets for the cross-check (the default's codes).
export const CROSS_CHECK_BITS = 8;

// The depth every tensor gets for the rounding's check: where rounding with the inputs in view
// matters (at 8 bits both roundings err little).
export const ROUNDING_CHECK_BITS = 6;

// Whether rounding with the inputs in view (gptq.js) holds on samples the inputs did not come
// from: every tensor at ROUNDING_CHECK_BITS, each half of the calibration samples' products rounding
// the weights for the other half, against the nearest codes on the same halves, at each of
// GPTQ_DAMPINGS; the damping whose error on the unseen halves is least is the rounder's. Kept only
// if that summed squared error is below the nearest codes'; not tried with one calibration sample.
// The error on the half not seen over the error on the half seen is `overfit`: the search then
// holds the calibration samples to a target that much tighter (calibrationAim), as its rounding fits them.
async function checkRounding(rounder, { rows, shrink, model, options, measure, target, progress }) {
  const tensorBits = Object.fromEntries(rows.map((r) => [r.name, ROUNDING_CHECK_BITS]));
  let measured = null;
  const tried = [];
  if (rounder.samples >= 2) {
    const nearest = (await shrink(model, { ...options, tensorBits })).model;
    // The nearest codes' file is measured once, not once a damping (the same halves each time).
    let nearestOn = null;
    const measureOnce = (file, o) => (file === nearest ? (nearestOn ??= measure(file, o)) : measure(file, o));
    for (const damping of GPTQ_DAMPINGS) {
      progress?.(0, `checking the rounding with the inputs in view (damped by ${damping})`);
      const m = await acrossHalves(rounder.samples, nearest, async (half, k) => (await shrink(rounder.model(tensorBits, k, damping), { ...options, tensorBits })).model, measureOnce, target);
      if (m) tried.push({ damping, with: m.with });
      if (m && !(measured && measured.with <= m.with)) measured = { ...m, damping };
    }
  }
  rounder.settle(measured?.damping ?? rounder.damping);
  rounder.measured = measured ? { ...measured, bits: ROUNDING_CHECK_BITS, tried } : null;
  rounder.kept = Boolean(measured) && measured.with < measured.without;
  // How much larger the error is on the half the rounding did not see than on the one it did.
  rounder.overfit = measured && measured.seen > 0 ? Math.max(1, measured.with / measured.seen) : 1;
}

// Each half of `n` calibration samples making a file (`make(half's indices, 0 or 1)`, null: none),
// measured on the other half and on its own, against `plain` on the same halves: the target's
// measure as a root mean square over the two halves, `without`, `with` and `seen` (on the half that
// made it). Null when a half makes no file.
async function acrossHalves(n, plain, make, measure, target) {
  const halves = [[...Array(Math.ceil(n / 2)).keys()], [...Array(n).keys()].slice(Math.ceil(n / 2))];
  // A file's squared measure on each half, from one run of it.
  const on = async (file) => (await measure(file, { parts: halves })).parts.map((m) => badness(target, m) ** 2);
  let plainOn = null, without = 0, withIt = 0, seen = 0;
  for (const [k, half] of halves.entries()) {
    const file = await make(half, k);
    if (!file) return null;
    plainOn ??= await on(plain);
    const fileOn = await on(file);
    without += plainOn[1 - k];
    withIt += fileOn[1 - k];
    seen += fileOn[k];
  }
  return { without: Math.sqrt(without / 2), with: Math.sqrt(withIt / 2), seen: Math.sqrt(seen / 2) };
}

// What the evidence says of the rounding: the layers it can round, whether the search kept it,
// and the check's errors without and with it (null when it was not tried).
function roundingSummary(r) {
  return r ? { method: 'gptq', layers: r.layers, kept: r.kept, measured: r.measured, overfit: r.overfit ?? 1 } : null;
}

// Whether the bias correction holds on samples its means did not come from: the calibration samples
// in two halves, each point's file corrected with one half's means and measured on the other half,
// against the uncorrected file on the same halves (every tensor at CROSS_CHECK_BITS). Kept only if
// the summed squared error falls; not tried with one calibration sample (nothing to check it on).
async function crossCheck(correction, { rows, build, corrected, measure, target }) {
  const plain = correction.samples >= 2 && (await build({ bits: rows.map(() => CROSS_CHECK_BITS) }));
  const measured = plain && await acrossHalves(correction.samples, plain.model, async (half) => (await corrected(plain, undefined, half))?.model, measure, target);
  correction.measured = measured ? { ...measured, bits: CROSS_CHECK_BITS } : null;
  correction.kept = Boolean(measured) && measured.with < measured.without;
}

// How far measurements are from meeting an error target, as a number that grows with the error.
function badness(target, m) {
  if (target.kind === 'agree') return 1 - (m.agreement ?? 0);
  return target.kind === 'maxAbs' ? m.maxAbs : m.relL2;
}

// Whether measurements `a` err less than `b` by the target's measure (a size target's: rel. L2),
// ties by rel. L2.
function lessError(target, a, b) {
  const kind = target.kind === 'agree' || target.kind === 'maxAbs' ? target : { kind: 'relL2' };
  const [x, y] = [badness(kind, a), badness(kind, b)];
  return x < y || (x === y && a.relL2 < b.relL2);
}

// The default's predicted error under the same estimates (for targets without samples: never more
// bytes than the default at the default's estimated error).
function defaultPrediction(rows, gains, defaultReport) {
  let e2 = 0;
  for (const [i, r] of rows.entries()) {
    const t = defaultReport.tensors.find((x) => x.name === r.name);
    if (t?.changed && t.sqnrDb !== undefined) e2 += gains[i] * 10 ** (-(t.sqnrDb ?? 0) / 10);
  }
  return Math.sqrt(e2);
}
