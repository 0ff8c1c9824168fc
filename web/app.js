// The page: files in, options, progress, results. The work happens in worker.js (the engine) and
// check.js (onnxruntime-web, on demand); this thread only keeps the page responsive.

import { declaredShape, worstOutput, FEW_SAMPLES } from './vendor/onnx-shrink/bindings/js/verify.js';
import { DEFAULTS, OPTION, OPTIONS, words } from './vendor/onnx-shrink/bindings/js/options.js';

const $ = (id) => document.getElementById(id);
const state = { files: [], result: null, worker: null, run: 0, sort: { key: null, down: false } };

// --- formatting --------------------------------------------------------------------------------

export function formatBytes(n) {
  if (n == null || Number.isNaN(n)) return '–';
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let i = 0;
  while (Math.abs(n) >= 1000 && i < units.length - 1) n /= 1000, i++;
  return `${n.toFixed(i === 0 ? 0 : n < 10 ? 2 : 1)} ${units[i]}`;
}
const money = (x) => (Number.isFinite(x) ? x.toLocaleString('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: x < 10 ? 2 : 0 }) : '–');
const percent = (before, after) => (before > 0 ? `${(100 * (1 - after / before)).toFixed(1)} %` : '–');

// Monthly and yearly egress cost of `bytes` per download. Prices are per GiB (2^30 bytes).
export function downloadCost(bytes, pricePerGiB, downloadsPerMonth) {
  const month = (bytes / 2 ** 30) * pricePerGiB * downloadsPerMonth;
  return { month, year: 12 * month };
}

// --- options -----------------------------------------------------------------------------------

// What the scheme list says of each scheme of each mode (the schemes themselves come from options.js).
const SCHEME_HELP = {
  int8: { auto: 'per channel, with input-channel factors and codebooks', channel: 'plain per-channel codes',
          tensor: 'one scale per tensor, as the original Shrink Ray' },
  palette: { auto: 'even levels, unless designed levels are 1 dB better', kmeans: 'designed levels for every tensor',
             uniform: 'even levels, as the original Shrink Ray' },
};
const chosenMode = () => document.querySelector('input[name=mode]:checked').value;

// The options as shrink() takes them. A control's id is its option's CLI flag without the dashes;
// the options of the other mode are left out (the engine refuses a block in palette mode).
function options() {
  const mode = chosenMode();
  const o = {
    mode,
    scheme: $('scheme').value || DEFAULTS.scheme,
    levels: 2 ** Number($('levels').value),  // the slider gives the power of two
    block: Number($('block').value),
    form: $('form').value,
    bits: $('bits').value === 'auto' ? 'auto' : Number($('bits').value),
    small: $('small').value,
    minElements: Math.max(1, Number($('min-elements').value) || DEFAULTS.minElements),
    externalData: $('external-data').value,
    exclude: [...$('exclude').selectedOptions].map((x) => x.value),
  };
  for (const option of OPTIONS) if (option.mode && option.mode !== mode) delete o[option.key];
  return o;
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
}

function start() {
  if (!state.files.length) return;
  stopWorker();
  const id = ++state.run;
  const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  state.worker = worker;
  $('error').hidden = true;
  $('progress').value = 0;
  setBusy(true, 'Starting…');
  worker.onmessage = ({ data }) => {
    if (data.id !== state.run) return;
    if (data.type === 'progress') {
      $('progress').value = data.fraction;
      $('status').textContent = `${data.stage[0].toUpperCase()}${data.stage.slice(1)}… ${Math.round(100 * data.fraction)} %`;
    } else if (data.type === 'result') {
      // Shrunk: the result can be saved while the worker measures the compressed sizes.
      for (const url of objectUrls.splice(0)) URL.revokeObjectURL(url);
      state.result = data;
      $('progress').value = 0;
      $('status').textContent = 'Shrunk. Measuring compressed sizes…';
      render();
    } else if (data.type === 'sizes') {
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
      showError(data.code, data.message);
    }
  };
  worker.onerror = (e) => {
    stopWorker();
    setBusy(false, '');
    hideResult();
    showError('INTERNAL', e.message || 'The worker failed.');
  };
  worker.postMessage({ id, files: state.files, options: options() });
}

function cancel() {
  stopWorker();
  state.run++;
  setBusy(false, 'Cancelled.');
}

function hideResult() {
  state.result = null;
  $('results').hidden = true;
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
function summaryText(report) {
  if (report.unchanged) return report.summary;
  const n = report.totals.tensorsChanged, tensors = `${n} tensor${n === 1 ? '' : 's'}`;
  return report.mode === 'palette'
    ? `Rounded ${tensors} to a palette of values: the file keeps its size and compresses far better.`
    : `Stored ${tensors} as 8-bit codes, turned back into floats when the model loads.`;
}

// The sample model comes with its real input, set up for "Check accuracy": silero VAD streamed
// as in use, 6.7 s of speech in chunks of 512 samples at 16 kHz, the LSTM state starting at zero
// and fed back from stateN; a chunk is speech when its probability is over 0.5.
const SAMPLE = {
  model: 'silero_vad_v5.onnx',
  data: 'speech.f32',
  inputs: { input: { shape: '1x512', data: true }, state: { shape: '2x1x128', value: '0', feedBack: 'stateN' }, sr: { value: '16000' } },
  threshold: '0.5',
  note: 'Set up for the sample: 208 chunks of recorded speech, the state fed back, speech when p > 0.5.',
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
    $('status').textContent = '';
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
  $('summary').textContent = summaryText(r.report);
  // For measurements (the benchmark reads them): the engine's time and its peak WebAssembly memory.
  $('summary').dataset.engineMs = String(r.engine.ms);
  $('summary').dataset.wasmBytes = String(r.engine.wasmBytes);
  renderSizes();
  $('save-note').textContent = r.externalData
    ? `${r.name}.shrunk.onnx (${formatBytes(r.model.size)}) and its weights, ${r.name}.shrunk.onnx.data ` +
      `(${formatBytes(r.externalData.size)}): save both, into one folder`
    : `${r.name}.shrunk.onnx, ${formatBytes(r.model.size)}`;
  $('save').textContent = r.externalData ? 'Save the model' : 'Save';
  $('save-data').hidden = !r.externalData;
  renderCost();
  renderTensors();
  if (!$('exclude').options.length) {
    for (const t of r.report.tensors) $('exclude').append(new Option(t.name, t.name));
  }
  // A new result: its check is to be run again. The comparison of schemes stays when one of its
  // schemes was picked, and the inputs set up for checks stay while the model is the same.
  $('check-table').hidden = true;
  if (!state.keepComparison) {
    $('compare-table').hidden = true;
    $('check-status').textContent = '';
  }
  state.keepComparison = false;
  if (state.checkInputsFor !== state.files) {
    renderCheckInputs();
    $('check-threshold').value = '';  // a threshold is the model's: a new model starts without one
    applyCheckPreset();
  }
  state.checkInputsFor = state.files;
}

// Sizes as far as the worker has measured them ("measuring…" for the rest).
function renderSizes() {
  const sizes = state.result.sizes;
  for (const kind of ['raw', 'gzip', 'brotli']) {
    for (const which of ['original', 'shrunk']) {
      const cell = document.querySelector(`[data-size="${which}-${kind}"]`);
      const bytes = sizes[which][kind];
      cell.textContent = bytes == null ? 'measuring…' : formatBytes(bytes);
      if (bytes == null) delete cell.dataset.bytes;
      else cell.dataset.bytes = String(bytes);
    }
    const known = sizes.original[kind] != null && sizes.shrunk[kind] != null;
    document.querySelector(`[data-saving="${kind}"]`).textContent = known ? percent(sizes.original[kind], sizes.shrunk[kind]) : '';
  }
  $('brotli-note').textContent = `Sizes in bytes (1 kB = 1000 B). ` +
    (sizes.brotliQuality ? `Brotli at quality ${sizes.brotliQuality}; gzip by the browser.` : 'Compressed sizes are being measured.');
}

// One row per model input: its shape (unknown dimensions as 1) and an optional fixed value.
function renderCheckInputs() {
  const tbody = $('check-inputs').querySelector('tbody');
  tbody.replaceChildren(...state.result.report.model.inputs.map((input, i) => {
    const tr = document.createElement('tr');
    const name = document.createElement('td');
    name.textContent = input.name;
    const type = document.createElement('td');
    type.textContent = input.dtype;
    const shape = document.createElement('input');
    shape.value = declaredShape(input.shape).shape.join('x');
    shape.addEventListener('input', () => (shape.dataset.edited = 'yes'), { once: true });
    shape.id = `check-shape-${i}`;
    shape.setAttribute('aria-label', `Shape of ${input.name}`);
    shape.pattern = '\\d+(x\\d+)*';
    const value = document.createElement('input');
    value.id = `check-value-${i}`;
    value.setAttribute('aria-label', `Value of ${input.name}`);
    value.placeholder = 'random';
    const data = document.createElement('input');
    data.type = 'file';
    data.id = `check-file-${i}`;
    data.setAttribute('aria-label', `Data file of ${input.name}`);
    // A streaming model's state: from the second sample on, this input is the model's own output.
    const feedBack = document.createElement('select');
    feedBack.id = `check-feed-${i}`;
    feedBack.setAttribute('aria-label', `Output fed back into ${input.name}`);
    feedBack.append(new Option('–', ''), ...state.result.report.model.outputs.map((o) => new Option(o.name, o.name)));
    const cells = [name, type, ...Array.from({ length: 4 }, () => document.createElement('td'))];
    cells[2].append(shape);
    cells[3].append(value);
    cells[4].append(data);
    cells[5].append(feedBack);
    tr.append(...cells);
    return tr;
  }));
}

function checkInputs() {
  return state.result.report.model.inputs.map((input, i) => {
    const text = $(`check-shape-${i}`).value.trim();
    const shape = text ? text.split('x').map(Number) : [];
    if (shape.some((d) => !Number.isInteger(d) || d < 0)) throw new Error(`the shape of '${input.name}' should look like 1x3x224x224`);
    const value = $(`check-value-${i}`).value.trim();
    const file = $(`check-file-${i}`).files[0];
    // A shape left as filled in for open dimensions (as 1) is a guess: its data must be one sample.
    const guessed = !$(`check-shape-${i}`).dataset.edited && declaredShape(input.shape).guessed;
    return { ...input, shape, guessed, value: value === '' ? undefined : Number(value), file, feedBack: $(`check-feed-${i}`).value || undefined };
  });
}

function renderCost() {
  const r = state.result;
  if (!r) return;
  const price = Number($('price').value) || 0, downloads = Number($('downloads').value) || 0, served = $('served').value;
  const measured = r.sizes.original[served] != null && r.sizes.shrunk[served] != null;
  const before = downloadCost(r.sizes.original[served] ?? NaN, price, downloads);
  const after = downloadCost(r.sizes.shrunk[served] ?? NaN, price, downloads);
  const cells = {
    'before-month': before.month, 'before-year': before.year, 'after-month': after.month, 'after-year': after.year,
    'save-month': before.month - after.month, 'save-year': before.year - after.year,
  };
  for (const [k, v] of Object.entries(cells)) document.querySelector(`[data-cost="${k}"]`).textContent = measured ? money(v) : '…';
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
  for (const th of $('tensors').querySelectorAll('th')) {
    const b = th.querySelector('button');
    th.setAttribute('aria-sort', b.dataset.sort === key ? (down ? 'descending' : 'ascending') : 'none');
  }
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

// Runs one job in a worker of its own: resolves with the first message `isFinal` accepts, rejects
// on an error message or a failed worker; other messages go to `onMessage` (progress).
// "Stop" ends every job at once.
const checkJobs = new Set();

function workerJob(script, message, isFinal, onMessage = () => {}) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(script, import.meta.url), { type: 'module' });
    const end = (f, x) => {
      worker.terminate();
      checkJobs.delete(stop);
      f(x);
    };
    const stop = () => end(reject, Object.assign(new Error('Stopped.'), { stopped: true }));
    checkJobs.add(stop);
    worker.onmessage = ({ data }) => {
      if (data.error !== undefined || data.type === 'error') end(reject, new Error(data.error ?? data.message));
      else if (isFinal(data)) end(resolve, data);
      else onMessage(data);
    };
    worker.onerror = (e) => end(reject, new Error(e.message || 'The worker failed.'));
    worker.postMessage({ id: 1, ...message });
  });
}

// Runs the original (`files`, as dropped) and `result` (a shrunk model of them) in
// onnxruntime-web on `inputs`.
function checkModel(files, result, inputs, onProgress) {
  const model = files.find((f) => /\.onnx$/i.test(f.name));
  const originalExternal = {};
  for (const f of files) if (f !== model) originalExternal[f.name] = f;
  const shrunkExternal = result.externalData ? { [`${result.name}.shrunk.onnx.data`]: result.externalData } : {};
  const text = $('check-threshold').value.trim();
  const threshold = text === '' ? undefined : Number(text);
  return workerJob('./check.js', { original: model, originalExternal, shrunk: result.model, shrunkExternal, inputs, threshold },
                   (data) => data.outputs !== undefined, onProgress);
}

function tableRows(rows) {
  return rows.map((cells) => {
    const tr = document.createElement('tr');
    for (const c of cells) {
      const td = document.createElement('td');
      td.append(c);
      tr.append(td);
    }
    return tr;
  });
}

const samplesText = (n) => `${n} sample${n === 1 ? '' : 's'}`;
const inputsText = (inputs, samples) => {
  const files = inputs.filter((input) => input.file).map((input) => input.name);
  const random = inputs.some((input) => !input.file && input.value === undefined);
  return files.length ? `data from files for ${files.join(', ')}${random ? ', the rest random' : ''} (${samplesText(samples)})`
                      : `the same random inputs (${samplesText(samples)})`;
};

function setChecking(busy) {
  $('check-run').disabled = $('compare-run').disabled = busy;
  $('check-stop').hidden = !busy;
}

// The check buttons are off while a check runs; returns the inputs, or null (and says why).
function beginCheck() {
  try {
    const inputs = checkInputs();
    setChecking(true);
    return inputs;
  } catch (e) {
    $('check-status').textContent = `Could not compare: ${e.message}`;
    return null;
  }
}

async function checkAccuracy() {
  const r = state.result;
  const inputs = r && beginCheck();
  if (!inputs) return;
  $('check-status').textContent = 'Loading onnxruntime-web and running both models…';
  try {
    const data = await checkModel(state.files, r, inputs, (d) => ($('check-status').textContent = `Running both models: sample ${d.done} of ${d.samples}…`));
    if (r !== state.result) {  // a newer result came meanwhile: its check is to be run again
      $('check-status').textContent = '';
      return;
    }
    const text = inputsText(inputs, data.samples);
    $('check-status').textContent = `${text[0].toUpperCase()}${text.slice(1)}; both models:`;
    $('check-table').querySelector('tbody').replaceChildren(...tableRows(data.outputs.map((o) =>
      [o.name, o.maxAbs.toExponential(3), o.meanAbs.toExponential(3), o.relL2.toExponential(3), o.cosine.toFixed(6),
       o.agreement === undefined ? '–' : `${(100 * o.agreement).toFixed(3)} %`])));
    $('check-table').hidden = false;
  } catch (e) {
    $('check-status').textContent = e.stopped ? e.message : `Could not compare: ${e.message}`;
  } finally {
    setChecking(false);
  }
}

// "Compare schemes": shrinks with each scheme of the mode and checks each on the same inputs (the
// CLI's --scheme auto,channel,tensor --verify), one model at a time; "Use" makes one the result.
async function compareSchemes() {
  const inputs = state.result && beginCheck();
  if (!inputs) return;
  const mode = chosenMode();
  const status = (text) => ($('check-status').textContent = text);
  const files = state.files;  // the model compared, even if another is dropped meanwhile
  const rows = [];
  try {
    for (const scheme of words(OPTION.scheme, mode)) {
      // The result, then its gzip size (palette results are for compressing).
      let made = null;
      const sized = await workerJob('./worker.js', { files, options: { ...options(), scheme } }, (d) => d.type === 'sizes', (d) => {
        if (d.type === 'result') made = d;
        else if (d.type === 'progress') status(`Scheme ${scheme}: ${d.stage}… ${Math.round(100 * d.fraction)} %`);
      });
      const checked = await checkModel(files, made, inputs, (d) => status(`Scheme ${scheme}: sample ${d.done} of ${d.samples}…`));
      const worst = worstOutput(checked.outputs);
      rows.push({ scheme, raw: sized.sizes.shrunk.raw, gzip: sized.sizes.shrunk.gzip, worst, samples: checked.samples });
    }
  } catch (e) {
    status(e.stopped ? e.message : `Could not compare: ${e.message}`);
    return;
  } finally {
    setChecking(false);
  }
  if (files !== state.files) {  // another model was dropped meanwhile
    status('');
    return;
  }
  const best = rows.reduce((b, r) => (r.worst.relL2 < b.worst.relL2 ? r : b));
  status(`Each scheme on ${inputsText(inputs, rows[0].samples)}` +
         `${rows[0].samples < FEW_SAMPLES ? '; on this few samples, which scheme has the least error often differs on other inputs' : ''}:`);
  $('compare-table').querySelector('tbody').replaceChildren(...tableRows(rows.map((r) => {
    const use = document.createElement('button');
    use.type = 'button';
    use.textContent = `Use ${r.scheme}`;
    use.addEventListener('click', () => {
      $('scheme').value = r.scheme;
      state.keepComparison = true;
      start();
    });
    return [r.scheme + (r === best ? ' (least error)' : ''), formatBytes(r.raw), formatBytes(r.gzip),
            `${r.worst.relL2.toExponential(3)} (${r.worst.name})`, use];
  })));
  $('compare-table').hidden = false;
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
  $('file').addEventListener('change', (e) => loadFiles(e.target.files));
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
  $('check-run').addEventListener('click', checkAccuracy);
  $('compare-run').addEventListener('click', compareSchemes);
  $('check-stop').addEventListener('click', () => [...checkJobs].forEach((stop) => stop()));
  for (const id of ['price', 'downloads', 'served']) persist(id);
  $('served').addEventListener('change', renderCost);
  for (const b of $('tensors').querySelectorAll('button[data-sort]')) {
    b.addEventListener('click', () => {
      state.sort = { key: b.dataset.sort, down: state.sort.key === b.dataset.sort ? !state.sort.down : false };
      renderTensors();
    });
  }
  showLevels();
}

init();
