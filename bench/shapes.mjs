// Speed by the shape of the weights: the same engine on generated models shaped like a conv net, a
// transformer and a stack of 1024x1024 MatMul weights (about 150 MB each), and on the corpus
// models, natively and through the WebAssembly build in Node (bench/wasm_node.mjs: the engine's
// own time, the model read in slices as the CLI does), and in the page's Web Worker in Chromium
// (bench/chromium.mjs: the engine's time as the page measures it, the file dropped on the page),
// for the modes the page offers. Medians of `runs` runs, taken in turn.
//
//   node bench/shapes.mjs [--runs N]     prints a Markdown table (bench/run.mjs includes it)
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { shrinkInChromium } from './chromium.mjs';
import { timed } from './timed.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const native = path.join(root, 'build', 'onnx-shrink');
const MODES = { 'int8 (default)': [], 'int8 channel': ['--scheme', 'channel'], palette: ['--mode', 'palette'] };

export function benchModel(dir, family, mb) {
  const file = path.join(dir, `${family}-${mb}.onnx`);
  if (!existsSync(file)) {
    const [script, args] = family === 'matmul' ? ['make_model.py', [String(mb), file]] : ['make_shapes.py', [family, String(mb), file]];
    const p = spawnSync('/usr/bin/python3', [path.join(root, 'bench', script), ...args]);
    if (p.status !== 0) throw new Error(String(p.stderr));
  }
  return file;
}

// `file` removed, and every file's written pages on disk.
function fresh(file) {
  rmSync(file, { force: true });
  spawnSync('sync');
}

const median = (a) => { const b = [...a].sort((x, y) => x - y), h = b.length >> 1; return b.length % 2 ? b[h] : (b[h - 1] + b[h]) / 2; };

export function shapeSpeed({ dir, runs = 3, log = () => {} }) {
  mkdirSync(dir, { recursive: true });
  const models = [
    ['conv stack (3x3, 1x1, depthwise, grouped)', benchModel(dir, 'conv', 150)],
    ['transformer blocks + embedding', benchModel(dir, 'transformer', 150)],
    ['1024x1024 MatMul stack', benchModel(dir, 'matmul', 150)],
    ['PP-OCR det (corpus)', path.join(root, 'tests', 'fixtures', 'ch_PP-OCRv4_det_infer.onnx')],
    ['silero VAD (corpus)', path.join(root, 'tests', 'fixtures', 'silero_vad_v5.onnx')],
  ];
  const result = path.join(dir, 'shape-result.onnx');
  const rows = [];
  for (const [name, file] of models) {
    const bytes = statSync(file).size;
    for (const [mode, flags] of Object.entries(MODES)) {
      log(`${name}, ${mode}`);
      const nativeSeconds = [], wasmSeconds = [];
      for (let i = 0; i < runs; i++) {
        // Each run writes a new file, as a user's first shrink of a model does: the previous run's
        // result is removed and the disk is synced outside the timed run. Otherwise the kernel
        // writes back or truncates the previous 150 MB result during the next run (measured:
        // 0.15-0.17 s against 0.14 s, conv stack, int8 default).
        fresh(result);
        nativeSeconds.push(timed(native, [file, '-o', result, '-q', ...flags]).seconds);
        fresh(result);
        const w = timed(process.execPath, [path.join(root, 'bench', 'wasm_node.mjs'), file, result, ...wasmArgs(flags)]);
        wasmSeconds.push(JSON.parse(w.stdout).ms / 1000);
      }
      rows.push({ name, file, mode, bytes, native: bytes / median(nativeSeconds) / 1e6, wasm: bytes / median(wasmSeconds) / 1e6 });
    }
  }
  return rows;
}

// The page's engine time (its Web Worker, Chromium) for the rows of the modes the page offers
// (int8 default, palette): MB/s into each such row's `page`, the median of `runs`.
const PAGE_MODES = { 'int8 (default)': 'int8', palette: 'palette' };
export async function addPageSpeed(rows, { runs = 3, log = () => {} } = {}) {
  const cases = [];
  for (let i = 0; i < runs; i++) {
    for (const r of rows.filter((x) => PAGE_MODES[x.mode])) cases.push({ row: r, files: [r.file], mode: PAGE_MODES[r.mode] });
  }
  log(`the page's worker in Chromium (${cases.length} runs)`);
  const results = await shrinkInChromium(cases.map(({ files, mode }) => ({ files, mode })));
  const seconds = new Map();
  results.forEach((res, i) => seconds.set(cases[i].row, [...(seconds.get(cases[i].row) ?? []), res.ms / 1000]));
  for (const [row, s] of seconds) row.page = row.bytes / median(s) / 1e6;
  return rows;
}

// wasm_node.mjs takes the mode and, after it, the scheme.
function wasmArgs(flags) {
  const mode = flags[flags.indexOf('--mode') + 1] ?? 'int8';
  const scheme = flags.includes('--scheme') ? flags[flags.indexOf('--scheme') + 1] : 'auto';
  return [flags.includes('--mode') ? mode : 'int8', scheme];
}

export function shapeTable(rows) {
  const lines = ['| weights | MB | mode | native MB/s | wasm in Node MB/s (engine) | wasm / native | page worker in Chromium MB/s (engine) |',
                 '| --- | --- | --- | --- | --- | --- | --- |'];
  for (const r of rows) {
    lines.push(`| ${r.name} | ${(r.bytes / 1e6).toFixed(1)} | ${r.mode} | ${r.native.toFixed(0)} | ${r.wasm.toFixed(0)} | ${(r.wasm / r.native).toFixed(2)} | ` +
               `${r.page === undefined ? '-' : r.page.toFixed(0)} |`);
  }
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--runs');
  const runs = at > 0 ? Number(process.argv[at + 1]) : 3;
  const started = Date.now();
  const log = (m) => console.error(`[${((Date.now() - started) / 1000).toFixed(0)} s] ${m}`);
  const rows = shapeSpeed({ dir: path.join(root, 'bench', 'out', 'models'), runs, log });
  await addPageSpeed(rows, { runs, log });
  console.log(shapeTable(rows));
}
