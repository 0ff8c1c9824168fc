// One shrink through the WebAssembly build in Node (the file read in slices, as the CLI does).
// Prints JSON: the engine's time and its peak WebAssembly memory.
//   node bench/wasm_node.mjs IN.onnx OUT.onnx MODE
import { writeFileSync } from 'node:fs';
import { fileSource, shrink, wasmMemory } from '../bindings/js/index.node.js';

const [input, output, mode = 'int8'] = process.argv.slice(2);
const source = fileSource(input);
const started = performance.now();
const { model } = await shrink(source, { mode });
const ms = performance.now() - started;
source.close();
writeFileSync(output, model);
console.log(JSON.stringify({ ms, wasmBytes: await wasmMemory(), outputBytes: model.byteLength }));
