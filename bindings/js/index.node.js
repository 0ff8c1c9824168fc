// onnx-shrink for Node: the .wasm file is read from next to this module (or env.wasmPath /
// env.wasmBinary), and fileSource() reads a model or external data file in slices, so that files
// larger than memory (or than WebAssembly's 4 GB) can be shrunk.
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createApi, OnnxShrinkError } from './core.js';

const api = createApi(
  async (wasmPath) => readFileSync(wasmPath ?? fileURLToPath(new URL('../../dist/onnx-shrink.wasm', import.meta.url))),
  // shrink('model.onnx') reads no file: the path goes to fileSource().
  (name) => `to read a file, pass fileSource(${name}) instead (import { fileSource } from 'onnx-shrink')`);

export const { env, shrink, inspect, expand, version, wasmMemory } = api;
export { OnnxShrinkError };

/**
 * A file as a synchronous reader { size, read(offset, length), close() }: pass it to shrink()
 * instead of the file's bytes, or as external data.
 */
export function fileSource(path) {
  const fd = openSync(path, 'r');
  const size = fstatSync(fd).size;
  return {
    size,
    read(offset, length) {
      const buffer = Buffer.allocUnsafe(length);
      this.readInto(offset, buffer);
      return buffer;
    },
    readInto(offset, target) {
      let done = 0;
      while (done < target.byteLength) {
        const n = readSync(fd, target, done, target.byteLength - done, offset + done);
        if (n <= 0) throw new OnnxShrinkError(`'${path}' ended at ${offset + done} of ${size} bytes`, 'IO');
        done += n;
      }
    },
    close() {
      closeSync(fd);
    },
  };
}
