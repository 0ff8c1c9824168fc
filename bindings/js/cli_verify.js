// The command line's checks in onnxruntime-node: --verify's inputs (given, or guessed and said to
// be), the check opened before anything is written, and the samples --target calibrates on.
import { readDataFile } from './cli_files.js';
import { progressBar } from './cli_print.js';
import { OnnxShrinkError } from './index.node.js';
import { compareModels, declaredShape, guessedDimensions, sampleCount, sampleFeeds } from './verify.js';

// The tolerance flags given: a gate a check must pass.
export const gateFlags = (a) => [a.absTol != null && '--abs-tol', a.meanTol != null && '--mean-tol'].filter(Boolean);

// onnxruntime-node for --verify, loaded before any model is read: without it, nothing is written.
export async function loadOnnxRuntime() {
  try {
    return (await import('onnxruntime-node')).default;
  } catch (e) {
    if (e?.code === 'ERR_MODULE_NOT_FOUND' && /'onnxruntime-node'/.test(e.message)) {
      throw new OnnxShrinkError('--verify needs onnxruntime-node, which is not installed here: npm install onnxruntime-node ' +
                                '(offline, or where its install script cannot download: npm install --ignore-scripts onnxruntime-node)', 'BAD_OPTION');
    }
    throw new OnnxShrinkError(`--verify: onnxruntime-node does not load: ${e?.message ?? e}`, 'BAD_OPTION');
  }
}

// --verify's inputs the user did not give: a named list of the guessed dimensions, and the flags
// that set them. Open dimensions are shown as ? in the flags (the model says nothing of their
// sizes): e.g. "--shape x=?x3x?x?".
function describeGuessed(guessed, modelInputs) {
  const byInput = new Map();
  for (const g of guessed) byInput.set(g.input, [...(byInput.get(g.input) ?? []), g]);
  const dims = [...byInput].map(([input, list]) =>
    `${input} ${list.map((g) => `axis ${g.axis}${g.symbol ? ` (${g.symbol})` : ''}`).join(', ')}`).join('; ');
  const flags = [...byInput.keys()].map((name) => {
    const shape = modelInputs.find((i) => i.name === name).shape;
    return `--shape ${name}=${shape.map((d) => (typeof d === 'number' && d >= 0 ? d : '?')).join('x')}`;
  }).join(' ');
  return { dims, flags, give: `Give the sizes it meets: ${flags} (each ? a size), or all open dimensions at once with --dim N` };
}

// The check --verify runs, opened before anything is written: onnxruntime-node loads the original
// (a file, or the bytes of a model read from a pipe) and runs it on the first sample of `inputs`
// (from verifyFeeds), so that a model that does not run on them fails while nothing is in place.
// compare(files) then runs each shrunk model (files) beside the original, sample by sample, and
// resolves with how far each output moved (with `ok` for the tolerances).
export async function openCheck(ort, original, { inputs, samples, guessed }, a, name) {
  const what = Object.keys(a.inputFiles).length ? 'the given inputs' : 'random inputs';
  const open = async (file, which) => {
    try {
      return await ort.InferenceSession.create(file, { logSeverityLevel: 4 });
    } catch (e) {
      throw new OnnxShrinkError(`--verify: onnxruntime-node cannot load the ${which} model: ${e.message}`, 'UNSUPPORTED');
    }
  };
  const runOn = async (session, feeds, which) => {
    try {
      return await session.run(feeds);
    } catch (e) {
      const hint = guessed.list.length ? `; it guessed ${guessed.dims} as ${a.dim}: set them with ${guessed.flags}, or all at once with --dim N`
                                       : '; set other shapes with --shape or --dim';
      throw new OnnxShrinkError(`--verify: the ${which} model does not run on ${what} of the shapes the check gave it${hint}: ${e.message}`,
                                'UNSUPPORTED');
    }
  };
  const bar = progressBar(name, a.quiet || a.json);
  bar(0, 'loading');
  const reference = await open(original, 'original');
  let first;
  try {
    first = await runOn(reference, sampleFeeds(ort.Tensor, inputs).next().value, 'original');
  } catch (e) {
    bar(1, 'done');
    await reference.release?.();
    throw e;
  }
  const within = (o) => (a.absTol == null || o.maxAbs <= a.absTol) && (a.meanTol == null || o.meanAbs <= a.meanTol);
  return {
    // One shrunk model at a time beside the original (memory for two models, not all of them); the
    // original runs again for each, as keeping its outputs for every sample could take more (its
    // outputs of the first sample, from above, serve the first).
    async compare(shrunk) {
      const results = [];
      for (const [k, file] of shrunk.entries()) {
        bar(k / shrunk.length, 'loading');
        const session = await open(file, 'shrunk');
        const runOriginal = (f) => {
          const kept = first;
          first = null;
          return kept ?? runOn(reference, f, 'original');
        };
        const outputs = await compareModels(ort.Tensor, inputs, runOriginal, (f) => runOn(session, f, 'shrunk'),
                                            { feedBack: a.feedBack, threshold: a.threshold,
                                              onSample: (done) => bar((k + done / samples) / shrunk.length, 'checking') });
        await session.release?.();
        results.push(outputs.map((o) => ({ ...o, ok: within(o) })));
      }
      bar(1, 'done');
      return { samples, results };
    },
    release: async () => {
      bar(1, 'done');
      await reference.release?.();
    },
  };
}

// The inputs --verify (or --target: `flag`) feeds the model of `report` (see verifyInputs), and how
// many samples.
export function verifyFeeds(report, a, flag = '--verify') {
  try {
    for (const [input, output] of Object.entries(a.feedBack)) {
      if (!report.model.outputs.some((o) => o.name === output)) {
        const turned = report.model.outputs.some((o) => o.name === input) && report.model.inputs.some((i) => i.name === output)
          ? `; --feed-back takes OUTPUT=INPUT: --feed-back ${input}=${output}` : '';
        throw new Error(`the model has no output '${output}' to feed back (its outputs: ${report.model.outputs.map((o) => o.name).join(', ')})${turned}`);
      }
      if (!report.model.inputs.some((i) => i.name === input)) {
        throw new Error(`the model has no input '${input}' to feed '${output}' back into (its inputs: ${report.model.inputs.map((i) => i.name).join(', ')})`);
      }
      const from = report.model.outputs.find((o) => o.name === output).dtype, to = report.model.inputs.find((i) => i.name === input).dtype;
      if (from !== to) throw new Error(`--feed-back ${output}=${input}: output '${output}' is ${from} and input '${input}' ${to}: an output fed back must have its input's type`);
    }
    checkOneSource(a.inputFiles, a.values);
    const inputs = verifyInputs(report.model.inputs, a.dim, a.shapes, a.values, a.inputFiles, a.dimGiven);
    // Dimensions the model leaves open and the user set neither by --shape, by data (--input) nor
    // by --dim: the check runs on a guess of them.
    const list = a.dimGiven ? [] : guessedDimensions(report.model.inputs, [...Object.keys(a.shapes), ...Object.keys(a.inputFiles)]);
    return { inputs, samples: sampleCount(inputs), guessed: { list, ...describeGuessed(list, report.model.inputs) } };
  } catch (e) {
    throw new OnnxShrinkError(`${flag}: ${e.message}`, 'BAD_OPTION');
  }
}

// The samples --target calibrates on, from --input, --value, --shape, --dim and --feed-back as
// --verify reads them, in shrinkToTarget's terms. A target measured on guessed shapes or random
// values would say nothing of the model in use: every input needs data or a value, every shape
// must be known.
export function targetFeeds(report, a) {
  try {
    checkInputNames(report.model.inputs, [...Object.keys(a.inputFiles), ...Object.keys(a.values), ...Object.keys(a.shapes)]);
  } catch (e) {
    throw new OnnxShrinkError(`--target: ${e.message}`, 'BAD_OPTION');
  }
  // Open dimensions of any input without --shape (data does not tell them: a file of several
  // samples could hold any split), unless --dim sets them all.
  const open = a.dimGiven ? [] : guessedDimensions(report.model.inputs, Object.keys(a.shapes));
  if (open.length) {
    const { dims, give } = describeGuessed(open, report.model.inputs);
    throw new OnnxShrinkError(`--target measures on the shapes of your data, and the model leaves open:\n  ${dims}\n  ${give}`, 'BAD_OPTION');
  }
  const { inputs } = verifyFeeds(report, a, '--target');
  const missing = inputs.filter((i) => !i.bytes && i.value === undefined).map((i) => i.name);
  if (missing.length) {
    const names = missing.map((n) => `'${n}'`);
    const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
    throw new OnnxShrinkError(`--target measures on your data, and input${missing.length === 1 ? '' : 's'} ${list} ` +
                              `${missing.length === 1 ? 'has' : 'have'} none: give ${missing.map((n) => `--input ${n}=FILE or --value ${n}=X`).join(', and ')}`,
                              'BAD_OPTION');
  }
  return { samples: Object.fromEntries(inputs.map((i) => [i.name, i.bytes ?? i.value])),
           shapes: Object.fromEntries(inputs.map((i) => [i.name, i.shape])) };
}


// Names given to --input, --value and --shape that the model's inputs lack, and an input given
// both data and a value, as errors.
function checkInputNames(inputs, names) {
  for (const name of names) {
    if (!inputs.some((input) => input.name === name)) {
      throw new Error(`the model has no input '${name}' (its inputs: ${inputs.map((i) => i.name).join(', ')})`);
    }
  }
}

function checkOneSource(files, values) {
  const both = Object.keys(files).find((name) => values[name] !== undefined);
  if (both !== undefined) throw new Error(`input '${both}' is given both --input (data) and --value: give one`);
}

// The declared inputs with their shapes (symbolic dimensions become --dim, or --shape's),
// --value's fixed values and --input's files, for sampleFeeds.
// (`dimGiven`: --dim was given, so its open dimensions are the user's, not guesses.)
function verifyInputs(inputs, unknown, shapes, values, files, dimGiven = false) {
  checkInputNames(inputs, [...Object.keys(files), ...Object.keys(values), ...Object.keys(shapes)]);
  return inputs.map((input) => {
    let bytes;
    if (files[input.name] !== undefined) {
      try {
        bytes = readDataFile(files[input.name] === '-' ? 0 : files[input.name]);  // '-': standard input
      } catch (e) {
        const why = e.code === 'ERR_FS_FILE_TOO_LARGE' ? 'over 2 GiB, more than a check reads at once' : e.code ?? e.message;
        throw new Error(`cannot read '${files[input.name]}' for input '${input.name}': ${why}`);
      }
    }
    const given = shapes[input.name];
    // (--value keeps a whole number past 2^53 as a bigint, for a 64-bit integer input alone.)
    const value = typeof values[input.name] === 'bigint' && !/int64$/.test(input.dtype) ? Number(values[input.name]) : values[input.name];
    const declared = given ? { shape: given, guessed: false } : declaredShape(input.shape, unknown);
    return { name: input.name, dtype: input.dtype, ...declared, guessed: declared.guessed && !dimGiven, value, bytes };
  });
}
