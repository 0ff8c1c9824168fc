#!/usr/bin/env node
// onnx-shrink command line: the WebAssembly engine on files, with the native driver's flags.
//
// Exit status: 0 success, 2 bad input or options (a tolerance gate on guessed input shapes among
// them), 3 --verify found outputs beyond tolerance (or, with a tolerance, outputs that say nothing:
// constant, or identical in both models), or --target was not met (nothing written), 1 anything
// unexpected.
//
// This file runs each model (processOne: shrink, --inspect, --expand, --verify; targetOne:
// --target) and main(); the rest is in cli_args.js (the usage text, parse), cli_files.js (inputs,
// outputs, temporary files), cli_sizes.js (brotli sizes for the table), cli_verify.js (the checks
// in onnxruntime-node, --target's samples) and cli_print.js (warnings, progress, the table).
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse } from './cli_args.js';
import { TempFile, checkDistinctOutputs, checkReportTarget, dataFileOf, expandInputs, externalResolver, isStream, modelSource, outputFor,
         refuseToReplaceInputs, sameFile } from './cli_files.js';
import { printTable, progressBar, warn } from './cli_print.js';
import { BROTLI_STREAM_FROM, brotliSize, chosenBrotli, streamedBrotli } from './cli_sizes.js';
import { gateFlags, loadOnnxRuntime, openCheck, targetFeeds, verifyFeeds } from './cli_verify.js';
import { compressedSizes } from './compressed_sizes.js';
import { OnnxShrinkError, expand, inspect, shrink, shrinkToTarget, version } from './index.node.js';
import { oneSidedOutputs, suspicions, worstOutput } from './verify.js';

async function processOne(model, a, many, rows, reports, readFiles) {
  const input = model.file;
  const output = outputFor(model, a, many);
  const toStream = !a.inspect && isStream(output);
  if (toStream && a.options.externalData === 'external') {
    throw new OnnxShrinkError(`--external-data external needs a file to put beside the model: give -o FILE`, 'BAD_OPTION');
  }
  if (!a.inspect && input !== '-' && output !== '-' && sameFile(input, output)) {
    throw new OnnxShrinkError(`the output '${output}' is the input file; onnx-shrink never overwrites its input`, 'BAD_OPTION');
  }
  const opened = [];
  const source = modelSource(input, a);
  opened.push(source);
  const shownName = input === '-' ? 'stdin' : path.basename(input);
  const onProgress = progressBar(shownName, a.quiet || a.json);
  const inputFiles = input === '-' ? [] : [input];  // and the external data files the engine opens
  const external = externalResolver(input, opened, inputFiles);
  const runs = [];
  const shownInput = input === '-' ? 'standard input' : input;
  let feeds = null, check = null, brotli = null;
  try {
    if (a.target) return await targetOne(source, model, output, a, rows, reports, inputFiles, external);
    if (a.inspect) {
      // (The data file a shrink would write, named as shrinkTo names it.)
      const report = await inspect(source, { ...a.options, externalLocation: path.basename(dataFileOf(output)), external, onProgress });
      reports.push({ input, report });
      rows.push({ input, report });
      return;
    }
    if (a.expand) {
      let report = null;
      // Written to its file as the engine expands it, each piece straight from the engine's memory.
      const model = new TempFile(output);
      try {
        await expand(source, { external, onProgress, onReport: (r) => (report = r), onModelData: (chunk) => model.write(chunk), chunks: 'view' });
        refuseToReplaceInputs(inputFiles, [output]);
      } catch (e) {
        model.discard();
        throw e;
      }
      model.commit();
      rows.push({ input, output, before: source.size + (report?.totals.externalBytesBefore || 0), after: model.size, report });
      reports.push({ input, output, report });
      return;
    }
    const schemes = a.schemes.length > 1 ? a.schemes : [undefined];
    for (const scheme of schemes) {
      // A stream gets one file: the data stays inline (an error past 2 GB says so).
      const options = { ...a.options, ...(scheme ? { scheme } : {}), ...(toStream ? { externalData: 'inline' } : {}), external,
                        onProgress: scheme ? progressBar(`${shownName} (${scheme})`, a.quiet || a.json) : onProgress };
      // One scheme and an input past BROTLI_STREAM_FROM: the table's brotli size is taken as the
      // engine writes, beside it (streamedBrotli).
      const streamBrotli = a.table && schemes.length === 1 && source.size > BROTLI_STREAM_FROM;
      runs.push(await shrinkTo(source, output, options, scheme, a.table || schemes.length > 1, streamBrotli));
      if (scheme && runs[runs.length - 1].externalFile) {
        throw new OnnxShrinkError('a list of schemes works for results that keep their data inline (under 2 GB); ' +
                                  'give one scheme at a time for this model', 'BAD_OPTION');
      }
      // What --verify can find out before anything is written, once the first result names the
      // model's inputs (before the other schemes are made): that the inputs can be made, that no
      // tolerance gate rests on guessed shapes, and that the original runs on them.
      if (a.verify && runs.length === 1) {
        feeds = verifyFeeds(runs[0].report, a);
        const { guessed } = feeds;
        if (guessed.list.length && gateFlags(a).length) {
          throw new OnnxShrinkError(`${gateFlags(a).join(' and ')} cannot pass a check on guessed input shapes, which may not reach the ` +
                                    `changed weights at all. The model leaves open:\n  ${guessed.dims}\n  ${guessed.give}`, 'BAD_OPTION');
        }
        if (guessed.list.length) {
          warn(a, `${shownInput}: the check GUESSES the input dimensions the model leaves open, as ${a.dim}:\n  ${guessed.dims}\n` +
                  `  On guessed shapes its numbers may say nothing about the model in use. ${guessed.give}`);
        }
        check = await openCheck(a.ort, source.bytes ?? input, feeds, a, shownName);
      }
    }
    refuseToReplaceInputs(inputFiles, [output, ...(runs.some((r) => r.externalFile) ? [dataFileOf(output)] : [])]);
    // The result is checked where it is before it is put in place, unless its data went to a file
    // of its own: the model names that file, so the result runs from where it will stay. With
    // several schemes, each runs from its temporary file and only the kept one stays.
    let kept = runs[0], checks = null;
    if (runs.length === 1) {
      // Beside the check: as the engine wrote it, or from the files as opened now.
      brotli = a.table ? streamedBrotli(kept) ?? brotliSize(kept) : null;
      if (check && !kept.externalFile) checks = await check.compare([kept.model.temp]);
      kept.commit();
      if (check && kept.externalFile) checks = await check.compare([output]);
    } else {
      checks = await check.compare(runs.map((r) => r.model.temp));
      const scores = checks.results.map((outputs) => worstOutput(outputs, Object.values(a.feedBack)).relL2).map((e) => (Number.isNaN(e) ? Infinity : e));
      kept = runs[scores.indexOf(Math.min(...scores))];
      for (const r of runs) if (r !== kept) r.discard();
      brotli = a.table ? brotliSize(kept) : null;
      kept.commit();
    }
    brotli?.show(progressBar(shownName, a.quiet || a.json));
    // A data file of an earlier run beside a result that has none: the new model does not use it.
    if (!kept.externalFile && output !== '-' && !isStream(output) && statSync(dataFileOf(output), { throwIfNoEntry: false })?.isFile() &&
        !inputFiles.some((f) => sameFile(f, dataFileOf(output)))) {
      warn(a, `${dataFileOf(output)} is beside the result but not part of it (an earlier run's data file?): the new model keeps its weights inline`);
    }
    // Asked for a data file and none came: the engine's summary says why.
    if (a.options.externalData === 'external' && !kept.externalFile) {
      warn(a, `${shownInput}: --external-data external wrote no data file. ${kept.report.summary.match(/No tensor went to external data[^]*$/)?.[0] ?? ''}`.trimEnd());
    }
    const row = { input, output, before: source.size + (kept.report.totals.externalBytesBefore || 0), after: kept.size,
                  gzip: await kept.gzipSize, brotli: await brotli?.done, report: kept.report };
    const entry = { input, output, report: kept.report };
    if (checks) {
      const index = runs.indexOf(kept);
      row.verify = entry.verify = checks.results[index];
      row.samples = checks.samples;
      row.guessed = feeds.guessed;
      if (feeds.guessed.list.length) entry.guessedDimensions = feeds.guessed.list.map((g) => ({ ...g, size: a.dim }));
      // Outputs that say nothing (constant, or identical in both models): a warning, and with a
      // tolerance gate a failed one (exit 3), as a gate that cannot see the weights proves nothing.
      // Outputs all on one side of --threshold: a warning only (their errors still tell).
      const doubts = suspicions(row.verify, { unchanged: kept.report.unchanged }), oneSided = a.threshold === undefined ? [] : oneSidedOutputs(row.verify, a.threshold);
      if (doubts.length || oneSided.length) entry.suspicions = row.suspicions = [...doubts, ...oneSided];
      if (oneSided.length) warn(a, `${shownInput}: ${oneSided.join(';\n  ')}`);
      if (doubts.length) {
        const gate = gateFlags(a);
        if (gate.length) {
          row.gateFailed = true;
          process.stderr.write(`onnx-shrink: ${shownInput}: ${gate.join(' and ')} not passed: ${doubts.join('; ')}\n`);
        } else {
          warn(a, `${shownInput}: ${doubts.join(';\n  ')}`);
        }
      }
      if (runs.length > 1) {
        const gzipped = await Promise.all(runs.map((r) => r.gzipSize));
        row.candidates = entry.candidates = runs.map((r, i) => ({ scheme: r.scheme, bytes: r.size, gzipBytes: gzipped[i], kept: i === index,
                                                                  outputs: checks.results[i] }));
      }
    }
    rows.push(row);
    reports.push(entry);
  } catch (e) {
    for (const r of runs) r.discard();
    throw e;
  } finally {
    await check?.release();
    for (const s of opened) s.close();
    readFiles.push(...inputFiles);
  }
}


// Shrinks `source` into temporary files for `output` (and its external data, if any), streamed
// as the engine writes them; commit() puts them in place, discard() removes them. `measure`: the
// gzip size is taken (for the summary table, or to compare schemes).
async function shrinkTo(source, output, options, tag, measure, streamBrotli = false) {
  const location = path.basename(dataFileOf(output));
  // The model goes to its file as the engine writes it (never whole in memory), and, to measure
  // it, to a worker thread that gzips it (and with `streamBrotli` brotlis it: streamedBrotli)
  // beside the engine, up to 64 MB; the chunks it has not taken yet wait in memory.
  // Its brotli hint: the input's size, past 1 MB as the result's is where it is measured so.
  const sizes = measure ? compressedSizes({ limit: 64e6, brotli: streamBrotli, sizeHint: source.size }) : null;
  const run = { scheme: options.scheme, model: new TempFile(output, tag), externalFile: null, sizes: streamBrotli ? sizes : null };
  try {
    const result = await shrink(source, {
      ...options,
      externalLocation: location,
      // Measured, each chunk also goes to the worker (an array of its own); otherwise straight from
      // the engine's memory to the file.
      chunks: sizes ? 'copy' : 'view',
      onModelData: (chunk) => {
        run.model.write(chunk);
        sizes?.write('model', chunk, true);  // a fresh array (core.js's collector), written out already
      },
      onExternalData: (chunk) => {
        if (!run.externalFile) run.externalFile = new TempFile(dataFileOf(output), tag);
        run.externalFile.write(chunk);
        sizes?.write('data', chunk, true);
      },
    });
    run.report = result.report;
  } catch (e) {
    sizes?.terminate();
    run.model.discard();
    run.externalFile?.discard();
    throw e;
  }
  run.size = run.model.size + (run.externalFile ? run.externalFile.size : 0);
  // The gzip size of everything written (model and data file), or null past the limit.
  run.gzipSize = !sizes ? Promise.resolve(null) : sizes.done()
    .then(({ gzip: { model, data } }) => (model === null || data === null ? null : model + (run.externalFile ? data : 0)));
  run.commit = () => {
    run.model.commit();
    run.externalFile?.commit();
  };
  run.discard = () => {
    sizes?.terminate();
    run.model.discard();
    run.externalFile?.discard();
  };
  return run;
}

// Target mode on one model: the search (shrinkToTarget) on the --input samples, with its progress,
// then the chosen file written as every result is (a temporary file, renamed) when it meets the
// target; otherwise nothing. While it searches nothing is on disk: Ctrl-C leaves nothing behind.
async function targetOne(source, model, output, a, rows, reports, inputFiles, external) {
  const { file: input } = model;
  let bytes;
  try {
    bytes = source.bytes ?? readFileSync(input);
  } catch (e) {
    throw new OnnxShrinkError(`cannot read '${input}': ${e.code === 'ERR_FS_FILE_TOO_LARGE' ? 'over 2 GiB, more than target mode holds in memory' : e.message}`,
                              e.code === 'ERR_FS_FILE_TOO_LARGE' ? 'TOO_LARGE' : 'IO');
  }
  const feeds = Object.keys(a.inputFiles).length ? targetFeeds(await inspect(bytes, { ...a.options, external }), a) : {};
  const bar = progressBar(input === '-' ? 'stdin' : path.basename(input), a.quiet || a.json);
  let result;
  try {
    result = await shrinkToTarget(bytes, { ...a.options, external, target: a.target, decision: a.decision, objective: a.objective, samples: feeds.samples,
                                           shapes: feeds.shapes, feedBack: a.feedBack, onProgress: bar });
  } finally {
    bar(1, 'done');
  }
  const { target, report } = result;
  report.target = target;
  const row = { input, output: null, before: bytes.byteLength + (report.totals.externalBytesBefore || 0), report, target, goalText: a.target };
  // Calibration samples that cannot tell files apart (target.js: calibrationDoubts): a warning,
  // with --quiet too, as is a chosen file that misses the target on the samples held out (the
  // table says so when it is printed).
  const named = `${input === '-' ? 'standard input' : input}: --target ${a.target}`;
  if (target.doubts?.length) warn(a, `${named}: ${target.doubts.join(';\n  ')}`, true);
  if ((a.quiet || a.json) && target.heldOutMet === false) {
    warn(a, `${named}: the chosen file misses it on the ${target.samples?.heldOut ?? ''} samples held out: calibrate on more samples like those the model will meet`, true);
  }
  if (target.met) {
    refuseToReplaceInputs(inputFiles, [output]);
    const file = new TempFile(output);
    const sizes = a.table ? compressedSizes({ limit: 64e6 }) : null;
    try {
      file.write(result.model);
      sizes?.write('model', result.model);
      const brotli = !a.table ? null : chosenBrotli(target, file.size, a.objective) ?? brotliSize({ model: file, externalFile: null, size: file.size });
      file.commit();
      Object.assign(row, { output, after: file.size, gzip: sizes ? (await sizes.done()).gzip.model : null, brotli: await brotli?.done });
    } catch (e) {
      sizes?.terminate();
      file.discard();
      throw e;
    }
  } else {
    process.stderr.write(`onnx-shrink: ${input === '-' ? 'standard input' : input}: --target ${a.target} not met: ${target.why}; nothing written\n`);
  }
  rows.push(row);
  reports.push({ input, output: row.output, report });
}


async function main() {
  let a;
  try {
    a = parse(process.argv.slice(2));
  } catch (e) {
    // The error, and where the rest is: the usage text would scroll the error away.
    process.stderr.write(`onnx-shrink: ${e.message}\nRun 'onnx-shrink --help' for the options.\n`);
    return 2;
  }
  if (a.printVersion) {
    console.log(await version());
    return 0;
  }
  a.table = !a.quiet && !a.json && !a.inspect;  // the summary table is shown (with its brotli column)
  if (a.verify && !a.inspect && !a.expand) {
    // Before any model is read, so that a check that cannot run leaves nothing written.
    try {
      a.ort = await loadOnnxRuntime();
    } catch (e) {
      process.stderr.write(`onnx-shrink: ${e.message}\n`);
      return 2;
    }
  }
  const rows = [], reports = [];
  let failed = false, internal = false;
  let inputs, many;
  try {
    inputs = expandInputs(a.inputs);
    // With several models, or a folder, -o names a folder.
    many = inputs.length > 1 || a.inputs.some((i) => i !== '-' && statSync(i).isDirectory());
    if (many && a.output && (a.output.endsWith('.onnx') || isStream(a.output))) {
      throw new OnnxShrinkError(`with ${inputs.length > 1 ? 'several inputs' : 'a folder as input'}, -o names a folder` +
                                `${isStream(a.output) ? ', not a stream' : `, not '${a.output}'`}`, 'BAD_OPTION');
    }
    if (a.target && many) {
      throw new OnnxShrinkError('--target works on one model at a time (its samples are that model\'s): give one model file', 'BAD_OPTION');
    }
  } catch (e) {
    process.stderr.write(`onnx-shrink: ${e.message}\n`);
    return 2;
  }
  try {
    checkDistinctOutputs(inputs, a, many);
    checkReportTarget(inputs, a);
    // Nor a sample file (--input): the model's output, its data file, or the report.
    const written = [a.output, a.output && !many && dataFileOf(a.output), a.report].filter((f) => f && f !== '-' && !isStream(f));
    refuseToReplaceInputs(Object.values(a.inputFiles).filter((f) => f !== '-'), written, 'a sample file given with --input');
  } catch (e) {
    process.stderr.write(`onnx-shrink: ${e.message}\n`);
    return 2;
  }
  const readFiles = [];  // every model and data file read: the report must not replace one
  for (const input of inputs) {
    try {
      await processOne(input, a, many, rows, reports, readFiles);
    } catch (e) {
      if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
      if (!(e instanceof OnnxShrinkError)) throw e;
      // A file cut short is said so in the page's words; the engine's detail follows.
      let message = e.code === 'TRUNCATED' ? `this model file is cut short (truncated), download it again: ${e.message}` : e.message;
      // A data file not found: where it was looked for (beside the model), or why it could not be.
      const missing = e.code === 'EXTERNAL_DATA_MISSING' && /file '([^']+)'/.exec(e.message)?.[1];
      if (missing) {
        message += input.file === '-' ? ' (a model from standard input has no folder to find it in: give the model as a file)'
                                      : ` (looked for '${path.join(path.dirname(input.file), missing)}')`;
      }
      process.stderr.write(`onnx-shrink: ${input.file === '-' ? 'standard input' : input.file}: ${message}\n`);
      failed = true;
      internal ||= e.code === 'INTERNAL';
    }
  }
  if (a.report) {
    try {
      refuseToReplaceInputs(readFiles, [a.report]);
      const t = new TempFile(a.report);
      // One model: its report, with --verify's results beside it (verify, suspicions, candidates) as --json has them.
      const single = () => {
        const { input: _, output: __, report, ...check } = reports[0];
        return report ? { ...report, ...check } : reports[0];
      };
      t.write(Buffer.from(JSON.stringify(reports.length === 1 ? single() : reports, null, 2) + '\n'));
      t.commit();
    } catch (e) {
      if (!(e instanceof OnnxShrinkError)) throw e;
      process.stderr.write(`onnx-shrink: --report: ${e.message}\n`);
      failed = true;
    }
  }
  if (a.json) console.log(JSON.stringify(reports.length === 1 ? reports[0] : reports, null, 2));
  printTable(rows, a);
  // A result whose outputs moved beyond tolerance is written (to be looked at), and said so even
  // with --quiet: exit 3 alone would leave a file that looks like any other.
  for (const r of rows) {
    const beyond = r.verify?.filter((o) => !o.ok).map((o) => `'${o.name}'`) ?? [];
    if (!beyond.length) continue;
    const where = r.output === '-' ? 'standard output' : r.output;
    process.stderr.write(`onnx-shrink: ${where}: written, but ${beyond.length === 1 ? 'output' : 'outputs'} ${beyond.join(', ')} ` +
                         'failed the check (exit 3): look at it before you use it\n');
  }
  if (internal) return 1;  // a bug of ours, not bad input
  if (failed) return 2;
  if (rows.some((r) => r.gateFailed || r.verify?.some((o) => !o.ok) || (r.target && !r.target.met))) return 3;
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`onnx-shrink: internal error: ${e.stack || e}\n`);
    process.exit(1);
  },
);
