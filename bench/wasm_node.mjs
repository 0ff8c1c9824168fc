// One shrink through the WebAssembly build in Node, the model and its external data files read in
// slices as the CLI does. Prints JSON: the engine's time, its peak WebAssembly memory and the
// output's size. External data in the result (when it would not fit inline) goes to OUT.data.
//   node bench/wasm_node.mjs IN.onnx OUT.onnx MODE [SCHEME]
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { fileSource, shrink, version, wasmMemory } from '../bindings/js/index.node.js';

const [input, output, mode = 'int8', scheme = 'auto'] = process.argv.slice(2);
const source = fileSource(input);
const opened = [];
let dataFd = null, dataBytes = 0;
await version();  // compile and instantiate the module first: not part of the engine's time
const started = performance.now();
const { model } = await shrink(source, {
  mode,
  scheme,
  external: (name) => {
    const file = fileSource(path.join(path.dirname(input), name));
    opened.push(file);
    return file;
  },
  externalLocation: `${path.basename(output)}.data`,
  onExternalData: (chunk) => {
    dataFd ??= openSync(`${output}.data`, 'w');
    writeSync(dataFd, chunk);
    dataBytes += chunk.byteLength;
  },
});
const ms = performance.now() - started;
for (const file of [source, ...opened]) file.close();
if (dataFd !== null) closeSync(dataFd);
writeFileSync(output, model);
console.log(JSON.stringify({ ms, wasmBytes: await wasmMemory(), outputBytes: model.byteLength + dataBytes }));
