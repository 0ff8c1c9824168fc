// onnx-shrink for browsers, Web Workers and bundlers. The .wasm file is fetched from next to this
// module unless env.wasmPath or env.wasmBinary says otherwise (as onnxruntime-web's env.wasm).
import { createApi, OnnxShrinkError } from './core.js';

const api = createApi(async (wasmPath) => {
  const url = wasmPath ?? new URL('../../dist/onnx-shrink.wasm', import.meta.url);
  const response = await fetch(url);
  if (!response.ok) throw new OnnxShrinkError(`cannot load ${url}: HTTP ${response.status}`, 'IO');
  return new Uint8Array(await response.arrayBuffer());
}, (name) => `to load it from a URL, pass fetch(${name}) instead`);

export const { env, shrink, inspect, expand, openForRuntime, version, wasmMemory } = api;
export { OnnxShrinkError };
