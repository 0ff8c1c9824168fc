// Session creation in onnxruntime-node: InferenceSession.create from bytes already in memory (one
// intra-op thread, a fresh session each time, released after), for the original model and shrunk
// outputs of it, and for expand() of the default output (the package's wasm in Node) followed by a
// session on the plain bytes. Variants are taken in turn, run after run, and the medians reported:
// the machine's speed wanders, and each variant sees it alike.
//
// With --forms, also the hand-edited chain forms of bench/chain_forms.py (why the default is
// slower: which chains onnxruntime folds at load, node by node), and the original and the default
// at each graph optimization level.
//
// With --first, also the first session in a new process (bench/session_first.mjs, one process a
// run): what a program that loads its model once at start-up waits for, onnxruntime's set-up and
// the engine's compile and first expand() call included. Compared with the original's
// first session in a new process.
//
//   node bench/session.mjs [--runs N] [--models det,silero,conv,matmul] [--forms] [--first]   prints a Markdown table
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants } from 'node:zlib';
import ort from 'onnxruntime-node';
import { expand } from '../bindings/js/index.node.js';
import { compare, corpus } from './corpus.mjs';
import { benchModel } from './shapes.mjs';
import { option } from './args.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const native = path.join(root, 'build', 'onnx-shrink');

export const SESSION_MODELS = {
  det: ['PP-OCR det (corpus)', () => path.join(root, 'tests', 'fixtures', 'ch_PP-OCRv4_det_infer.onnx')],
  silero: ['silero VAD (corpus)', () => path.join(root, 'tests', 'fixtures', 'silero_vad_v5.onnx')],
  conv: ['conv stack, 150 MB (make_shapes.py conv 150)', () => benchModel(path.join(root, 'bench', 'out', 'models'), 'conv', 150)],
  matmul: ['MatMul stack, 150 MB (make_model.py 150)', () => benchModel(path.join(root, 'bench', 'out', 'models'), 'matmul', 150)],
};

// Each shrunk variant: its name, a file name part, and its CLI flags (null: the original).
const VARIANTS = [
  ['original', 'original', null],
  ['default', 'default', []],
  ['--bits 8', 'bits8', ['--bits', '8']],
  ['--bits 8 --small keep', 'bits8-keep', ['--bits', '8', '--small', 'keep']],
  ['--scheme tensor (the original tool\'s layout)', 'tensor', ['--scheme', 'tensor']],
  ['--form dq (DequantizeLinear, not folded)', 'dq', ['--form', 'dq']],
];
const FORMS = {
  'fp16-grouped': 'float16 tensors grouped: one Cast + Split per group',
  'fp16-as-fp32': 'float16 tensors stored as float32 (no Casts)',
  'int16-codes': 'codes and low bits as one int16 code (no unpack chain)',
  'int16+grouped': 'int16 codes + float16 grouped',
  'int-unpack': 'low bits unpacked by BitShift + uint8 Mod (no float fmod)',
  'int-unpack+grouped': 'int unpack + float16 grouped',
  'low-bytes': 'low bits one uint8 a weight, Cast -> Div (no unpack chain)',
  'low-bytes+grouped': 'low bytes + float16 grouped',
  'bound-cast-mul': 'BOUND, not the same weights: int16 codes, Cast -> Mul only, no float16',
  'bound-no-offset': 'BOUND, not the same weights: as above with the factor Mul',
  'bound-no-factor': 'BOUND, not the same weights: as above with the offset Add',
};
const LEVELS = ['disabled', 'basic', 'extended', 'all'];

const median = (a) => { const b = [...a].sort((x, y) => x - y), h = b.length >> 1; return b.length % 2 ? b[h] : (b[h - 1] + b[h]) / 2; };

// The variant's file, or null when the CLI refuses the flags for this model (e.g. --form dq on opset < 13).
function shrunkFile(dir, key, original, slug, flags, log) {
  if (!flags) return original;
  const file = path.join(dir, `${key}.${slug}.onnx`);
  const p = spawnSync(native, [original, '-o', file, '-q', ...flags], { encoding: 'utf8' });
  if (p.status !== 0) {
    log(`${key}: onnx-shrink ${flags.join(' ')} refused: ${p.stderr.trim().split('\n')[0]}`);
    return null;
  }
  return file;
}

// bench/chain_forms.py: `args` and its JSON answer.
function chainForms(args) {
  const p = spawnSync('/usr/bin/python3', [path.join(root, 'bench', 'chain_forms.py'), ...args], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (p.status !== 0) throw new Error(`chain_forms.py: ${p.stderr}`);
  return JSON.parse(p.stdout);
}

const brotliSize = (bytes) => brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 9,
                                                                    [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength } }).byteLength;

// Whether a form gives the default's outputs exactly, on the corpus model's real input.
async function sameOutputs(key, defaultFile, formFile) {
  const spec = corpus[key];
  const c = compare(await spec.run(ort, readFileSync(defaultFile)), await spec.run(ort, readFileSync(formFile)), spec.threshold);
  return c.relL2 === 0;
}

async function createSeconds(bytes, level = 'all') {
  const t = performance.now();
  const session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: level });
  const seconds = (performance.now() - t) / 1000;
  await session.release();
  return seconds;
}

async function expandThenCreate(shrunkBytes) {
  const t = performance.now();
  const plain = await expand(shrunkBytes);
  const expandSeconds = (performance.now() - t) / 1000;
  return { expand: expandSeconds, create: await createSeconds(plain) };
}

// Seconds of one session in a new process: `way` 'create' (the bytes as they are) or 'expand'.
function firstSessionSeconds(file, way) {
  const p = spawnSync(process.execPath, [path.join(root, 'bench', 'session_first.mjs'), file, way], { encoding: 'utf8' });
  if (p.status !== 0) throw new Error(`session_first.mjs ${file} ${way}: ${p.stderr}`);
  return JSON.parse(p.stdout).seconds;
}

/** Rows { model, variant, level, bytes, brotli, create, expand?, total?, census } of medians over `runs`. */
export async function sessionTimes({ dir, runs = 5, models = ['det', 'silero', 'conv'], forms = false, first = false, log = () => {} }) {
  mkdirSync(dir, { recursive: true });
  await createSeconds(readFileSync(SESSION_MODELS.silero[1](dir)));  // the first session in a process pays for set-up
  await expand(readFileSync(shrunkFile(dir, 'warm', SESSION_MODELS.silero[1](dir), 'default', [], log)));
  const rows = [];
  for (const key of models) {
    const [name, locate] = SESSION_MODELS[key];
    const original = locate(dir);
    log(`${name}: shrinking the variants`);
    const cases = VARIANTS.map(([variant, slug, flags]) => ({ variant, file: shrunkFile(dir, key, original, slug, flags, log), level: 'all' }))
      .filter((c) => c.file);
    const defaultFile = cases.find((c) => c.variant === 'default').file;
    if (forms) {
      const made = chainForms([defaultFile, path.join(dir, key)]);
      for (const [form, what] of Object.entries(FORMS)) {
        // No file: the default has no chain of that form (int-unpack edits the low bits' first form only).
        if (!made[form].file) {
          log(`${key}: form ${form}: no chain of that form to edit`);
          continue;
        }
        const c = { variant: `default, ${form}: ${what}`, file: made[form].file, level: 'all' };
        if (corpus[key] && !form.startsWith('bound')) c.same = await sameOutputs(key, defaultFile, c.file);
        cases.push(c);
      }
      for (const level of LEVELS.filter((l) => l !== 'all')) {
        cases.push({ variant: `original, graphOptimizationLevel '${level}'`, file: original, level });
        cases.push({ variant: `default, graphOptimizationLevel '${level}'`, file: defaultFile, level });
      }
    }
    const census = chainForms(['--census', ...new Set(cases.map((c) => c.file))]);
    for (const c of cases) c.bytes = readFileSync(c.file);
    // The forms change the bytes: brotli at quality 9 (quality 11 takes minutes on the 150 MB model's files here).
    const brotli = new Map([...new Set(cases.map((c) => c.file))].map((f) => [f, brotliSize(readFileSync(f))]));
    const expanded = { variant: 'default, expand() in Node, then create (openForRuntime()\'s path in Node over 16 MB)', bytes: readFileSync(defaultFile), expand: [], create: [] };
    const firsts = first ? [
      { variant: 'original, the first session in a new process', file: original, way: 'create' },
      { variant: 'default, the first session in a new process', file: defaultFile, way: 'create' },
      { variant: 'default, expand() then create, the first session in a new process', file: defaultFile, way: 'expand' },
    ] : [];
    for (const c of [...cases, ...firsts]) c.times = [];
    for (let run = 0; run < runs; run++) {
      log(`${name}: run ${run + 1} of ${runs}`);
      for (const c of cases) c.times.push(await createSeconds(c.bytes, c.level));
      const e = await expandThenCreate(expanded.bytes);
      expanded.expand.push(e.expand);
      expanded.create.push(e.create);
    }
    // After the runs above, not between them: a burst of new processes left the next session in
    // this one (the original's) 25-170 % slower (det, silero, the conv stack).
    for (let run = 0; run < runs && firsts.length; run++) {
      log(`${name}: first sessions in new processes, run ${run + 1} of ${runs}`);
      for (const c of firsts) c.times.push(firstSessionSeconds(c.file, c.way));
    }
    for (const c of cases) {
      rows.push({ model: name, variant: c.variant + (c.same === undefined ? '' : c.same ? ' (outputs identical)' : ' (OUTPUTS DIFFER)'),
                  level: c.level, bytes: c.bytes.byteLength, brotli: brotli.get(c.file), create: median(c.times), census: census[c.file] });
    }
    rows.push({ model: name, variant: expanded.variant, level: 'all', bytes: expanded.bytes.byteLength, brotli: brotli.get(defaultFile),
                expand: median(expanded.expand),
                create: median(expanded.create), total: median(expanded.expand.map((x, i) => x + expanded.create[i])) });
    for (const c of firsts) {
      rows.push({ model: name, variant: c.variant, level: 'first', bytes: statSync(c.file).size, brotli: brotli.get(c.file), create: median(c.times) });
    }
  }
  return rows;
}

const FOLD_KINDS = ['fp16 Cast', 'low-bit unpack', 'int8 dequant', 'int16 dequant', 'codebook'];

export function sessionTable(rows) {
  const lines = ['| model | variant | file MB | brotli -q 9 MB | expand s | create s | total s | × original (same level) | nodes folded at load |',
                 '| --- | --- | --- | --- | --- | --- | --- | --- | --- |'];
  // Against the original at the same graph optimization level.
  const originals = Object.fromEntries(rows.filter((r) => r.variant.startsWith('original')).map((r) => [`${r.model} ${r.level}`, r.create]));
  for (const r of rows) {
    const total = r.total ?? r.create;
    const kinds = r.census ? FOLD_KINDS.filter((k) => r.census[k]).map((k) => `${r.census[k]} ${k}`).join(', ') : '';
    const folded = r.census ? `${r.census.folded}${kinds ? `: ${kinds}` : ''}` : '';
    lines.push(`| ${r.model} | ${r.variant} | ${(r.bytes / 1e6).toFixed(2)} | ${(r.brotli / 1e6).toFixed(2)} | ${r.expand === undefined ? '' : r.expand.toFixed(3)} | ` +
               `${r.create.toFixed(3)} | ${total.toFixed(3)} | ${(total / originals[`${r.model} ${r.level}`]).toFixed(2)} | ${folded} |`);
  }
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const rows = await sessionTimes({
    dir: path.join(root, 'bench', 'out', 'session'), runs: Number(option('--runs', 5)), models: option('--models', 'det,silero,conv').split(','),
    forms: process.argv.includes('--forms'), first: process.argv.includes('--first'), log: (m) => console.error(`[${((Date.now() - started) / 1000).toFixed(0)} s] ${m}`),
  });
  console.log(sessionTable(rows));
}
