// One session in a new Node process, as a program that loads its model once at start-up sees it:
// onnxruntime's own set-up, and for `expand`, the engine's compile and a first expand() call (while
// V8 is still compiling the optimized code of its hot functions), are in the time. Used by
// bench/session.mjs (--first).
//   node bench/session_first.mjs MODEL.onnx create|expand [--threads N]   prints JSON { seconds }
// (--threads: onnxruntime's intra-op threads, 1 unless given; 0 is onnxruntime's default, one a core.)
import { readFileSync } from 'node:fs';
import ort from 'onnxruntime-node';
import { expand } from '../bindings/js/index.node.js';
import { option } from './args.mjs';

const [file, way] = process.argv.slice(2);
const threads = Number(option('--threads', 1));
if (!file || !['create', 'expand'].includes(way)) throw new Error('usage: node bench/session_first.mjs MODEL.onnx create|expand');
const bytes = readFileSync(file);
const started = performance.now();
const plain = way === 'expand' ? await expand(bytes) : bytes;
const session = await ort.InferenceSession.create(plain, threads ? { intraOpNumThreads: threads, interOpNumThreads: 1 } : {});
const seconds = (performance.now() - started) / 1000;
await session.release();
console.log(JSON.stringify({ seconds }));
