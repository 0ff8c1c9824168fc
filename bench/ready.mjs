// Time until ready in Chromium: what a page author's visitor waits for. Debian's Chromium (Playwright)
// loads a page from a static server on 127.0.0.1 (bench/ready_server.mjs), the network throttled by
// CDP (Network.emulateNetworkConditions: a stated download bandwidth and latency), and the page
// (bench/ready_page.mjs) times fetch of the model, then expand() when the variant does it, then
// InferenceSession.create in onnxruntime-web (the page's ort.wasm.min.mjs, single-threaded wasm),
// until the session is ready. Both runtimes are loaded before the clock starts. Each measurement
// has a fresh browser context (no HTTP cache; the server also says no-store).
//
// Variants per model: the original and the default shrunk output (build/onnx-shrink), each served
// as it is and brotli-compressed (quality 11, sent with Content-Encoding: br as a host with
// compression serves it), and the shrunk file expanded in the page (raw and brotli-served).
// Medians over runs taken in turn (every variant once per run). With --forms, also the default
// output's hand-edited chain forms of bench/chain_forms.py, served as they are (what onnxruntime-web's
// session creation makes of each).
//
//   node bench/ready.mjs [--runs N] [--large-runs N] [--models det,silero,conv] [--bandwidths 20,100] [--latency 20] [--forms]
import { chromium } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants } from 'node:zlib';
import { startServer } from './ready_server.mjs';
import { benchModel } from './shapes.mjs';
import { option } from './args.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const native = path.join(root, 'build', 'onnx-shrink');
const modelsDir = path.join(root, 'bench', 'out', 'models');

export const READY_MODELS = {
  det: ['PP-OCR det', () => path.join(root, 'tests', 'fixtures', 'ch_PP-OCRv4_det_infer.onnx')],
  silero: ['silero VAD', () => path.join(root, 'tests', 'fixtures', 'silero_vad_v5.onnx')],
  conv: ['conv stack 150 MB', () => benchModel(modelsDir, 'conv', 150)],
  matmul: ['MatMul stack 150 MB', () => benchModel(modelsDir, 'matmul', 150)],
};

const VARIANTS = [
  { variant: 'original', file: 'original', br: false },
  { variant: 'original, brotli', file: 'original', br: true },
  { variant: 'shrunk', file: 'shrunk', br: false },
  { variant: 'shrunk, brotli', file: 'shrunk', br: true },
  { variant: 'shrunk, expand()', file: 'shrunk', br: false, expanded: true },
  { variant: 'shrunk, brotli, expand()', file: 'shrunk', br: true, expanded: true },
];

// The chain forms --forms adds (bench/chain_forms.py), each served as it is.
const FORMS = ['fp16-grouped', 'int16-codes', 'int16+grouped', 'low-bytes+grouped', 'bound-cast-mul'];

const median = (a) => { const b = [...a].sort((x, y) => x - y), h = b.length >> 1; return b.length % 2 ? b[h] : (b[h - 1] + b[h]) / 2; };

async function brotliFile(file) {
  const out = `${file}.br`;
  if (existsSync(out) && statSync(out).mtimeMs >= statSync(file).mtimeMs) return out;
  const bytes = readFileSync(file);
  writeFileSync(out, await promisify(brotliCompress)(bytes, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength } }));
  return out;
}

// The served folder: KEY.original.onnx (a link to the model), KEY.shrunk.onnx, each with its .br;
// and tiny.onnx, a one-node model that loads onnxruntime-web's wasm before the clock starts.
async function prepareFiles(dir, keys, forms, log) {
  mkdirSync(dir, { recursive: true });
  const tiny = path.join(dir, 'tiny.onnx');
  if (!existsSync(tiny)) {
    const script = 'import sys; from onnx import helper, TensorProto as T; v = lambda n: helper.make_tensor_value_info(n, T.FLOAT, [1]); ' +
      "m = helper.make_model(helper.make_graph([helper.make_node('Identity', ['x'], ['y'])], 'tiny', [v('x')], [v('y')]), " +
      "opset_imports=[helper.make_opsetid('', 13)]); m.ir_version = 8; open(sys.argv[1], 'wb').write(m.SerializeToString())";
    const p = spawnSync('/usr/bin/python3', ['-c', script, tiny], { encoding: 'utf8' });
    if (p.status !== 0) throw new Error(p.stderr);
  }
  for (const key of keys) {
    const original = READY_MODELS[key][1]();
    const link = path.join(dir, `${key}.original.onnx`), shrunk = path.join(dir, `${key}.shrunk.onnx`);
    if (!existsSync(link)) symlinkSync(original, link);
    if (!existsSync(shrunk) || statSync(shrunk).mtimeMs < statSync(native).mtimeMs) {
      const p = spawnSync(native, [original, '-o', shrunk, '-q'], { encoding: 'utf8' });
      if (p.status !== 0) throw new Error(`onnx-shrink ${original}: ${p.stderr}`);
    }
    if (forms) {
      const p = spawnSync('/usr/bin/python3', [path.join(root, 'bench', 'chain_forms.py'), shrunk, path.join(dir, `${key}.shrunk`)],
                          { encoding: 'utf8', maxBuffer: 1 << 24 });
      if (p.status !== 0) throw new Error(`chain_forms.py: ${p.stderr}`);
    }
    log(`${key}: brotli -q 11 of the original and the shrunk file`);
    await Promise.all([brotliFile(link), brotliFile(shrunk)]);
  }
}

// One measurement: a fresh context and page, the runtimes loaded, then the network throttled and
// the model timed.
async function measureOnce(browser, base, { key, variant, mbit, latency }) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${base}/ready.html`);
    await page.waitForFunction(() => typeof window.prepare === 'function');
    await page.evaluate((url) => window.prepare(url), `${base}/models/tiny.onnx`);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    const bytesPerSecond = (mbit * 1e6) / 8;
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency, downloadThroughput: bytesPerSecond, uploadThroughput: bytesPerSecond });
    const url = `${base}/${variant.br ? 'models-br' : 'models'}/${key}.${variant.file}.onnx`;
    return await page.evaluate(([u, expanded]) => window.ready(u, { expanded }), [url, !!variant.expanded]);
  } finally {
    await context.close();
  }
}

/**
 * Rows { model, mbit, latency, variant, wire, fetch, prep, create, total, runs } of medians.
 * `runs` for models under 50 MB, `largeRuns` for the others (a 150 MB download takes a minute at 20 Mbit/s).
 */
export async function readyTimes({ dir, models = ['det', 'silero', 'conv'], bandwidths = [20, 100], latency = 20, runs = 3,
                                   largeRuns = 1, forms = false, log = () => {} }) {
  await prepareFiles(dir, models, forms, log);
  const server = await startServer({ root, models: dir });
  const base = `http://127.0.0.1:${server.port}`;
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--disable-component-update', '--no-first-run',
           '--disable-sync', '--disable-quic'],
  });
  const cases = [];
  for (const key of models) {
    const large = statSync(READY_MODELS[key][1]()).size > 50e6;
    const variants = [...VARIANTS, ...(forms ? FORMS.map((f) => ({ variant: `shrunk, ${f} (chain_forms.py${f.startsWith('bound') ? ': a bound, not the same weights' : ''})`, file: `shrunk.${f}`, br: false })) : [])];
    for (const mbit of bandwidths) for (const variant of variants) cases.push({ key, mbit, latency, variant, n: large ? largeRuns : runs, results: [] });
  }
  try {
    const most = Math.max(...cases.map((c) => c.n));
    for (let run = 0; run < most; run++) {
      for (const c of cases.filter((x) => run < x.n)) {
        log(`run ${run + 1}: ${c.key} at ${c.mbit} Mbit/s, ${c.variant.variant}`);
        const r = await measureOnce(browser, base, c);
        const served = `/${c.variant.br ? 'models-br' : 'models'}/${c.key}.${c.variant.file}.onnx`;
        c.results.push({ ...r, wire: server.sent.get(served) });
      }
    }
  } finally {
    await browser.close();
    await server.close();
  }
  const accept = server.acceptEncoding.get(`/models-br/${models[0]}.original.onnx`);
  return cases.map((c) => {
    const pick = (k) => median(c.results.map((r) => r[k]));
    return { model: READY_MODELS[c.key][0], mbit: c.mbit, latency: c.latency, variant: c.variant.variant, runs: c.n,
             wire: c.results[0].wire, fetchedBytes: c.results[0].fetchedBytes, sessionBytes: c.results[0].sessionBytes,
             fetch: pick('fetch'), prep: pick('prep'), create: pick('create'), total: pick('total'), acceptEncoding: accept };
  });
}

export function readyTable(rows) {
  const lines = ['| model | bandwidth | variant | download MB (on the wire) | fetch s | size / bandwidth s | prep s (expand) | session create s | total s | × original | × original, brotli | runs |',
                 '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |'];
  const find = (r, variant) => rows.find((x) => x.model === r.model && x.mbit === r.mbit && x.variant === variant);
  for (const r of rows) {
    const wireSeconds = (r.wire * 8) / (r.mbit * 1e6);
    lines.push(`| ${r.model} | ${r.mbit} Mbit/s | ${r.variant} | ${(r.wire / 1e6).toFixed(2)} | ${r.fetch.toFixed(2)} | ${wireSeconds.toFixed(2)} | ` +
               `${r.variant.includes('expand') ? r.prep.toFixed(2) : '-'} | ${r.create.toFixed(2)} | ${r.total.toFixed(2)} | ` +
               `${(r.total / find(r, 'original').total).toFixed(2)} | ${(r.total / find(r, 'original, brotli').total).toFixed(2)} | ${r.runs} |`);
  }
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const rows = await readyTimes({
    dir: path.join(root, 'bench', 'out', 'ready'), models: option('--models', 'det,silero,conv').split(','),
    bandwidths: option('--bandwidths', '20,100').split(',').map(Number), latency: Number(option('--latency', 20)),
    runs: Number(option('--runs', 3)), largeRuns: Number(option('--large-runs', 1)), forms: process.argv.includes('--forms'),
    log: (m) => console.error(`[${((Date.now() - started) / 1000).toFixed(0)} s] ${m}`),
  });
  console.log(readyTable(rows));
  console.log(`\nLatency ${rows[0].latency} ms each way as CDP applies it; Chromium's Accept-Encoding for a model: ${rows[0].acceptEncoding}.`);
}
