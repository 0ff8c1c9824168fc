#!/usr/bin/env node
// onnx-shrink command line: the WebAssembly engine on files, with the native driver's flags.
//
// Exit status: 0 success, 2 bad input or options (a tolerance gate on guessed input shapes among
// them), 3 --verify found outputs beyond tolerance (or, with a tolerance, outputs that say nothing:
// constant, or identical in both models), or --target was not met (nothing written), 1 anything
// unexpected.
import { existsSync, fstatSync, lstatSync, mkdirSync, openSync, closeSync, readFileSync, readSync, realpathSync, renameSync, rmSync, statSync, readdirSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { once } from 'node:events';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { constants as zlibConstants, createBrotliCompress } from 'node:zlib';
import { compressedSizes } from './compressed_sizes.js';
import { shrink, shrinkToTarget, inspect, expand, version, fileSource, OnnxShrinkError } from './index.node.js';
import { declaredShape, sampleCount, sampleFeeds, compareModels, worstOutput, guessedDimensions, suspicions, oneSidedOutputs, FEW_SAMPLES } from './verify.js';
import { OPTION, OPTIONS, words } from './options.js';
import { DECISIONS, MEASURED_KINDS, OBJECTIVES, TARGET_FORMS, TARGET_KINDS, oneOf, parseDecision, parseTarget } from './target.js';
import { evidenceLines } from './target_table.js';

// An option's lines in the usage text, from its entry in options.js: the flag and what it takes,
// then its help (other options named by their flags), range and default, wrapped at 100 columns.
const CLI_NOTES = {
  scheme: 'With --verify, a list (e.g. auto,channel) makes each and keeps the one whose outputs moved least ' +
          "(the lowest worst-output rel. L2); give it many inputs: one input's verdict often differs on another",
};
function usage(o) {
  const takes = Array.isArray(o.words) ? [...o.words, ...(o.numbers ?? [])].join('|') : o.words ? 'S' : Array.isArray(o.default) ? 'NAME,...' : typeof o.default === 'object' ? 'NAME=B,...' : 'N';
  const head = `  ${o.flag} ${takes}`;
  const perMode = Array.isArray(o.words) ? '' : Object.entries(o.words ?? {}).map(([mode, w]) => `${mode}: ${w.join(' | ')}; `).join('');
  const range = o.max === undefined ? '' : ` (${o.min}..${o.max}${o.powerOfTwo ? ', a power of two' : ''})`;
  const fallback = o.default === '' || typeof o.default === 'object' ? '' : `; default ${o.default}`;
  const text = (o.mode ? `${o.mode}: ` : '') + perMode + o.help.replace(/`(\w+)`/g, (_, key) => OPTION[key].flag ?? key) + range + fallback +
               (CLI_NOTES[o.key] ? `. ${CLI_NOTES[o.key]}` : '');
  const lines = [];  // of up to 72 columns, after the flag's 28
  for (const word of text.split(' ')) {
    if (lines.length && lines.at(-1).length + 1 + word.length <= 72) lines[lines.length - 1] += ` ${word}`;
    else lines.push(word);
  }
  const indented = lines.map((line) => ' '.repeat(28) + line);
  if (head.length < 28) indented[0] = head.padEnd(28) + lines[0];
  else indented.unshift(head);
  return indented.map((line) => `${line}\n`).join('');
}

// Target mode's flags, as entries like options.js's for usage(); their words are target.js's.
const TARGET_FLAGS = [
  { key: 'target', flag: '--target', words: [...TARGET_KINDS.map((kind) => `${kind}=N`), 'default'], default: '',
    help: 'the smallest file (bytes after --objective) that meets a target, choosing the bits of each tensor\'s codes (2 to 10; 8 with --form dq): ' +
          'relL2=N or maxAbs=N, the worst output\'s error, or agree=N, the share of decisions kept (with --decision), measured in ' +
          'onnxruntime-node on the --input samples (calibrated on the first half, the rest held out and reported); size=N, bytes ' +
          '(e.g. 1.2MB) or a fraction of the original\'s (e.g. 0.25), with the least error; default: the default\'s estimated error. ' +
          'An error tighter than every tensor at the most bits gets 12 or 16 bits, small tensors kept, or the model left alone. ' +
          'Without --input, size and default are met by estimates, and said to be. Prints each point tried; writes nothing when the ' +
          'target cannot be met (exit 3)' },
  { key: 'decision', flag: '--decision', words: DECISIONS, default: '',
    help: 'with --target agree=N: a decision is the largest value along each output\'s last axis (argmax: a class, a CTC ' +
          'token), or which side of N a value is on (threshold:N, e.g. threshold:0.3 for a probability map)' },
  { key: 'objective', flag: '--objective', words: OBJECTIVES, default: 'brotli',
    help: 'with --target: the size to make smallest: after brotli (quality 9 for each point; what a host serves), gzip -9, or raw' },
];

const USAGE = `usage: onnx-shrink IN.onnx [IN2.onnx | FOLDER ...] [options]
       curl -sL URL | onnx-shrink - -o OUT.onnx [options]    (a model from a pipe)
       onnx-shrink IN.onnx -o - | gzip > OUT.onnx.gz         (the result to a pipe)

  -o, --output PATH         output file (one input) or folder (a folder's subfolders are kept there);
                            default NAME.shrunk.onnx beside each input. '-' (or a pipe or device)
                            gets the result once it is whole; the table then goes to stderr
${OPTIONS.filter((o) => o.flag).map(usage).join('')}  --report FILE.json        write the report(s) as JSON
  --inspect                 show what would change, write nothing
  --expand                  turn shrunk models back into plain float weights
  --json                    print reports as JSON instead of a table
  --verify                  run original and result in onnxruntime-node on seeded random inputs
  --abs-tol X, --mean-tol X with --verify: exit 3 when an output's max / mean abs error exceeds X,
                            or when an output is constant or the same in both models (a check
                            that says nothing); refused while input sizes are guessed (give them
                            with --shape, --input or --dim)
  --threshold X             with --verify: also the share of output values on the same side of X
                            in both models (decisions, e.g. 0.5 for a probability)
${TARGET_FLAGS.map(usage).join('')}  --dim N                   with --verify or --target: the size of every open (symbolic or
                            unknown) input dimension --shape and --input leave; without it
                            --verify guesses them as 1, and says so (--target refuses to guess)
  --shape NAME=AxBxC        with --verify or --target: the shape of one input (repeatable)
  --value NAME=X            with --verify or --target: fill one input with X instead of random
                            values (--target: in every sample)
  --input NAME=FILE         with --verify or --target: one input's real data, raw little-endian
                            values of its type (its shape as declared or given by --shape), one
                            sample or several back to back (a file, or a pipe such as
                            <(command)); real inputs tell far more about accuracy than random
                            ones. --target calibrates on them
  --feed-back OUT=IN        with --verify or --target: from the second sample on, each model gets
                            its own output OUT of the sample before as input IN (a streaming
                            model's state, e.g. --feed-back stateN=state), as it runs in use
  --quiet                   print only errors
  -h, --help, --version
`;

class UsageError extends Error {}

const BY_FLAG = new Map(OPTIONS.filter((o) => o.flag).map((o) => [o.flag, o]));

// Every flag parse() takes (the cases of its switch, and the options' flags): for suggestions.
const FLAGS = ['-o', '--output', '--report', '--inspect', '--expand', '--json', '--verify', '--abs-tol', '--mean-tol', '--threshold',
               '--dim', '--shape', '--value', '--input', '--feed-back', '-q', '--quiet', '-h', '--help', '--version', ...BY_FLAG.keys(),
               ...TARGET_FLAGS.map((o) => o.flag)];

// 'a, b or c'
const orList = (items) => items.map(String).join(', ').replace(/, ([^,]*)$/, ' or $1');

// Edits (insertions, deletions, substitutions, swaps of neighbours) from one word to another.
function editDistance(x, y) {
  const d = Array.from({ length: x.length + 1 }, (_, i) => Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[x.length][y.length];
}

// The one of `candidates` that `given` is a slip of (a typo, a dash too many or too few, a word
// cut short), or undefined when none is close.
function nearest(given, candidates) {
  const bare = (w) => String(w).replace(/^-+/, '').toLowerCase();
  const g = bare(given);
  const most = g.length <= 2 ? 0 : g.length <= 5 ? 1 : 2;
  let best, bestDistance = Infinity;
  for (const c of candidates) {
    const distance = editDistance(g, bare(c));
    if (distance < bestDistance && (distance === 0 || bare(c).length > 1)) best = c, bestDistance = distance;
  }
  if (bestDistance <= most) return best;
  const started = g.length >= 3 ? candidates.filter((c) => bare(c).startsWith(g)) : [];
  return started.length === 1 ? started[0] : undefined;
}
const didYouMean = (given, candidates) => {
  const near = nearest(given, candidates);
  return near === undefined ? '' : `; did you mean ${near}?`;
};

// --target's value, checked: KIND=N (target.js's parseTarget) or default. A number out of range is
// named with its kind; a slip of the kind is pointed out, with the number given.
function targetValue(v) {
  if (v === 'default') return v;
  try {
    parseTarget(v);
    return v;
  } catch (e) {
    const kind = v.split('=')[0];
    if (TARGET_KINDS.includes(kind) && v.includes('=')) throw new UsageError(`--target ${e.message}`);
    const near = nearest(kind, [...TARGET_KINDS, 'default']);
    const hint = near === undefined ? '' : `; did you mean ${near}${near === 'default' ? '' : v.includes('=') ? v.slice(kind.length) : '=N'}?`;
    throw new UsageError(`--target takes ${oneOf([...Object.values(TARGET_FORMS), 'default'])}, not '${v}'${hint}`);
  }
}

// --decision's value, checked: argmax or threshold:N.
function decisionValue(v) {
  try {
    parseDecision(v);
    return v;
  } catch {
    const [word, number] = v.split(':');
    const near = word === 'threshold' ? undefined : nearest(word, ['argmax', 'threshold']);
    const hint = near === undefined ? '' : `; did you mean ${near === 'threshold' ? `threshold:${number ?? 'N'}` : near}?`;
    throw new UsageError(`--decision takes ${oneOf(DECISIONS)} (e.g. threshold:0.3), not '${v}'${hint}`);
  }
}

// The flags target mode takes and refuses, once all are read.
function checkTargetFlags(a) {
  if (!a.target) {
    const given = [['--decision', a.decision], ['--objective', a.objective]].filter(([, v]) => v !== undefined).map(([flag]) => flag);
    if (given.length) throw new UsageError(`${given.join(' and ')} ${given.length === 1 ? 'needs' : 'need'} --target`);
    return;
  }
  const refused = [['--verify', a.verify], ['--inspect', a.inspect], ['--expand', a.expand], ['--mode palette', a.options.mode === 'palette'],
                   ['--bits', a.options.bits !== undefined], ['--tensor-bits', a.options.tensorBits !== undefined],
                   ['--scheme tensor (8 bits only)', a.schemes.includes('tensor')],
                   ['a list of schemes', a.schemes.length > 1]].filter(([, on]) => on).map(([what]) => what);
  if (refused.length) {
    throw new UsageError(`--target chooses the bits of each tensor's int8 codes and measures its candidates itself: it takes no ${oneOf(refused)}`);
  }
  const kind = a.target.split('=')[0];
  if (kind === 'agree' && a.decision === undefined) {
    throw new UsageError(`--target ${a.target} counts decisions kept: add --decision argmax (the largest value along each output's last axis) ` +
                         'or --decision threshold:N (the side of N each value is on)');
  }
  if (MEASURED_KINDS.includes(kind) && !Object.keys(a.inputFiles).length) {
    throw new UsageError(`--target ${a.target} is measured on your data: add --input NAME=FILE (the model's input NAME, raw values, ` +
                         'one sample or several back to back); only size=N and default can do without, by estimates');
  }
}

function parse(argv) {
  const a = { inputs: [], options: {}, schemes: [], output: null, report: null, inspect: false, expand: false, json: false, verify: false,
              absTol: null, meanTol: null, threshold: undefined, dim: 1, dimGiven: false, shapes: {}, values: {}, inputFiles: {}, feedBack: {},
              target: null, decision: undefined, objective: undefined, quiet: false };
  const numeric = (flag, v) => {
    if (!/^\d+$/.test(v ?? '')) throw new UsageError(`${flag} needs a whole number, not '${v}'`);
    return Number(v);
  };
  const real = (flag, v) => {
    if (!(Number(v) >= 0)) throw new UsageError(`${flag} needs a number, not '${v}'`);
    return Number(v);
  };
  const list = (v) => (v ?? '').split(',').filter(Boolean);
  const choice = (flag, v, values) => {
    // A slip of a word is pointed out; a number is not (int4 is no typo of int8).
    if (!values.map(String).includes(v)) throw new UsageError(`${flag} takes ${orList(values)}, not '${v}'${/\d/.test(v) ? '' : didYouMean(v, values)}`);
    return v;
  };
  // An option of options.js: a word (or one of its numbers), names, or a whole number.
  const optionValue = (o, v) => {
    if (o.key === 'tensorBits') {  // NAME=BITS,... (a name may hold '=': the last one splits)
      return Object.fromEntries(list(v).map((item) => {
        const m = /^(.+)=(\d+)$/.exec(item);
        if (!m) throw new UsageError(`${o.flag} takes NAME=BITS pairs, e.g. conv1.weight=4,fc.weight=6, not '${item}'`);
        return [m[1], Number(m[2])];
      }));
    }
    if (!o.words) return Array.isArray(o.default) ? list(v) : numeric(o.flag, v);
    choice(o.flag, v, [...words(o), ...(o.numbers ?? [])]);
    return words(o).includes(v) ? v : Number(v);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new UsageError(`${arg} needs a value`);
      return argv[++i];
    };
    switch (arg) {
      case '-h': case '--help': process.stdout.write(USAGE); process.exit(0); break;
      case '--version': a.printVersion = true; break;
      case '-o': case '--output': a.output = value(); break;
      case '--report': a.report = value(); break;
      case '--inspect': a.inspect = true; break;
      case '--expand': a.expand = true; break;
      case '--json': a.json = true; break;
      case '--verify': a.verify = true; break;
      case '--abs-tol': a.absTol = real(arg, value()); break;
      case '--mean-tol': a.meanTol = real(arg, value()); break;
      case '--threshold': {
        const v = value();
        if (!Number.isFinite(Number(v)) || v.trim() === '') throw new UsageError(`--threshold needs a number, not '${v}'`);
        a.threshold = Number(v);
        break;
      }
      case '--dim': a.dim = numeric(arg, value()), a.dimGiven = true; break;
      case '--shape': {
        const m = /^([^=]+)=(\d+(?:x\d+)*)?$/.exec(value());
        if (!m) throw new UsageError(`--shape takes NAME=AxBxC, e.g. input=1x512`);
        a.shapes[m[1]] = m[2] ? m[2].split('x').map(Number) : [];
        break;
      }
      case '--value': {
        const m = /^([^=]+)=(-?[\d.]+(?:e-?\d+)?)$/.exec(value());
        if (!m) throw new UsageError(`--value takes NAME=NUMBER, e.g. sr=16000`);
        a.values[m[1]] = Number(m[2]);
        break;
      }
      case '--input': {
        const m = /^([^=]+)=(.+)$/.exec(value());
        if (!m) throw new UsageError(`--input takes NAME=FILE, e.g. input=chunk.f32`);
        a.inputFiles[m[1]] = m[2];
        break;
      }
      case '--feed-back': {
        const m = /^([^=]+)=(.+)$/.exec(value());
        if (!m) throw new UsageError(`--feed-back takes OUTPUT=INPUT, e.g. stateN=state`);
        a.feedBack[m[2]] = m[1];
        break;
      }
      case '--target': a.target = targetValue(value()); break;
      case '--decision': a.decision = decisionValue(value()); break;
      case '--objective': a.objective = choice(arg, value(), OBJECTIVES); break;
      case '-q': case '--quiet': a.quiet = true; break;
      default: {
        const option = BY_FLAG.get(arg);
        if (option?.key === 'scheme') a.schemes = [...new Set(list(value()).map((v) => choice(arg, v, words(option))))];
        else if (option) a.options[option.key] = optionValue(option, value());
        else if (arg.startsWith('-') && arg !== '-') throw new UsageError(`unknown option ${arg}${didYouMean(arg, FLAGS)}`);
        else a.inputs.push(arg);
      }
    }
  }
  if (!a.printVersion && a.inputs.length === 0) throw new UsageError('no input model');
  // The samples' flags serve --verify and --target; the tolerances, --verify alone.
  const samplesFlags = [['--input', Object.keys(a.inputFiles).length], ['--feed-back', Object.keys(a.feedBack).length],
                        ['--shape', Object.keys(a.shapes).length], ['--value', Object.keys(a.values).length]];
  const verifyOnly = [...(a.target ? [] : samplesFlags), ['--abs-tol', a.absTol !== null], ['--mean-tol', a.meanTol !== null],
                      ['--threshold', a.threshold !== undefined]].filter(([, given]) => given);
  if (verifyOnly.length && !a.verify) {
    const samplesOnly = verifyOnly.every(([flag]) => samplesFlags.some(([f]) => f === flag));
    throw new UsageError(`${verifyOnly.map(([flag]) => flag).join(', ')} ${verifyOnly.length === 1 ? 'needs' : 'need'} --verify${samplesOnly ? ' or --target' : ''}`);
  }
  checkTargetFlags(a);
  if (a.output === '-' && a.json) throw new UsageError('-o - and --json would both write to standard output');
  if (a.output === '-' && a.report === '-') throw new UsageError('-o - and --report - would both write to standard output');
  if (a.json && a.report === '-') throw new UsageError('--json and --report - would both write to standard output');
  if (a.inputs.filter((i) => i === '-').length > 1) throw new UsageError("standard input ('-') can be read only once");
  if (a.schemes.length === 1) a.options.scheme = a.schemes[0];
  if (a.schemes.length > 1 && (!a.verify || a.inspect || a.expand)) {
    throw new UsageError('a list of schemes needs --verify to choose by (best with --input data), and no --inspect or --expand');
  }
  return a;
}

// The models to work on: files as given, and the .onnx files in given folders (and their
// subfolders). `under` is a model's folder relative to the folder it was found in ('' for a file
// given by name): with -o FOLDER, its result goes to the same subfolder there.
function expandInputs(inputs) {
  const out = [];
  const walk = (dir, under) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((x, y) => x.name.localeCompare(y.name))) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p, path.join(under, entry.name));
      else if (entry.name.endsWith('.onnx') && !entry.name.endsWith('.shrunk.onnx')) out.push({ file: p, under });
    }
  };
  for (const input of inputs) {
    if (input === '-') {
      out.push({ file: input, under: '' });
      continue;
    }
    if (!existsSync(input)) throw new OnnxShrinkError(`'${input}' does not exist`, 'IO');
    if (statSync(input).isDirectory()) walk(input, '');
    else out.push({ file: input, under: '' });
  }
  if (out.length === 0) throw new OnnxShrinkError('no .onnx files found in the given folders', 'IO');
  return out;
}

function outputFor({ file, under }, a, many) {
  const base = path.basename(file).replace(/\.onnx$/i, '') + (a.expand ? '.expanded.onnx' : '.shrunk.onnx');
  if (!a.output) return path.join(path.dirname(file), base);
  if (a.output === '-') return a.output;
  if (many || (existsSync(a.output) && statSync(a.output).isDirectory())) return path.join(a.output, under, base);
  return a.output;
}

// --report must not replace one of the models given (their data files are checked once read).
function checkReportTarget(inputs, a) {
  if (!a.report || a.report === '-') return;
  const replaced = inputs.find((i) => i.file !== '-' && (path.resolve(i.file) === path.resolve(a.report) || sameFile(i.file, a.report)));
  if (replaced) {
    throw new OnnxShrinkError(`--report '${a.report}' would replace '${replaced.file}', one of the models given; ` +
                              'onnx-shrink never overwrites its input', 'BAD_OPTION');
  }
}

// Two models whose results would land on one file, or a result that would replace another of
// the models given (`m.onnx m.shrunk.onnx`): refused before any work, naming both.
function checkDistinctOutputs(inputs, a, many) {
  if (a.inspect) return;
  const seen = new Map();
  for (const input of inputs) {
    const output = path.resolve(outputFor(input, a, many));
    const other = seen.get(output);
    if (other) {
      throw new OnnxShrinkError(`'${other.file}' and '${input.file}' would both be written to '${output}': ` +
                                'give them one at a time, or with their folder', 'BAD_OPTION');
    }
    seen.set(output, input);
    if (a.report && a.report !== '-' && (path.resolve(a.report) === output || sameFile(a.report, output))) {
      throw new OnnxShrinkError(`--report and the result of '${input.file}' would both be written to '${output}'`, 'BAD_OPTION');
    }
    const replaced = inputs.find((i) => i !== input && i.file !== '-' && (path.resolve(i.file) === output || sameFile(i.file, output)));
    if (replaced) {
      throw new OnnxShrinkError(`the result of '${input.file}' would replace '${replaced.file}', another of the models given; ` +
                                'onnx-shrink never overwrites its input: give them one at a time, or choose an output folder (-o)', 'BAD_OPTION');
    }
  }
}

function sameFile(p, q) {
  try {
    const s = statSync(p), t = statSync(q);
    return s.dev === t.dev && s.ino === t.ino;
  } catch {
    return false;
  }
}

// Removes `file` if this process ends without removing or renaming it, however it ends (see
// janitor.js). The janitor is started with the first temporary file and does not hold this
// process open.
let janitor = null;
function removeIfLeftBehind(file) {
  if (!janitor) {
    janitor = spawn(process.execPath, [fileURLToPath(new URL('./janitor.js', import.meta.url))],
                    { detached: true, windowsHide: true, stdio: ['pipe', 'ignore', 'ignore'] });
    janitor.on('error', () => {});  // best effort: without it, a kill may leave a .partial file
    janitor.stdin.on('error', () => {});
    janitor.unref();
    janitor.stdin.unref();
  }
  if (!file.includes('\n')) janitor.stdin.write(`${path.resolve(file)}\n`);
}

// Whether a result goes to a stream (standard output as '-', or an existing pipe, terminal or
// device such as /dev/stdout) rather than into a file that can be replaced.
function isStream(target) {
  if (target === '-') return true;
  try {
    const st = statSync(target);
    return !st.isFile() && !st.isDirectory();
  } catch {
    return false;
  }
}

// A link to a file: the file it points to gets the result, and the link stays a link.
function linkTarget(target) {
  try {
    return lstatSync(target).isSymbolicLink() ? realpathSync(target) : target;
  } catch {
    return target;  // a dangling link, or no file yet
  }
}

let tempCount = 0;

// A file written under a temporary name and renamed on success: no partial output, ever. For a
// stream the temporary file is in the system's temporary folder, and commit() copies it out whole:
// a failed run sends nothing down a pipe, and never replaces /dev/stdout with a file.
class TempFile {
  constructor(target, tag) {
    this.target = target;
    this.stream = isStream(target);
    const real = this.stream ? target : linkTarget(target);
    this.temp = this.stream ? path.join(tmpdir(), `onnx-shrink-${process.pid}-${++tempCount}${tag ? `.${tag}` : ''}.partial`)
                            : `${real}${tag ? `.${tag}` : ''}.partial`;
    this.real = real;
    removeIfLeftBehind(this.temp);  // first: a kill right after the file appears still removes it
    try {
      mkdirSync(path.dirname(this.temp), { recursive: true });
      this.fd = openSync(this.temp, 'w');
    } catch (e) {
      throw new OnnxShrinkError(`cannot write '${target}': ${e.message}`, 'IO');
    }
    this.size = 0;
  }
  write(bytes) {
    let done = 0;
    try {
      while (done < bytes.byteLength) done += writeSync(this.fd, bytes, done, bytes.byteLength - done);
    } catch (e) {
      throw new OnnxShrinkError(`cannot write '${this.target === '-' ? 'standard output' : this.target}': ${e.message}`, 'IO');
    }
    this.size += bytes.byteLength;
  }
  commit() {
    closeSync(this.fd);
    this.fd = null;
    if (!this.stream) return renameSync(this.temp, this.real);
    try {
      copyToStream(this.temp, this.target);
    } catch (e) {
      throw new OnnxShrinkError(`cannot write '${this.target === '-' ? 'standard output' : this.target}': ${e.message}`, 'IO');
    } finally {
      rmSync(this.temp, { force: true });
    }
  }
  discard() {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    rmSync(this.temp, { force: true });
  }
}

// Copies a finished file to standard output ('-') or to a pipe or device, in slices. A pipe that
// is full (EAGAIN: Node leaves standard output non-blocking) is waited for, not given up on.
function copyToStream(file, target) {
  const out = target === '-' ? 1 : openSync(target, 'w');
  const input = openSync(file, 'r');
  const chunk = Buffer.allocUnsafe(1 << 20);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  try {
    for (let n; (n = readSync(input, chunk)) > 0;) {
      for (let done = 0; done < n;) {
        try {
          done += writeSync(out, chunk, done, n - done);
        } catch (e) {
          if (e.code !== 'EAGAIN') throw e;
          Atomics.wait(pause, 0, 0, 2);
        }
      }
    }
  } finally {
    closeSync(input);
    if (out !== 1) closeSync(out);
  }
}

// The brotli size of a result (its model and data files, as opened now: a commit may rename them,
// or copy them to a stream and remove them), or null past 64 MB, as gzip's. Quality 11, the
// reference of BENCHMARKS.md and what static hosts precompress with, for results up to 4 MB: it
// runs at about half a megabyte to a megabyte a second. Larger results get 9, many times faster
// and a few percent larger. zlib compresses on a background thread, beside the check; show(bar)
// draws its progress from then on (once the check, which has a bar of its own, is done).
const BROTLI_BEST_UP_TO = 4e6, BROTLI_UP_TO = 64e6;
// Inputs from which brotli at quality 9 runs beside the engine: their results are most likely
// over BROTLI_BEST_UP_TO (the int8 default keeps about a quarter). Below, a result of 4 MB or less
// would be measured twice (quality 9 wasted beside quality 11: PP-OCR det's CLI run took 0.2 s longer).
const BROTLI_STREAM_FROM = 4 * BROTLI_BEST_UP_TO;
function brotliSize(run) {
  const total = run.size;
  let fed = 0;
  if (total > BROTLI_UP_TO) return { done: Promise.resolve(null), show() {} };
  const quality = total <= BROTLI_BEST_UP_TO ? 11 : 9;
  const fds = [run.model.temp, ...(run.externalFile ? [run.externalFile.temp] : [])].map((file) => openSync(file, 'r'));
  const measure = async (report) => {
    const stream = createBrotliCompress({ params: { [zlibConstants.BROTLI_PARAM_QUALITY]: quality, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: total } });
    let size = 0;
    stream.on('data', (chunk) => (size += chunk.byteLength));
    const done = new Promise((resolve, reject) => stream.on('end', resolve).on('error', reject));
    for (const fd of fds) {
      for (let at = 0; ;) {
        const chunk = Buffer.allocUnsafe(256 << 10);
        const n = readSync(fd, chunk, 0, chunk.byteLength, at);
        if (n === 0) break;
        at += n;
        if (!stream.write(chunk.subarray(0, n))) await once(stream, 'drain');  // (rejects on 'error', and removes its listeners)
        report((fed += n));
      }
    }
    stream.end();
    await done;
    return { bytes: size, quality };
  };
  return shownMeasure(total, (report) => measure(report).catch(() => null).finally(() => fds.forEach((fd) => closeSync(fd))), () => fed);
}

// The brotli size at quality 9 of a result measured as the engine wrote it (shrinkTo's
// `streamBrotli`), in brotliSize's shape, when brotliSize would measure it at 9 too: larger than
// BROTLI_BEST_UP_TO, up to BROTLI_UP_TO, no external data file. Null otherwise (brotliSize then
// measures it from its files). The same bytes as brotliSize's stream gives.
function streamedBrotli(run) {
  const sizes = run.sizes;
  if (!sizes) return null;
  if (run.externalFile || run.size <= BROTLI_BEST_UP_TO || run.size > BROTLI_UP_TO) {
    sizes.stopBrotli();  // not wanted after all: brotliSize measures the files
    return null;
  }
  return shownMeasure(run.size, (report) => {
    sizes.onFed(report);
    return sizes.done().then(({ brotli }) => (brotli === null ? null : { bytes: brotli, quality: 9 }));
  }, sizes.fed);
}

// A brotli measure as the table waits on it: `done`, and show(bar), which draws its progress from
// then on. `work(report)` runs it, calling report(bytes taken so far); `fed()` gives that number.
function shownMeasure(total, work, fed) {
  let bar = null, finished = false;
  const done = work((n) => bar?.(n / total, 'brotli')).finally(() => {
    finished = true;
    bar?.(1, 'done');
  });
  return {
    done,
    show(progress) {
      if (finished) return;
      bar = progress;
      bar(fed() / total, 'brotli');
    },
  };
}

// The table's brotli size of target mode's file when the search measured it already: the chosen
// point's bytes by brotli -q 9, the quality the table uses past BROTLI_BEST_UP_TO (the same bytes
// as brotliSize's stream makes: 36,242,368 of a 39.5 MB file both ways). Null otherwise.
function chosenBrotli(target, size, objective = 'brotli') {
  if (objective !== 'brotli' || size <= BROTLI_BEST_UP_TO || size > BROTLI_UP_TO || target.chosen.raw !== size) return null;
  return { done: Promise.resolve({ bytes: target.chosen.bytes, quality: 9 }), show() {} };
}

// How much smaller the result is, in the words the page uses too: "2.8× smaller" (before ÷ after;
// two decimals under 2×, none from 10×), "1.05× larger" when it grew, "same size".
function sizeChange(before, after) {
  if (!before || !after) return '-';
  if (before === after) return 'same size';
  const r = before > after ? before / after : after / before;
  return `${r.toFixed(r < 2 ? 2 : r < 10 ? 1 : 0)}× ${before > after ? 'smaller' : 'larger'}`;
}

// The tolerance flags given: a gate a check must pass.
const gateFlags = (a) => [a.absTol != null && '--abs-tol', a.meanTol != null && '--mean-tol'].filter(Boolean);

// A warning on standard error, unless --quiet; a progress bar on the line is cleared first.
function warn(a, text) {
  if (a.quiet) return;
  process.stderr.write(`${process.stderr.isTTY ? '\r\x1b[K' : ''}onnx-shrink: warning: ${text}\n`);
}

function formatBytes(n, digits = 1) {
  if (n == null) return '-';
  const units = ['B', 'kB', 'MB', 'GB'];
  let i = 0;
  while (n >= 1000 && i < units.length - 1) n /= 1000, i++;
  return `${n.toFixed(i === 0 ? 0 : digits)} ${units[i]}`;
}

function progressBar(name, quiet) {
  if (quiet || !process.stderr.isTTY) return () => {};
  let last = -1;
  return (fraction, stage) => {
    if (stage === 'done') return void process.stderr.write('\r\x1b[K');
    const percent = Math.floor(fraction * 100);
    if (percent === last) return;
    last = percent;
    const width = 24, filled = Math.round(fraction * width);
    process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(percent).padStart(3)}% ${stage.padEnd(8)} ${name}`);
    if (fraction >= 1 && stage === 'writing') process.stderr.write('\r\x1b[K');
  };
}

// External data files are looked up beside the model; locations may not leave its folder.
function externalResolver(modelPath, opened, paths) {
  const dir = path.dirname(modelPath);
  return (location) => {
    if (path.isAbsolute(location) || location.split(/[\\/]/).includes('..')) {
      throw new OnnxShrinkError(`external data location '${location}' leaves the model's folder`, 'EXTERNAL_DATA_INVALID');
    }
    const p = path.join(dir, location);
    if (!existsSync(p)) return undefined;
    const source = fileSource(p);
    opened.push(source);
    paths.push(p);
    return source;
  };
}

// A model file, read in slices; or a pipe (`<(curl …)`, /dev/stdin), read whole first, as it
// cannot be read twice. A pipe has no name to put the result beside: it needs -o.
function modelSource(input, a) {
  if (input !== '-' && statSync(input).isFile()) return fileSource(input);
  if (!a.output && !a.inspect) {
    const what = input === '-' ? 'no file name to put the result beside' : `'${input}' is not a regular file (a pipe?)`;
    throw new OnnxShrinkError(`${what}: name the result with -o`, 'BAD_OPTION');
  }
  let bytes;
  try {
    bytes = readDataFile(input === '-' ? 0 : input);
  } catch (e) {
    throw new OnnxShrinkError(`cannot read '${input}': ${e.code === 'ERR_FS_FILE_TOO_LARGE' ? 'over 2 GiB, more than a pipe is read into memory' : e.message}`, 'IO');
  }
  return {
    bytes,  // for --verify: the pipe cannot be opened again
    size: bytes.byteLength,
    read: (offset, length) => bytes.subarray(offset, offset + length),
    readInto: (offset, target) => target.set(bytes.subarray(offset, offset + target.byteLength)),
    close() {},
  };
}

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
    if (a.target) return await targetOne(source, model, output, a, rows, reports, inputFiles);
    if (a.inspect) {
      const report = await inspect(source, { ...a.options, external, onProgress });
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
      const scores = checks.results.map((outputs) => worstOutput(outputs).relL2).map((e) => (Number.isNaN(e) ? Infinity : e));
      kept = runs[scores.indexOf(Math.min(...scores))];
      for (const r of runs) if (r !== kept) r.discard();
      brotli = a.table ? brotliSize(kept) : null;
      kept.commit();
    }
    brotli?.show(progressBar(shownName, a.quiet || a.json));
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
      const doubts = suspicions(row.verify), oneSided = a.threshold === undefined ? [] : oneSidedOutputs(row.verify, a.threshold);
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

// An input's data file, whole. A pipe or device (e.g. `--input x=<(make-data)`) is read to its
// end, up to the 2 GiB a regular file may have: /dev/zero ends in an error, not in a hang.
const DATA_LIMIT = 2 ** 31;
function readDataFile(file) {
  const fd = typeof file === 'number' ? file : openSync(file, 'r');  // a number: standard input
  const pause = new Int32Array(new SharedArrayBuffer(4));
  try {
    if (fstatSync(fd).isFile()) return readFileSync(fd);
    const chunks = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(1 << 20);
      let n;
      try {
        n = readSync(fd, chunk);
      } catch (e) {
        if (e.code !== 'EAGAIN') throw e;  // a non-blocking pipe with nothing in it yet
        Atomics.wait(pause, 0, 0, 2);
        continue;
      }
      if (n === 0) return Buffer.concat(chunks, total);
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > DATA_LIMIT) throw Object.assign(new Error('too large'), { code: 'ERR_FS_FILE_TOO_LARGE' });
    }
  } finally {
    if (fd !== file) closeSync(fd);
  }
}

const dataFileOf = (output) => path.join(path.dirname(output), `${path.basename(output)}.data`);

// A result must not replace a file the input reads: `-o b.onnx` writes b.onnx.data, which may be
// the input model's own data file. Known once the engine has opened them, before anything is
// put in place.
function refuseToReplaceInputs(inputs, targets) {
  for (const target of targets) {
    const input = inputs.find((p) => sameFile(p, target));
    if (input) {
      const which = path.resolve(target) === path.resolve(input) ? `'${input}'` : `'${target}' (the same file as '${input}')`;
      throw new OnnxShrinkError(`the result would replace ${which}, which the input model reads; ` +
                                'onnx-shrink never overwrites its input: choose another output name', 'BAD_OPTION');
    }
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

// onnxruntime-node for --verify, loaded before any model is read: without it, nothing is written.
async function loadOnnxRuntime() {
  try {
    return (await import('onnxruntime-node')).default;
  } catch (e) {
    if (e?.code === 'ERR_MODULE_NOT_FOUND' && /'onnxruntime-node'/.test(e.message)) {
      throw new OnnxShrinkError('--verify needs onnxruntime-node, which is not installed here: npm install onnxruntime-node', 'BAD_OPTION');
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
async function openCheck(ort, original, { inputs, samples, guessed }, a, name) {
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
function verifyFeeds(report, a, flag = '--verify') {
  try {
    for (const [input, output] of Object.entries(a.feedBack)) {
      if (!report.model.outputs.some((o) => o.name === output)) {
        throw new Error(`the model has no output '${output}' to feed back (its outputs: ${report.model.outputs.map((o) => o.name).join(', ')})`);
      }
      if (!report.model.inputs.some((i) => i.name === input)) {
        throw new Error(`the model has no input '${input}' to feed '${output}' back into (its inputs: ${report.model.inputs.map((i) => i.name).join(', ')})`);
      }
    }
    const inputs = verifyInputs(report.model.inputs, a.dim, a.shapes, a.values, a.inputFiles);
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
function targetFeeds(report, a) {
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

// Target mode on one model: the search (shrinkToTarget) on the --input samples, with its progress,
// then the chosen file written as every result is (a temporary file, renamed) when it meets the
// target; otherwise nothing. While it searches nothing is on disk: Ctrl-C leaves nothing behind.
async function targetOne(source, model, output, a, rows, reports, inputFiles) {
  const { file: input } = model;
  let bytes;
  try {
    bytes = source.bytes ?? readFileSync(input);
  } catch (e) {
    throw new OnnxShrinkError(`cannot read '${input}': ${e.code === 'ERR_FS_FILE_TOO_LARGE' ? 'over 2 GiB, more than target mode holds in memory' : e.message}`,
                              e.code === 'ERR_FS_FILE_TOO_LARGE' ? 'TOO_LARGE' : 'IO');
  }
  const feeds = Object.keys(a.inputFiles).length ? targetFeeds(await inspect(bytes, a.options), a) : {};
  const bar = progressBar(input === '-' ? 'stdin' : path.basename(input), a.quiet || a.json);
  let result;
  try {
    result = await shrinkToTarget(bytes, { ...a.options, target: a.target, decision: a.decision, objective: a.objective, samples: feeds.samples,
                                           shapes: feeds.shapes, feedBack: a.feedBack, onProgress: bar });
  } finally {
    bar(1, 'done');
  }
  const { target, report } = result;
  report.target = target;
  const row = { input, output: null, before: bytes.byteLength, report, target, goalText: a.target };
  // Calibration samples that cannot tell files apart (target.js: calibrationDoubts): a warning.
  if (target.doubts?.length) warn(a, `${input === '-' ? 'standard input' : input}: --target ${a.target}: ${target.doubts.join(';\n  ')}`);
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

// The declared inputs with their shapes (symbolic dimensions become --dim, or --shape's),
// --value's fixed values and --input's files, for sampleFeeds.
function verifyInputs(inputs, unknown, shapes, values, files) {
  for (const name of [...Object.keys(files), ...Object.keys(values), ...Object.keys(shapes)]) {
    if (!inputs.some((input) => input.name === name)) {
      throw new Error(`the model has no input '${name}' (its inputs: ${inputs.map((i) => i.name).join(', ')})`);
    }
  }
  return inputs.map((input) => {
    let bytes;
    if (files[input.name] !== undefined) {
      try {
        bytes = readDataFile(files[input.name]);
      } catch (e) {
        const why = e.code === 'ERR_FS_FILE_TOO_LARGE' ? 'over 2 GiB, more than a check reads at once' : e.code ?? e.message;
        throw new Error(`cannot read '${files[input.name]}' for input '${input.name}': ${why}`);
      }
    }
    const given = shapes[input.name];
    return { name: input.name, dtype: input.dtype, ...(given ? { shape: given, guessed: false } : declaredShape(input.shape, unknown)),
             value: values[input.name], bytes };
  });
}

// The summary goes to standard output, or to standard error when a result or report went there.
function printTable(rows, a) {
  if (a.quiet || a.json || rows.length === 0) return;
  const say = [a.output, a.report].some((t) => t !== null && isStream(t)) ? console.error : console.log;
  if (a.inspect) {
    for (const { input, report } of rows) {
      say(`${input === '-' ? 'standard input' : input}: ${report.summary}`);
      for (const t of report.tensors) {
        const what = t.changed ? `${t.scheme}${t.axis !== undefined ? ` axis ${t.axis}` : ''} ${t.exact ? 'exact' : t.sqnrDb == null ? '' : `${t.sqnrDb.toFixed(1)} dB`}${t.reason ? ` (${t.reason})` : ''}` : `kept: ${t.reason}`;
        say(`  ${t.name.padEnd(40)} ${t.dtype.padEnd(8)} [${t.shape.join(', ')}] ${formatBytes(t.bytesBefore)} -> ${formatBytes(t.bytesAfter)}  ${what}`);
      }
    }
    return;
  }
  // Brotli's quality in its header, and beside a size of another quality (results over 4 MB).
  const qualities = rows.map((r) => r.brotli?.quality).filter(Boolean);
  const quality = qualities[0] ?? 11;
  const header = ['model', 'before', 'after', 'gzip', `brotli -q ${quality}`, 'size'];
  // Each file as the user would type it from here (out/a/x.shrunk.onnx), or its name when far off.
  const shown = (file) => {
    if (file === '-') return '(stdout)';
    const relative = path.relative(process.cwd(), file);
    return relative.startsWith('..') || path.isAbsolute(relative) ? path.basename(file) : relative;
  };
  const written = rows.filter((r) => !r.target || r.output);
  const lines = written.map((r) => [shown(r.output ?? r.input), formatBytes(r.before), formatBytes(r.after), formatBytes(r.gzip),
                                 `${formatBytes(r.brotli?.bytes)}${r.brotli && r.brotli.quality !== quality ? ` (-q ${r.brotli.quality})` : ''}`,
                                 sizeChange(r.before, r.after)]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells) => cells.map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
  if (lines.length) say(fmt(header));
  for (const l of lines) say(fmt(l));
  for (const r of rows) {
    if (r.target) for (const line of evidenceLines(r.target, { text: r.goalText, decision: a.decision, name: shown(r.output ?? r.input), formatBytes })) say(line);
  }
  for (const r of rows) if (r.report?.unchanged) say(`${shown(r.output ?? r.input)}: ${r.report.summary}`);
  for (const r of rows) {
    if (!r.verify) continue;
    const files = Object.keys(a.inputFiles);
    const samples = `${r.samples} sample${r.samples === 1 ? '' : 's'}`;
    const random = r.report.model.inputs.some((i) => a.inputFiles[i.name] === undefined && a.values[i.name] === undefined);
    const fed = Object.entries(a.feedBack).map(([input, output]) => `; ${output} fed back as ${input}`).join('');
    const guessedShapes = r.guessed.list.length ? `; GUESSED SHAPES ${r.report.model.inputs
      .filter((i) => r.guessed.list.some((g) => g.input === i.name))
      .map((i) => `${i.name}=${declaredShape(i.shape, a.dim).shape.join('x')}`).join(' ')}` : '';
    const given = (files.length ? `inputs from files: ${files.join(', ')}${random ? '; others seeded random' : ''}` : 'seeded random inputs') +
                  `; ${samples}${fed}${guessedShapes}`;
    if (r.candidates) {
      say(`schemes for ${shown(r.output)} (onnxruntime-node, ${given}):`);
      for (const c of r.candidates) {
        const worst = worstOutput(c.outputs);
        say(`  ${c.scheme.padEnd(8)} ${formatBytes(c.bytes, 3).padStart(10)}  gzip ${formatBytes(c.gzipBytes, 3).padStart(10)}  worst rel. L2 ${worst.relL2.toExponential(3)} (${worst.name})` +
                    `${c.kept ? '  kept' : ''}`);
      }
      if (r.samples < FEW_SAMPLES) {
        say(`  chosen on ${samples}: which of two good schemes moves the outputs less on a few inputs often differs on others; ` +
            'give it many inputs like those the model will meet');
      }
    }
    say(`verify ${shown(r.output)} (onnxruntime-node, ${given}):`);
    for (const o of r.verify) {
      say(`  ${o.name}: max abs ${o.maxAbs.toExponential(3)}  mean abs ${o.meanAbs.toExponential(3)}  rel. L2 ${o.relL2.toExponential(3)}  ` +
                  `cosine ${o.cosine.toFixed(6)}${o.agreement === undefined ? '' : `  same side of ${a.threshold}: ${(100 * o.agreement).toFixed(3)} %`}` +
                  `${o.ok ? '' : '  BEYOND TOLERANCE'}${o.constant ? '  CONSTANT' : o.identical ? '  IDENTICAL' : ''}`);
    }
  }
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
  let inputs;
  try {
    inputs = expandInputs(a.inputs);
    if (inputs.length > 1 && a.output && (a.output.endsWith('.onnx') || isStream(a.output))) {
      throw new OnnxShrinkError(`with several inputs, -o names a folder${isStream(a.output) ? ', not a stream' : ''}`, 'BAD_OPTION');
    }
    if (a.target && (inputs.length > 1 || a.inputs.some((i) => i !== '-' && statSync(i).isDirectory()))) {
      throw new OnnxShrinkError('--target works on one model at a time (its samples are that model\'s): give one model file', 'BAD_OPTION');
    }
  } catch (e) {
    process.stderr.write(`onnx-shrink: ${e.message}\n`);
    return 2;
  }
  // With several models, or a folder, -o names a folder.
  const many = inputs.length > 1 || a.inputs.some((i) => i !== '-' && statSync(i).isDirectory());
  try {
    checkDistinctOutputs(inputs, a, many);
    checkReportTarget(inputs, a);
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
      const message = e.code === 'TRUNCATED' ? `this model file is cut short (truncated), download it again: ${e.message}` : e.message;
      process.stderr.write(`onnx-shrink: ${input.file === '-' ? 'standard input' : input.file}: ${message}\n`);
      failed = true;
      internal ||= e.code === 'INTERNAL';
    }
  }
  if (a.report) {
    try {
      refuseToReplaceInputs(readFiles, [a.report]);
      const t = new TempFile(a.report);
      t.write(Buffer.from(JSON.stringify(reports.length === 1 ? reports[0].report ?? reports[0] : reports, null, 2) + '\n'));
      t.commit();
    } catch (e) {
      if (!(e instanceof OnnxShrinkError)) throw e;
      process.stderr.write(`onnx-shrink: --report: ${e.message}\n`);
      failed = true;
    }
  }
  if (a.json) console.log(JSON.stringify(reports.length === 1 ? reports[0] : reports, null, 2));
  printTable(rows, a);
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
