// The npm CLI's target mode (issue 23): --target, --decision and --objective on real models, the
// samples from --input (and --value, --shape, --feed-back), the evidence table, --report, and the
// flags' errors. A search on PP-OCR det takes tens of seconds: few of them here.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from './temp_dir.mjs';
import { inspect, objectiveSize } from '../../bindings/js/index.node.js';
import { EACH_PROBE_BYTES } from '../../bindings/js/target.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = path.join(root, 'bindings', 'js', 'cli.js');
const fixtures = path.join(root, 'tests', 'fixtures');
const det = path.join(fixtures, 'ch_PP-OCRv4_det_infer.onnx');
const silero = path.join(fixtures, 'silero_vad_v5.onnx');
const run = (...args) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
// A command line for script(1), which runs it on a pseudo-terminal (progress bars are drawn there).
const onTerminal = (args) => ['-qec', [process.execPath, cli, ...args].map((x) => `'${x}'`).join(' '), '/dev/null'];

// The corpus page (1x3x320x640) as two samples, its top and bottom halves (1x3x160x640 each), in a
// file: the first is calibrated on, the second held out.
function pageHalves(dir) {
  const x = new Float32Array(readFileSync(path.join(fixtures, 'det_x.bin')).buffer.slice(0));
  const out = new Float32Array(2 * 3 * 160 * 640);
  for (let h = 0; h < 2; h++) {
    for (let c = 0; c < 3; c++) {
      for (let r = 0; r < 160; r++) out.set(x.subarray((c * 320 + h * 160 + r) * 640, (c * 320 + h * 160 + r + 1) * 640), ((h * 3 + c) * 160 + r) * 640);
    }
  }
  const file = path.join(dir, 'halves.f32');
  writeFileSync(file, out);
  return file;
}

// The CLI's sizes (formatBytes with 3 digits), to find a point's row in the table.
const shown = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(3)} MB` : `${(n / 1e3).toFixed(3)} kB`);

// The rows of points in a printed evidence table: the lines after its header row, up to the verdict.
function tableRows(text) {
  const lines = text.split('\n');
  const head = lines.findIndex((l) => /^ +(codes +)?(bits +)?(brotli -q 9|gzip -9|raw) /.test(l));
  assert.ok(head > 0, text);
  const end = lines.findIndex((l, i) => i > head && !l.startsWith(' '));  // the bias line or the verdict
  return lines.slice(head + 1, end);
}

test('bad --target, --decision and --objective: one line naming the flag and what it takes, exit 2, nothing written', () => {
  const dir = tempDir('cli-target');
  const out = path.join(dir, 'out.onnx');
  const kinds = "relL2=N, maxAbs=N, agree=N (a share, e.g. 0.999), size=N (bytes, kB, MB, or a fraction of the original) or default";
  const cases = [
    [['--target', 'accuracy=0.9'], `--target takes ${kinds}, not 'accuracy=0.9'\n`],
    [['--target', 'agre=0.999'], `--target takes ${kinds}, not 'agre=0.999'; did you mean agree=0.999?\n`],
    [['--target', 'agree=2'], '--target agree=2: give a number from 0 to 1\n'],
    [['--target', 'size=big'], '--target size=big: give bytes (e.g. 1200000, 1.2MB) or a fraction of the original between 0 and 1 (e.g. 0.25)\n'],
    [['--target', 'agree=0.999', '--decision', 'argmx'], "--decision takes argmax or threshold:N (e.g. threshold:0.3), not 'argmx'; did you mean argmax?\n"],
    [['--target', 'size=1MB', '--objective', 'brotl'], "--objective takes brotli, gzip or raw, not 'brotl'; did you mean brotli?\n"],
    [['--target', 'agree=0.999', '--input', 'x=f.bin'], '--target agree=0.999 counts decisions kept: add --decision argmax'],
    [['--target', 'relL2=0.01'], '--target relL2=0.01 is measured on your data: add --input NAME=FILE'],
    [['--decision', 'argmax'], '--decision needs --target\n'],
    [['--target', 'size=1MB', '--bits', '6'], "--target chooses the bits of each tensor's int8 codes and measures its candidates itself: it takes no --bits\n"],
    [['--target', 'size=1MB', '--scheme', 'tensor', '--bits', '8'],
     "--target chooses the bits of each tensor's int8 codes and measures its candidates itself: it takes no --bits or --scheme tensor (8 bits only)\n"],
    [['--targt', 'size=1MB'], 'unknown option --targt; did you mean --target?\n'],
    [['--target', 'size=1MB', '--external-data', 'external'],
     "--target chooses the bits of each tensor's int8 codes and measures its candidates itself: it takes no --external-data external (the points are sized as single files)\n"],
    [['--target', 'size=1.0'], '--target size=1.0: give bytes'],
    [['--target', 'size=1MB', '--value', 'x=0', '--shape', 'x=1x3x8x8'],
     '--value, --shape describe the samples of --input, and there are none: --target size=1MB then works by estimates (add --input NAME=FILE to measure)\n'],
    [['--target', 'size=0'], '--target size=0: give bytes'],
    [['--target', 'size=1MB', '--dim', '128'],
     '--dim describes the samples of --input, and there are none: --target size=1MB then works by estimates (add --input NAME=FILE to measure)\n'],
  ];
  for (const [args, message] of cases) {
    const p = run(det, '-o', out, ...args);
    assert.equal(p.status, 2, args.join(' '));
    assert.ok(p.stderr.startsWith(`onnx-shrink: ${message}`), `${args.join(' ')}: ${p.stderr}`);
    assert.equal(p.stderr.split('\n').length, 3, p.stderr);  // the error, and where the options are
  }
  // What only the model tells: shapes it leaves open, inputs with no data, several models.
  const halves = pageHalves(dir);
  const open = run(det, '-o', out, '--target', 'relL2=0.05', '--input', `x=${halves}`);
  assert.equal(open.status, 2);
  assert.match(open.stderr, /--target measures on the shapes of your data, and the model leaves open:\n  x axis 0 .*\n  Give the sizes it meets: --shape x=\?x3x\?x\?/);
  const speech = path.join(dir, 'speech.f32');
  writeFileSync(speech, readFileSync(path.join(fixtures, 'speech.bin')).subarray(0, 2048));
  const none = run(silero, '-o', out, '--target', 'maxAbs=0.1', '--shape', 'input=1x512', '--shape', 'state=2x1x128', '--input', `input=${speech}`);
  assert.equal(none.status, 2);
  assert.match(none.stderr, /--target measures on your data, and inputs 'state' and 'sr' have none: give --input state=FILE or --value state=X, and --input sr=FILE or --value sr=X\n/);
  // A name the model lacks is named before the shapes it leaves open; data and a value for one input clash.
  const unknown = run(det, '-o', out, '--target', 'relL2=0.05', '--input', `y=${halves}`);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /--target: the model has no input 'y' \(its inputs: x\)/);
  const both = run(silero, '-o', out, '--target', 'maxAbs=0.1', '--shape', 'input=1x512', '--shape', 'state=2x1x128', '--input', `input=${speech}`,
                   '--value', 'state=0', '--value', 'sr=16000', '--input', `sr=${speech}`);
  assert.equal(both.status, 2);
  assert.match(both.stderr, /input 'sr' is given both --input \(data\) and --value: give one/);
  const fraction = run(silero, '-o', out, '--target', 'maxAbs=0.1', '--shape', 'input=1x512', '--shape', 'state=2x1x128', '--input', `input=${speech}`,
                       '--value', 'state=0', '--value', 'sr=16000.5');
  assert.equal(fraction.status, 2);
  assert.match(fraction.stderr, /input 'sr' is int64: fill it with a whole number, not 16000\.5/);
  const two = run(det, silero, '--target', 'size=0.5');
  assert.equal(two.status, 2);
  assert.match(two.stderr, /--target works on one model at a time/);
  assert.deepEqual(readdirSync(dir).sort(), ['halves.f32', 'speech.f32']);
});

test('agree=0.999 on PP-OCR det: progress, the evidence table, the file of the chosen point, --report', async () => {
  const dir = tempDir('cli-target');
  const out = path.join(dir, 'det.target.onnx'), report = path.join(dir, 'r.json');
  const halves = pageHalves(dir);
  const p = spawnSync('script', onTerminal([det, '-o', out, '--target', 'agree=0.999', '--decision', 'threshold:0.3',
                                            '--shape', 'x=1x3x160x640', '--input', `x=${halves}`, '--report', report]), { encoding: 'utf8' });
  const text = p.stdout.replace(/\r\n/g, '\n');
  assert.equal(p.status, 0, text);
  // Progress while it searches, cleared before the tables.
  assert.match(text, /\] +\d+% measuring how much each tensor moves the outputs ch_PP-OCRv4_det_infer\.onnx/);
  assert.match(text, /\] +\d+% building and measuring candidates/);
  assert.match(text, /\r\x1b\[Kmodel +before +after/);
  // The report carries the evidence, as the API returns it.
  const r = JSON.parse(readFileSync(report, 'utf8'));
  const t = r.target;
  assert.equal(t.met, true);
  assert.equal(t.estimated, false);
  assert.deepEqual(t.samples, { calibration: 1, heldOut: 1 });
  assert.deepEqual(t.doubts, []);  // the top half of the page has text and blank: decisions both ways
  assert.doesNotMatch(text, /warning/);
  assert.deepEqual(t.goal, { kind: 'agree', value: 0.999 });
  assert.ok(t.chosen.measured.agreement >= 0.999 && t.chosen.heldOut.agreement > 0.9, JSON.stringify(t.chosen));
  for (const tensor of r.tensors.filter((x) => x.changed)) assert.equal(tensor.bits, t.tensorBits[tensor.name], tensor.name);
  // The file written is the chosen point's: its brotli size (quality 9, as each point is measured)
  // and raw size; and it runs in onnxruntime-node.
  const model = readFileSync(out);
  assert.equal(objectiveSize(model, 'brotli', 9), t.chosen.bytes);
  assert.equal(model.byteLength, t.chosen.raw);
  const ort = (await import('onnxruntime-node')).default;
  const session = await ort.InferenceSession.create(out);
  const x = new Float32Array(readFileSync(halves).buffer.slice(0, 3 * 160 * 640 * 4));
  const y = (await session.run({ x: new ort.Tensor('float32', x, [1, 3, 160, 640]) }))['sigmoid_0.tmp_0'];
  assert.deepEqual(y.dims, [1, 1, 160, 640]);
  // The table: what was measured on what, a row per point (sizes, errors on both halves), the
  // chosen one marked, and the verdict.
  assert.match(text, /target agree=0\.999 \(decisions: threshold:0\.3\) for det\.target\.onnx, smallest by brotli -q 9; measured in onnxruntime-node on 1 calibration sample, reported on 1 held out:\n/);
  // Searched with the default's codes and with per-channel codes: a column says which.
  assert.match(text, /\n +codes +bits +brotli -q 9 +raw +rel\. L2 +max abs +kept +held-out rel\. L2 +held-out max abs +held-out kept\n/);
  assert.deepEqual(new Set(t.points.map((p) => p.scheme)), new Set(['auto', 'channel']));
  assert.ok(['auto', 'channel'].includes(t.scheme));
  for (const tensor of r.tensors.filter((x) => x.changed)) assert.equal(tensor.scheme === 'channel', t.scheme === 'channel', tensor.name);
  assert.match(text, new RegExp(`\nSearched with the default's codes and plain per-channel codes; the chosen file has ${t.scheme === 'auto' ? "the default's" : 'per-channel'} codes[^\n]*\.\n`));
  // One calibration sample: per-channel codes rounded to the nearest code, and the table says why.
  assert.equal(t.searches.channel.rounding.kept, false);
  assert.match(text, /\nPer-channel codes were rounded to the nearest code: rounding with the inputs in view needs two or more calibration samples/);
  const rows = tableRows(text);
  assert.equal(rows.length, t.points.length, rows.join('\n'));
  // One calibration sample: the bias correction is not tried, and the table says why.
  assert.deepEqual(t.biasCorrection, { layers: 18, kept: false, measured: null });
  assert.match(text, /\nIn the chosen file's search: Biases were not moved by the samples' channel means: that needs two or more calibration samples/);
  const chosen = rows.filter((l) => l.endsWith('  chosen'));
  assert.equal(chosen.length, 1, rows.join('\n'));
  const share = (a) => `${(100 * a).toFixed(3)} %`;
  assert.match(chosen[0], new RegExp(`^ +${t.scheme === 'auto' ? 'default' : 'per channel'} +${t.chosen.bits.toFixed(2)} +${shown(t.chosen.bytes)} +${shown(t.chosen.raw)} +${t.chosen.measured.relL2.toExponential(2)} .* ` +
                                     `${share(t.chosen.measured.agreement)} .* ${share(t.chosen.heldOut.agreement)}  chosen$`));
  assert.match(text, new RegExp(`\ntarget met: the chosen file keeps ${share(t.chosen.measured.agreement)} of decisions \\(the target: 99\\.900 % or more; calibrated to 99\\.950 %, half the loss, [^)]*\\) ` +
                                'on the calibration samples\\. On the 1 held out: .*These are measurements\\.\n'));
});

test('size=1.2MB without samples: met by estimates, and said to be; a size it cannot reach writes nothing (exit 3)', () => {
  const dir = tempDir('cli-target');
  const out = path.join(dir, 'det.onnx');
  const p = run(det, '-o', out, '--target', 'size=1.2MB', '--report', path.join(dir, 'r.json'));
  assert.equal(p.status, 0, p.stderr);
  const t = JSON.parse(readFileSync(path.join(dir, 'r.json'), 'utf8')).target;
  assert.equal(t.met, true);
  assert.equal(t.estimated, true);
  assert.equal(t.samples, null);
  assert.ok(t.chosen.bytes <= 1.2e6 && t.points.every((q) => q.measured === undefined), JSON.stringify(t.chosen));
  // The least error within the size: every point tried with fewer bytes has a larger predicted error.
  assert.ok(t.points.filter((q) => q.bytes <= 1.2e6 && q !== t.chosen).every((q) => q.predicted >= t.chosen.predicted));
  assert.equal(objectiveSize(readFileSync(out), 'brotli', 9), t.chosen.bytes);
  assert.match(p.stdout, /target size=1\.2MB for det\.onnx, smallest by brotli -q 9; no samples: the errors below are ESTIMATES, predicted from each tensor's rounding noise, not measured:\n +bits +brotli -q 9 +raw +est\. rel\. L2\n/);
  assert.equal(tableRows(p.stdout).filter((l) => l.endsWith(`  chosen`) && l.includes(shown(t.chosen.bytes))).length, 1, p.stdout);
  assert.match(p.stdout, new RegExp(`\ntarget met: the chosen file is ${shown(t.chosen.bytes)} by brotli -q 9 \\(the target: 1\\.200 MB or less\\)\\. ` +
                                    'These are estimates \\(no samples\\): give --input to measure\\.\n'));
  // 10 kB: not even every tensor at 2 bits gets there.
  const small = path.join(dir, 'small.onnx');
  const missed = run(det, '-o', small, '--target', 'size=10kB', '--objective', 'gzip', '--json');
  assert.equal(missed.status, 3, missed.stderr);
  assert.match(missed.stderr, /det_infer\.onnx: --target size=10kB not met: even every tensor at 2 bits is larger than 10,000 bytes; nothing written\n/);
  const entry = JSON.parse(missed.stdout);
  assert.equal(entry.output, null);
  assert.equal(entry.report.target.met, false);
  assert.equal(entry.report.target.objective, 'gzip');
  assert.ok(entry.report.target.chosen.bytes > 10000);
  assert.ok(!existsSync(small));
  // Raw, codes of fewer than 8 bits take a byte a value too: the smallest raw file is at 8 bits.
  const raw = run(det, '-o', small, '--target', 'size=1MB', '--objective', 'raw');
  assert.equal(raw.status, 3, raw.stderr);
  assert.match(raw.stderr, /--target size=1MB not met: the smallest raw file \(every tensor at 8 bits or fewer: a byte a value\) is larger than 1,000,000 bytes; nothing written\n/);
  assert.match(raw.stdout, /\n +8\.00 +1\.433 MB +[0-9.]+e-[0-9]+ +closest\n/);
  assert.ok(!existsSync(small));
  assert.deepEqual(readdirSync(dir).sort(), ['det.onnx', 'r.json']);
});

test('Ctrl-C while it searches: the CLI stops, and nothing is written', async () => {
  const dir = tempDir('cli-target');
  const out = path.join(dir, 'det.onnx');
  // On a pseudo-terminal, as a user's Ctrl-C: the terminal sends SIGINT to the CLI. script(1)
  // exits with 128 + the signal's number.
  const child = spawn('script', onTerminal([det, '-o', out, '--target', 'size=1MB']), { stdio: ['pipe', 'pipe', 'inherit'] });
  let text = '';
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise((resolve) => child.stdout.on('data', (chunk) => {
    text += chunk;
    if (/% building and measuring candidates/.test(text)) resolve();  // well into the search: candidates are being built
  }));
  child.stdin.write('\x03');
  assert.equal(await exited, 130, text);
  assert.doesNotMatch(text, /target met/);
  assert.deepEqual(readdirSync(dir), []);
});

// The recording's first 16 chunks (the calibration half) are its half second of silence: every
// decision there is "no speech", which any file keeps, and the CLI warns of it.
test('silero VAD, a streaming model: its state fed back, fixed inputs by --value, agree on the threshold 0.5; calibrated on silence, a warning', () => {
  const dir = tempDir('cli-target');
  const speech = path.join(dir, 'speech.f32');
  writeFileSync(speech, readFileSync(path.join(fixtures, 'speech.bin')).subarray(0, 32 * 2048));  // 32 chunks of 512
  const out = path.join(dir, 'vad.onnx');
  const p = run(silero, '-o', out, '--target', 'agree=0.99', '--decision', 'threshold:0.5', '--objective', 'gzip',
                '--shape', 'input=1x512', '--shape', 'state=2x1x128', '--value', 'sr=16000', '--value', 'state=0',
                '--input', `input=${speech}`, '--feed-back', 'stateN=state', '--json');
  assert.equal(p.status, 0, p.stderr);
  const { output, report } = JSON.parse(p.stdout);
  assert.equal(output, out);
  const t = report.target;
  assert.equal(t.met, true);
  assert.equal(t.objective, 'gzip');
  assert.deepEqual(t.samples, { calibration: 16, heldOut: 16 });
  assert.ok(t.chosen.measured.agreement >= 0.99, JSON.stringify(t.chosen.measured));
  // The decisions are the speech probability's: the state fed back (stateN) is compared as values only.
  const perOutput = Object.fromEntries(t.chosen.measured.perOutput.map((o) => [o.name, o]));
  assert.deepEqual(Object.keys(perOutput).sort(), ['output', 'stateN']);
  assert.equal(perOutput.stateN.agreement, undefined);
  assert.ok(perOutput.stateN.relL2 > 0);
  assert.equal(t.chosen.measured.agreement, perOutput.output.agreement);
  const doubt = "output 'output' decides one way on the 16 calibration samples (every value at or below 0.5), so keeping its decisions there says little: give samples on which it decides both ways";
  assert.deepEqual(t.doubts, [doubt]);
  assert.ok(p.stderr.includes(`onnx-shrink: warning: ${silero}: --target agree=0.99: ${doubt}\n`), p.stderr);
  assert.equal(objectiveSize(readFileSync(out), 'gzip'), t.chosen.bytes);
  // Smaller on the wire than the default's file, by the same measure.
  const plain = path.join(dir, 'plain.onnx');
  assert.equal(run(silero, '-o', plain, '-q').status, 0);
  assert.ok(t.chosen.bytes < objectiveSize(readFileSync(plain), 'gzip'), `${t.chosen.bytes} bytes`);
});

// The generated 45 MB convolutional stack of bench/make_shapes.py (28 large tensors, each convolution
// reading an input of its own and writing an output): one model per tensor would be 1.4 GB of
// probes, more than EACH_PROBE_BYTES, so it gets the activation probe. Two samples of every input
// (seeded), each in a file; returns the model and the --input flags.
async function convStack(dir) {
  const model = path.join(dir, 'conv.onnx');
  const made = spawnSync('/usr/bin/python3', [path.join(root, 'bench', 'make_shapes.py'), 'conv', '45', model]);
  assert.equal(made.status, 0, String(made.stderr));
  const bytes = readFileSync(model);
  const report = await inspect(bytes);
  assert.ok(report.tensors.filter((t) => t.changed).length * bytes.byteLength > EACH_PROBE_BYTES);
  let seed = 7;
  const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5) * 3.4;
  const flags = [];
  for (const input of report.model.inputs) {
    const file = path.join(dir, `${input.name}.f32`);
    writeFileSync(file, Float32Array.from({ length: 2 * input.shape.reduce((a, b) => a * b, 1) }, next));
    flags.push('--input', `${input.name}=${file}`);
  }
  return { model, flags };
}

test('a model whose one-at-a-time probes would be too many bytes: the activation probe, its progress, the target met', async () => {
  const dir = tempDir('cli-target');
  const { model, flags } = await convStack(dir);
  const out = path.join(dir, 'conv.target.onnx'), reportFile = path.join(dir, 'r.json');
  const p = spawnSync('script', onTerminal([model, '-o', out, '--target', 'relL2=0.01', '--objective', 'gzip', ...flags, '--report', reportFile]),
                      { encoding: 'utf8', maxBuffer: 1 << 26 });
  const text = p.stdout.replace(/\r\n/g, '\n');
  assert.equal(p.status, 0, text);
  // Progress through the probe (one run) and the candidates.
  assert.match(text, /\] +\d+% measuring how much each tensor moves the outputs conv\.onnx/);
  assert.match(text, /\] +\d+% building and measuring candidates/);
  const t = JSON.parse(readFileSync(reportFile, 'utf8')).target;
  assert.equal(t.probe, 'activations');
  assert.equal(t.met, true);
  assert.ok(t.chosen.measured.relL2 <= 0.01, JSON.stringify(t.chosen.measured));
  assert.equal(objectiveSize(readFileSync(out), 'gzip'), t.chosen.bytes);
  assert.ok(t.points.every((p) => Number.isInteger(p.bytes) && p.measured));
});

test('Ctrl-C during the activation probe: the CLI stops, and nothing is written', async () => {
  const { model, flags } = await convStack(tempDir('cli-target'));
  const dir = tempDir('cli-target');
  const child = spawn('script', onTerminal([model, '-o', path.join(dir, 'conv.onnx'), '--target', 'relL2=0.01', ...flags]), { stdio: ['pipe', 'pipe', 'inherit'] });
  let text = '';
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise((resolve) => child.stdout.on('data', (chunk) => {
    text += chunk;
    if (/% measuring how much each tensor moves the outputs/.test(text)) resolve();
  }));
  child.stdin.write('\x03');
  assert.equal(await exited, 130, text);
  assert.doesNotMatch(text, /target met/);
  assert.deepEqual(readdirSync(dir), []);
});

test('a model whose weight is in an external data file beside it: measured with that file (from any folder), and size=FRACTION of both files', async () => {
  const { externalMatMul, normals } = await import('./onnx_writer.mjs');
  const dir = tempDir('target-external');
  writeFileSync(path.join(dir, 'w.bin'), new Float32Array(normals(64 * 512, 21)));
  writeFileSync(path.join(dir, 'm.onnx'), externalMatMul('w.bin'));
  writeFileSync(path.join(dir, 'x.f32'), new Float32Array(normals(4 * 64, 22)));
  // Run from another folder: onnxruntime, given the model's bytes, would look for w.bin there.
  const p = spawnSync(process.execPath, [cli, path.join(dir, 'm.onnx'), '--target', 'relL2=0.02', '--input', `x=${path.join(dir, 'x.f32')}`,
                                         '-o', path.join(dir, 'out.onnx'), '--report', path.join(dir, 'r.json')], { encoding: 'utf8', cwd: fixtures });
  assert.equal(p.status, 0, p.stderr);
  const report = JSON.parse(readFileSync(path.join(dir, 'r.json'), 'utf8'));
  assert.equal(report.target.met, true);
  assert.ok(report.target.chosen.measured.relL2 <= 0.02 && report.target.chosen.measured.relL2 > 0);
  // size=0.5: half of the model's file and its data file, each compressed.
  const q = run(path.join(dir, 'm.onnx'), '--target', 'size=0.5', '-o', path.join(dir, 'half.onnx'), '--report', path.join(dir, 'h.json'));
  assert.equal(q.status, 0, q.stderr);
  const whole = objectiveSize(readFileSync(path.join(dir, 'm.onnx')), 'brotli', 9) + objectiveSize(readFileSync(path.join(dir, 'w.bin')), 'brotli', 9);
  assert.equal(JSON.parse(readFileSync(path.join(dir, 'h.json'), 'utf8')).target.goal.bytes, Math.floor(0.5 * whole));
});

test('-o and --report never replace a sample file given with --input', () => {
  const dir = tempDir('sample-kept');
  const sample = path.join(dir, 'x.f32');
  writeFileSync(sample, new Float32Array(512));
  for (const flags of [['--target', 'relL2=0.01', '-o', sample], ['--verify', '-o', sample],
                       ['--target', 'relL2=0.01', '-o', path.join(dir, 'out.onnx'), '--report', sample]]) {
    const p = run(silero, ...flags, '--input', `input=${sample}`);
    assert.equal(p.status, 2, flags.join(' '));
    assert.match(p.stderr, /the result would replace '.*x\.f32', a sample file given with --input; onnx-shrink never overwrites its input/);
    assert.equal(readFileSync(sample).byteLength, 2048);
    assert.equal(existsSync(path.join(dir, 'out.onnx')), false);
  }
});
