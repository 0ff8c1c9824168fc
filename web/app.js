// The page: files in, options, progress, results. The work happens in worker.js (the engine),
// check.js (onnxruntime-web, on demand) and target-worker.js (both, for a target); the accuracy
// check's section is check-view.js, the target's target-view.js, and format.js writes the numbers.
// This thread only keeps the page responsive.

import { DEFAULTS, OPTION, OPTIONS, words } from './vendor/onnx-shrink/bindings/js/options.js';
import { initTarget, resetTarget, targetEvidence } from './target-view.js';
import { checkEvidence, checkInputs, guessedNow, initCheck, renderCheckInputs, renderGuessNote, resetCheck, thresholdValue } from './check-view.js';
import { capital, downloadCost, formatBytes, money, samplesText, sizeChange } from './format.js';

const $ = (id) => document.getElementById(id);
const state = { files: [], result: null, worker: null, spare: null, run: 0, sort: { key: null, down: false } };

// --- options -----------------------------------------------------------------------------------

// What the scheme list says of each scheme of each mode (the schemes themselves come from options.js).
const SCHEME_HELP = {
  int8: { auto: 'per channel, with input-channel factors and codebooks', channel: 'plain per-channel codes',
          tensor: 'one scale per tensor, as the original Shrink Ray' },
  palette: { auto: 'even levels, unless designed levels are 1 dB better', kmeans: 'designed levels for every tensor',
             uniform: 'even levels, as the original Shrink Ray' },
};
const chosenMode = () => document.querySelector('input[name=mode]:checked').value;

// The options as shrink() takes them, for the mode chosen (or `mode`). A control's id is its
// option's CLI flag without the dashes; the options of the other mode are left out (the engine
// refuses a block in palette mode). The scheme list is the chosen mode's: another mode gets its default.
function options(mode = chosenMode()) {
  const o = {
    mode,
    scheme: (mode === chosenMode() && $('scheme').value) || DEFAULTS.scheme,
    levels: 2 ** Number($('levels').value),  // the slider gives the power of two
    block: Number($('block').value),
    form: $('form').value,
    bits: $('bits').value === 'auto' ? 'auto' : Number($('bits').value),
    small: $('small').value,
    minElements: minElements(),
    externalData: $('external-data').value,
    exclude: [...$('exclude').selectedOptions].map((x) => x.value),
  };
  for (const option of OPTIONS) if (option.mode && option.mode !== mode) delete o[option.key];
  return o;
}

// The smallest tensor to shrink, as the field gives it: at least 1 (0 shrinks what 1 does), the
// default when empty; the field then shows the number used.
function minElements() {
  const field = $('min-elements'), n = Math.round(Number(field.value));
  const used = field.value.trim() === '' || !Number.isFinite(n) ? DEFAULTS.minElements : Math.max(1, n);
  if (field.value !== String(used)) field.value = String(used);
  return used;
}

// The scheme list follows the mode; a scheme both modes have (auto) stays chosen.
function showSchemes() {
  const mode = chosenMode();
  const select = $('scheme');
  if (select.dataset.mode === mode) return;
  const chosen = select.value;
  const schemes = words(OPTION.scheme, mode);
  const label = (s) => `${s}${SCHEME_HELP[mode][s] ? `: ${SCHEME_HELP[mode][s]}` : ''}${s === DEFAULTS.scheme ? ' (default)' : ''}`;
  select.replaceChildren(...schemes.map((s) => new Option(label(s), s, false, s === chosen)));
  if (!schemes.includes(chosen)) select.value = DEFAULTS.scheme;
  select.dataset.mode = mode;
}

function showLevels() {
  showSchemes();
  const mode = chosenMode();
  $('levels-row').hidden = mode !== OPTION.levels.mode;
  $('levels-value').textContent = String(2 ** Number($('levels').value));
  // The controls of the other mode's options are off.
  for (const option of OPTIONS) {
    const control = option.mode && option.flag && $(option.flag.slice(2));
    if (control) control.disabled = option.mode !== mode;
  }
}

// --- running -----------------------------------------------------------------------------------

const FRIENDLY = {
  NOT_ONNX: 'This file is not an ONNX model.',
  TRUNCATED: 'This model file is cut short (truncated): download it again.',
  MALFORMED: 'This ONNX model is damaged or invalid.',
  UNSUPPORTED: 'This model cannot be shrunk with these settings.',
  EXTERNAL_DATA_MISSING: 'This model keeps its weights in a separate file.',
  EXTERNAL_DATA_INVALID: 'The external data file does not match the model.',
  TOO_LARGE: 'The result is too large for one file.',
  OUT_OF_MEMORY: 'This model needs more memory than this browser tab can give.',
  BAD_OPTION: 'These settings are not valid.',
  INTERNAL: 'onnx-shrink failed on this model: a bug of ours. The detail below says where.',
  NO_MODEL: 'No model among the files.',
  MANY_MODELS: 'One model at a time.',
};

function showError(code, message) {
  const box = $('error');
  box.replaceChildren();
  const head = document.createElement('strong');
  head.textContent = FRIENDLY[code] || 'Something went wrong.';
  const detail = document.createElement('p');
  detail.textContent = message;
  box.append(head, detail);
  if (code === 'EXTERNAL_DATA_MISSING') {
    const name = /file '([^']+)'/.exec(message)?.[1];
    const hint = document.createElement('p');
    hint.textContent = name ? `Drop "${name}" together with the model.` : 'Drop it together with the model.';
    box.append(hint);
  }
  box.hidden = false;
}

function setBusy(busy, text = '') {
  $('progress').hidden = !busy;
  $('cancel').hidden = !busy;
  $('status').textContent = text;
}

function stopWorker() {
  state.worker?.terminate();
  state.worker = null;
  setTimeout(prepareSpare);  // unless a run takes its place at once
}

// The next run's engine worker, started while the page waits and warmed on a small model of its
// own (warm_up.js: the engine's hot code is then optimized before the user's model comes). Only
// while no run is going: on a machine with two cores a warm-up beside a run would slow it.
function prepareSpare() {
  if (state.spare || state.worker) return;
  const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  state.spare = worker;
  worker.onmessage = ({ data }) => {
    if (data.type === 'warm' && state.spare === worker) document.body.dataset.engineWarm = 'yes';
  };
  worker.postMessage({ id: 0, warm: true });
}

function takeSpare() {
  const worker = state.spare;
  state.spare = null;
  delete document.body.dataset.engineWarm;
  return worker;
}

// Runs `message` in an engine worker (a shrink, or a measurement of sizes only), the spare one
// when there is one; its messages update the page while it is the latest run.
function runWorker(message, text) {
  stopWorker();
  const id = ++state.run;
  const worker = takeSpare() ?? new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  state.worker = worker;
  $('error').hidden = true;
  $('progress').value = 0;
  setBusy(true, text);
  worker.onmessage = ({ data }) => {
    if (data.id !== state.run) return;
    if (data.type === 'progress') {
      // Each stage (reading, writing, measuring compressed sizes) fills the bar from 0 to 1.
      $('progress').value = data.fraction;
      $('status').textContent = `${data.stage[0].toUpperCase()}${data.stage.slice(1)}… ${Math.round(100 * data.fraction)} %`;
    } else if (data.type === 'result') {
      // Shrunk: the result can be saved while the worker measures the compressed sizes.
      for (const url of objectUrls.splice(0)) URL.revokeObjectURL(url);
      state.result = { ...data, options: message.options };
      markStale(false);
      $('progress').value = 0;
      $('status').textContent = 'Shrunk. Measuring compressed sizes…';
      render();
    } else if (data.type === 'sizes') {
      if (!state.result) return;
      state.result.sizes = data.sizes;
      renderSizes();
      renderCost();
      if (data.final) {
        stopWorker();
        setBusy(false, 'Done.');
      }
    } else if (data.type === 'error') {
      stopWorker();
      setBusy(false, '');
      hideResult();  // it was made from other files or options: nothing to save by mistake
      // Named after the model it is about (its file name is not in the engine's words).
      const model = message.files?.find((f) => /\.onnx$/i.test(f.name));
      showError(data.code, model ? `${model.name}: ${data.message}` : data.message);
    }
  };
  worker.onerror = (e) => {
    stopWorker();
    setBusy(false, '');
    hideResult();
    showError('INTERNAL', e.message || 'The worker failed.');
  };
  worker.postMessage({ id, ...message });
}

function start() {
  if (!state.files.length) return;
  if (state.result) markStale(true);
  runWorker({ files: state.files, options: options() }, 'Starting…');
}

// A run with other settings: the result shown is the earlier settings' until the new one comes, so
// it is dimmed and cannot be saved or exported meanwhile (cancel puts it away).
function markStale(on) {
  if (on) $('results').dataset.stale = 'true';
  else delete $('results').dataset.stale;
  for (const id of ['save', 'save-data', 'export-json', 'export-summary', 'measure']) $(id).disabled = on;
}

// Measures the compressed sizes of the result shown again (after a cancelled measurement).
function measureAgain() {
  const r = state.result;
  if (!r?.blobs) return;
  r.sizes = { original: { raw: r.sizes.original.raw }, shrunk: { raw: r.sizes.shrunk.raw } };
  renderSizes();
  renderCost();
  runWorker({ measure: r.blobs }, 'Measuring compressed sizes…');
}

function cancel() {
  stopWorker();
  state.run++;
  if ($('results').dataset.stale) {
    // The result shown was made with the settings before the change: nothing to save by mistake.
    hideResult();
    setBusy(false, 'Cancelled. Change a setting, or choose the file again, to shrink it.');
    return;
  }
  // Sizes not measured yet stay so: the page says so, and offers to measure them.
  const sizes = state.result?.sizes;
  if (sizes && sizes.brotliQuality === undefined) {
    sizes.stopped = true;
    renderSizes();
    renderCost();
  }
  setBusy(false, 'Cancelled.');
}

function hideResult() {
  state.result = null;
  markStale(false);
  $('results').hidden = true;
  resetTarget();
}

function loadFiles(files) {
  files = [...files];
  if (!files.length) return;
  state.files = files;
  hideResult();  // the last model's result is not this one's
  $('exclude').replaceChildren();
  $('loaded').textContent = files.map((f) => `${f.name} (${formatBytes(f.size)})`).join(', ');
  start();
}

// One sentence on what was done; the sizes table below has the numbers.
function summaryText(report, bits = DEFAULTS.bits) {
  if (report.unchanged) return report.summary;
  const n = report.totals.tensorsChanged, tensors = `${n} tensor${n === 1 ? '' : 's'}`;
  return report.mode === 'palette'
    ? `Rounded ${tensors} to a palette of values: the file keeps its size and compresses far better.`
    : `Stored ${tensors} as ${codesText(report.tensors.filter((t) => t.changed).map((t) => t.bits))}, turned back into floats when the model loads.` +
      (bits === 'auto' && report.tensors.some((t) => t.changed && t.bits > 8)
        ? ' The 9th and 10th bits are the 8-bit mode\'s own: the bytes float16 saves on the small tensors pay for them, so the file is no larger than with 8-bit codes and the small tensors kept.'
        : '');
}

// "8-bit codes", "codes of 8 to 10 bits" (the bits each changed tensor got).
function codesText(bits) {
  const known = bits.filter((b) => Number.isInteger(b));
  const [lo, hi] = [Math.min(...known), Math.max(...known)];
  return !known.length || lo === hi ? `${known.length ? lo : 8}-bit codes` : `codes of ${lo} to ${hi} bits`;
}

// The sample model comes with its real input, set up for "Check accuracy": silero VAD streamed
// as in use, 6.7 s of speech in chunks of 512 samples at 16 kHz, the LSTM state starting at zero
// and fed back from stateN; a chunk is speech when its probability is over 0.5.
const SAMPLE = {
  model: 'silero_vad_v5.onnx',
  data: 'speech.f32',
  inputs: { input: { shape: '1x512', data: true }, state: { shape: '2x1x128', value: '0', feedBack: 'stateN' }, sr: { value: '16000' } },
  threshold: '0.5',
  note: 'Set up for the sample: 208 chunks of synthetic speech (espeak-ng), the state fed back, speech when p > 0.5.',
};

async function loadSample() {
  $('status').textContent = 'Loading the sample…';
  let model, data;
  try {
    [model, data] = await Promise.all([SAMPLE.model, SAMPLE.data].map(async (name) => {
      const response = await fetch(`samples/${name}`);
      if (!response.ok) throw new Error(`samples/${name}: ${response.status} ${response.statusText}`);
      return new File([await response.blob()], name);
    }));
  } catch (e) {
    stopWorker();
    state.run++;
    setBusy(false, '');
    hideResult();  // no result under an error
    showError('INTERNAL', `Could not load the sample: ${e.message}`);
    return;
  }
  loadFiles([model]);
  state.checkPreset = { files: state.files, data };
}

// Fills the check's inputs as SAMPLE says, when the model shown is the sample.
function applyCheckPreset() {
  const preset = state.checkPreset;
  if (!preset || preset.files !== state.files) return;
  state.result.report.model.inputs.forEach((input, i) => {
    const set = SAMPLE.inputs[input.name];
    if (!set) return;
    if (set.shape) {
      $(`check-shape-${i}`).value = set.shape;
      $(`check-shape-${i}`).dataset.edited = 'yes';  // set, not guessed: the data holds many samples
    }
    if (set.value) $(`check-value-${i}`).value = set.value;
    if (set.feedBack) $(`check-feed-${i}`).value = set.feedBack;
    if (set.data) {
      const files = new DataTransfer();
      files.items.add(preset.data);
      $(`check-file-${i}`).files = files.files;
    }
  });
  $('check-threshold').value = SAMPLE.threshold;
  $('check-status').textContent = SAMPLE.note;
}

// --- results -----------------------------------------------------------------------------------

function render() {
  const r = state.result;
  if (!r) return;
  $('results').hidden = false;
  // Files dropped with the model that it does not refer to: not part of it, and not in its size.
  const unused = r.unused?.length ? ` Not used: ${r.unused.join(', ')} (the model refers to no such external data file; not counted in the original's size).` : '';
  $('summary').textContent = summaryText(r.report, r.options?.bits ?? DEFAULTS.bits) + unused;
  // 8-bit codes in the fold form are turned back into floats when a session is created.
  $('load-note').hidden = r.report.unchanged || r.report.mode !== 'int8' || (r.options?.form ?? DEFAULTS.form) !== 'fold';
  // For measurements (the benchmark reads them): the engine's time and its peak WebAssembly memory.
  $('summary').dataset.engineMs = String(r.engine.ms);
  $('summary').dataset.wasmBytes = String(r.engine.wasmBytes);
  $('summary').dataset.engineWarmed = String(Boolean(r.engine.warmed));
  renderSizes();
  $('save-note').textContent = r.externalData
    ? `${r.name}.shrunk.onnx (${formatBytes(r.model.size)}) and its weights, ${r.name}.shrunk.onnx.data ` +
      `(${formatBytes(r.externalData.size)}): save both, into one folder`
    : `${r.name}.shrunk.onnx, ${formatBytes(r.model.size)}` +
      // A separate .data file asked for, and none made: the engine's report says why.
      (r.options?.externalData === 'external' ? `: one file. ${/No tensor went to external data[^.]*\./.exec(r.report.summary)?.[0] ?? ''}` : '');
  $('save').textContent = r.externalData ? 'Save the model' : 'Save';
  $('save-data').hidden = !r.externalData;
  renderCost();
  renderBreakdown();
  renderTensors();
  if (!$('exclude').options.length) {
    for (const t of r.report.tensors) $('exclude').append(new Option(t.name, t.name));
  }
  // A new result: its check is to be run again (check-view.js), and the inputs set up for checks
  // stay while the model is the same.
  resetCheck();
  if (state.checkInputsFor !== state.files) {
    renderCheckInputs();
    $('check-threshold').value = '';  // a threshold is the model's: a new model starts without one
    applyCheckPreset();
  }
  if (state.checkInputsFor !== state.files) resetTarget();  // the last model's search is not this one's
  state.checkInputsFor = state.files;
  renderGuessNote();
  updateScrollCues();
}

const KINDS = { raw: 'File', gzip: 'gzip', brotli: 'brotli' };
const unmeasured = (sizes) => (sizes.stopped ? 'not measured' : 'measuring…');

// Sizes as far as the worker has measured them ("measuring…" for the rest, or "not measured"
// when the measurement was cancelled), in the table and the chart.
function renderSizes() {
  const sizes = state.result.sizes;
  for (const kind of Object.keys(KINDS)) {
    for (const which of ['original', 'shrunk']) {
      const cell = document.querySelector(`[data-size="${which}-${kind}"]`);
      const bytes = sizes[which][kind];
      cell.textContent = bytes == null ? unmeasured(sizes) : formatBytes(bytes);
      if (bytes == null) delete cell.dataset.bytes;
      else cell.dataset.bytes = String(bytes);
    }
    const known = sizes.original[kind] != null && sizes.shrunk[kind] != null;
    // "2.8× smaller, saves 64.2 %", in two pieces that wrap between them only.
    const parts = known ? sizeChange(sizes.original[kind], sizes.shrunk[kind], { saves: true }).split(/(?<=,) /) : [];
    document.querySelector(`[data-saving="${kind}"]`).replaceChildren(...parts.flatMap((text, i) => {
      const span = document.createElement('span');
      span.textContent = text;
      return i ? [' ', span] : [span];
    }));
  }
  $('brotli-note').textContent = `Sizes in bytes (1 kB = 1000 B). ` +
    (sizes.brotliQuality ? `Brotli at quality ${sizes.brotliQuality}; gzip as the browser compresses (a server's gzip -9 is a few percent smaller).`
     : sizes.stopped ? 'The measurement of the compressed sizes was cancelled.' : 'Compressed sizes are being measured.');
  $('measure').hidden = !(sizes.stopped && state.result.blobs);
  renderChart();
}

// The sizes as bars: original and shrunk for each of file, gzip and brotli, all on one scale (the
// original file), so that both the ratio and what compression does show at a glance.
function renderChart() {
  const sizes = state.result.sizes;
  const scale = sizes.original.raw || 1;
  const groups = Object.entries(KINDS).map(([kind, label]) => {
    const group = document.createElement('div');
    group.className = 'chart-group';
    group.dataset.kind = kind;
    const title = document.createElement('div');
    title.className = 'chart-title';
    title.textContent = label;
    group.append(title);
    for (const which of ['original', 'shrunk']) {
      const bytes = sizes[which][kind];
      const row = document.createElement('div');
      row.className = `chart-row ${which}`;
      const name = document.createElement('span');
      name.className = 'chart-name';
      name.textContent = which === 'original' ? 'Original' : 'Shrunk';
      const track = document.createElement('span');
      track.className = 'chart-track';
      const fill = document.createElement('span');
      fill.className = `chart-fill${bytes == null ? ' pending' : ''}`;
      // A property set from script, which the page's style-src 'self' allows (style attributes it does not).
      fill.style.width = `${bytes == null ? 100 : Math.max(0.5, Math.min(100, (100 * bytes) / scale))}%`;
      track.append(fill);
      const value = document.createElement('span');
      value.className = 'chart-value';
      value.textContent = bytes == null ? unmeasured(sizes)
        : which === 'shrunk' && sizes.original[kind] != null ? `${formatBytes(bytes)}, ${sizeChange(sizes.original[kind], bytes)}` : formatBytes(bytes);
      row.append(name, track, value);
      group.append(row);
    }
    return group;
  });
  $('size-chart').querySelector('.chart-rows').replaceChildren(...groups);
}

// Where the bytes of the files go, before and after: the tensors the report lists (shrunk, or
// left as they were), the smaller tensors (under minElements; float16 where it holds them) and the
// rest (the graph, names, shapes, integer tensors, padding): the files' bytes minus the tensors'.
export function byteBreakdown(report, sizes) {
  const t = report.totals;
  const sum = (list, key) => list.reduce((a, x) => a + x[key], 0);
  const changed = report.tensors.filter((x) => x.changed), kept = report.tensors.filter((x) => !x.changed);
  const part = (key, small, total) => {
    const p = { changed: sum(changed, key), kept: sum(kept, key), small, total };
    p.graph = Math.max(0, total - p.changed - p.kept - p.small);
    return p;
  };
  const before = part('bytesBefore', t.smallTensorBytes ?? 0, sizes.original.raw ?? t.modelBytesBefore + t.externalBytesBefore);
  const after = part('bytesAfter', t.smallTensorBytesAfter ?? t.smallTensorBytes ?? 0, sizes.shrunk.raw ?? t.modelBytesAfter + t.externalBytesAfter);
  return { before, after, changed: changed.length, kept: kept.length, small: t.smallTensors ?? 0, smallFp16: t.smallTensorsFp16 ?? 0 };
}

const plural = (count, what) => `${count} ${what}${count === 1 ? '' : 's'}`;

// The parts of byteBreakdown that hold bytes, with what the page calls them.
function breakdownParts(b, mode) {
  return [
    { key: 'changed', label: `${plural(b.changed, 'large tensor')}, ${mode === 'palette' ? 'rounded to a palette (same raw size)' : 'shrunk'}` },
    { key: 'kept', label: `${plural(b.kept, 'large tensor')}, left as they were` },
    { key: 'small', label: `${plural(b.small, 'smaller tensor')}${b.smallFp16 ? `, ${b.smallFp16} of them now float16` : ''}` },
    { key: 'graph', label: 'graph and the rest (nodes, names, other tensors)' },
  ].filter((p) => b.before[p.key] || b.after[p.key]);
}

// "Where the bytes go": the original and the shrunk file as stacked bars on one scale, and a
// legend with each part's bytes before and after.
function renderBreakdown() {
  const r = state.result;
  const b = byteBreakdown(r.report, r.sizes);
  const parts = breakdownParts(b, r.report.mode);
  const scale = b.before.total || 1;
  const stack = (which, label) => {
    const row = document.createElement('div');
    row.className = 'chart-row';
    const name = document.createElement('span');
    name.className = 'chart-name';
    name.textContent = label;
    const track = document.createElement('span');
    track.className = 'chart-track stack';
    for (const p of parts) {
      const seg = document.createElement('span');
      seg.className = `seg seg-${p.key}`;
      seg.style.width = `${(100 * b[which][p.key]) / scale}%`;
      track.append(seg);
    }
    const value = document.createElement('span');
    value.className = 'chart-value';
    value.textContent = formatBytes(b[which].total);
    row.append(name, track, value);
    return row;
  };
  $('breakdown').querySelector('.stack-rows').replaceChildren(stack('before', 'Original'), stack('after', 'Shrunk'));
  $('breakdown').querySelector('.legend').replaceChildren(...parts.map((p) => {
    const li = document.createElement('li');
    li.dataset.part = p.key;
    const swatch = document.createElement('span');
    swatch.className = `swatch seg-${p.key}`;
    swatch.setAttribute('aria-hidden', 'true');
    const before = b.before[p.key], after = b.after[p.key];
    li.append(swatch, `${p.label[0].toUpperCase()}${p.label.slice(1)}: ${formatBytes(before)} → ${formatBytes(after)}` +
              (before !== after ? ` (${sizeChange(before, after)})` : ''));
    return li;
  }));
}

// A number field of the costs: its value, or NaN (and the field marked invalid, with the problem)
// when it is empty, negative or not a number; `whole`: only whole numbers.
function costField(id, what, whole) {
  const field = $(id);
  const text = field.value.trim(), value = Number(text);
  const problem = text === '' || field.validity.badInput || !Number.isFinite(value) ? `${what}: enter a number`
    : value < 0 ? `${what} cannot be negative` : whole && !Number.isInteger(value) ? `${what}: enter a whole number` : '';
  field.setAttribute('aria-invalid', problem ? 'true' : 'false');
  return { value: problem ? NaN : value, problem };
}

// What the costs of compressed sizes assume of the host, and how to get it.
function renderServedNote() {
  const served = $('served').value;
  $('served-note').textContent = served === 'raw'
    ? 'Uncompressed: what a host sends that does not compress .onnx files (application/octet-stream), as many do not.'
    : `This assumes your host sends the model ${served}-compressed, with the header "Content-Encoding: ${served === 'brotli' ? 'br' : 'gzip'}". ` +
      'Many hosts do not compress .onnx files (application/octet-stream): look at the response headers of your model in ' +
      "the browser's network panel. To get it, turn on compression for .onnx files (or application/octet-stream) on your " +
      'server or CDN, or serve precompressed files: model.onnx.br and model.onnx.gz beside model.onnx (the build plugins ' +
      "write them with precompress: ['br', 'gzip']), sent with their Content-Encoding for browsers that accept it.";
}

function renderCost() {
  renderServedNote();
  const price = costField('price', 'The price', false), downloads = costField('downloads', 'Downloads per month', true);
  const problems = [price.problem, downloads.problem].filter(Boolean);
  $('cost-error').textContent = problems.length ? `${problems.join('. ')}.` : '';
  $('cost-error').hidden = !problems.length;
  const r = state.result;
  if (!r) return;
  const served = $('served').value;
  const measured = r.sizes.original[served] != null && r.sizes.shrunk[served] != null;
  const before = downloadCost(r.sizes.original[served] ?? NaN, price.value, downloads.value);
  const after = downloadCost(r.sizes.shrunk[served] ?? NaN, price.value, downloads.value);
  const cells = {
    'before-month': before.month, 'before-year': before.year, 'after-month': after.month, 'after-year': after.year,
    'save-month': before.month - after.month, 'save-year': before.year - after.year,
  };
  for (const [k, v] of Object.entries(cells)) {
    document.querySelector(`[data-cost="${k}"]`).textContent =
      problems.length ? '–' : measured ? money(v) : r.sizes.stopped ? 'not measured' : '…';
  }
}

function renderTensors() {
  const tbody = $('tensors').querySelector('tbody');
  const rows = [...state.result.report.tensors];
  const { key, down } = state.sort;
  if (key) {
    const value = (t) => (key === 'shape' ? t.shape.reduce((a, b) => a * b, 1) : key === 'sqnrDb' ? (t.exact ? Infinity : t.sqnrDb ?? -Infinity) : t[key] ?? '');
    rows.sort((a, b) => {
      const x = value(a), y = value(b);
      const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
      return down ? -c : c;
    });
  }
  tbody.replaceChildren(...rows.map((t) => {
    const tr = document.createElement('tr');
    tr.className = t.changed ? 'changed' : 'kept';
    const cells = [t.name, `[${t.shape.join(', ')}]`, t.dtype, formatBytes(t.bytesBefore), formatBytes(t.bytesAfter),
                   t.changed ? t.scheme + (t.levels ? ` (${t.levels})` : '') + (t.bits ? `, ${t.bits} bits` : '') + (t.reason ? `; ${t.reason}` : '')
                             : `kept: ${t.reason}`,
                   t.changed ? (t.exact ? 'exact' : t.sqnrDb?.toFixed(1) ?? '–') : '–'];
    for (const c of cells) {
      const td = document.createElement('td');
      td.textContent = c;
      tr.append(td);
    }
    return tr;
  }));
  for (const th of $('tensors').querySelector('thead').querySelectorAll('th')) {
    const b = th.querySelector('button');
    th.setAttribute('aria-sort', b.dataset.sort === key ? (down ? 'descending' : 'ascending') : 'none');
  }
  renderTensorTotals();
}

// The rows under the tensors that make the table add up to the files: the tensors above, the
// smaller ones, the graph and the rest, and the total (the file sizes).
function renderTensorTotals() {
  const r = state.result;
  const b = byteBreakdown(r.report, r.sizes);
  const rows = [
    { part: 'large', name: `The ${plural(r.report.tensors.length, 'tensor')} above`, before: b.before.changed + b.before.kept,
      after: b.after.changed + b.after.kept, note: `${b.changed} shrunk${b.kept ? `, ${b.kept} kept` : ''}` },
    { part: 'small', name: plural(b.small, 'smaller tensor'), before: b.before.small, after: b.after.small,
      note: b.smallFp16 ? `${b.smallFp16} as float16, ${b.small - b.smallFp16} kept` : 'kept', names: r.report.float16Tensors },
    { part: 'graph', name: 'Graph and the rest', before: b.before.graph, after: b.after.graph, note: 'nodes, names, other tensors' },
    { part: 'total', name: 'Total', before: b.before.total, after: b.after.total, note: sizeChange(b.before.total, b.after.total, { saves: true }) },
  ];
  $('tensors').querySelector('tfoot').replaceChildren(...rows.map((row) => {
    const tr = document.createElement('tr');
    tr.dataset.part = row.part;
    const name = document.createElement('th');
    name.scope = 'row';
    name.colSpan = 3;
    name.textContent = row.name;
    tr.append(name);
    for (const [text, bytes] of [[formatBytes(row.before), row.before], [formatBytes(row.after), row.after], [row.note], ['']]) {
      const td = document.createElement('td');
      td.textContent = text;
      if (bytes !== undefined) td.dataset.bytes = String(bytes);
      tr.append(td);
    }
    if (row.names?.length) tr.children[3].replaceChildren(float16Names(row.note, row.names));
    return tr;
  }));
}

// The small tensors stored as float16, named under their row's note (subgraphs' by their graph).
function float16Names(note, names) {
  const details = document.createElement('details');
  details.className = 'float16-names';
  const summary = document.createElement('summary');
  summary.textContent = note;
  const list = document.createElement('ul');
  for (const t of names) {
    const li = document.createElement('li');
    li.textContent = t.graph === 'main' ? t.name : `${t.name} (in ${t.graph})`;
    list.append(li);
  }
  details.append(summary, list);
  return details;
}

// Object URLs live until the next result: revoking one while a large download still reads from
// it would cut the download short.
const objectUrls = [];
function download(blob, name) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  objectUrls.push(a.href);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
}

function save() {
  const r = state.result;
  if (!r) return;
  download(r.model, `${r.name}.shrunk.onnx`);
}

// The external data file: a button of its own, as browsers ask before a second download per click.
function saveData() {
  const r = state.result;
  if (!r?.externalData) return;
  download(r.externalData, `${r.name}.shrunk.onnx.data`);
}

// --- the report, exported ----------------------------------------------------------------------

// Everything the page knows of the result, as one object: the files, the options, the sizes and
// what they cost, where the bytes go, the last check or comparison of schemes, and the engine's
// report.
function exportedReport() {
  const r = state.result;
  const { sizes } = r;
  const served = $('served').value;
  const price = costField('price', 'The price', false).value, downloads = costField('downloads', 'Downloads per month', true).value;
  const cost = (bytes) => (bytes == null || Number.isNaN(price) || Number.isNaN(downloads) ? null : downloadCost(bytes, price, downloads));
  return {
    tool: 'onnx-shrink', version: r.report.version, madeBy: 'the onnx-shrink web page',
    files: state.files.map((f) => ({ name: f.name, bytes: f.size })),
    result: { name: `${r.name}.shrunk.onnx`, bytes: r.model.size,
              ...(r.externalData ? { dataFile: { name: `${r.name}.shrunk.onnx.data`, bytes: r.externalData.size } } : {}) },
    options: r.options,
    sizes: {
      original: sizes.original, shrunk: sizes.shrunk, brotliQuality: sizes.brotliQuality ?? null,
      change: Object.fromEntries(Object.keys(KINDS).map((k) => [k, sizes.original[k] != null && sizes.shrunk[k] != null
        ? { ratio: sizes.original[k] / sizes.shrunk[k], text: sizeChange(sizes.original[k], sizes.shrunk[k], { saves: true }) } : null])),
    },
    breakdown: byteBreakdown(r.report, sizes),
    cost: { pricePerGiB: Number.isNaN(price) ? null : price, downloadsPerMonth: Number.isNaN(downloads) ? null : downloads, servedAs: served,
            original: cost(sizes.original[served]), shrunk: cost(sizes.shrunk[served]) },
    ...checkEvidence(),
    target: targetEvidence(),
    report: r.report,
  };
}

// The same as a readable summary (Markdown).
export function summaryMarkdown(x) {
  const bytes = (n) => (n == null ? 'not measured' : `${formatBytes(n)} (${n.toLocaleString('en-US')} B)`);
  const row = (cells) => `| ${cells.join(' | ')} |`;
  const lines = [`# onnx-shrink: ${x.files.map((f) => f.name).join(' + ')}`, ''];
  const changed = Object.entries(x.options ?? {}).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(DEFAULTS[k]));
  lines.push(`Shrunk in the onnx-shrink web page (version ${x.version}) into ${x.result.name}` +
             `${x.result.dataFile ? ` and ${x.result.dataFile.name}` : ''}; mode ${x.options?.mode ?? x.report.mode}` +
             `${changed.length ? `, ${changed.filter(([k]) => k !== 'mode').map(([k, v]) => `${k} ${Array.isArray(v) ? v.join(', ') || 'none' : v}`).join(', ')}` : ''}.`,
             '', summaryText(x.report, x.options?.bits ?? DEFAULTS.bits), '', '## Sizes', '',
             row(['', 'Original', 'Shrunk', 'Smaller by']), row(['---', '---:', '---:', '---']));
  for (const [k, label] of Object.entries(KINDS)) {
    lines.push(row([k === 'brotli' && x.sizes.brotliQuality ? `brotli (quality ${x.sizes.brotliQuality})` : label,
                    bytes(x.sizes.original[k]), bytes(x.sizes.shrunk[k]), x.sizes.change[k]?.text ?? '–']));
  }
  const b = x.breakdown;
  lines.push('', '## Where the bytes go', '', row(['', 'Original', 'Shrunk']), row(['---', '---:', '---:']));
  for (const p of breakdownParts(b, x.report.mode)) lines.push(row([capital(p.label), bytes(b.before[p.key]), bytes(b.after[p.key])]));
  lines.push(row(['Total', bytes(b.before.total), bytes(b.after.total)]));
  lines.push('', '## Accuracy', '');
  const checked = (c, what) => {
    lines.push(`${what} on ${c.inputs.map((i) => `${i.name} [${i.shape.join('x')}]${i.file ? ` from ${i.file}` : i.value !== undefined ? ` = ${i.value}` : ' random'}` +
                                         `${i.feedBack ? ` (fed back from ${i.feedBack})` : ''}`).join(', ')}; ${samplesText(c.samples)}` +
               `${c.threshold !== undefined ? `, decision threshold ${c.threshold}` : ''}.`, '');
    if (c.guessedDimensions.length) {
      lines.push(`**Not a pass: the check guessed input dimensions** (each set to 1): ${c.guessedDimensions
        .map((g) => `${g.input} axis ${g.axis}${g.symbol ? ` (${g.symbol})` : ''}`).join(', ')}. Set them in the Shape column and check again.`, '');
    }
    for (const d of c.suspicions) lines.push(`- Suspicious: ${d}.`);
    if (c.suspicions.length) lines.push('');
  };
  if (x.check) {
    checked(x.check, 'Checked in onnxruntime-web');
    lines.push(row(['Output', 'Max abs error', 'Mean abs error', 'Relative L2 error', 'Cosine', 'Same side of the threshold']),
               row(['---', '---:', '---:', '---:', '---:', '---:']));
    for (const o of x.check.outputs) {
      lines.push(row([o.name, o.maxAbs.toExponential(3), o.meanAbs.toExponential(3), o.relL2.toExponential(3), o.cosine.toFixed(6),
                      o.agreement === undefined ? '–' : `${(100 * o.agreement).toFixed(3)} %`]));
    }
  }
  if (x.compare) {
    if (x.check) lines.push('');
    checked(x.compare, 'Schemes compared');
    lines.push(row(['Scheme', 'File', 'Worst relative L2 error (output)']), row(['---', '---:', '---']));
    for (const s of x.compare.schemes) lines.push(row([s.scheme, bytes(s.bytes), `${s.worst.relL2.toExponential(3)} (${s.worst.name})`]));
  }
  if (!x.check && !x.compare) lines.push('Not checked: run "Check accuracy" on the page, with data like your users\', before shipping the model.');
  if (x.target) targetMarkdown(x.target, lines, row, bytes);
  if (x.cost.original && x.cost.shrunk) {
    lines.push('', '## What the download costs', '',
               `At $${x.cost.pricePerGiB} per GiB and ${x.cost.downloadsPerMonth.toLocaleString('en-US')} downloads a month, served ` +
               `${x.cost.servedAs === 'raw' ? 'uncompressed' : `${x.cost.servedAs}-compressed (if the host compresses .onnx files)`}: ` +
               `${money(x.cost.original.month)} a month before, ${money(x.cost.shrunk.month)} after; ` +
               `${money(x.cost.original.year - x.cost.shrunk.year)} a year saved.`);
  }
  lines.push('');
  return lines.join('\n');
}

// The target search in the summary: what was aimed at, on what, and the chosen and picked points
// beside the references.
function targetMarkdown(t, lines, row, bytes) {
  const goal = t.target.kind === 'default' ? "the 8-bit default's estimated error"
    : t.target.kind === 'size' ? `at most ${t.target.bytes ? formatBytes(t.target.bytes) : `${t.target.fraction} of the original's size`}`
    : t.target.kind === 'agree' ? `at least ${(100 * t.target.value).toPrecision(4)} % of decisions kept`
    : `a ${t.target.kind === 'relL2' ? 'relative L2' : 'max abs'} error of at most ${t.target.value}${t.target.ofDefault ? " (the 8-bit default's, measured)" : ''}`;
  const decision = t.decision?.argmax ? ', decisions by argmax' : t.decision?.threshold !== undefined ? `, decision threshold ${t.decision.threshold}` : '';
  lines.push('', '## Smallest file for a target', '',
             `Target: ${goal}${decision}; bytes on the wire: ${t.objective}${t.brotliQuality ? ` (quality ${t.brotliQuality})` : ''}; ` +
             (t.samples ? `measured in onnxruntime-web on ${samplesText(t.samples)}${t.samples > 1 ? `, calibrated on the first ${t.calibrate}, the rest held out` : ''}`
                        : 'no samples: errors are estimates') +
             `. ${t.met ? 'Met' : `Not met: ${t.why}`}; ${t.points.length} points tried.`, '',
             row(['', 'On the wire', 'File', 'Relative L2', 'Decisions kept', 'Held out: relative L2, decisions kept']),
             row(['---', '---:', '---:', '---:', '---:', '---:']));
  const kept = (m) => (m?.agreement == null ? '–' : `${(100 * m.agreement).toFixed(3)} %`);
  const err = (p) => (p.measured ? p.measured.relL2.toExponential(3) : p.predicted != null ? `${p.predicted.toExponential(3)} (estimate)` : '–');
  const line = (label, p) => row([label, bytes(p.bytes), bytes(p.raw), err(p), kept(p.measured),
                                  p.heldOut ? `${p.heldOut.relL2.toExponential(3)}, ${kept(p.heldOut)}` : '–']);
  lines.push(line('Chosen', t.points[t.chosen]));
  if (t.picked !== t.chosen) lines.push(line('Picked', t.points[t.picked]));
  for (const r of t.references) lines.push(line(r.label, r));
}

function exportJson() {
  const r = state.result;
  if (!r) return;
  download(new Blob([`${JSON.stringify(exportedReport(), null, 2)}\n`], { type: 'application/json' }), `${r.name}.shrink-report.json`);
}

function exportSummary() {
  const r = state.result;
  if (!r) return;
  download(new Blob([summaryMarkdown(exportedReport())], { type: 'text/markdown' }), `${r.name}.shrink-report.md`);
}

// --- tables wider than the window -------------------------------------------------------------

// A table that scrolls sideways says so: a line above it, and its cut edge fades.
function updateScrollCues() {
  for (const box of document.querySelectorAll('.scroll')) {
    const more = box.scrollWidth - box.clientWidth > 1;
    const left = box.scrollLeft > 1, right = box.scrollLeft + box.clientWidth < box.scrollWidth - 1;
    box.classList.toggle('more-left', more && left);
    box.classList.toggle('more-right', more && right);
    box.previousElementSibling.hidden = !more;
  }
}

function scrollCues() {
  const resized = new ResizeObserver(updateScrollCues);
  for (const box of document.querySelectorAll('.scroll')) {
    const cue = document.createElement('p');
    cue.className = 'scroll-cue';
    cue.hidden = true;
    cue.setAttribute('aria-hidden', 'true');  // the region's label says it scrolls
    cue.textContent = 'More columns: scroll sideways →';
    box.before(cue);
    box.addEventListener('scroll', updateScrollCues, { passive: true });
    resized.observe(box);
    if (box.firstElementChild) resized.observe(box.firstElementChild);
  }
}

// --- wiring ------------------------------------------------------------------------------------

function persist(id) {
  const saved = localStorage.getItem(`onnx-shrink.${id}`);
  if (saved !== null) $(id).value = saved;
  $(id).addEventListener('input', () => {
    localStorage.setItem(`onnx-shrink.${id}`, $(id).value);
    renderCost();
  });
}

// The footer names the version this page runs, from the package file the build copies beside the
// engine, and links that version's package page.
async function showVersion() {
  try {
    const response = await fetch(new URL('./vendor/onnx-shrink/package.json', import.meta.url));
    const { name, version } = await response.json();
    $('version').textContent = `version ${version}`;
    $('package-link').href = `https://www.npmjs.com/package/${name}/v/${version}`;
  } catch {
    // The page works without it; the footer keeps "version unknown".
  }
}

function init() {
  const drop = $('drop');
  drop.addEventListener('click', () => $('file').click());
  drop.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      $('file').click();
    }
  });
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    loadFiles(e.dataTransfer.files);
  });
  $('file').addEventListener('change', (e) => {
    loadFiles(e.target.files);
    e.target.value = '';  // so that choosing the same file again (after a cancel or an error) runs it again
  });
  $('sample').addEventListener('click', loadSample);
  for (const input of document.querySelectorAll('input[name=mode]')) {
    input.addEventListener('change', () => {
      showLevels();
      start();
    });
  }
  $('levels').addEventListener('input', showLevels);
  $('levels').addEventListener('change', start);
  for (const id of ['scheme', 'block', 'bits', 'small', 'form', 'external-data', 'min-elements', 'exclude']) $(id).addEventListener('change', start);
  $('cancel').addEventListener('click', cancel);
  $('save').addEventListener('click', save);
  $('save-data').addEventListener('click', saveData);
  $('measure').addEventListener('click', measureAgain);
  $('export-json').addEventListener('click', exportJson);
  $('export-summary').addEventListener('click', exportSummary);
  for (const id of ['price', 'downloads', 'served']) persist(id);
  $('served').addEventListener('change', renderCost);
  for (const b of $('tensors').querySelectorAll('button[data-sort]')) {
    b.addEventListener('click', () => {
      state.sort = { key: b.dataset.sort, down: state.sort.key === b.dataset.sort ? !state.sort.down : false };
      renderTensors();
    });
  }
  initCheck({ result: () => state.result, files: () => state.files, mode: chosenMode, options: () => options(),
              useScheme(scheme) {
                $('scheme').value = scheme;
                start();
              },
              tablesChanged: updateScrollCues });
  initTarget({ files: () => state.files, inputs: checkInputs, threshold: thresholdValue, guessed: guessedNow,
               modeOptions: options, download, formatBytes });
  showLevels();
  renderCost();  // the served-as note, and a saved price that is not valid
  scrollCues();
  showVersion();
  addEventListener('load', () => setTimeout(prepareSpare));
}

init();
