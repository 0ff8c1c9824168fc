// expand() of a model held in memory, through the WebAssembly build in Node. The module is
// compiled first (not timed); the time is expand() alone, from the bytes to the expanded bytes.
// Prints JSON: the time, the output's size and MB/s of output (10^6 bytes a second). With
// --stream the output comes in chunks to `onModelData` (written to OUT.onnx if given), instead
// of as one new array; with --views too, the chunks are views of the engine's memory
// (`chunks: 'view'`), as the CLI's --expand takes them.
//   node bench/expand_node.mjs IN.onnx [OUT.onnx] [--stream [--views]]
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { expand, version } from '../bindings/js/index.node.js';

const stream = process.argv.includes('--stream');
const views = stream && process.argv.includes('--views');
const [input, output] = process.argv.slice(2).filter((a) => a !== '--stream' && a !== '--views');
const bytes = readFileSync(input);
await version();  // compile and instantiate the module first: not part of expand()'s time
const fd = stream && output ? openSync(output, 'w') : null;
let outputBytes = 0;
const started = performance.now();
const onModelData = (chunk) => {
  outputBytes += chunk.byteLength;
  if (fd !== null) writeSync(fd, chunk);
};
const model = await expand(bytes, stream ? { onModelData, chunks: views ? 'view' : 'copy' } : {});
const ms = performance.now() - started;
if (fd !== null) closeSync(fd);
if (!stream) {
  outputBytes = model.byteLength;
  if (output) writeFileSync(output, model);
}
console.log(JSON.stringify({ ms, stream, views, inputBytes: bytes.byteLength, outputBytes, mbPerSecond: outputBytes / 1e3 / ms }));
