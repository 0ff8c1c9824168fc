// The npm CLI's --verify telling a real check from one that passes by accident (guessed input
// shapes, outputs that say nothing), checking what it can before writing, its messages, and its
// table of sizes (issue 21, "Trust and polish").
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { FLOAT, externalMatMul, field, node, normals, number, str, valueInfo, varint } from './onnx_writer.mjs';
import { tempDir } from './temp_dir.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = path.join(root, 'bindings', 'js', 'cli.js');
const fixtures = path.join(root, 'tests', 'fixtures');
const run = (...args) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });

// PP-OCR det, whose input is x: [p2o.DynamicDimension.0, 3, p2o.DynamicDimension.1, p2o.DynamicDimension.2].
function workspace() {
  const dir = tempDir('cli-checks');
  copyFileSync(path.join(fixtures, 'ch_PP-OCRv4_det_infer.onnx'), path.join(dir, 'det.onnx'));
  copyFileSync(path.join(fixtures, 'silero_vad_v5.onnx'), path.join(dir, 'silero.onnx'));
  return dir;
}

const GUESSED_DIMS = 'x axis 0 (p2o.DynamicDimension.0), axis 2 (p2o.DynamicDimension.1), axis 3 (p2o.DynamicDimension.2)';
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('--verify on guessed input shapes says so, names each guessed dimension and the flag, and no tolerance gate passes on it', () => {
  const dir = workspace();
  const det = path.join(dir, 'det.onnx');
  // Without a gate: the check runs (on 1x3x1x1), and says loudly what it guessed and that its
  // numbers (max abs 0, cosine 1) mean nothing.
  const plain = run(det, '-o', path.join(dir, 'plain.onnx'), '--verify');
  assert.equal(plain.status, 0, plain.stderr);
  assert.match(plain.stderr, new RegExp(`onnx-shrink: warning: .*det\\.onnx: the check GUESSES the input dimensions the model leaves open, as 1:\\n  ${escape(GUESSED_DIMS)}\\n`));
  assert.match(plain.stderr, /Give the sizes it meets: --shape x=\?x3x\?x\? \(each \? a size\), or all open dimensions at once with --dim N/);
  assert.match(plain.stderr, /warning: .*det\.onnx: output 'sigmoid_0\.tmp_0' has the same value everywhere in the original model/);
  assert.match(plain.stdout, /verify plain\.onnx \(onnxruntime-node, seeded random inputs; 1 sample; GUESSED SHAPES x=1x3x1x1\):/);
  assert.match(plain.stdout, /sigmoid_0\.tmp_0: max abs 0\.000e\+0 .*cosine 1\.000000  CONSTANT/);
  // --json carries them too.
  const json = run(det, '-o', path.join(dir, 'json.onnx'), '--verify', '--json');
  assert.equal(json.status, 0, json.stderr);
  const entry = JSON.parse(json.stdout);
  assert.deepEqual(entry.guessedDimensions, [{ input: 'x', axis: 0, symbol: 'p2o.DynamicDimension.0', size: 1 },
                                             { input: 'x', axis: 2, symbol: 'p2o.DynamicDimension.1', size: 1 },
                                             { input: 'x', axis: 3, symbol: 'p2o.DynamicDimension.2', size: 1 }]);
  assert.equal(entry.suspicions.length, 1);
  // A tolerance gate on guessed shapes fails, before anything is written, naming what to give.
  for (const gate of [['--abs-tol', '1e-2'], ['--mean-tol', '1'], ['--abs-tol', '1', '--mean-tol', '1']]) {
    const output = path.join(dir, 'gated.onnx');
    const gated = run(det, '-o', output, '--verify', ...gate);
    assert.equal(gated.status, 2, `${gate.join(' ')}: ${gated.stdout}`);
    const flags = gate.filter((g) => g.startsWith('--')).join(' and ');
    assert.match(gated.stderr, new RegExp(`det\\.onnx: ${flags} cannot pass a check on guessed input shapes.*\\n  ${escape(GUESSED_DIMS)}\\n` +
                                          '  Give the sizes it meets: --shape x=\\?x3x\\?x\\?'));
    assert.ok(!existsSync(output), gate.join(' '));
  }
  assert.deepEqual(readdirSync(dir).filter((f) => f.includes('gated')), []);
  // Given shapes (or --dim): no warning, and the gate decides on the numbers.
  const real = run(det, '-o', path.join(dir, 'real.onnx'), '--verify', '--shape', 'x=1x3x64x64', '--abs-tol', '1');
  assert.equal(real.status, 0, real.stderr);
  assert.equal(real.stderr, '');
  assert.doesNotMatch(real.stdout, /GUESSED|CONSTANT|IDENTICAL/);
  const rel = Number(/sigmoid_0\.tmp_0: .*rel\. L2 ([\d.e+-]+)/.exec(real.stdout)[1]);
  assert.ok(rel > 1e-3 && rel < 0.1, real.stdout);  // the weights moved the output, a little
  const strict = run(det, '-o', path.join(dir, 'strict.onnx'), '--verify', '--shape', 'x=1x3x64x64', '--abs-tol', '1e-12');
  assert.equal(strict.status, 3, strict.stderr);
  assert.match(strict.stdout, /BEYOND TOLERANCE/);
  const dim = run(det, '-o', path.join(dir, 'dim.onnx'), '--verify', '--dim', '32', '--abs-tol', '1', '--json');
  assert.equal(dim.status, 0, dim.stderr);
  assert.equal(JSON.parse(dim.stdout).guessedDimensions, undefined);
  // A --shape naming no input is an error, not a shape silently left guessed.
  const typo = run(det, '-o', path.join(dir, 'typo.onnx'), '--verify', '--shape', 'X=1x3x64x64', '--abs-tol', '1');
  assert.equal(typo.status, 2);
  assert.match(typo.stderr, /the model has no input 'X' \(its inputs: x\)/);
});

test('--verify: an output constant in the original, or identical in both, is a warning, and fails a tolerance gate', () => {
  const dir = workspace();
  const det = path.join(dir, 'det.onnx');
  // A shape given, but one on which the weights cannot show (as the page's 1x3x1x1 guess was).
  const warned = run(det, '-o', path.join(dir, 'a.onnx'), '--verify', '--shape', 'x=1x3x1x1');
  assert.equal(warned.status, 0, warned.stderr);
  assert.match(warned.stderr, /warning: .*det\.onnx: output 'sigmoid_0\.tmp_0' has the same value everywhere in the original model: the check says nothing about it/);
  assert.doesNotMatch(warned.stderr, /GUESSES/);
  const gated = run(det, '-o', path.join(dir, 'b.onnx'), '--verify', '--shape', 'x=1x3x1x1', '--abs-tol', '1');
  assert.equal(gated.status, 3, gated.stderr);
  assert.match(gated.stderr, /det\.onnx: --abs-tol not passed: output 'sigmoid_0\.tmp_0' has the same value everywhere/);
  assert.match(gated.stdout, /CONSTANT/);
  assert.doesNotMatch(gated.stdout, /BEYOND TOLERANCE/);  // within tolerance: it fails for saying nothing
  // Nothing shrunk: every output the same in both models.
  const same = run(path.join(dir, 'silero.onnx'), '-o', path.join(dir, 'c.onnx'), '--verify', '--min-elements', '100000000', '--small', 'keep',
                   '--shape', 'input=1x512', '--shape', 'state=2x1x128', '--value', 'sr=16000', '--mean-tol', '1');
  assert.equal(same.status, 3, same.stderr);
  assert.match(same.stderr, /--mean-tol not passed: output 'output' is identical in both models on every sample: nothing was shrunk, so the check compared the model with itself/);
  assert.match(same.stdout, /output: max abs 0\.000e\+0 .*  IDENTICAL/);
});

test('--verify checks what it can before writing: onnxruntime-node is there, and the original runs on the inputs', () => {
  const dir = workspace();
  // The package as installed without its optional peer onnxruntime-node: a copy of its files in a
  // folder with no node_modules above it.
  const pkg = path.join(dir, 'pkg');
  mkdirSync(path.join(pkg, 'bindings'), { recursive: true });
  cpSync(path.join(root, 'bindings', 'js'), path.join(pkg, 'bindings', 'js'), { recursive: true });
  cpSync(path.join(root, 'dist'), path.join(pkg, 'dist'), { recursive: true });
  copyFileSync(path.join(root, 'package.json'), path.join(pkg, 'package.json'));
  const probe = spawnSync(process.execPath, ['--input-type=module', '-e', "await import('onnxruntime-node')"], { cwd: pkg, encoding: 'utf8' });
  assert.notEqual(probe.status, 0, 'onnxruntime-node is found from the copy: the test needs a folder without it above');
  const copied = (...args) => spawnSync(process.execPath, [path.join(pkg, 'bindings', 'js', 'cli.js'), ...args], { encoding: 'utf8' });
  const silero = path.join(dir, 'silero.onnx');
  const without = copied(silero, '-o', path.join(dir, 'without.onnx'), '--verify', '--shape', 'input=1x512', '--shape', 'state=2x1x128', '--value', 'sr=16000');
  assert.equal(without.status, 2, without.stdout);
  assert.equal(without.stderr, 'onnx-shrink: --verify needs onnxruntime-node, which is not installed here: npm install onnxruntime-node ' +
                               '(offline, or where its install script cannot download: npm install --ignore-scripts onnxruntime-node)\n');
  assert.ok(!readdirSync(dir).some((f) => f.startsWith('without')), readdirSync(dir).join(' '));
  assert.equal(copied(silero, '-o', path.join(dir, 'plain.onnx'), '-q').status, 0);  // the copy works otherwise
  assert.ok(existsSync(path.join(dir, 'plain.onnx')));
  // A model that does not run on the guessed shapes (silero's input as 1x1) is found out before
  // its result is written, in a folder as for one file; the other model of the folder is done.
  const models = path.join(dir, 'models');
  mkdirSync(models);
  copyFileSync(silero, path.join(models, 'silero.onnx'));
  copyFileSync(path.join(dir, 'det.onnx'), path.join(models, 'det.onnx'));
  const folder = run(models, '-o', path.join(dir, 'out'), '--verify');
  assert.equal(folder.status, 2);
  assert.match(folder.stderr, /silero\.onnx: --verify: the original model does not run on random inputs of the shapes the check gave it; it guessed input axis 0, axis 1; state axis 1 as 1: set them with --shape input=\?x\? --shape state=2x\?x128, or all at once with --dim N/);
  assert.deepEqual(readdirSync(path.join(dir, 'out')), ['det.shrunk.onnx']);
  for (const to of [path.join(dir, 'one.onnx'), '-']) {
    const one = spawnSync(process.execPath, [cli, silero, '-o', to, '--verify'], { encoding: 'utf8' });
    assert.equal(one.status, 2);
    assert.match(one.stderr, /does not run on random inputs/);
    assert.equal(one.stdout, '', to);
  }
  assert.ok(!readdirSync(dir).some((f) => f.startsWith('one')), readdirSync(dir).join(' '));
});

test('a result with its data in a file of its own is still checked, from where it stays', () => {
  const dir = tempDir('cli-checks-external');
  const model = path.join(dir, 'g.onnx');
  const made = spawnSync('/usr/bin/python3', [path.join(root, 'bench', 'make_model.py'), '12', model, '--external', '--sum']);
  assert.equal(made.status, 0, String(made.stderr));
  const p = run(model, '-o', path.join(dir, 'split.onnx'), '--external-data', 'external', '--verify', '--json');
  assert.equal(p.status, 0, p.stderr);
  const [y] = JSON.parse(p.stdout).verify;
  assert.ok(y.relL2 > 0 && y.relL2 < 0.05, JSON.stringify(y));
  assert.ok(existsSync(path.join(dir, 'split.onnx.data')));
});

test('a bad option: the error and one line pointing at --help, with the nearest flag or word for a slip', () => {
  const hint = "Run 'onnx-shrink --help' for the options.\n";
  for (const [args, message] of [
    [['--abs-toll', '1'], 'unknown option --abs-toll; did you mean --abs-tol?'],
    [['-verify'], 'unknown option -verify; did you mean --verify?'],
    [['--thresh', '0.5'], 'unknown option --thresh; did you mean --threshold?'],
    [['--jsn'], 'unknown option --jsn; did you mean --json?'],
    [['--frobnicate'], 'unknown option --frobnicate'],
    [['--bits', '11'], "--bits takes auto, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12 or 16, not '11'"],
    [['--tensor-bits', 'conv1'], "--tensor-bits takes NAME=BITS pairs (BITS as --bits takes them), e.g. conv1.weight=4,fc.weight=6, not 'conv1'"],
    [['--mode', 'palete'], "--mode takes int8 or palette, not 'palete'; did you mean palette?"],
    [['--dim', '0'], '--dim sets every open dimension: give 1 or more (a 0 goes in --shape, for one input)'],
    [['--dim', '3'], '--dim needs --verify or --target'],
    [['--expand', '--mode', 'palette', '--verify'], '--expand turns a shrunk model\'s weights back into floats: it takes no --verify or --mode'],
    [['--min-elements', '-1'], "--min-elements needs a whole number of 0 or more, not '-1'"],
    // A flag of the other mode would change nothing: refused, as the native CLI does.
    [['--levels', '16'], '--levels applies to palette mode, not int8 mode'],
    [['--inspect', '--verify'], '--verify checks the model a run writes, and --inspect writes none: give one'],
    [['--json=1'], '--json takes no value (got --json=1)'],
    [['--mode', 'palette', '--block', '64'], '--block applies to int8 mode, not palette mode'],
    [['--scheme', 'auto,chanel'], "--scheme takes auto, channel, tensor, kmeans or uniform, not 'chanel'; did you mean channel?"],
    [['--verify', '--value', 'x=1.2.3'], "--value takes NAME=NUMBER, e.g. sr=16000, not 'x=1.2.3'"],
    // A flag given twice kept the last without a word; the samples' flags are once per name.
    [['--target', 'size=0.5', '--decision', 'argmax'], '--decision describes the samples of --input, and there are none: --target size=0.5 then works by estimates (add --input NAME=FILE to measure)'],
    [['-', '--verify', '--input', 'x=-'], 'standard input can be read once, not for the model and --input x: give the others as files'],
    [['--target', 'relL2=0.01', '--target=size=0.5'], "--target is given twice ('relL2=0.01', then 'size=0.5'): give it once"],
    [['--verify', '--input', 'x=a.f32', '--input', 'x=b.f32'], "--input x= is given twice ('x=a.f32', then 'x=b.f32'): give it once"],
    [['--verify', '--feed-back', 'stateN=state', '--feed-back', 'output=state'], "--feed-back =state is given twice ('stateN=state', then 'output=state'): give it once"],
  ]) {
    const p = run('m.onnx', ...args);
    assert.equal(p.status, 2, args.join(' '));
    assert.equal(p.stderr, `onnx-shrink: ${message}\n${hint}`);
    assert.equal(p.stdout, '');
  }
  // Every flag of the usage text, cut short by a letter, is pointed out.
  const help = run('--help');
  assert.equal(help.status, 0);
  const flags = [...new Set(help.stdout.match(/(?<=^ {2}|, )--[a-z-]+/gm))];
  assert.ok(flags.length >= 25, flags.join(' '));
  for (const flag of flags.filter((f) => f.length >= 6)) {
    const p = run('m.onnx', flag.slice(0, -1));
    assert.equal(p.status, 2);
    assert.ok(p.stderr.startsWith(`onnx-shrink: unknown option ${flag.slice(0, -1)}; did you mean ${flag}?\n`), `${flag}: ${p.stderr}`);
  }
});

test('-o - to a terminal is refused: the model\'s bytes go to a file or a pipe', () => {
  // `script` runs the CLI with a terminal as its standard output (util-linux, on every Debian).
  const p = spawnSync('script', ['-qec', `${process.execPath} ${cli} ${path.join(root, 'tests', 'fixtures', 'silero_vad_v5.onnx')} -o -`, '/dev/null'],
                      { encoding: 'utf8' });
  assert.equal(p.status, 2, p.stdout);
  assert.match(p.stdout, /^onnx-shrink: -o - writes the model's bytes to standard output, which is a terminal here: redirect it/);
  assert.ok(p.stdout.length < 400);
});

test('a model file cut short is called truncated, as the page says it', () => {
  const dir = workspace();
  writeFileSync(path.join(dir, 'cut.onnx'), readFileSync(path.join(dir, 'det.onnx')).subarray(0, 2_000_000));
  const p = run(path.join(dir, 'cut.onnx'));
  assert.equal(p.status, 2);
  assert.match(p.stderr, /^onnx-shrink: .*cut\.onnx: this model file is cut short \(truncated\), download it again: field \d+ needs \d+ bytes but the file ends after \d+/);
  assert.ok(!existsSync(path.join(dir, 'cut.shrunk.onnx')));
});

// A model of one MatMul whose [n, n] weight (seeded normal values) is its raw_data, written around
// the weight's bytes (onnx_writer.mjs's tensor() spreads them into arrays, slow at this size).
function bigMatMul(n, seed) {
  const raw = new Uint8Array(Float32Array.from(normals(n * n, seed, 0.05)).buffer);
  const head = [...number(1, n), ...number(1, n), ...number(2, FLOAT), ...str(8, 'w'), ...varint(9 * 8 + 2), ...varint(raw.byteLength)];
  const initializer = [...varint(5 * 8 + 2), ...varint(head.length + raw.byteLength)];
  const rest = [...field(1, node('MatMul', ['x', 'w'], ['y'])), ...str(2, 'big'), ...field(11, valueInfo('x', [1, n])), ...field(12, valueInfo('y', [1, n]))];
  const graphLength = initializer.length + head.length + raw.byteLength + rest.length;
  const top = [...number(1, 8), ...field(8, number(2, 13)), ...varint(7 * 8 + 2), ...varint(graphLength)];
  return Buffer.concat([Uint8Array.from([...top, ...initializer, ...head]), raw, Uint8Array.from(rest)]);
}

test('the table: an input past 16 MB has its brotli size taken beside the engine, at quality 9, as one call gives it', () => {
  const dir = tempDir('cli-table-big');
  writeFileSync(path.join(dir, 'big.onnx'), bigMatMul(2100, 7));  // 17.6 MB: a result of about 4.4 MB
  const p = spawnSync(process.execPath, [cli, 'big.onnx'], { cwd: dir, encoding: 'utf8' });
  assert.equal(p.status, 0, p.stderr);
  const shrunk = readFileSync(path.join(dir, 'big.shrunk.onnx'));
  assert.ok(shrunk.byteLength > 4e6, `${shrunk.byteLength} bytes`);
  const brotli9 = brotliCompressSync(shrunk, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: shrunk.byteLength } });
  const gzip6 = gzipSync(shrunk, { level: 6 });
  assert.match(p.stdout, new RegExp(`^model +before +after +gzip -6 +brotli -q 9 +size\\nbig\\.shrunk\\.onnx +17\\.6 MB +[\\d.]+ MB +` +
                                    `[\\d.]+ MB +[\\d.]+ MB +[\\d.]+× smaller\\n`));
  const [, after, gzipped, brotlied] = p.stdout.match(/big\.shrunk\.onnx +17\.6 MB +([\d.]+) MB +([\d.]+) MB +([\d.]+) MB/);
  for (const [shown, bytes] of [[after, shrunk.byteLength], [gzipped, gzip6.byteLength], [brotlied, brotli9.byteLength]]) {
    assert.equal(shown, (bytes / 1e6).toFixed(1), `shown ${shown} MB for ${bytes} bytes`);
  }
});

test('the table: brotli sizes at the quality its header states, and how many times smaller', () => {
  const dir = workspace();
  const brotli = (file, quality) => {
    const bytes = readFileSync(file);
    return brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength } }).byteLength;
  };
  const kB = (n) => `${(n / 1000).toFixed(1)} kB`, size = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : kB(n));
  const p = spawnSync(process.execPath, [cli, 'silero.onnx'], { cwd: dir, encoding: 'utf8' });
  assert.equal(p.status, 0, p.stderr);
  const shrunk = path.join(dir, 'silero.shrunk.onnx');
  const ratio = (readFileSync(path.join(dir, 'silero.onnx')).byteLength / readFileSync(shrunk).byteLength).toFixed(1);
  assert.match(p.stdout, new RegExp(`^model +before +after +gzip -6 +brotli -q 11 +size\\n` +
                                    `silero\\.shrunk\\.onnx +2\\.3 MB +${kB(readFileSync(shrunk).byteLength)} +[\\d.]+ kB +${kB(brotli(shrunk, 11))} +${ratio}× smaller\\n`));
  // Results over 4 MB get quality 9 (quality 11 runs at about a megabyte a second), and say so.
  const palette = spawnSync(process.execPath, [cli, 'silero.onnx', 'det.onnx', '-o', 'palette', '--mode', 'palette'], { cwd: dir, encoding: 'utf8' });
  assert.equal(palette.status, 0, palette.stderr);
  const [sileroPalette, detPalette] = ['silero', 'det'].map((m) => path.join(dir, 'palette', `${m}.shrunk.onnx`));
  assert.ok(readFileSync(detPalette).byteLength > 4e6);
  assert.match(palette.stdout, /brotli -q 11/);
  // Palette keeps the raw size; the compressed sizes are where it gains.
  assert.match(palette.stdout, new RegExp(`silero\\.shrunk\\.onnx +2\\.3 MB +2\\.3 MB +[\\d.]+ kB +${size(brotli(sileroPalette, 11))} +same size\\n`));
  assert.match(palette.stdout, new RegExp(`det\\.shrunk\\.onnx +4\\.7 MB +4\\.7 MB +[\\d.]+ MB +${size(brotli(detPalette, 9))} \\(-q 9\\) +same size\\n`));
  // A result larger than before (expand) says so.
  const expanded = spawnSync(process.execPath, [cli, 'silero.shrunk.onnx', '--expand'], { cwd: dir, encoding: 'utf8' });
  assert.equal(expanded.status, 0, expanded.stderr);
  assert.match(expanded.stdout, /silero\.shrunk\.expanded\.onnx +[\d.]+ kB +2\.3 MB .* 2\.8× larger\n/);
});

test('an external data name that is a folder beside the model: named as such (it was read as a file of 4096 bytes)', () => {
  const dir = tempDir('data-folder');
  writeFileSync(path.join(dir, 'm.onnx'), externalMatMul('w.bin'));
  mkdirSync(path.join(dir, 'w.bin'));
  const p = run(path.join(dir, 'm.onnx'), '-o', path.join(dir, 'out.onnx'));
  assert.equal(p.status, 2);
  assert.match(p.stderr, /external data 'w\.bin' is not a file: '.*w\.bin' is a folder or a device/);
  assert.equal(existsSync(path.join(dir, 'out.onnx')), false);
});

test("--input NAME=- reads the samples from standard input, as a model '-' does", () => {
  const dir = workspace();
  const chunk = Buffer.from(new Float32Array(normals(512, 31)).buffer);
  const p = spawnSync(process.execPath, [cli, path.join(dir, 'silero.onnx'), '-o', path.join(dir, 'stdin.onnx'), '--verify', '--shape', 'input=1x512',
                                         '--shape', 'state=2x1x128', '--value', 'sr=16000', '--value', 'state=0', '--input', 'input=-'], { input: chunk, encoding: 'utf8' });
  assert.equal(p.status, 0, p.stderr);
  assert.match(p.stdout, /inputs from files: input; fixed values: sr, state; 1 sample\)/);
});

test('--feed-back of an output into an input of another type is named as such (it pointed at --shape)', () => {
  const dir = workspace();
  const p = run(path.join(dir, 'silero.onnx'), '-o', path.join(dir, 'fb.onnx'), '--verify', '--shape', 'input=1x512', '--shape', 'state=2x1x128',
                '--feed-back', 'output=sr');
  assert.equal(p.status, 2);
  assert.match(p.stderr, /--feed-back output=sr: output 'output' is float32 and input 'sr' int64: an output fed back must have its input's type/);
  assert.equal(existsSync(path.join(dir, 'fb.onnx')), false);
});

test('--dim sets the open dimensions: data for them splits into samples (it was called a guess)', () => {
  const dir = tempDir('dim-given');
  // x [batch, 64] times w [64, 512]: 8 rows of data are 8 samples with --dim 1.
  const open = (name, last) => [...str(1, name), ...field(2, field(1, [...number(1, FLOAT), ...field(2, [...field(1, str(2, 'batch')), ...field(1, number(1, last))])]))];
  writeFileSync(path.join(dir, 'm.onnx'), Uint8Array.from([...number(1, 8), ...field(8, number(2, 13)), ...field(7, [
    ...field(1, node('MatMul', ['x', 'w'], ['y'])), ...str(2, 'g'), ...field(5, [...number(1, 64), ...number(1, 512), ...number(2, FLOAT), ...str(8, 'w'),
    ...field(9, [...new Uint8Array(new Float32Array(normals(64 * 512, 42)).buffer)])]), ...field(11, open('x', 64)), ...field(12, open('y', 512))])]));
  const file = path.join(dir, 'x.f32');
  writeFileSync(file, new Float32Array(normals(8 * 64, 41)));
  const p = run(path.join(dir, 'm.onnx'), '-o', path.join(dir, 'dim.onnx'), '--verify', '--dim', '1', '--input', `x=${file}`);
  assert.equal(p.status, 0, p.stderr);
  assert.match(p.stdout, /inputs from files: x; 8 samples\)/);
  // Without --dim the first dimension is a guess, which cannot split the data.
  const guessed = run(path.join(dir, 'm.onnx'), '-o', path.join(dir, 'guess.onnx'), '--verify', '--input', `x=${file}`);
  assert.equal(guessed.status, 2);
  assert.match(guessed.stderr, /a guess cannot split into samples: set its shape/);
});
