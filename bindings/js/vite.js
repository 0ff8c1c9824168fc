// onnx-shrink at build time: a Vite (and Rollup) plugin that shrinks the .onnx files a build
// emits, and the generic hook it is built on, for other bundlers.
import { existsSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { OnnxShrinkError, shrink } from './index.node.js';

/**
 * The generic hook: returns async (fileName, bytes) => shrunk bytes, or null to leave the file.
 * options.files maps file names (or name endings) to per-file options, or to false to skip;
 * everything else in options applies to every model.
 */
export function createOnnxTransform(options = {}) {
  const { files = {}, include = /\.onnx$/i, log = () => {}, ...defaults } = options;
  return async (fileName, bytes) => {
    if (!include.test(fileName)) return null;
    const key = Object.keys(files).find((k) => fileName === k || fileName.endsWith('/' + k) || path.basename(fileName) === k);
    const perFile = key === undefined ? {} : files[key];
    if (perFile === false) return null;
    let result;
    try {
      result = await shrink(bytes, { ...defaults, ...perFile });
    } catch (e) {
      // A build shrinks many files: say which one failed (the code stays).
      if (e instanceof OnnxShrinkError) throw new OnnxShrinkError(`${fileName}: ${e.message}`, e.code);
      throw e;
    }
    log(`onnx-shrink: ${fileName} ${bytes.byteLength} -> ${result.model.byteLength} bytes`);
    return result.model;
  };
}

/** Vite/Rollup plugin: shrinks emitted .onnx assets and .onnx files copied from publicDir. */
export default function onnxShrink(options = {}) {
  let outDir = null, publicDir = null, logger = null;
  const transform = createOnnxTransform({ ...options, log: (m) => logger?.info(m) });
  return {
    name: 'onnx-shrink',
    apply: 'build',
    enforce: 'post',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
      publicDir = config.publicDir || null;
      logger = config.logger;
    },
    async generateBundle(_, bundle) {
      for (const asset of Object.values(bundle)) {
        if (asset.type !== 'asset') continue;
        const bytes = typeof asset.source === 'string' ? new TextEncoder().encode(asset.source) : asset.source;
        const out = await transform(asset.fileName, bytes);
        if (out) asset.source = out;
      }
    },
    async writeBundle() {
      // Files in publicDir are copied as they are, outside the bundle: shrink them in outDir.
      if (!publicDir || !existsSync(publicDir) || !outDir) return;
      const walk = async (dir) => {
        for (const name of readdirSync(dir)) {
          const p = path.join(dir, name);
          if (statSync(p).isDirectory()) await walk(p);
          else {
            const target = path.join(outDir, path.relative(publicDir, p));
            if (!existsSync(target)) continue;
            const out = await transform(path.relative(publicDir, p).split(path.sep).join('/'), readFileSync(target));
            if (out) {
              writeFileSync(`${target}.partial`, out);  // a build stopped mid-write leaves the copy whole
              renameSync(`${target}.partial`, target);
            }
          }
        }
      };
      await walk(publicDir);
    },
  };
}
