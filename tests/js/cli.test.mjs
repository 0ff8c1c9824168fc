// The npm CLI (bindings/js/cli.js) on real files.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync, symlinkSync, watch, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from './temp_dir.mjs';
import { fromHalfBits, OutputComparison, toHalfBits } from '../../bindings/js/verify.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = path.join(root, 'bindings', 'js', 'cli.js');
const fixtures = path.join(root, 'tests', 'fixtures');
const run = (...args) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
const sha = (p) => createHash('sha256').update(readFileSync(p)).digest('hex');

function workspace() {
  const dir = tempDir('cli');
  copyFileSync(path.join(fixtures, 'silero_vad_v5.onnx'), path.join(dir, 'silero.onnx'));
  mkdirSync(path.join(dir, 'models', 'nested'), { recursive: true });
  copyFileSync(path.join(fixtures, 'ch_PP-OCRv4_det_infer.onnx'), path.join(dir, 'models', 'nested', 'det.onnx'));
  return dir;
}

test('several inputs and folders; outputs beside each input; a summary table', () => {
  const dir = workspace();
  const p = run(path.join(dir, 'silero.onnx'), path.join(dir, 'models'));
  assert.equal(p.status, 0, p.stderr);
  assert.ok(existsSync(path.join(dir, 'silero.shrunk.onnx')));
  assert.ok(existsSync(path.join(dir, 'models', 'nested', 'det.shrunk.onnx')));
  assert.match(p.stdout, /model\s+before\s+after\s+gzip -6\s+brotli -q 11\s+size/);
  assert.match(p.stdout, /silero\.shrunk\.onnx .* 2\.8× smaller\n/);
  // The table gives the sizes of the files written.
  const kB = (file) => `${(statSync(file).size / 1000).toFixed(1)} kB`;
  assert.match(p.stdout, new RegExp(`silero\\.shrunk\\.onnx\\s+2\\.3 MB\\s+${kB(path.join(dir, 'silero.shrunk.onnx'))}`));
  // A second run skips the .shrunk.onnx files it made; -o FOLDER keeps the subfolders.
  const again = run(path.join(dir, 'models'), '-o', path.join(dir, 'out'));
  assert.equal(again.status, 0, again.stderr);
  assert.deepEqual(readdirSync(path.join(dir, 'out'), { recursive: true }).sort(), ['nested', path.join('nested', 'det.shrunk.onnx')]);
  // Two models of one name in different subfolders stay apart; given by name, they are refused
  // before any work, rather than one result overwriting the other.
  mkdirSync(path.join(dir, 'models', 'other'));
  copyFileSync(path.join(dir, 'silero.onnx'), path.join(dir, 'models', 'other', 'det.onnx'));
  const both = spawnSync(process.execPath, [cli, 'models', '-o', 'both'], { cwd: dir, encoding: 'utf8' });
  assert.equal(both.status, 0, both.stderr);
  assert.match(both.stdout, /both\/nested\/det\.shrunk\.onnx +4\.7 MB/);
  assert.match(both.stdout, /both\/other\/det\.shrunk\.onnx +2\.3 MB/);
  const clash = run(path.join(dir, 'models', 'nested', 'det.onnx'), path.join(dir, 'models', 'other', 'det.onnx'), '-o', path.join(dir, 'clash'));
  assert.equal(clash.status, 2);
  assert.match(clash.stderr, /'.*nested\/det\.onnx' and '.*other\/det\.onnx' would both be written to '.*clash\/det\.shrunk\.onnx'/);
  assert.ok(!existsSync(path.join(dir, 'clash')));
});

test('on a terminal: progress while shrinking and while checking, cleared before the table', () => {
  const dir = workspace();
  const speech = readFileSync(path.join(fixtures, 'speech.bin')).subarray(0, 8 * 2048);
  writeFileSync(path.join(dir, 'eight.f32'), speech);
  const args = [process.execPath, cli, path.join(dir, 'silero.onnx'), '--verify', '--shape', 'input=1x512', '--value', 'sr=16000',
                '--input', `input=${path.join(dir, 'eight.f32')}`];
  // script(1) runs the CLI on a pseudo-terminal; what it wrote there, stderr and stdout, comes back.
  const shown = spawnSync('script', ['-qec', args.map((x) => `'${x}'`).join(' '), '/dev/null'], { encoding: 'utf8' });
  assert.equal(shown.status, 0, shown.stdout);
  assert.match(shown.stdout, /\] 100% writing +silero\.onnx/);
  assert.match(shown.stdout, /\]  50% checking silero\.onnx/);  // sample 4 of 8
  assert.match(shown.stdout, /\r\x1b\[Kmodel +before +after/);  // the bar is gone before the table
  // Not on a terminal: no bars at all.
  const piped = run(...args.slice(2));
  assert.equal(piped.status, 0, piped.stderr);
  assert.doesNotMatch(piped.stdout + piped.stderr, /checking|writing|\r/);
});

test('a model shrunk before comes back unchanged, and the CLI says why', () => {
  const dir = workspace();
  const first = path.join(dir, 'once.onnx'), twice = path.join(dir, 'twice.onnx');
  assert.equal(run(path.join(dir, 'silero.onnx'), '-o', first, '-q').status, 0);
  const again = run(first, '-o', twice);
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stdout, /twice\.onnx: Nothing to shrink: its large tensors hold 8-bit values already \(shrunk before, or quantized\)\./);
  assert.equal(sha(twice), sha(first));
  const small = run(path.join(dir, 'silero.onnx'), '-o', path.join(dir, 'small.onnx'), '--min-elements', '1000000');
  assert.match(small.stdout, /small\.onnx: Nothing to shrink: no float tensor has enough values \(see min_elements\)\./);
});

test("runs one after another to one output: a failed run's clean-up never removes the next run's file", () => {
  const dir = workspace();
  const input = path.join(dir, 'silero.onnx'), output = path.join(dir, 'x.onnx');
  // The failed run's temporary file exists when it fails (the options are checked by the engine);
  // its helper process (janitor.js) removes it after the run has ended, while the next one writes.
  for (let i = 0; i < 4; i++) {
    const failed = run(input, '-o', output, '--scheme', 'tensor', '--tensor-bits', 'If_0_then_branch__Inline_0__decoder.rnn.weight_hh=4');
    assert.equal(failed.status, 2, failed.stderr);
    const next = run(input, '-o', output, '-q');
    assert.equal(next.status, 0, next.stderr);
  }
  assert.ok(existsSync(output));
  // '-o FOLDER/' is a folder, made when missing; standard input goes alone.
  const intoFolder = run(input, '-o', path.join(dir, 'made') + path.sep, '-q');
  assert.equal(intoFolder.status, 0, intoFolder.stderr);
  assert.equal(sha(path.join(dir, 'made', 'silero.shrunk.onnx')), sha(output));
  const mixed = spawnSync(process.execPath, [cli, '-', input, '-o', path.join(dir, 'mixed')], { encoding: 'utf8', input: readFileSync(input) });
  assert.equal(mixed.status, 2);
  assert.match(mixed.stderr, /'-' \(a model from standard input\) goes alone/);
  assert.ok(!existsSync(path.join(dir, 'mixed')));
});

test('never overwrites its input; bad input exits 2 and leaves nothing behind', () => {
  const dir = workspace();
  const input = path.join(dir, 'silero.onnx');
  const before = sha(input);
  const same = run(input, '-o', input);
  assert.equal(same.status, 2);
  assert.match(same.stderr, /never overwrites its input/);
  assert.equal(sha(input), before);
  // Nor another of the models given: silero.onnx's result is silero.shrunk.onnx, given as well.
  const given = path.join(dir, 'silero.shrunk.onnx');
  writeFileSync(given, readFileSync(input).subarray(0, 1000));
  const other = run(input, given);
  assert.equal(other.status, 2);
  assert.match(other.stderr, /the result of '.*silero\.onnx' would replace '.*silero\.shrunk\.onnx', another of the models given/);
  assert.deepEqual([sha(input), readFileSync(given).byteLength], [before, 1000]);
  rmSync(given);
  // Nor with --report, which must not name a model given or a result.
  const reportOver = run(input, '-o', path.join(dir, 'r.onnx'), '--report', input);
  assert.equal(reportOver.status, 2);
  assert.match(reportOver.stderr, /--report '.*silero\.onnx' would replace '.*silero\.onnx', one of the models given/);
  const reportOnResult = run(input, '-o', path.join(dir, 'r.onnx'), '--report', path.join(dir, 'r.onnx'));
  assert.equal(reportOnResult.status, 2);
  assert.match(reportOnResult.stderr, /--report and the result of '.*silero\.onnx' would both be written to/);
  assert.equal(sha(input), before);
  assert.ok(!existsSync(path.join(dir, 'r.onnx')));
  writeFileSync(path.join(dir, 'broken.onnx'), readFileSync(input).subarray(0, 100000));
  const broken = run(path.join(dir, 'broken.onnx'));
  assert.equal(broken.status, 2);
  assert.match(broken.stderr, /broken\.onnx: .*(ends|past)/);
  assert.ok(!existsSync(path.join(dir, 'broken.shrunk.onnx')));
  assert.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.partial')), []);
  assert.equal(run(path.join(dir, 'missing.onnx')).status, 2);
  // An output that cannot be written is named, with the reason; no stack trace.
  const blocked = run(input, '-o', path.join(input, 'out.onnx'));
  assert.equal(blocked.status, 2);
  assert.match(blocked.stderr, /cannot write '.*silero\.onnx\/out\.onnx': '.*silero\.onnx' is a file, not a folder\n$/);
  assert.doesNotMatch(blocked.stderr, /internal error|at /);
  const report = run(input, '-o', path.join(dir, 'r.onnx'), '-q', '--report', path.join(input, 'r.json'));
  assert.equal(report.status, 2);
  assert.match(report.stderr, /--report: cannot write '.*r\.json'/);
  // A model from a pipe is read whole and gives the same result; without -o it has no name to follow.
  const viaPipe = (...extra) => spawnSync('bash', ['-c', '"$0" "$1" <(cat "$MODEL") "${@:2}"', process.execPath, cli, ...extra],
                                          { encoding: 'utf8', env: { ...process.env, MODEL: input } });
  const piped = viaPipe('-o', path.join(dir, 'piped.onnx'), '-q');
  assert.equal(piped.status, 0, piped.stderr);
  assert.equal(run(input, '-o', path.join(dir, 'named.onnx'), '-q').status, 0);
  assert.equal(sha(path.join(dir, 'piped.onnx')), sha(path.join(dir, 'named.onnx')));
  const checked = viaPipe('-o', path.join(dir, 'piped.onnx'), '--verify', '--shape', 'input=1x512', '--value', 'sr=16000');
  assert.equal(checked.status, 0, checked.stderr);  // the original runs from the bytes read, not the spent pipe
  assert.match(checked.stdout, /output: max abs/);
  const unnamed = viaPipe();
  assert.equal(unnamed.status, 2);
  assert.match(unnamed.stderr, /is not a regular file \(a pipe\?\): name the result with -o/);
  // --expand on a model that was never shrunk says so.
  const plain = run(input, '--expand', '-o', path.join(dir, 'plain.onnx'));
  assert.equal(plain.status, 0, plain.stderr);
  assert.match(plain.stdout, /plain\.onnx: Nothing to expand: no dequantization of constants found\./);
  // --expand writes as it goes; a model that breaks off leaves no file behind, partial or whole.
  const brokenExpand = run(path.join(dir, 'broken.onnx'), '--expand', '-o', path.join(dir, 'broken.expanded.onnx'));
  assert.equal(brokenExpand.status, 2);
  assert.match(brokenExpand.stderr, /broken\.onnx: .*(ends|past)/);
  assert.ok(!existsSync(path.join(dir, 'broken.expanded.onnx')));
  assert.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.partial')), []);
  const usage = run(input, '--mode', 'int4');
  assert.equal(usage.status, 2);
  assert.equal(usage.stderr, "onnx-shrink: --mode takes int8 or palette, not 'int4'\nRun 'onnx-shrink --help' for the options.\n");
  assert.equal(run('--help').status, 0);
});

test("'-' and streams: a model from standard input, the result to standard output, a pipe or through a link", () => {
  const dir = workspace();
  const input = path.join(dir, 'silero.onnx');
  const native = process.env.ONNX_SHRINK_CLI || path.join(root, 'build', 'onnx-shrink');
  assert.equal(run(input, '-o', path.join(dir, 'file.onnx'), '-q').status, 0);
  const expected = readFileSync(path.join(dir, 'file.onnx'));
  const tools = { npm: [process.execPath, cli], native: [native] };
  for (const [name, [command, ...first]] of Object.entries(tools)) {
    const go = (args) => spawnSync(command, [...first, ...args], { cwd: dir, maxBuffer: 1 << 26 });
    // -o -: the model alone on stdout (the summary goes to stderr), byte for byte the file's.
    const out = go([input, '-o', '-']);
    assert.equal(out.status, 0, `${name}: ${out.stderr}`);
    assert.ok(out.stdout.equals(expected), `${name}: -o - gives the model`);
    // A model that fails sends nothing down the pipe.
    writeFileSync(path.join(dir, 'junk.onnx'), 'junk');
    const junk = go([path.join(dir, 'junk.onnx'), '-o', '-']);
    assert.equal(junk.status, 2, name);
    assert.equal(junk.stdout.length, 0, `${name}: nothing on stdout after an error`);
    assert.match(String(junk.stderr), /not an ONNX model/);
    // An existing pipe is written into, not replaced by a file (as /dev/stdout was, once).
    const fifo = path.join(dir, `${name}.fifo`), got = path.join(dir, `${name}.got`);
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    const viaFifo = spawnSync('bash', ['-c', 'cat "$FIFO" > "$GOT" & "$@" -q; status=$?; wait; exit $status', 'bash', command, ...first, input, '-o', fifo],
                              // A pipe replaced by a file leaves its reader waiting: fail, do not hang.
                              { encoding: 'utf8', env: { ...process.env, FIFO: fifo, GOT: got }, timeout: 120000, killSignal: 'SIGKILL' });
    assert.equal(viaFifo.status, 0, `${name}: ${viaFifo.stderr}`);
    assert.ok(lstatSync(fifo).isFIFO(), `${name}: the pipe is still a pipe`);
    assert.ok(readFileSync(got).equals(expected), `${name}: the pipe got the model`);
    // A link to a file: the file gets the result, and the link stays a link.
    const target = path.join(dir, `${name}.target.onnx`), link = path.join(dir, `${name}.link.onnx`);
    writeFileSync(target, 'old');
    symlinkSync(target, link);
    assert.equal(go([input, '-o', link, '-q']).status, 0, name);
    assert.ok(lstatSync(link).isSymbolicLink(), `${name}: the link is still a link`);
    assert.equal(readlinkSync(link), target);
    assert.ok(readFileSync(target).equals(expected), `${name}: the linked file got the model`);
    assert.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.partial')), [], name);
    // A device that fails (a full disk): the error names it, and the temporary file is gone.
    const full = go([input, '-o', '/dev/full']);
    assert.notEqual(full.status, 0, name);
    assert.match(String(full.stderr), /cannot write '\/dev\/full': (ENOSPC|No space left on device)/, name);
    assert.ok(lstatSync('/dev/full').isCharacterDevice());
  }
  // The npm CLI reads a model from standard input as '-'; its table then names the output.
  const stdin = spawnSync(process.execPath, [cli, '-', '-o', '-'], { input: readFileSync(input), maxBuffer: 1 << 26 });
  assert.equal(stdin.status, 0, String(stdin.stderr));
  assert.ok(stdin.stdout.equals(expected), "'-' in, '-' out");
  assert.match(String(stdin.stderr), new RegExp(`\\(stdout\\)\\s+2\\.3 MB\\s+${(expected.byteLength / 1000).toFixed(1)} kB`));
  const unnamed = spawnSync(process.execPath, [cli, '-'], { input: readFileSync(input), encoding: 'utf8' });
  assert.equal(unnamed.status, 2);
  assert.match(unnamed.stderr, /standard input: no file name to put the result beside: name the result with -o/);
  for (const [args, message] of [[['-o', '-', '--json'], /-o - and --json would both write to standard output/],
                                 [['-o', '-', '--report', '-'], /-o - and --report - would both/],
                                 [['-o', '-', '--external-data', 'external'], /needs a file to put beside the model: give -o FILE/]]) {
    const p = run(input, ...args);
    assert.equal(p.status, 2, args.join(' '));
    assert.match(p.stderr, message);
    assert.equal(p.stdout, '');
  }
  const many = run(input, path.join(dir, 'models'), '-o', '-');
  assert.equal(many.status, 2);
  assert.match(many.stderr, /with several inputs, -o names a folder, not a stream/);
});

test('a data file not found: the error says where it was looked for, or why a model from standard input cannot find one', () => {
  const dir = tempDir('cli-missing-data');
  const model = path.join(dir, 'm.onnx');
  assert.equal(spawnSync('/usr/bin/python3', [path.join(root, 'bench', 'make_model.py'), '5', model, '--external']).status, 0);
  rmSync(`${model}.data`);
  const file = run(model, '-q');
  assert.equal(file.status, 2);
  assert.equal(file.stderr, `onnx-shrink: ${model}: tensor 'layer0.weight' keeps its data in the external file 'm.onnx.data', which was not supplied ` +
                            `(looked for '${model}.data')\n`);
  const piped = spawnSync(process.execPath, [cli, '-', '-o', path.join(dir, 'x.onnx')], { input: readFileSync(model), encoding: 'utf8' });
  assert.equal(piped.status, 2);
  assert.match(piped.stderr, /^onnx-shrink: standard input: .*which was not supplied \(a model from standard input has no folder to find it in: give the model as a file\)\n$/);
  assert.deepEqual(readdirSync(dir), ['m.onnx']);
});

test('an earlier run\'s data file beside an inline result is said not to be part of it', () => {
  const dir = tempDir('cli-stale-data');
  const model = path.join(dir, 'm.onnx'), out = path.join(dir, 'o.onnx');
  assert.equal(spawnSync('/usr/bin/python3', [path.join(root, 'bench', 'make_model.py'), '5', model, '--external']).status, 0);
  assert.equal(run(model, '-o', out, '--external-data', 'external', '-q').status, 0);
  assert.ok(existsSync(`${out}.data`));
  const inline = run(model, '-o', out);
  assert.equal(inline.status, 0, inline.stderr);
  assert.match(inline.stderr, new RegExp(`warning: ${out.replace(/[.]/g, '\\.')}\\.data is beside the result but not part of it \\(an earlier run's data file\\?\\)`));
  // The split run again: its data file is its own, and nothing is said.
  assert.doesNotMatch(run(model, '-o', out, '--external-data', 'external').stderr, /beside the result/);
});

test('--flag=value is --flag value', () => {
  const dir = tempDir('cli-equals');
  const input = path.join(fixtures, 'silero_vad_v5.onnx');
  const joined = run(input, '-o', path.join(dir, 'a.onnx'), '--mode=palette', '--levels=64', '-q');
  const apart = run(input, '-o', path.join(dir, 'b.onnx'), '--mode', 'palette', '--levels', '64', '-q');
  assert.equal(joined.status, 0, joined.stderr);
  assert.equal(apart.status, 0, apart.stderr);
  assert.ok(readFileSync(path.join(dir, 'a.onnx')).equals(readFileSync(path.join(dir, 'b.onnx'))));
});

test('-o: a folder input names a folder; folders that cannot be made, or a file where one should be, are said so', () => {
  const dir = tempDir('cli-folders');
  const input = path.join(fixtures, 'silero_vad_v5.onnx');
  mkdirSync(path.join(dir, 'one'));
  copyFileSync(input, path.join(dir, 'one', 'silero.onnx'));
  // One model in a folder: -o names a folder all the same, and no folder is made under a file's name.
  const named = run(path.join(dir, 'one'), '-o', path.join(dir, 'y.onnx'), '-q');
  assert.equal(named.status, 2);
  assert.equal(named.stderr, `onnx-shrink: with a folder as input, -o names a folder, not '${path.join(dir, 'y.onnx')}'\n`);
  assert.equal(existsSync(path.join(dir, 'y.onnx')), false);
  // A file where a folder of -o should be.
  const underFile = run(input, '-o', path.join(dir, 'one', 'silero.onnx', 'x.onnx'), '-q');
  assert.equal(underFile.status, 2);
  assert.match(underFile.stderr, new RegExp(`cannot write '.*x\\.onnx': '.*silero\\.onnx' is a file, not a folder\n$`));
  // A folder that cannot be made ends the run at once (Node's own recursive mkdir looped there for ever).
  const proc = spawnSync(process.execPath, [cli, input, '-o', '/proc/self/nope/x.onnx', '-q'], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(proc.status, 2);
  assert.match(proc.stderr, /cannot write '\/proc\/self\/nope\/x\.onnx': ENOENT: .*mkdir '\/proc\/self\/nope'/);
  assert.doesNotMatch(proc.stderr, /\.partial/);
});

// Resolves once `condition()` holds, checked at the start and on every change in `dir`
// (inotify, no polling); rejects after `ms` milliseconds.
function whenInDir(dir, condition, ms, what) {
  return new Promise((resolve, reject) => {
    const watcher = watch(dir, () => check());
    const timer = setTimeout(() => {
      watcher.close();
      reject(new Error(`${what}: not within ${ms} ms`));
    }, ms);
    const check = () => {
      if (!condition()) return;
      clearTimeout(timer);
      watcher.close();
      resolve();
    };
    check();
  });
}

test('killed mid-run (Ctrl-C, or SIGKILL): no partial file is left behind', async () => {
  const dir = tempDir('cli');
  const model = path.join(dir, 'big.onnx');
  // 200 MB: the engine works on it for a good fraction of a second, so the signal lands mid-run.
  const made = spawnSync('/usr/bin/python3', [path.join(root, 'bench', 'make_model.py'), '200', model]);
  assert.equal(made.status, 0, String(made.stderr));
  // The npm CLI (Ctrl-C and SIGKILL), and the native driver (Ctrl-C; palette, its slower mode).
  const native = process.env.ONNX_SHRINK_CLI || path.join(root, 'build', 'onnx-shrink');
  const runs = [['npm', 'SIGINT', process.execPath, [cli]], ['npm', 'SIGKILL', process.execPath, [cli]],
                ['native', 'SIGINT', native, ['--mode', 'palette']]];
  for (const [tool, signal, program, args] of runs) {
    const output = path.join(dir, `out-${tool}-${signal}.onnx`);
    const child = spawn(program, [...args, model, '-o', output, '-q']);
    const exited = once(child, 'exit');
    // (OUT.partial natively; OUT.PID-N.partial from the npm CLI)
    const temporary = () => readdirSync(dir).some((f) => f.startsWith(path.basename(output)) && f.endsWith('.partial'));
    await whenInDir(dir, temporary, 60_000, 'the temporary file appears');
    child.kill(signal);
    const [code, by] = await exited;
    assert.equal(by, signal, `${tool}: finished (exit ${code}) before the signal: the test needs a larger model`);
    await whenInDir(dir, () => !temporary(), 10_000, `the temporary file is removed after ${signal}`);
    assert.ok(!existsSync(output));
  }
  assert.deepEqual(readdirSync(dir), ['big.onnx']);
  rmSync(dir, { recursive: true });
});

test('--json, --report, --inspect and --expand', () => {
  const dir = workspace();
  const input = path.join(dir, 'silero.onnx');
  const json = run(input, '--json', '--report', path.join(dir, 'r.json'), '--mode', 'palette');
  assert.equal(json.status, 0, json.stderr);
  const printed = JSON.parse(json.stdout);
  assert.equal(printed.report.mode, 'palette');
  assert.equal(JSON.parse(readFileSync(path.join(dir, 'r.json'), 'utf8')).totals.tensorsChanged, 12);
  const inspect = run(input, '--inspect', '-o', path.join(dir, 'nothing.onnx'));
  assert.equal(inspect.status, 0, inspect.stderr);
  assert.match(inspect.stdout, /stft\.forward_basis_buffer\s+float32\s+\[258, 1, 256\]/);
  assert.ok(!existsSync(path.join(dir, 'nothing.onnx')));
  const inspectSplit = run(input, '--inspect', '--external-data', 'external', '--json');  // names the data file a shrink would write
  assert.equal(inspectSplit.status, 0, inspectSplit.stderr);
  assert.match(JSON.parse(inspectSplit.stdout).report.summary, /No tensor went to external data/);
  // A shrink asked for a data file that none of its weights can go to says so, and writes none.
  const noData = run(input, '-o', path.join(dir, 'no-data.onnx'), '--external-data', 'external');
  assert.equal(noData.status, 0, noData.stderr);
  assert.match(noData.stderr, /warning: .*silero.*: --external-data external wrote no data file\. No tensor went to external data: the model's weights are Constant nodes' values/);
  assert.ok(!existsSync(path.join(dir, 'no-data.onnx.data')));
  const shrunk = path.join(dir, 'silero.shrunk.onnx');
  assert.equal(run(input, '-q').status, 0);
  const expanded = run(shrunk, '--expand');
  assert.equal(expanded.status, 0, expanded.stderr);
  // Back to plain float weights: the original's size, give or take the names of new nodes.
  const expandedReport = JSON.parse(run(shrunk, '--expand', '--json', '-o', path.join(dir, 'again.onnx')).stdout).report;
  assert.ok(Math.abs(readFileSync(path.join(dir, 'silero.shrunk.expanded.onnx')).byteLength - readFileSync(input).byteLength) <
            150 * expandedReport.totals.tensorsChanged);
});

test('--verify compares in onnxruntime-node and exits 3 beyond tolerance', () => {
  const dir = workspace();
  const input = path.join(dir, 'silero.onnx');
  const args = [input, '--verify', '--shape', 'input=1x512', '--shape', 'state=2x1x128', '--value', 'sr=16000'];
  const ok = run(...args, '--report', path.join(dir, 'checked.json'));
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /output: max abs [\d.e-]+\s+mean abs [\d.e-]+\s+rel\. L2 [\d.e-]+\s+cosine (0\.99|1\.0)/);
  // --report has the check's results beside the report, as --json does.
  const reported = JSON.parse(readFileSync(path.join(dir, 'checked.json'), 'utf8'));
  assert.equal(reported.totals.tensorsChanged, 12);
  assert.deepEqual(reported.verify.map((o) => o.name), ['output', 'stateN']);
  const strict = run(...args, '--abs-tol', '1e-9');
  assert.equal(strict.status, 3);
  assert.match(strict.stdout, /BEYOND TOLERANCE/);
  // The file is written, and that is said, also with --quiet.
  const quiet = run(...args, '--abs-tol', '1e-9', '-q');
  assert.equal(quiet.status, 3);
  assert.equal(quiet.stdout, '');
  assert.match(quiet.stderr, /silero\.shrunk\.onnx: written, but outputs 'output', 'stateN' failed the check \(exit 3\): look at it before you use it\n$/);
  assert.ok(existsSync(path.join(dir, 'silero.shrunk.onnx')));
  const unrunnable = run(input, '--verify');
  assert.equal(unrunnable.status, 2);
  assert.match(unrunnable.stderr, /does not run on random inputs.*--dim/);
});

test('--verify --input: real input data from files, checked against the declared shape and type', () => {
  const dir = workspace();
  const input = path.join(dir, 'silero.onnx');
  // One chunk of the corpus speech (512 float32 samples, one second in) and a zero state.
  const speech = readFileSync(path.join(fixtures, 'speech.bin'));
  writeFileSync(path.join(dir, 'chunk.f32'), speech.subarray(4 * 16000, 4 * 16000 + 4 * 512));
  writeFileSync(path.join(dir, 'state.f32'), Buffer.alloc(4 * 256));
  const args = [input, '--verify', '--shape', 'input=1x512', '--shape', 'state=2x1x128', '--value', 'sr=16000'];
  const real = run(...args, '--input', `input=${path.join(dir, 'chunk.f32')}`, '--input', `state=${path.join(dir, 'state.f32')}`);
  assert.equal(real.status, 0, real.stderr);
  assert.match(real.stdout, /inputs from files: input, state; fixed values: sr; 1 sample\)/);
  const relL2 = (out) => Number(/output: .*rel\. L2 ([\d.e+-]+)/.exec(out)[1]);
  const randomRun = run(...args);
  assert.equal(randomRun.status, 0, randomRun.stderr);
  // Real speech gives another (here: a small) error than random numbers do.
  assert.ok(relL2(real.stdout) < 0.02, real.stdout);
  assert.notEqual(relL2(real.stdout), relL2(randomRun.stdout));
  const short = run(...args, '--input', `input=${path.join(dir, 'state.f32')}`);
  assert.equal(short.status, 2);
  assert.match(short.stderr, /input 'input' of shape \[1, 512\] and type float32 takes 2048 bytes per sample, the data given has 1024/);
  const unknown = run(...args, '--input', `audio=${path.join(dir, 'chunk.f32')}`);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /the model has no input 'audio' \(its inputs: input, state, sr\)/);
  const missing = run(...args, '--input', `input=${path.join(dir, 'missing.f32')}`);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /cannot read '.*missing\.f32' for input 'input': ENOENT/);
  // A shape too large to make is named, before any memory is spent on it, and nothing is written.
  const output = path.join(dir, 'huge.onnx');
  const huge = run(input, '-o', output, '--verify', '--shape', 'input=100000x100000000', '--value', 'sr=16000');
  assert.equal(huge.status, 2, huge.stderr);
  assert.match(huge.stderr, /input 'input' of shape \[100000, 100000000\] has 10,000,000,000,000 values, more than a check makes \(268,435,456\): set a smaller shape/);
  assert.ok(!existsSync(output));
});

test('--verify with float16 inputs and outputs: values made and read as halves, not as their bits', () => {
  // Half conversion: every finite half survives the round trip, and halfway cases go to the even one.
  for (let h = 0; h < 0x10000; h++) {
    if ((h & 0x7c00) === 0x7c00 && h & 0x3ff) continue;  // NaN
    assert.equal(toHalfBits(fromHalfBits(h)), h, `half 0x${h.toString(16)}`);
    const next = h + 1;
    if ((h & 0x7fff) < 0x7bff && (next & 0x7c00) !== 0x7c00) {
      const even = h % 2 === 0 ? h : next;
      assert.equal(toHalfBits((fromHalfBits(h) + fromHalfBits(next)) / 2), even, `between 0x${h.toString(16)} and next`);
    }
  }
  assert.equal(toHalfBits(65519), 0x7bff);
  assert.equal(toHalfBits(65520), 0x7c00);
  assert.equal(toHalfBits(-1e-9), 0x8000);
  // Outputs far from 1: with sums of squares near 1e201, whose product overflows, the cosine is still 1.
  const comparison = new OutputComparison();
  const big = { type: 'float64', data: Float64Array.from([1e100, -2e100, 3e100]) };
  comparison.add({ y: big }, { y: big });
  assert.deepEqual(comparison.results().map((o) => [o.relL2, o.cosine]), [[0, 1]]);
  // A model with an fp16 input and output (and weights at the edge of fp16's range).
  const dir = tempDir('cli-fp16');
  const made = spawnSync('/usr/bin/python3', [path.join(root, 'tests', 'python', 'models.py'), dir, 'values_at_the_limits']);
  assert.equal(made.status, 0, String(made.stderr));
  const model = path.join(dir, 'values_at_the_limits.onnx');
  const fixed = run(model, '-o', path.join(dir, 'a.onnx'), '--json', '--verify', '--value', 'x16=0.001', '--value', 'x32=0.001');
  assert.equal(fixed.status, 0, fixed.stderr);
  const outputs = JSON.parse(fixed.stdout).verify;
  assert.deepEqual(outputs.map((o) => o.name), ['y16', 'y_mask', 'y_wide', 'y_tiny', 'y64', 'y_bf16']);
  for (const o of [outputs[0], outputs[1], outputs[5]]) assert.ok(o.relL2 < 0.01 && o.cosine > 0.9999, JSON.stringify(o));
  // Halves compared as numbers: a few units at most (under a step of codes spanning +-65504 times
  // 0.001, and the halves' own spacing at the outputs' size); compared as bits they would differ by thousands.
  assert.ok(outputs[0].maxAbs > 0 && outputs[0].maxAbs < 8, JSON.stringify(outputs[0]));
  for (const o of outputs.slice(2, 5)) assert.equal(o.maxAbs, 0, o.name);  // weights the engine leaves alone
  // Data for the fp16 input: halves from a file.
  const halves = new Uint16Array(256 * 256).map((_, i) => toHalfBits(0.01 * Math.sin(i)));
  writeFileSync(path.join(dir, 'x16.bin'), halves);
  const data = run(model, '-o', path.join(dir, 'b.onnx'), '--json', '--verify', '--input', `x16=${path.join(dir, 'x16.bin')}`, '--value', 'x32=0.001');
  assert.equal(data.status, 0, data.stderr);
  const y16 = JSON.parse(data.stdout).verify.find((o) => o.name === 'y16');
  // |x16| <= 0.01 times under a step of codes spanning +-65504 (514) is a few units.
  assert.ok(y16.relL2 > 0 && y16.relL2 < 0.01 && y16.maxAbs < 8, JSON.stringify(y16));
  writeFileSync(path.join(dir, 'short.bin'), halves.subarray(0, 500));
  const short = run(model, '--verify', '--input', `x16=${path.join(dir, 'short.bin')}`);
  assert.equal(short.status, 2);
  assert.match(short.stderr, /input 'x16' of shape \[256, 256\] and type float16 takes 131072 bytes per sample, the data given has 1000/);
});

test('--verify --input: a file of several samples runs each; the counts must agree and fit the shape', () => {
  const dir = workspace();
  const input = path.join(dir, 'silero.onnx');
  const speech = readFileSync(path.join(fixtures, 'speech.bin'));
  const chunks = (n) => speech.subarray(4 * 16000, 4 * 16000 + n * 4 * 512);
  writeFileSync(path.join(dir, 'one.f32'), chunks(1));
  writeFileSync(path.join(dir, 'eight.f32'), chunks(8));
  writeFileSync(path.join(dir, 'odd.f32'), speech.subarray(0, 3 * 1024));
  writeFileSync(path.join(dir, 'states.f32'), Buffer.alloc(3 * 4 * 256));
  const args = [input, '--verify', '--shape', 'input=1x512', '--shape', 'state=2x1x128', '--value', 'sr=16000', '--value', 'state=0'];
  const rel = (out) => Number(/output: .*rel\. L2 ([\d.e+-]+)/.exec(out)[1]);
  const one = run(...args, '--input', `input=${path.join(dir, 'one.f32')}`);
  const eight = run(...args, '--input', `input=${path.join(dir, 'eight.f32')}`);
  assert.equal(one.status, 0, one.stderr);
  assert.equal(eight.status, 0, eight.stderr);
  assert.match(one.stdout, /; 1 sample\)/);
  assert.match(eight.stdout, /; 8 samples\)/);
  assert.notEqual(rel(eight.stdout), rel(one.stdout));  // over eight chunks, not the first one again
  // From a pipe (`--input x=<(command)` in bash): the same eight samples, the same error.
  const piped = spawnSync('bash', ['-c', '"$0" "$@" --input input=<(cat "$DATA")', process.execPath, cli, ...args],
                          { encoding: 'utf8', env: { ...process.env, DATA: path.join(dir, 'eight.f32') } });
  assert.equal(piped.status, 0, piped.stderr);
  assert.match(piped.stdout, /; 8 samples\)/);
  assert.equal(rel(piped.stdout), rel(eight.stdout));
  // A device that never ends is an error once past what a file may hold, not a hang.
  const endless = run(...args, '--input', 'input=/dev/zero');
  assert.equal(endless.status, 2);
  assert.match(endless.stderr, /cannot read '\/dev\/zero' for input 'input': over 2 GiB, more than a check reads at once/);
  const odd = run(...args, '--input', `input=${path.join(dir, 'odd.f32')}`);
  assert.equal(odd.status, 2);
  assert.match(odd.stderr, /takes 2048 bytes per sample, the data given has 3072 bytes, not a whole number of samples/);
  const mismatched = run(...args.slice(0, -2), '--input', `input=${path.join(dir, 'eight.f32')}`, '--input', `state=${path.join(dir, 'states.f32')}`);
  // Data and a value for one input: refused, naming it.
  const both = run(...args, '--input', `input=${path.join(dir, 'eight.f32')}`, '--input', `state=${path.join(dir, 'states.f32')}`);
  assert.equal(both.status, 2);
  assert.match(both.stderr, /--verify: input 'state' is given both --input \(data\) and --value: give one\n/);
  assert.equal(mismatched.status, 2);
  assert.match(mismatched.stderr, /the data for 'input' holds 8 samples, the data for 'state' 3: give every input as many/);
  // Without --shape, open dimensions are a guess: the data must be exactly one sample of it.
  const guessed = run(input, '--verify', '--value', 'sr=16000', '--input', `input=${path.join(dir, 'eight.f32')}`);
  assert.equal(guessed.status, 2);
  assert.match(guessed.stderr, /input 'input' leaves some of its dimensions open, guessed here as \[1, 1\] \(4 bytes of float32 a sample\); the data given has \d+ bytes, which a guess cannot split into samples: set its shape/);
});

test('--verify --feed-back: a streaming model carries its state, and the error is the one the corpus benchmark measures', async () => {
  const dir = workspace();
  const input = path.join(dir, 'silero.onnx');
  const speech = readFileSync(path.join(fixtures, 'speech.bin'));
  writeFileSync(path.join(dir, 'speech.f32'), speech.subarray(0, 208 * 2048));
  const args = [input, '--verify', '--shape', 'input=1x512', '--shape', 'state=2x1x128', '--value', 'sr=16000', '--value', 'state=0',
                '--input', `input=${path.join(dir, 'speech.f32')}`];
  const streamed = run(...args, '--feed-back', 'stateN=state');
  assert.equal(streamed.status, 0, streamed.stderr);
  assert.match(streamed.stdout, /208 samples; stateN fed back as state\)/);
  const rel = (out) => Number(/output: .*rel\. L2 ([\d.e+-]+)/.exec(out)[1]);
  // bench/corpus.mjs streams the same 208 chunks through each model in onnxruntime-node.
  const ort = (await import('onnxruntime-node')).default;
  const { corpus, compare } = await import('../../bench/corpus.mjs');
  const reference = await corpus.silero.run(ort, readFileSync(input));
  const shrunk = await corpus.silero.run(ort, readFileSync(path.join(dir, 'silero.shrunk.onnx')));
  const expected = compare(reference, shrunk, 0.5).relL2;
  assert.ok(Math.abs(rel(streamed.stdout) - expected) < 1e-3 * expected, `${rel(streamed.stdout)} against ${expected}`);
  // Each chunk from a zero state instead gives another error.
  const separate = run(...args);
  assert.equal(separate.status, 0, separate.stderr);
  assert.notEqual(rel(separate.stdout), rel(streamed.stdout));
  const unknown = run(...args, '--feed-back', 'state=stateN');
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /the model has no output 'state' to feed back \(its outputs: output, stateN\); --feed-back takes OUTPUT=INPUT: --feed-back stateN=state\n/);
  const alone = run(input, '--feed-back', 'stateN=state');
  assert.equal(alone.status, 2);
  assert.match(alone.stderr, /--feed-back needs --verify/);
});

test('--verify --threshold: the share of decisions kept, as the corpus benchmark counts them', async () => {
  const dir = workspace();
  const det = path.join(dir, 'models', 'nested', 'det.onnx');
  const p = run(det, '--json', '--verify', '--shape', 'x=1x3x320x640', '--input', `x=${path.join(fixtures, 'det_x.bin')}`, '--threshold', '0.3');
  assert.equal(p.status, 0, p.stderr);
  const shown = JSON.parse(p.stdout).verify[0].agreement;
  const ort = (await import('onnxruntime-node')).default;
  const { corpus, compare } = await import('../../bench/corpus.mjs');
  const expected = compare(await corpus.det.run(ort, readFileSync(det)),
                           await corpus.det.run(ort, readFileSync(path.join(dir, 'models', 'nested', 'det.shrunk.onnx'))), 0.3).agreement;
  assert.ok(Math.abs(shown - expected) <= 1e-5, `${shown} against ${expected}`);  // the same runs: at most a pixel apart
  assert.ok(shown > 0.99 && shown < 1, String(shown));
  const text = run(det, '-o', path.join(dir, 't.onnx'), '--verify', '--shape', 'x=1x3x320x640', '--input', `x=${path.join(fixtures, 'det_x.bin')}`, '--threshold', '0.3');
  assert.match(text.stdout, /same side of 0\.3: \d+\.\d{3} %/);
  assert.equal(JSON.parse(p.stdout).suspicions, undefined);
  assert.doesNotMatch(p.stderr, /warning/);
  assert.equal(run(det, '--threshold', 'x', '--verify').status, 2);
  // A threshold no value reaches: every decision kept says nothing, and is said; a warning, not a
  // failed gate (the errors still tell).
  const high = run(det, '--json', '--verify', '--shape', 'x=1x3x320x640', '--input', `x=${path.join(fixtures, 'det_x.bin')}`, '--threshold', '2',
                   '--mean-tol', '1');
  assert.equal(high.status, 0, high.stderr);
  const sentence = "output 'sigmoid_0.tmp_0' is on one side of 2 on every sample (every value at or below it): the share on the same side says nothing about it";
  assert.deepEqual(JSON.parse(high.stdout).suspicions, [sentence]);
  assert.match(high.stderr, new RegExp(`onnx-shrink: warning: .*det\\.onnx: ${sentence.replace(/[()]/g, '\\$&')}\n`));
});

test('--scheme with a list and --verify: makes each, keeps the one whose outputs moved least', () => {
  const dir = workspace();
  const det = path.join(dir, 'models', 'nested', 'det.onnx');
  const usage = run(det, '--scheme', 'auto,channel');
  assert.equal(usage.status, 2);
  assert.match(usage.stderr, /a list of schemes needs --verify/);
  const args = ['--verify', '--shape', 'x=1x3x320x640', '--input', `x=${path.join(fixtures, 'det_x.bin')}`];
  const p = run(det, '--scheme', 'auto,channel,tensor', '--json', ...args);
  assert.equal(p.status, 0, p.stderr);
  const entry = JSON.parse(p.stdout);
  assert.deepEqual(entry.candidates.map((c) => c.scheme), ['auto', 'channel', 'tensor']);
  for (const c of entry.candidates) assert.ok(c.gzipBytes > 0.5 * c.bytes && c.gzipBytes < c.bytes, JSON.stringify(c));
  const worst = (c) => Math.max(...c.outputs.map((o) => o.relL2));
  const kept = entry.candidates.filter((c) => c.kept);
  assert.equal(kept.length, 1);
  for (const c of entry.candidates) assert.ok(worst(kept[0]) <= worst(c));
  assert.ok(worst(kept[0]) < worst(entry.candidates[2]) / 2, 'per-tensor scales move the outputs most');
  // The file left is the kept scheme's, as a run with that scheme alone makes it; nothing else is left.
  const shrunk = path.join(dir, 'models', 'nested', 'det.shrunk.onnx');
  assert.equal(readFileSync(shrunk).byteLength, kept[0].bytes);
  const alone = run(det, '--scheme', kept[0].scheme, '-o', path.join(dir, 'alone.onnx'), '-q');
  assert.equal(alone.status, 0, alone.stderr);
  assert.equal(sha(shrunk), sha(path.join(dir, 'alone.onnx')));
  assert.deepEqual(readdirSync(path.join(dir, 'models', 'nested')).sort(), ['det.onnx', 'det.shrunk.onnx']);
  const repeated = run(det, '--scheme', 'channel,channel,auto', '--json', '-o', path.join(dir, 'repeated.onnx'), ...args);
  assert.equal(repeated.status, 0, repeated.stderr);
  assert.deepEqual(JSON.parse(repeated.stdout).candidates.map((c) => c.scheme), ['channel', 'auto']);
  const table = run(det, '--scheme', 'auto,channel', ...args);
  assert.equal(table.status, 0, table.stderr);
  assert.match(table.stdout, /schemes for det\.shrunk\.onnx .*1 sample\):\n  auto .*worst rel\. L2 [\d.e-]+ \(sigmoid_0\.tmp_0\).*\n  channel /);
  assert.match(table.stdout, /  kept\n  chosen on 1 sample: .*give it many inputs/);
});

test('external data: found beside the model, written beside the output, and the same model as the native driver makes', async () => {
  const dir = tempDir('cli-external');
  const model = path.join(dir, 'g.onnx');
  const made = spawnSync('/usr/bin/python3', [path.join(root, 'bench', 'make_model.py'), '12', model, '--external', '--sum']);
  assert.equal(made.status, 0, String(made.stderr));
  const inline = run(model, '-q');
  assert.equal(inline.status, 0, inline.stderr);
  assert.ok(!existsSync(path.join(dir, 'g.shrunk.onnx.data')));
  const split = run(model, '-o', path.join(dir, 'split.onnx'), '--external-data', 'external');
  assert.equal(split.status, 0, split.stderr);
  assert.doesNotMatch(split.stderr, /wrote no data file/);
  // The summary's gzip column counts the data file too (the model file alone is under a kilobyte).
  assert.match(split.stdout, /split\.onnx\s+12\.6 MB\s+3\.2 MB\s+[23]\.\d MB/);
  assert.ok(readFileSync(path.join(dir, 'split.onnx')).byteLength < 20_000);
  const native = process.env.ONNX_SHRINK_CLI;
  if (native) {
    const n = spawnSync(native, [model, '-o', path.join(dir, 'native.onnx'), '--external-data', 'external', '-q']);
    assert.equal(n.status, 0, String(n.stderr));
    assert.equal(sha(path.join(dir, 'native.onnx.data')), sha(path.join(dir, 'split.onnx.data')));
  }
  const ort = (await import('onnxruntime-node')).default;
  const x = new ort.Tensor('float32', Float32Array.from({ length: 1024 }, (_, i) => Math.cos(i)), [1, 1024]);
  const y = async (file) => (await (await ort.InferenceSession.create(file)).run({ x })).y.data;
  const [a, b, c] = [await y(model), await y(path.join(dir, 'g.shrunk.onnx')), await y(path.join(dir, 'split.onnx'))];
  assert.deepEqual(Array.from(b), Array.from(c));
  let num = 0, den = 0;
  a.forEach((v, i) => { num += (v - b[i]) ** 2; den += v * v; });
  assert.ok(Math.sqrt(num / den) < 0.02, `relative L2 ${Math.sqrt(num / den)}`);
  // Choosing among schemes runs each result from its temporary file: not with external data.
  const listed = run(model, '-o', path.join(dir, 'listed.onnx'), '--external-data', 'external', '--scheme', 'auto,channel', '--verify');
  assert.equal(listed.status, 2);
  assert.match(listed.stderr, /a list of schemes works for results that keep their data inline/);
  assert.ok(!readdirSync(dir).some((f) => f.startsWith('listed')), readdirSync(dir).join(' '));
  // A result never replaces a file the input reads: a copy of g.onnx reads g.onnx.data, which
  // `-o g.onnx` (its data file, split) or `-o g.onnx.data` (the model) would replace. Refused once
  // the engine has opened the files, before anything is put in place; an inline `-o g.onnx` is fine.
  const copy = path.join(dir, 'copy.onnx');
  copyFileSync(model, copy);
  const kept = [model, `${model}.data`].map(sha), files = readdirSync(dir).sort();
  for (const args of [['-o', model, '--external-data', 'external'], ['-o', `${model}.data`], ['--expand', '-o', `${model}.data`]]) {
    const r = run(copy, ...args);
    assert.equal(r.status, 2, args.join(' '));
    assert.match(r.stderr, /the result would replace '.*g\.onnx\.data', which the input model reads; onnx-shrink never overwrites its input/);
    assert.deepEqual([model, `${model}.data`].map(sha), kept);
    assert.deepEqual(readdirSync(dir).sort(), files);
  }
  const reportOnData = run(copy, '-o', path.join(dir, 'r.onnx'), '--report', `${model}.data`);
  assert.equal(reportOnData.status, 2);
  assert.match(reportOnData.stderr, /--report: the result would replace '.*g\.onnx\.data', which the input model reads/);
  assert.equal(sha(`${model}.data`), kept[1]);
  rmSync(path.join(dir, 'r.onnx'));
  assert.equal(run(copy, '-o', model, '-q').status, 0);
  assert.equal(sha(`${model}.data`), kept[1]);
  copyFileSync(copy, model);
  // expand() brings external data inline, so its result stands alone wherever it is written.
  const elsewhere = tempDir('cli-expand');
  const expanded = run(path.join(dir, 'split.onnx'), '--expand', '-o', path.join(elsewhere, 'e.onnx'));
  assert.equal(expanded.status, 0, expanded.stderr);
  assert.match(expanded.stdout, /e\.onnx\s+3\.2 MB\s+12\.6 MB/);  // before: the model and its data file
  const e = await y(path.join(elsewhere, 'e.onnx'));
  assert.deepEqual(Array.from(e), Array.from(c));
  // A data file that is cut short is an error naming the tensor, and no output is left behind.
  writeFileSync(`${model}.data`, readFileSync(`${model}.data`).subarray(0, 5 << 20));
  const cut = run(model, '-o', path.join(dir, 'cut.onnx'));
  assert.equal(cut.status, 2);
  assert.match(cut.stderr, /layer1\.weight/);
  assert.ok(!existsSync(path.join(dir, 'cut.onnx')));
});
