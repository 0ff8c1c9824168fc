// onnx-shrink's command line, read: the usage text (each option's lines from its entry in
// options.js, target mode's from TARGET_FLAGS) and parse(), which turns the arguments into a run's
// settings, or throws a UsageError that names the slip (with the flag or word it is nearest to).
import { OPTION, OPTIONS, words } from './options.js';
import { DECISIONS, MEASURED_KINDS, OBJECTIVES, TARGET_FORMS, TARGET_KINDS, oneOf, parseDecision, parseTarget } from './target.js';

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
          '(e.g. 1.2MB) or a fraction of the original\'s size by --objective (e.g. 0.25), with the least error; default: the 8-bit default\'s ' +
          'error (measured on the --input samples, else estimated). ' +
          'An error tighter than every tensor at the most bits gets 12 or 16 bits, small tensors kept, or the model left alone. ' +
          'Without --input, size and default are met by estimates, and said to be. Prints each point tried; writes nothing when the ' +
          'target cannot be met (exit 3)' },
  { key: 'decision', flag: '--decision', words: DECISIONS, default: '',
    help: 'with --target and --input: a decision is the largest value along each output\'s last axis (argmax: a class, a CTC ' +
          'token), or which side of N a value is on (threshold:N, e.g. threshold:0.3 for a probability map); agree=N needs one, ' +
          'and the table then shows the decisions kept for every target' },
  { key: 'objective', flag: '--objective', words: OBJECTIVES, default: 'brotli',
    help: 'with --target: the size to make smallest: after brotli (quality 9 for each point; what a host serves), gzip -9, or raw' },
];

const USAGE = `usage: onnx-shrink IN.onnx [IN2.onnx | FOLDER ...] [options]
       curl -sL URL | onnx-shrink - -o OUT.onnx [options]    (a model from a pipe)
       onnx-shrink IN.onnx -o - | gzip > OUT.onnx.gz         (the result to a pipe)

  -o, --output PATH         output file (one input) or folder (a folder's subfolders are kept there);
                            default NAME.shrunk.onnx beside each input. '-' (or a pipe or device)
                            gets the result once it is whole; the table then goes to stderr
${OPTIONS.filter((o) => o.flag).map(usage).join('')}  --report FILE.json        write the report(s) as JSON, with --verify's results
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
                            sample or several back to back (a file, a pipe such as <(command),
                            or - for standard input); real inputs tell far more about accuracy
                            than random ones. --target calibrates on them
  --feed-back OUT=IN        with --verify or --target: from the second sample on, each model gets
                            its own output OUT of the sample before as input IN (a streaming
                            model's state, e.g. --feed-back stateN=state), as it runs in use
  --quiet                   print only errors
  -h, --help, --version
`;

export class UsageError extends Error {}

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

// The flags given once per input (or output) name.
const BY_NAME = new Set(['--input', '--shape', '--value', '--feed-back']);

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
                   ['--external-data external (the points are sized as single files)', a.options.externalData === 'external'],
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
  const describing = [['--value', Object.keys(a.values).length], ['--shape', Object.keys(a.shapes).length], ['--feed-back', Object.keys(a.feedBack).length],
                      ['--dim', a.dimGiven], ['--decision', a.decision !== undefined]].filter(([, given]) => given).map(([flag]) => flag);
  if (describing.length && !Object.keys(a.inputFiles).length && !MEASURED_KINDS.includes(kind)) {
    throw new UsageError(`${describing.join(', ')} describe${describing.length === 1 ? 's' : ''} the samples of --input, and there are none: ` +
                         `--target ${a.target} then works by estimates (add --input NAME=FILE to measure)`);
  }
  if (MEASURED_KINDS.includes(kind) && !Object.keys(a.inputFiles).length) {
    throw new UsageError(`--target ${a.target} is measured on your data: add --input NAME=FILE (the model's input NAME, raw values, ` +
                         'one sample or several back to back); only size=N and default can do without, by estimates');
  }
}

export function parse(argv) {
  const a = { inputs: [], options: {}, schemes: [], output: null, report: null, inspect: false, expand: false, json: false, verify: false,
              absTol: null, meanTol: null, threshold: undefined, dim: 1, dimGiven: false, shapes: {}, values: {}, inputFiles: {}, feedBack: {},
              target: null, decision: undefined, objective: undefined, quiet: false };
  const numeric = (flag, v) => {
    if (!/^\d+$/.test(v ?? '')) throw new UsageError(`${flag} needs a whole number of 0 or more, not '${v}'`);
    return Number(v);
  };
  const real = (flag, v) => {
    if (!(Number(v) >= 0)) throw new UsageError(`${flag} needs a number of 0 or more, not '${v}'`);
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
        const m = /^(.+)=(\d+|auto)$/.exec(item);
        if (!m) throw new UsageError(`${o.flag} takes NAME=BITS pairs (BITS as --bits takes them), e.g. conv1.weight=4,fc.weight=6, not '${item}'`);
        return [m[1], m[2] === 'auto' ? 'auto' : Number(m[2])];
      }));
    }
    if (!o.words) return Array.isArray(o.default) ? list(v) : numeric(o.flag, v);
    choice(o.flag, v, [...words(o), ...(o.numbers ?? [])]);
    return words(o).includes(v) ? v : Number(v);
  };
  // --flag=value is --flag value (a flag that takes no value refuses one below).
  argv = argv.flatMap((arg) => (/^--[a-z-]+=/.test(arg) ? [arg.slice(0, arg.indexOf('=')), { given: arg.slice(arg.indexOf('=') + 1) }] : [arg]));
  const given = new Map();  // each flag's value (the samples' flags: by input name)
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (typeof arg === 'object') throw new UsageError(`${argv[i - 1]} takes no value (got ${argv[i - 1]}=${arg.given})`);
    const value = () => {
      if (i + 1 >= argv.length) throw new UsageError(`${arg} needs a value`);
      const next = argv[++i];
      const v = typeof next === 'object' ? next.given : next;
      // A flag given twice would keep the last without a word (the samples' flags: once per input
      // name, which --feed-back OUTPUT=INPUT names last).
      const name = arg === '--feed-back' ? `=${v.split('=').slice(1).join('=')}` : `${v.split('=')[0]}=`;
      const key = BY_NAME.has(arg) ? `${arg} ${name}` : arg === '--output' ? '-o' : arg;
      if (given.has(key) && given.get(key) !== v) {
        throw new UsageError(`${key} is given twice ('${given.get(key)}', then '${v}'): give it once`);
      }
      given.set(key, v);
      return v;
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
      case '--dim':
        a.dim = numeric(arg, value()), a.dimGiven = true;
        // (--shape may give a 0, as a first step's empty past of a model with a cache takes.)
        if (a.dim === 0) throw new UsageError('--dim sets every open dimension: give 1 or more (a 0 goes in --shape, for one input)');
        break;
      case '--shape': {
        const m = /^([^=]+)=(\d+(?:x\d+)*)?$/.exec(value());
        if (!m) throw new UsageError(`--shape takes NAME=AxBxC, e.g. input=1x512`);
        a.shapes[m[1]] = m[2] ? m[2].split('x').map(Number) : [];
        break;
      }
      case '--value': {
        const given = value();
        const m = /^([^=]+)=(-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)$/.exec(given);
        if (!m) throw new UsageError(`--value takes NAME=NUMBER, e.g. sr=16000, not '${given}'`);
        // A whole number past 2^53 stays exact, for an int64 input.
        a.values[m[1]] = /^-?\d+$/.test(m[2]) && !Number.isSafeInteger(Number(m[2])) ? BigInt(m[2]) : Number(m[2]);
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
  // Standard input is read once: by the model or by one --input.
  const fromStdin = [...(a.inputs.includes('-') ? ['the model'] : []),
                     ...Object.entries(a.inputFiles).filter(([, f]) => f === '-').map(([name]) => `--input ${name}`)];
  if (fromStdin.length > 1) throw new UsageError(`standard input can be read once, not for ${fromStdin.join(' and ')}: give the others as files`);
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
  if (a.inspect && a.verify) throw new UsageError('--verify checks the model a run writes, and --inspect writes none: give one');
  if (a.expand) {
    // --expand turns shrunk weights back into floats: shrinking's options and checks do nothing there.
    const refused = [['--verify', a.verify], ['--inspect', a.inspect], ['--dim', a.dimGiven],
                     ...Object.keys(a.options).filter((k) => !k.startsWith('external')).map((k) => [OPTION[k].flag, true]),
                     ['--scheme', a.schemes.length > 0]].filter(([, on]) => on).map(([flag]) => flag);
    if (refused.length) throw new UsageError(`--expand turns a shrunk model's weights back into floats: it takes no ${oneOf(refused)}`);
  }
  // A flag of the other mode would change nothing (the engine cannot tell --levels 256 from no --levels).
  const mode = a.options.mode ?? OPTION.mode.default;
  const otherMode = Object.keys(a.options).find((k) => OPTION[k].mode && OPTION[k].mode !== mode);
  if (otherMode) throw new UsageError(`${OPTION[otherMode].flag} applies to ${OPTION[otherMode].mode} mode, not ${mode} mode`);
  if (a.dimGiven && !a.verify && !a.target) throw new UsageError('--dim needs --verify or --target');
  if (a.output === '-' && a.json) throw new UsageError('-o - and --json would both write to standard output');
  if (a.output === '-' && process.stdout.isTTY) {
    throw new UsageError("-o - writes the model's bytes to standard output, which is a terminal here: redirect it (> model.onnx, | brotli > model.onnx.br)");
  }
  if (a.output === '-' && a.report === '-') throw new UsageError('-o - and --report - would both write to standard output');
  if (a.json && a.report === '-') throw new UsageError('--json and --report - would both write to standard output');
  if (a.inputs.filter((i) => i === '-').length > 1) throw new UsageError("standard input ('-') can be read only once");
  if (a.schemes.length === 1) a.options.scheme = a.schemes[0];
  if (a.schemes.length > 1 && (!a.verify || a.inspect || a.expand)) {
    throw new UsageError('a list of schemes needs --verify to choose by (best with --input data), and no --inspect or --expand');
  }
  return a;
}
