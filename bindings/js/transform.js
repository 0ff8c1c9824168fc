// The build-time hook every bundler plugin of onnx-shrink is built on (Vite/Rollup, webpack):
// given an emitted file's name and bytes, the shrunk bytes, or null to leave the file alone.
import path from 'node:path';
import { OnnxShrinkError, shrink } from './index.node.js';

/**
 * The generic hook: returns async (fileName, bytes, sourceNames) => shrunk bytes, or null to leave
 * the file. options.files maps file names (or name endings) to per-file options, or to false to
 * skip; a key matches the emitted name or one of the source names (bundlers emit `vad-3f2a.onnx`
 * for `src/vad.onnx`). Everything else in options applies to every model.
 */
export function createOnnxTransform(options = {}) {
  const { files = {}, include = /\.onnx$/i, log = () => {}, ...defaults } = options;
  const matches = (name, key) => name === key || name.endsWith('/' + key) || path.posix.basename(name) === key;
  return async (fileName, bytes, sourceNames = []) => {
    if (!include.test(fileName)) return null;
    const names = [fileName, ...sourceNames].map((n) => n.split(path.sep).join('/'));
    const key = Object.keys(files).find((k) => names.some((n) => matches(n, k)));
    const perFile = key === undefined ? {} : files[key];
    if (perFile === false) return null;
    // Messages name the source file too: the emitted name may be a bare hash.
    const label = names.length > 1 && names[1] !== fileName ? `${names[1]} (${fileName})` : fileName;
    let result;
    try {
      result = await shrink(bytes, { ...defaults, ...perFile });
    } catch (e) {
      // A build shrinks many files: say which one failed (the code stays).
      if (e instanceof OnnxShrinkError) throw new OnnxShrinkError(`${label}: ${e.message}`, e.code);
      throw e;
    }
    log(`${label}: ${bytes.byteLength} -> ${result.model.byteLength} bytes`);
    return result.model;
  };
}
