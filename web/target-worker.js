// Target mode in the page, off its thread: the search of bindings/js/target.js with this worker's
// engine (shrink, inspect), onnxruntime-web as the measure on the user's samples, and the page's
// own gzip and brotli for the sizes; then the reference points (the plain modes and the original
// tool's per-tensor int8), built and measured the same way. Every file tried is kept, so that the
// page can save any point. The page cancels by ending the worker.
//
// In: { id, files, options, references: [{ key, label, options }], target ('agree=0.999', ...,
// or 'default'), decision ({ threshold } or { argmax: true }), objective, inputs (as the check's,
// with data files; null without samples) }.
// Out: { type: 'progress', fraction, stage, detail }, then { type: 'result', ... } or
// { type: 'error', code, message }.
import { expand, inspect, shrink } from './vendor/onnx-shrink/bindings/js/index.js';
import { indistinctDoubts, makeEvaluator, parseTarget, searchTarget } from './vendor/onnx-shrink/bindings/js/target.js';
import { sortFiles } from './files.js';
import { ort } from './ort-web.js';
import { brotliSize, gzipSize, targetBrotliQuality } from './sizes.js';

// The share of the progress bar for the search; the reference points take the rest.
const SEARCH_SHARE = 0.8;

// A file's size by the objective; `onFraction(f)` as it is compressed.
function objectiveSize(objective, quality) {
  return async (blob, onFraction = () => {}) => {
    if (objective === 'raw') return blob.size;
    let done = 0;
    const onBytes = (n) => onFraction((done += n) / (blob.size || 1));
    return objective === 'gzip' ? gzipSize(blob, onBytes) : brotliSize(blob, quality, onBytes);
  };
}

// The samples' feeds as makeEvaluator takes them: each data file's bytes read.
async function samplesOf(inputs) {
  const out = [];
  for (const { file, ...input } of inputs) out.push(file ? { ...input, bytes: new Uint8Array(await file.arrayBuffer()) } : input);
  return out;
}

const comparable = (m) => (m ? { relL2: m.relL2, maxAbs: m.maxAbs, agreement: m.agreement } : null);

self.onmessage = async (event) => {
  const { id, files, options, references, target, decision, objective, inputs } = event.data;
  const post = (message) => self.postMessage({ id, ...message });
  const progress = (fraction, stage, detail = '') => post({ type: 'progress', fraction, stage, detail });
  try {
    const { model, external } = sortFiles(files);
    if (Object.keys(external).length) {
      throw Object.assign(new Error('Target mode runs the model in this page and takes it as one file: drop a model without external data.'),
                          { code: 'BAD_OPTION' });
    }
    const goal = target === 'default' ? { kind: 'default' } : parseTarget(target);
    const original = new Uint8Array(await model.arrayBuffer());
    let evaluator = null;
    if (inputs) {
      progress(0, 'running the original model on the samples');
      const feedBack = Object.fromEntries(inputs.filter((i) => i.feedBack).map((i) => [i.name, i.feedBack]));
      try {
        evaluator = await makeEvaluator(ort, original, await samplesOf(inputs), { feedBack, decision });
      } catch (e) {
        throw new Error(`the original model does not run on these samples (set their shapes and values under Accuracy): ${e.message}`);
      }
    }
    const quality = objective === 'brotli' ? targetBrotliQuality(original.byteLength) : null;
    const sizeOf = objectiveSize(objective, quality);
    // The search's own progress, and a line on the file being compressed (seconds at quality 11).
    let stage = '', fraction = 0;
    const onProgress = (f, what) => progress((fraction = SEARCH_SHARE * f), (stage = what));
    // Each point's file, in the order the search measures them (it sizes each point once).
    const tried = [];
    const size = async (bytes) => {
      const blob = new Blob([bytes], { type: 'application/octet-stream' });
      const n = tried.push(blob);  // (its own number: the next point may be sized beside it)
      return sizeOf(blob, (f) => progress(fraction, stage, `point ${n}: ${objective} ${Math.round(100 * f)} %`));
    };
    const originalBytes = goal.kind === 'size' && goal.fraction !== undefined
      ? await sizeOf(model, (f) => progress(0, 'measuring the original', `${objective} ${Math.round(100 * f)} %`)) : undefined;
    const found = await searchTarget(original, {
      engine: { shrink, inspect, expand }, options, target: goal, objective, measure: evaluator?.measure, observe: evaluator?.observe, size, onProgress, originalBytes,
      brotliQuality: quality ?? undefined,
    });
    const t = found.target;
    if (tried.length !== t.points.length || t.points.some((p, i) => p.raw !== tried[i].size)) {
      throw new Error(`the search measured ${t.points.length} points and sized ${tried.length} files: they do not match`);
    }
    // The reference points: each plain mode and the original tool's method, measured alike.
    const refs = [];
    for (const [k, ref] of references.entries()) {
      const at = (f) => SEARCH_SHARE + ((1 - SEARCH_SHARE) * (k + f)) / references.length;
      const what = `measuring the reference points: ${ref.label}`;
      progress(at(0), what);
      const made = await shrink(original, ref.options);
      const measured = evaluator ? await evaluator.measure(made.model) : null;
      progress(at(0.3), what);
      const blob = new Blob([made.model], { type: 'application/octet-stream' });
      const bytes = await sizeOf(blob, (f) => progress(at(0.3 + 0.7 * f), what, `${objective} ${Math.round(100 * f)} %`));
      refs.push({ key: ref.key, label: ref.label, bytes, raw: blob.size, file: blob,
                  measured: comparable(measured?.calibration), heldOut: comparable(measured?.heldOut) });
    }
    progress(1, 'done');
    post({
      type: 'result', objective, quality, met: t.met, estimated: t.estimated, probe: t.probe ?? null, biasCorrection: t.biasCorrection ?? null, rounding: t.rounding ?? null, searchRounding: t.searches?.['channel+gptq']?.rounding ?? t.searches?.channel?.rounding ?? null, scheme: t.scheme ?? null, why: t.why ?? null, goal: t.goal?.ofDefault ? t.goal : goal, originalBytes: originalBytes ?? null,
      samples: evaluator?.samples ?? 0, calibrate: evaluator?.calibrate ?? 0, doubts: [...(evaluator?.doubts ?? []), ...indistinctDoubts(t.points)],
      chosen: t.points.indexOf(t.chosen), tensorBits: t.tensorBits ?? null,
      aim: t.aim ?? null,
      points: t.points.map((p, i) => ({ step: p.step, bits: p.bits ?? null, beyond: p.beyond ?? null, default: p.default ?? false, scheme: p.scheme ?? null, rounding: p.rounding ?? null, biasesMoved: p.biasesMoved ?? 0, bytes: p.bytes, raw: p.raw, predicted: p.predicted, file: tried[i],
                                        measured: comparable(p.measured), heldOut: comparable(p.heldOut) })),
      references: refs,
    });
  } catch (e) {
    post({ type: 'error', code: e.code || 'TARGET', message: e.message || String(e) });
  }
};
