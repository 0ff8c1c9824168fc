// expand() of a model held in memory, through the WebAssembly build in Node. The module is
// compiled first (not timed); the time is expand() alone, from the bytes to the expanded bytes.
// Prints JSON: the time, the output's size and MB/s of output (10^6 bytes a second).
//   node bench/expand_node.mjs IN.onnx [OUT.onnx]
import { readFileSync, writeFileSync } from 'node:fs';
import { expand, version } from '../bindings/js/index.node.js';

const [input, output] = process.argv.slice(2);
const bytes = readFileSync(input);
await version();  // compile and instantiate the module first: not part of expand()'s time
const started = performance.now();
const model = await expand(bytes);
const ms = performance.now() - started;
if (output) writeFileSync(output, model);
console.log(JSON.stringify({ ms, inputBytes: bytes.byteLength, outputBytes: model.byteLength, mbPerSecond: model.byteLength / 1e3 / ms }));
