// The page's accuracy check ("Check accuracy", "Compare schemes"): the inputs of the model shown
// (shapes, values, data files, state fed back), the runs of the original and the shrunk model in
// onnxruntime-web (check.js, in workers of their own), and the verdict, which is never a pass on
// guessed input dimensions. app.js calls initCheck once with what it needs of the page.
import { declaredShape, worstOutput, guessedDimensions, suspicions, oneSidedOutputs, FEW_SAMPLES } from './vendor/onnx-shrink/bindings/js/verify.js';
import { OPTION, words } from './vendor/onnx-shrink/bindings/js/options.js';
import { capital, formatBytes, samplesText } from './format.js';

const $ = (id) => document.getElementById(id);

// What initCheck was given: result() and files(), the result shown and the files it was made of;
// mode() and options(), the chosen mode and its options as shrink() takes them; useScheme(scheme),
// to make the result again with a scheme the comparison picked; tablesChanged(), after a table is filled.
let hooks = null;
// The last check and comparison, for the exported report; whether a new result keeps the comparison.
let lastCheck = null, lastCompare = null, keepComparison = false;

export function initCheck(pageHooks) {
  hooks = pageHooks;
  $('check-run').addEventListener('click', checkAccuracy);
  $('compare-run').addEventListener('click', compareSchemes);
  $('check-stop').addEventListener('click', () => [...checkJobs].forEach((stop) => stop()));
}

// A new result: its check is to be run again. The comparison of schemes stays when one of its
// schemes was picked.
export function resetCheck() {
  $('check-table').hidden = true;
  $('check-error').hidden = true;
  lastCheck = null;
  if (!keepComparison) {
    $('compare-table').hidden = true;
    $('check-verdict').hidden = true;
    $('check-status').textContent = '';
    lastCompare = null;
  }
  keepComparison = false;
}

// The last check and comparison of schemes of the result shown, as the exported report keeps them (or null).
export const checkEvidence = () => ({ check: lastCheck, compare: lastCompare });

// One row per model input: its shape (unknown dimensions as 1) and an optional fixed value.
export function renderCheckInputs() {
  const tbody = $('check-inputs').querySelector('tbody');
  tbody.replaceChildren(...hooks.result().report.model.inputs.map((input, i) => {
    const tr = document.createElement('tr');
    const name = document.createElement('td');
    name.textContent = input.name;
    const type = document.createElement('td');
    type.textContent = input.dtype;
    const shape = document.createElement('input');
    shape.value = declaredShape(input.shape).shape.join('x');
    shape.addEventListener('input', () => {
      shape.dataset.edited = 'yes';
      renderGuessNote();
    });
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
    feedBack.append(new Option('–', ''), ...hooks.result().report.model.outputs.map((o) => new Option(o.name, o.name)));
    const cells = [name, type, ...Array.from({ length: 4 }, () => document.createElement('td'))];
    cells[2].append(shape);
    cells[3].append(value);
    cells[4].append(data);
    cells[5].append(feedBack);
    tr.append(...cells);
    return tr;
  }));
}

export function checkInputs() {
  return hooks.result().report.model.inputs.map((input, i) => {
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

// The open dimensions of the model's inputs that a check would fill in as 1 now: those of every
// input whose shape the user has not set (a preset counts as set).
export function guessedNow() {
  const inputs = hooks.result().report.model.inputs;
  const given = inputs.filter((_, i) => $(`check-shape-${i}`)?.dataset.edited).map((input) => input.name);
  return guessedDimensions(inputs, given);
}

// The guessed dimensions by input: its index (for its Shape field), the axes with their symbols,
// and the declared shape with ? for each open dimension (as the CLI's --shape hint).
function guessesByInput(guessed) {
  const inputs = hooks.result().report.model.inputs;
  const by = new Map();
  for (const g of guessed) by.set(g.input, [...(by.get(g.input) ?? []), g]);
  return [...by].map(([name, list]) => {
    const index = inputs.findIndex((input) => input.name === name);
    return {
      name, index, axes: list.map((g) => `axis ${g.axis}${g.symbol ? ` (${g.symbol})` : ''}`).join(', '),
      declared: inputs[index].shape.map((d) => (typeof d === 'number' && d >= 0 ? d : '?')).join('x'),
    };
  });
}

// Before a check: which dimensions it would guess, and where to set them.
export function renderGuessNote() {
  if (!hooks.result()) return;
  const byInput = guessesByInput(guessedNow());
  $('check-guess').hidden = !byInput.length;
  $('check-guess').textContent = byInput.length
    ? `The model leaves open ${byInput.map((g) => `${g.name} ${g.axes}`).join('; ')}. The check fills them in as 1 until ` +
      'you set the sizes the model meets in use in the Shape column: a check on guessed shapes does not pass.'
    : '';
}

// A paragraph, or a heading in bold, for the boxes below.
function para(text, tag = 'p') {
  const e = document.createElement(tag);
  e.textContent = text;
  return e;
}

// Where a check's inputs were guessed: each input's guessed dimensions, and a button to its Shape field.
function guessList(guessed) {
  const ul = document.createElement('ul');
  for (const g of guessesByInput(guessed)) {
    const li = document.createElement('li');
    li.dataset.input = g.name;
    const go = document.createElement('button');
    go.type = 'button';
    go.className = 'link';
    go.textContent = `Set the shape of ${g.name}`;
    go.addEventListener('click', () => {
      const field = $(`check-shape-${g.index}`);
      field.focus();
      field.select();
    });
    li.append(`${g.name}: ${g.axes}, each set to 1 (the model declares ${g.declared}). `, go);
    ul.append(li);
  }
  return ul;
}

// The share of decisions an output must keep at the threshold for the check to pass (as target
// mode's usual agree=0.999).
const DECISIONS_KEPT = 0.999;

// A check's verdict: not a pass while input dimensions were guessed (each named, with where to
// set it), suspicious when an output is constant or identical in both models, a warning when an
// output keeps fewer than DECISIONS_KEPT of its decisions at the threshold (`lost`), and otherwise
// checked with `okText`: a pass (green) when a threshold counted decisions, else neutral, as no
// tolerance says whether the error is small enough.
function renderVerdict({ guessed, doubts, okText, lost = [], threshold }) {
  const box = $('check-verdict');
  const warn = guessed.length > 0 || doubts.length > 0 || lost.length > 0;
  box.className = `verdict ${warn ? 'warn' : threshold !== undefined ? 'ok' : 'info'}`;
  box.dataset.verdict = guessed.length ? 'guessed' : doubts.length ? 'suspicious' : lost.length ? 'decisions' : 'checked';
  box.replaceChildren();
  if (guessed.length) {
    box.append(para('Not a pass: the check guessed input dimensions.', 'strong'),
               para('The model leaves these dimensions open, and the check set each to 1. On such inputs a model can ' +
                    'run with its weights hardly mattering, and the numbers below say little about the model in use:'),
               guessList(guessed),
               para('Set the sizes the model meets in use in the Shape column above (with a data file, the shape of one ' +
                    'sample of it), then check again.'));
  }
  if (doubts.length) {
    box.append(para(guessed.length ? 'And the outputs look suspicious:' : 'Suspicious: these outputs say little about the shrunk model.', 'strong'));
    const ul = document.createElement('ul');
    ul.className = 'suspicions';
    for (const d of doubts) ul.append(para(`${capital(d)}.`, 'li'));
    box.append(ul);
  }
  if (lost.length) {
    box.append(para(`${guessed.length || doubts.length ? 'And decisions' : 'Decisions'} changed: fewer than ${100 * DECISIONS_KEPT} % kept at the threshold ${threshold}.`, 'strong'));
    const ul = document.createElement('ul');
    for (const o of lost) ul.append(para(`${o.label ?? `'${o.name}'`}: ${(100 * o.agreement).toFixed(3)} % of its values on the same side of ${threshold} in both models.`, 'li'));
    box.append(ul);
  }
  if (!warn) {
    box.append(para('Checked on the shapes you set. ', 'strong'), okText,
               threshold !== undefined
                 ? ` Every output keeps ${100 * DECISIONS_KEPT} % or more of its decisions at ${threshold}.`
                 : ' No threshold was set, so this is no pass or fail: whether that error is small enough is for your app to say (set a threshold to count decisions kept).');
  }
  box.hidden = false;
}

// A check that failed: the error in the check's own error box, and the last check's numbers gone
// (they were for other inputs). With guessed dimensions, they are named too.
function showCheckError(message, guessed = []) {
  const box = $('check-error');
  box.replaceChildren(para('Could not compare.', 'strong'), para(message));
  if (guessed.length) {
    box.append(para('The check guessed these dimensions of the inputs, which may be why:'), guessList(guessed));
  }
  box.hidden = false;
  $('check-status').textContent = '';
  $('check-verdict').hidden = true;
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
// onnxruntime-web on `inputs`; resolves to the worker's data with the threshold it ran with.
function checkModel(files, result, inputs, onProgress) {
  const model = files.find((f) => /\.onnx$/i.test(f.name));
  const originalExternal = {};
  for (const f of files) if (f !== model) originalExternal[f.name] = f;
  const shrunkExternal = result.externalData ? { [`${result.name}.shrunk.onnx.data`]: result.externalData } : {};
  const threshold = thresholdValue();
  return workerJob('./check.js', { original: model, originalExternal, shrunk: result.model, shrunkExternal, inputs, threshold },
                   (data) => data.outputs !== undefined, onProgress).then((data) => ({ ...data, threshold, unchanged: Boolean(result.report?.unchanged) }));
}

// What makes a check's numbers say little (verify.js): constant or identical outputs, and with a
// threshold, outputs all on one side of it. `checked`: checkModel's data (`unchanged`: nothing was
// shrunk, so identical outputs are the model compared with itself).
function outputDoubts({ outputs, threshold, unchanged }) {
  return [...suspicions(outputs, { unchanged }), ...(threshold === undefined ? [] : oneSidedOutputs(outputs, threshold))];
}

export function thresholdValue() {
  const text = $('check-threshold').value.trim();
  return text === '' ? undefined : Number(text);
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

const inputsText = (inputs, samples) => {
  const files = inputs.filter((input) => input.file).map((input) => input.name);
  const random = inputs.some((input) => !input.file && input.value === undefined);
  return files.length ? `data from files for ${files.join(', ')}${random ? ', the rest random' : ''} (${samplesText(samples)})`
                      : `the same random inputs (${samplesText(samples)})`;
};

// (Focus follows: from the button pressed to Stop while it runs, and back after, so that a
// keyboard user is not sent to the top of the page when the button is turned off.)
let pressed = null;
function setChecking(busy) {
  const focused = document.activeElement;
  $('check-run').disabled = $('compare-run').disabled = busy;
  $('check-stop').hidden = !busy;
  if (busy && (focused === $('check-run') || focused === $('compare-run'))) {
    pressed = focused;
    $('check-stop').focus();
  } else if (!busy && pressed) {
    if (focused === $('check-stop') || focused === document.body) pressed.focus();
    pressed = null;
  }
}

// The check buttons are off while a check runs; returns the inputs, or null (and says why).
function beginCheck() {
  $('check-error').hidden = true;
  try {
    const inputs = checkInputs();
    setChecking(true);
    return inputs;
  } catch (e) {
    $('check-table').hidden = true;
    showCheckError(e.message);
    return null;
  }
}

// A check's inputs as the report keeps them (a data file by its name).
const inputsForReport = (inputs) => inputs.map(({ name, dtype, shape, value, file, feedBack }) =>
  ({ name, dtype, shape, ...(value !== undefined ? { value } : {}), ...(file ? { file: file.name } : {}), ...(feedBack ? { feedBack } : {}) }));

// An output's name in the check's table, with what makes its numbers suspicious.
function outputCell(o) {
  const cell = document.createDocumentFragment();
  cell.append(o.name);
  if (o.constant || o.identical) {
    const tag = document.createElement('span');
    tag.className = 'tag';
    tag.textContent = o.constant ? 'constant' : 'identical in both';
    cell.append(' ', tag);
  }
  return cell;
}

async function checkAccuracy() {
  const r = hooks.result();
  const inputs = r && beginCheck();
  if (!inputs) return;
  const guessed = guessedNow();
  $('check-status').textContent = 'Loading onnxruntime-web and running both models…';
  try {
    const data = await checkModel(hooks.files(), r, inputs, (d) => ($('check-status').textContent = `Running both models: sample ${d.done} of ${d.samples}…`));
    if (r !== hooks.result()) {  // a newer result came meanwhile: its check is to be run again
      $('check-status').textContent = '';
      return;
    }
    const text = inputsText(inputs, data.samples);
    $('check-status').textContent = `${capital(text)}; both models ran in onnxruntime-web.`;
    const doubts = outputDoubts(data);
    const worst = worstOutput(data.outputs, inputs.map((i) => i.feedBack).filter(Boolean));
    const random = inputs.some((input) => !input.file && input.value === undefined);
    const lost = data.threshold === undefined ? [] : data.outputs.filter((o) => o.agreement !== undefined && o.agreement < DECISIONS_KEPT);
    renderVerdict({ guessed, doubts, lost, threshold: data.threshold,
                    okText: `The output that moved most, '${worst.name}', has a relative L2 error of ${worst.relL2.toExponential(2)}.` +
                            (random ? ' Random inputs show that the model runs; data like your users\' shows the error they will get.' : '') });
    $('check-caption').textContent = guessed.length ? 'On guessed shapes: not a pass' : 'How far each output moved';
    $('check-table').querySelector('tbody').replaceChildren(...tableRows(data.outputs.map((o) =>
      [outputCell(o), o.maxAbs.toExponential(3), o.meanAbs.toExponential(3), o.relL2.toExponential(3), o.cosine.toFixed(6),
       o.agreement === undefined ? '–' : `${(100 * o.agreement).toFixed(3)} %`])));
    $('check-table').classList.toggle('unverified', guessed.length > 0);
    $('check-table').hidden = false;
    lastCheck = { inputs: inputsForReport(inputs), threshold: data.threshold, samples: data.samples,
                  verdict: $('check-verdict').dataset.verdict, guessedDimensions: guessed, suspicions: doubts, outputs: data.outputs };
    hooks.tablesChanged();
  } catch (e) {
    if (e.stopped) {
      $('check-status').textContent = e.message;
    } else {
      $('check-table').hidden = true;  // the last check's numbers were for other inputs
      showCheckError(e.message, guessed);
    }
  } finally {
    setChecking(false);
  }
}

// "Compare schemes": shrinks with each scheme of the mode and checks each on the same inputs (the
// CLI's --scheme auto,channel,tensor --verify), one model at a time; "Use" makes one the result.
async function compareSchemes() {
  const inputs = hooks.result() && beginCheck();
  if (!inputs) return;
  const guessed = guessedNow();
  const mode = hooks.mode();
  const status = (text) => ($('check-status').textContent = text);
  const files = hooks.files();  // the model compared, even if another is dropped meanwhile
  const rows = [];
  try {
    for (const scheme of words(OPTION.scheme, mode)) {
      // The result, then its gzip size (palette results are for compressing).
      let made = null;
      const sized = await workerJob('./worker.js', { files, options: { ...hooks.options(), scheme } }, (d) => d.type === 'sizes', (d) => {
        if (d.type === 'result') made = d;
        else if (d.type === 'progress') status(`Scheme ${scheme}: ${d.stage}… ${Math.round(100 * d.fraction)} %`);
      });
      const checked = await checkModel(files, made, inputs, (d) => status(`Scheme ${scheme}: sample ${d.done} of ${d.samples}…`));
      // Schemes are ranked by the model's results: a state fed back to the next sample is not one.
      const worst = worstOutput(checked.outputs, inputs.map((i) => i.feedBack).filter(Boolean));
      rows.push({ scheme, raw: sized.sizes.shrunk.raw, gzip: sized.sizes.shrunk.gzip, worst, samples: checked.samples,
                  doubts: outputDoubts(checked) });
    }
  } catch (e) {
    if (e.stopped) {
      status(e.message);
    } else {
      $('compare-table').hidden = true;  // the last comparison was of other inputs
      showCheckError(e.message, guessed);
    }
    return;
  } finally {
    setChecking(false);
  }
  if (files !== hooks.files()) {  // another model was dropped meanwhile
    status('');
    return;
  }
  const best = rows.reduce((b, r) => (r.worst.relL2 < b.worst.relL2 ? r : b));
  status(`Each scheme on ${inputsText(inputs, rows[0].samples)}` +
         `${rows[0].samples < FEW_SAMPLES ? '; on this few samples, which scheme has the least error often differs on other inputs' : ''}.`);
  // Each row's button uses its scheme; the one in use says so.
  const buttons = [];
  const mark = (scheme) => {
    for (const b of buttons) {
      b.disabled = b.dataset.scheme === scheme;
      b.textContent = b.disabled ? `${b.dataset.scheme}: in use` : `Use ${b.dataset.scheme}`;
    }
  };
  $('compare-table').querySelector('tbody').replaceChildren(...tableRows(rows.map((r) => {
    const use = document.createElement('button');
    use.type = 'button';
    use.dataset.scheme = r.scheme;
    buttons.push(use);
    use.addEventListener('click', () => {
      keepComparison = true;
      mark(r.scheme);  // (this button is now off: focus stays in the table, not at the page's top)
      $('compare-table').tabIndex = -1;
      $('compare-table').focus();
      hooks.useScheme(r.scheme);
    });
    return [r.scheme + (r === best ? ' (least error)' : ''), formatBytes(r.raw), formatBytes(r.gzip),
            `${r.worst.relL2.toExponential(3)} (${r.worst.name}` +
            `${r.worst.agreement === undefined ? '' : `; ${(100 * r.worst.agreement).toFixed(3)} % of decisions kept`})`, use];
  })));
  mark(hooks.options().scheme);
  $('compare-table').hidden = false;
  const doubts = [...new Set(rows.flatMap((r) => r.doubts.map((d) => `${d} (scheme ${r.scheme})`)))];
  const threshold = thresholdValue();
  const lost = threshold === undefined ? [] : rows.filter((r) => r.worst.agreement !== undefined && r.worst.agreement < DECISIONS_KEPT)
    .map((r) => ({ label: `scheme ${r.scheme}, output '${r.worst.name}'`, agreement: r.worst.agreement }));
  renderVerdict({ guessed, doubts, lost, threshold, okText: 'Each scheme\'s worst output is in the table.' });
  lastCompare = { inputs: inputsForReport(inputs), threshold: thresholdValue(), samples: rows[0].samples, guessedDimensions: guessed,
                  suspicions: doubts, schemes: rows.map((r) => ({ scheme: r.scheme, bytes: r.raw, gzipBytes: r.gzip, worst: r.worst })) };
  hooks.tablesChanged();
}

