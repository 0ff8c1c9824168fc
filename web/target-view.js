// The page's "Smallest file for a target" section: the target (decisions kept, an error bound, or a
// size), the samples set up under Accuracy, the search in target-worker.js with its progress and
// Cancel, and the evidence: the plot of every point tried beside the plain modes and the original
// tool's method, a slider (or a click) to pick a point, its numbers, and Save for its file.
import { parseTarget } from './vendor/onnx-shrink/bindings/js/target.js';
import { codesPhrase, correctionText, roundingText, searchedPhrase } from './vendor/onnx-shrink/bindings/js/target_table.js';
import { errorMetric, formatError, targetPlot } from './target-plot.js';

const $ = (id) => document.getElementById(id);

// What the value field starts with for each kind of target, and the kinds measured on samples.
const STARTING_VALUE = { agree: '0.999', relL2: '0.01', maxAbs: '0.05', size: '0.25', default: '' };
const MEASURED = ['agree', 'relL2', 'maxAbs'];

// The page's functions this section uses (set by initTarget): files(), inputs() (the check's
// inputs, or throws), threshold(), guessed(), modeOptions(mode), download(blob, name), formatBytes(n).
let page = null;
let worker = null, run = 0, view = null;

const capital = (text) => `${text[0].toUpperCase()}${text.slice(1)}`;
const plural = (n, what) => `${n} ${what}${n === 1 ? '' : 's'}`;

function setState(state, text) {
  const focused = document.activeElement, wasBusy = $('target').dataset.state === 'running';
  $('target').dataset.state = state;
  delete $('target').dataset.stale;
  const busy = state === 'running';
  $('target-progress').hidden = !busy;
  $('target-cancel').hidden = !busy;
  $('target-run').disabled = busy;
  $('target-status').textContent = text;
  // Focus follows: to Cancel while the search runs, back to its button after (not to the page's top).
  if (busy && focused === $('target-run')) $('target-cancel').focus();
  else if (!busy && wasBusy && (focused === $('target-cancel') || focused === document.body)) $('target-run').focus();
}

function showError(message) {
  const box = $('target-error');
  box.replaceChildren(Object.assign(document.createElement('strong'), { textContent: 'No target search.' }),
                      Object.assign(document.createElement('p'), { textContent: /^[a-z]+ /.test(message) ? capital(message) : message }));
  box.hidden = false;
}

function stop() {
  worker?.terminate();
  worker = null;
  run++;
}

// A new model (or none): nothing of the last one's search stays.
export function resetTarget() {
  stop();
  view = null;
  $('target-result').hidden = true;
  $('target-error').hidden = true;
  setState('idle', '');
}

function cancel() {
  stop();
  setState('cancelled', 'Cancelled: nothing was chosen. Press "Find the smallest file" to search again.');
}

// The value field follows the kind: its starting value, and off for the default's error.
function showKind() {
  const kind = $('target-kind').value;
  $('target-value').value = STARTING_VALUE[kind];
  $('target-value').disabled = kind === 'default';
  $('target-decision').disabled = kind !== 'agree';
}

// The search's message for the worker, from the controls and the check's inputs; throws what is
// missing.
function request() {
  const files = page.files();
  if (!files.length) throw new Error('drop a model first');
  const kind = $('target-kind').value;
  const value = $('target-value').value.trim();
  if (kind !== 'default' && value === '') throw new Error('give the target a value (the box beside it)');
  const target = kind === 'default' ? 'default' : `${kind}=${value}`;
  const goal = kind === 'default' ? { kind } : parseTarget(target);
  const all = page.inputs();
  let inputs = null;
  if (all.some((i) => i.file)) {
    const guessed = page.guessed();
    if (guessed.length) {
      throw new Error(`set the shape of ${[...new Set(guessed.map((g) => g.input))].join(', ')} in the Shape column under Accuracy: ` +
                      'the search runs the model on the samples as given, and does not guess open dimensions');
    }
    inputs = all.map(({ name, dtype, shape, value, file, feedBack }) => ({ name, dtype, shape, value, file, feedBack }));
  } else if (MEASURED.includes(kind)) {
    throw new Error(`a target of ${kind === 'agree' ? 'decisions kept' : 'error'} is measured on samples: give data files under Accuracy ` +
                    '(the Data file column), or aim at a size or at the 8-bit default\'s error (by estimates without data)');
  }
  const threshold = page.threshold();
  let decision = threshold === undefined ? {} : { threshold };
  if (kind === 'agree') {
    if ($('target-decision').value === 'argmax') decision = { argmax: true };
    else if (threshold === undefined) throw new Error('set the decision threshold under Accuracy, or count decisions by argmax');
  }
  const int8 = { ...page.modeOptions('int8'), externalData: 'inline' };
  delete int8.bits;  // the search sets bits per tensor
  const references = [
    { key: 'int8', label: '8-bit', options: { ...page.modeOptions('int8'), externalData: 'inline' } },
    { key: 'palette', label: 'palette', options: { ...page.modeOptions('palette'), externalData: 'inline' } },
    { key: 'tensor', label: 'per-tensor int8 (Shrink Ray)', options: { ...page.modeOptions('int8'), scheme: 'tensor', externalData: 'inline' } },
  ];
  return { files, options: int8, references, target, goal, decision, objective: $('target-objective').value, inputs };
}

function start() {
  stop();
  $('target-error').hidden = true;
  $('target-result').hidden = true;
  view = null;
  let message;
  try {
    message = request();
  } catch (e) {
    setState('error', '');
    showError(e.message);
    return;
  }
  const id = run;
  const name = message.files.find((f) => /\.onnx$/i.test(f.name))?.name.replace(/\.onnx$/i, '') ?? 'model';
  worker = new Worker(new URL('./target-worker.js', import.meta.url), { type: 'module' });
  $('target-progress').value = 0;
  setState('running', 'Starting the search…');
  worker.onmessage = ({ data }) => {
    if (data.id !== id || id !== run) return;
    if (data.type === 'progress') {
      $('target-progress').value = data.fraction;
      $('target-status').textContent = `${capital(data.stage)}… ${Math.round(100 * data.fraction)} %${data.detail ? ` (${data.detail})` : ''}`;
    } else if (data.type === 'result') {
      stop();
      // 'default' with data files is the 8-bit default's measured error (the worker's goal).
      const goal = data.goal?.ofDefault ? data.goal : message.goal;
      show({ ...data, name, kind: goal.kind, target: goal, decision: message.decision });
    } else if (data.type === 'error') {
      stop();
      setState('error', '');
      showError(data.message);
    }
  };
  worker.onerror = (e) => {
    stop();
    setState('error', '');
    showError(e.message || 'the search\'s worker failed');
  };
  const { goal, ...rest } = message;
  worker.postMessage({ id, ...rest });
}

// --- the evidence ----------------------------------------------------------------------------------

// The target as a line on the plot: an error (decisions changed for an agreement) or a size.
function goalLine(v) {
  const t = v.target;
  if (v.estimated && t.kind !== 'size') return null;
  if (t.kind === 'agree') return { error: 1 - t.value };
  if (t.kind === 'relL2' || t.kind === 'maxAbs') return { error: t.value };
  if (t.kind === 'size') return { bytes: t.bytes ?? (v.originalBytes ? Math.floor(t.fraction * v.originalBytes) : null) };
  return null;
}

// Whether a point meets the target, as far as the page can tell (null: it cannot).
function meets(v, p) {
  const t = v.target, m = p.measured;
  if (t.kind === 'agree') return m ? m.agreement >= t.value : null;
  if (t.kind === 'relL2') return m ? m.relL2 <= t.value : null;
  if (t.kind === 'maxAbs') return m ? m.maxAbs <= t.value : null;
  if (t.kind === 'size') return v.goal?.bytes ? p.bytes <= v.goal.bytes : null;
  return null;
}

const wire = (v) => `${v.objective}${v.quality ? `, quality ${v.quality}` : ''}`;

function targetText(v) {
  const t = v.target;
  if (t.kind === 'agree') return `${(100 * t.value).toPrecision(4)} % of decisions kept`;
  if (t.kind === 'relL2') return `a relative L2 error of at most ${t.value}${t.ofDefault ? ' (the 8-bit default\'s, measured)' : ''}`;
  if (t.kind === 'maxAbs') return `a max abs error of at most ${t.value}`;
  if (t.kind === 'size') {
    return t.bytes ? `at most ${page.formatBytes(t.bytes)}`
      : `at most ${t.fraction} of the original's size${v.goal?.bytes ? ` (${page.formatBytes(v.goal.bytes)})` : ''}`;
  }
  return 'no more error than the 8-bit default, by estimate';
}

// What the chosen file did against the target, as measured on the calibration samples (the
// target itself when it is a size, or without samples).
function achievedText(v, c) {
  const t = v.target, m = c.measured;
  const on = `on the calibration ${v.calibrate === 1 ? 'sample' : 'samples'}`;
  if (t.kind === 'agree' && m?.agreement != null) {
    const aim = v.aim && v.aim.value !== t.value ? `; held to ${(100 * v.aim.value).toPrecision(4)} % there, as decisions near the boundary flip from sample to sample` : '';
    return `${(100 * m.agreement).toFixed(3)} % of decisions kept ${on} (the target: ${(100 * t.value).toPrecision(4)} % or more${aim})`;
  }
  if ((t.kind === 'relL2' || t.kind === 'maxAbs') && m?.[t.kind] != null) {
    return `a ${t.kind === 'relL2' ? 'relative L2' : 'max abs'} error of ${m[t.kind].toPrecision(3)} ${on} (the target: at most ${t.value}${t.ofDefault ? ', the 8-bit default\'s, measured' : ''})`;
  }
  return targetText(v);
}

function samplesText(v) {
  if (!v.samples) return 'No samples: the errors are the search\'s estimates (each tensor\'s rounding noise counted alike), not measurements.';
  if (v.samples === 1) return 'One sample: the search was calibrated and is reported on the same sample (give two or more to hold some back).';
  return `Calibrated on the first ${plural(v.calibrate, 'sample')} of ${v.samples}; the other ${v.samples - v.calibrate} held back, ` +
         `and reported as "held out" below. ${probeText(v)}`;
}

// How the search measured which tensors matter (target.js: chooseProbe).
function probeText(v) {
  if (v.probe === 'activations') {
    return 'Which tensors matter was predicted from one run of the original with its layers\' inputs and outputs as extra outputs ' +
           '(a large model: rounding one tensor at a time would have built too many files).';
  }
  const each = v.probe === 'each' ? 'Which tensors matter was measured by rounding one tensor at a time.' : '';
  const c = v.points[v.chosen];
  const twice = v.scheme ? `It searched with ${searchedPhrase(v.points)}; the chosen file has ${codesPhrase(c)}.` : '';
  return [each, correctionText(v.biasCorrection, (x) => x.toPrecision(3)), roundingText(v.rounding ?? v.searchRounding, (x) => x.toPrecision(3), v.kind === 'size'), twice].filter(Boolean).join(' ');
}

// When the chosen point misses the target on the samples held back: said, as a warning.
function heldOutText(v) {
  const c = v.points[v.chosen];
  if (!v.met || !c.heldOut || meets(v, { ...c, measured: c.heldOut }) !== false) return '';
  const kept = c.heldOut.agreement != null ? `${(100 * c.heldOut.agreement).toFixed(3)} % of decisions kept` : `a relative L2 error of ${c.heldOut.relL2.toPrecision(3)}`;
  return ` On the held-out ${v.samples - v.calibrate === 1 ? 'sample' : 'samples'} the chosen file misses the target (${kept}): ` +
         'the calibration samples do not stand for them well; give more samples, or aim higher.';
}

// Calibration samples that cannot tell files apart (target.js: calibrationDoubts): said, as a warning.
function doubtsText(v) {
  return (v.doubts ?? []).map((d) => ` Beware: ${d}.`).join('');
}

function show(data) {
  const v = { ...data, metric: errorMetric(data.kind, data.estimated) };
  v.goal = goalLine(v);
  v.order = v.points.map((_, i) => i).sort((a, b) => v.points[a].bytes - v.points[b].bytes || a - b);
  v.picked = v.chosen;
  view = v;
  const verdict = $('target-verdict');
  const c = v.points[v.chosen];
  const heldOutMiss = heldOutText(v) !== '';
  verdict.className = `verdict ${v.met && !heldOutMiss && !v.doubts?.length ? 'ok' : 'warn'}`;
  verdict.dataset.heldOut = heldOutMiss ? 'missed' : c.heldOut ? 'met' : 'none';
  verdict.dataset.doubts = String(v.doubts?.length ?? 0);
  verdict.dataset.met = String(v.met);
  verdict.replaceChildren(
    Object.assign(document.createElement('strong'), {
      textContent: v.met ? `Met: ${achievedText(v, c)}, in ${page.formatBytes(c.bytes)} (${wire(v)}).` +
                           `${c.default ? ' No smaller file meets it: this is the 8-bit default\'s own file.' : ''}`
                         : `Not met: ${v.why ?? 'no point tried meets the target'}. The point chosen is the most accurate one tried.` }),
    ' ', samplesText(v), heldOutText(v), doubtsText(v));
  $('target-result').hidden = false;
  $('target-legend-channel').hidden = !v.points.some((p) => p.scheme === 'channel');
  $('target-pick').max = String(v.points.length - 1);
  $('target-pick').value = String(v.order.indexOf(v.picked));
  setState('done', `Done: ${plural(v.points.length, 'point')} tried.`);
  renderTable();
  pick(v.chosen);
}

// Picks point `i` (its index in the search's order): the plot, the slider and the numbers follow.
function pick(i) {
  const v = view;
  if (!v || !v.points[i]) return;
  v.picked = i;
  $('target-pick').value = String(v.order.indexOf(i));
  renderPlot();
  renderPicked();
  for (const tr of $('target-table').tBodies[0].rows) tr.classList.toggle('picked', Number(tr.dataset.index) === i);
}

function renderPlot() {
  const v = view, box = $('target-plot');
  if (!v || box.closest('[hidden]')) return;
  const width = Math.max(280, Math.floor(box.clientWidth));
  const height = Math.round(Math.min(400, Math.max(300, width * 0.5)));
  box.dataset.width = String(width);
  box.replaceChildren(targetPlot({ ...v, width, height, formatBytes: page.formatBytes, onPick: pick }));
}

// Another point's bytes against a reference's, in words: "31.2 % fewer than 8-bit (1.49 MB)".
function against(bytes, ref) {
  const share = (100 * Math.abs(1 - bytes / ref.bytes)).toFixed(1);
  if (share === '0.0') return `the same as ${ref.label} (${page.formatBytes(ref.bytes)})`;
  return `${share} % ${bytes <= ref.bytes ? 'fewer' : 'more'} than ${ref.label} (${page.formatBytes(ref.bytes)})`;
}

function measuredText(m, percentOnly = false) {
  if (!m) return '';
  const parts = [];
  if (m.agreement != null) parts.push(`decisions kept ${(100 * m.agreement).toFixed(3)} %`);
  if (!percentOnly) parts.push(`relative L2 error ${m.relL2.toPrecision(3)}`, `max abs error ${m.maxAbs.toPrecision(3)}`);
  return parts.join(', ');
}

// Which codes a point has, when the search tried more than one kind (target.js: best()), and which
// file past the path's top it is (target.js: BEYOND_PATH).
const codesText = (p) => `${p.scheme ? `, ${codesPhrase(p).replace('the default\'s codes', 'default codes')}` : ''}${p.beyond ? `, ${p.beyond}` : ''}` +
  `${p.default ? ', the 8-bit default\'s own file' : ''}`;

function renderPicked() {
  const v = view, i = v.picked, p = v.points[i];
  const box = $('target-picked');
  const position = v.order.indexOf(i) + 1;
  const lines = [
    `Point ${position} of ${v.points.length} by size${i === v.chosen ? ', the one chosen' : ''}${codesText(p)}: ${page.formatBytes(p.bytes)} ` +
    `(${wire(v)}${v.objective === 'raw' ? '' : `; ${page.formatBytes(p.raw)} uncompressed`})` +
    `${p.bits != null && !p.beyond ? `, ${p.bits.toFixed(2)} bits a value on average in the tensors it chooses for` : ''}, ${v.references.map((r) => against(p.bytes, r)).join(', ')}.`,
  ];
  if (p.measured) {
    lines.push(`${capital(measuredText(p.measured))}${v.samples > 1 ? ` on the calibration ${v.calibrate === 1 ? 'sample' : 'samples'}` : ''}` +
               `${p.heldOut ? `; held out: ${measuredText(p.heldOut)}` : ''}.`);
  } else {
    lines.push(p.predicted == null ? 'No estimate for this file: it is past the search\'s path (more bits than any point on it).'
      : `Estimated relative error ${p.predicted.toPrecision(3)} (no samples to measure on).`);
  }
  const ok = meets(v, p), held = p.heldOut && v.target.kind !== 'size' ? meets(v, { ...p, measured: p.heldOut }) : null;
  if (ok !== null) {
    lines.push(held === null ? `It ${ok ? 'meets' : 'misses'} the target.`
      : `It ${ok ? 'meets' : 'misses'} the target on the calibration ${v.calibrate === 1 ? 'sample' : 'samples'}, ` +
        `and ${held ? 'meets' : 'misses'} it on the held-out ${v.samples - v.calibrate === 1 ? 'one' : 'ones'}.`);
  }
  box.replaceChildren(...lines.map((text) => Object.assign(document.createElement('p'), { textContent: text })));
  // For tools (the page's test reads them): the numbers shown, unrounded.
  Object.assign(box.dataset, { index: String(i), bytes: String(p.bytes), raw: String(p.raw), objective: v.objective,
                               quality: String(v.quality ?? ''), chosen: String(i === v.chosen),
                               relL2: String(p.measured?.relL2 ?? ''), maxAbs: String(p.measured?.maxAbs ?? ''),
                               agreement: String(p.measured?.agreement ?? ''), heldOutRelL2: String(p.heldOut?.relL2 ?? ''),
                               heldOutAgreement: String(p.heldOut?.agreement ?? '') });
  $('target-pick').setAttribute('aria-valuetext', `${page.formatBytes(p.bytes)}, ${v.metric.label} ${formatError(v.metric.of(p), v.metric.percent)}` +
                                                  `${i === v.chosen ? ', chosen' : ''}`);
  $('target-save-note').textContent = `${v.name}.target.onnx, ${page.formatBytes(p.raw)}`;
}

// Every point tried, by size, with the references under them.
function renderTable() {
  const v = view;
  const cell = (text, tag = 'td') => Object.assign(document.createElement(tag), { textContent: text });
  const err = (m, key) => (m?.[key] == null ? '–' : key === 'agreement' ? `${(100 * m[key]).toFixed(3)} %` : m[key].toPrecision(3));
  const row = (p, label) => [cell(label, 'th'), cell(page.formatBytes(p.bytes)), cell(page.formatBytes(p.raw)),
    cell(p.measured ? err(p.measured, 'relL2') : p.predicted != null ? `${p.predicted.toPrecision(3)} (estimate)` : '–'),
    cell(err(p.measured, 'maxAbs')), cell(err(p.measured, 'agreement')), cell(err(p.heldOut, v.target.kind === 'agree' ? 'agreement' : 'relL2'))];
  const body = v.order.map((i, k) => {
    const tr = document.createElement('tr');
    tr.dataset.index = String(i);
    tr.append(...row(v.points[i], `${k + 1}${i === v.chosen ? ' (chosen)' : ''}${codesText(v.points[i])}`));
    tr.cells[0].scope = 'row';
    return tr;
  });
  const refs = v.references.map((r) => {
    const tr = document.createElement('tr');
    tr.className = 'reference';
    tr.dataset.ref = r.key;
    tr.append(...row(r, r.label));
    tr.cells[0].scope = 'row';
    return tr;
  });
  $('target-table').tBodies[0].replaceChildren(...body, ...refs);
  $('target-heldout-head').textContent = `Held out (${v.target.kind === 'agree' ? 'decisions kept' : 'relative L2'})`;
}

function save() {
  const v = view;
  if (!v) return;
  page.download(v.points[v.picked].file, `${v.name}.target.onnx`);
}

// The search as the exported report keeps it (no files).
export function targetEvidence() {
  const v = view;
  if (!v) return null;
  const point = ({ file, ...p }) => p;
  return { target: v.target, decision: v.decision, objective: v.objective, brotliQuality: v.quality, met: v.met, estimated: v.estimated, probe: v.probe, biasCorrection: v.biasCorrection, rounding: v.rounding, scheme: v.scheme, why: v.why,
           samples: v.samples, calibrate: v.calibrate, doubts: v.doubts ?? [], chosen: v.chosen, picked: v.picked, tensorBits: v.tensorBits,
           points: v.points.map(point), references: v.references.map(point) };
}

export function initTarget(hooks) {
  page = hooks;
  $('target-kind').addEventListener('change', showKind);
  // A result shown stays, said to be of the settings before.
  for (const id of ['target-kind', 'target-value', 'target-objective', 'target-decision']) {
    $(id).addEventListener('change', () => {
      if ($('target').dataset.state !== 'done') return;
      $('target-status').textContent = 'The target\'s settings changed since the result below: press "Find the smallest file" to search with them.';
      $('target').dataset.stale = 'true';
    });
  }
  $('target-run').addEventListener('click', start);
  $('target-cancel').addEventListener('click', cancel);
  $('target-save').addEventListener('click', save);
  $('target-pick').addEventListener('input', () => view && pick(view.order[Number($('target-pick').value)]));
  let width = 0;
  new ResizeObserver(() => {
    const now = $('target-plot').clientWidth;
    if (now !== width) (width = now), renderPlot();
  }).observe($('target-plot'));
  showKind();
  setState('idle', '');
}
