// onnx-shrink for browsers, Web Workers and bundlers. The .wasm file is fetched from next to this
// module unless env.wasmPath or env.wasmBinary says otherwise (as onnxruntime-web's env.wasm).
import { createApi, OnnxShrinkError } from './core.js';

const api = createApi(async (wasmPath) => {
  const url = wasmPath ?? new URL('../../dist/onnx-shrink.wasm', import.meta.url);
  const response = await fetch(url);
  if (!response.ok) throw new OnnxShrinkError(`cannot load ${url}: HTTP ${response.status}`, 'IO');
  return new Uint8Array(await response.arrayBuffer());
}, (name) => `to load it from a URL, pass fetch(${name}) instead`);

export const { env, inspect, expand, openForRuntime, version, wasmMemory } = api;
export { OnnxShrinkError };

// What the types declare for every entry but only Node's has: here each says so when called (a
// bundle that imports them still builds).
const TARGET_NODE_ONLY = "target mode runs in Node (it measures with onnxruntime-node: import from 'onnx-shrink' there) " +
  'and on the onnx-shrink page; this browser entry shrinks with the plain options';

export async function shrink(input, options) {
  if (options?.target !== undefined) throw new OnnxShrinkError(TARGET_NODE_ONLY, 'BAD_OPTION');
  return api.shrink(input, options);
}
export async function shrinkToTarget() {
  throw new OnnxShrinkError(TARGET_NODE_ONLY, 'BAD_OPTION');
}
export function fileSource(path) {
  throw new OnnxShrinkError(`fileSource('${path}') reads a file in Node; in a browser pass the bytes, a Blob (a dropped File) or fetch(url)`, 'BAD_OPTION');
}
export function objectiveSize() {
  throw new OnnxShrinkError("objectiveSize() compresses with Node's zlib; in a browser, measure with CompressionStream", 'BAD_OPTION');
}
