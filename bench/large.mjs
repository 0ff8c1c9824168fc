// Models of any size: generated fp32 models whose weights live in external data (2.5 GB, past
// the 2 GB protobuf limit, and 4.4 GB, past WebAssembly's 4 GB), shrunk by the native driver, by
// the wasm build in Node and by the page in Chromium. Every result is checked: the three outputs
// must be byte-identical, and the shrunk model must load in onnxruntime-node and agree with the
// original.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { shrinkInChromium } from './chromium.mjs';
import { compare } from './corpus.mjs';
import { timed } from './timed.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const LARGE_MODELS = [
  { name: 'split-2500', mb: 2500, what: '2.5 GB: one file could not hold it' },
  { name: 'huge-4400', mb: 4400, what: '4.4 GB: more than WebAssembly can address' },
];

function model(dir, spec, log) {
  const file = path.join(dir, `${spec.name}.onnx`);
  if (!existsSync(file) || !existsSync(`${file}.data`)) {
    log(`generating ${spec.name} (${spec.mb} MB of external data)`);
    const p = spawnSync('/usr/bin/python3', [path.join(root, 'bench', 'make_model.py'), String(spec.mb), file, '--external', '--sum']);
    if (p.status !== 0) throw new Error(String(p.stderr));
  }
  return file;
}

function sameBytes(a, b) {
  return spawnSync('cmp', ['-s', a, b]).status === 0;
}

// The original and the shrunk model on the same input in onnxruntime-node (which reads the
// original's external data itself), each in a process of its own.
function agreement(original, shrunk, dir) {
  const outputs = [original, shrunk].map((file, i) => {
    const out = path.join(dir, `agreement.${i}.bin`);
    const p = spawnSync(process.execPath, [path.join(root, 'bench', 'infer.mjs'), file, out], { encoding: 'utf8' });
    if (p.status !== 0) throw new Error(`onnxruntime-node could not run ${file}: ${p.stderr.slice(-2000)}`);
    const b = readFileSync(out);
    rmSync(out);
    return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  });
  return compare(outputs[0], outputs[1], 0);
}

export async function largeModels({ dir, native, log }) {
  const rows = [];
  for (const spec of LARGE_MODELS.filter((s) => !process.env.ONLY || s.name === process.env.ONLY)) {
    const file = model(dir, spec, log);
    const bytes = statSync(file).size + statSync(`${file}.data`).size;
    const outs = { native: path.join(dir, `${spec.name}.native.onnx`), node: path.join(dir, `${spec.name}.node.onnx`),
                   chromium: path.join(dir, `${spec.name}.chromium.onnx`) };
    log(`${spec.name}: native driver`);
    timed(native, [file, '-o', outs.native, '-q']);  // warm-up: the files into the page cache, for every tool alike
    const n = timed(native, [file, '-o', outs.native, '-q']);
    const outBytes = statSync(outs.native).size;
    log(`${spec.name}: wasm in Node`);
    const w = timed(process.execPath, [path.join(root, 'bench', 'wasm_node.mjs'), file, outs.node, 'int8']);
    const inside = JSON.parse(w.stdout);
    log(`${spec.name}: the page in Chromium`);
    const [c] = await shrinkInChromium([{ files: [file, `${file}.data`], mode: 'int8', saveTo: outs.chromium }]);
    log(`${spec.name}: checking the results`);
    const identical = sameBytes(outs.native, outs.node) && sameBytes(outs.native, outs.chromium);
    const check = agreement(file, outs.native, dir);
    const largestTensor = 4 * 1024 * 1024;
    rows.push({ name: spec.name, what: spec.what, bytes, outBytes, identical, relL2: check.relL2,
                native: { seconds: n.seconds, rss: n.rss },
                node: { seconds: w.seconds, engineSeconds: inside.ms / 1000, rss: w.rss, wasmBytes: inside.wasmBytes },
                chromium: { engineSeconds: c.ms / 1000, wasmBytes: c.wasmBytes },
                largestTensor });
    for (const f of Object.values(outs)) rmSync(f, { force: true });
  }
  return rows;
}

export function largeModelsSection(rows, MB) {
  const table = (header, body) => [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`,
                                   ...body.map((r) => `| ${r.join(' | ')} |`)].join('\n');
  const lines = ['## Models of any size', '',
    'Generated fp32 models with their weights in an external data file (`bench/make_model.py --external --sum`: ' +
    '1024×1024 MatMul weights, 4 MiB each, their outputs summed), shrunk to 8-bit in one file. The model is read ' +
    'tensor by tensor from its files (a file descriptor in Node, `File.slice` in the page), so WebAssembly memory ' +
    'stays near the largest tensor plus its codes, whatever the model\'s size; Node\'s resident set also holds the ' +
    'result it returns. The native driver maps its input files, and its resident set counts the mapped pages (page ' +
    'cache the kernel can drop at any time). "identical" means the native, Node and Chromium outputs are byte-identical; the rel. L2 ' +
    'error is the shrunk model\'s output against the original\'s in onnxruntime-node.', ''];
  lines.push(table(['model', 'input', 'output', 'tool', 'time', 'MB/s', 'peak RSS', 'wasm memory'],
    rows.flatMap((r) => [
      [`${r.name} (${r.what})`, MB(r.bytes), MB(r.outBytes), 'native driver', `${r.native.seconds.toFixed(1)} s`,
       (r.bytes / r.native.seconds / 1e6).toFixed(0), MB(r.native.rss), '-'],
      ['', '', '', 'wasm in Node', `${r.node.seconds.toFixed(1)} s (engine ${r.node.engineSeconds.toFixed(1)} s)`,
       (r.bytes / r.node.seconds / 1e6).toFixed(0), MB(r.node.rss), MB(r.node.wasmBytes)],
      ['', '', '', 'wasm in Chromium (page worker)', `engine ${r.chromium.engineSeconds.toFixed(1)} s`,
       (r.bytes / r.chromium.engineSeconds / 1e6).toFixed(0), '-', MB(r.chromium.wasmBytes)],
    ])), '');
  lines.push(table(['model', 'outputs identical', 'rel. L2 error vs original (onnxruntime-node)'],
    rows.map((r) => [r.name, r.identical ? 'yes' : '**no**', r.relL2.toFixed(4)])), '');
  return lines;
}
