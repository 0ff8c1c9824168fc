// onnx-shrink at build time: a Vite (and Rollup) plugin that shrinks the .onnx files a build
// emits. The generic hook it is built on (transform.js) is exported here too, for other bundlers.
import { existsSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { claim, createOnnxTransform } from './transform.js';

export { createOnnxTransform };

/** Vite/Rollup plugin: shrinks emitted .onnx assets and .onnx files copied from publicDir. */
export default function onnxShrink(options = {}) {
  let outDir = null, publicDir = null, logger = null;
  const transform = createOnnxTransform({ ...options, log: (m) => logger?.info(`onnx-shrink: ${m}`) });
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
      const bytesOf = (asset) => (typeof asset.source === 'string' ? new TextEncoder().encode(asset.source) : asset.source);
      // External data files by their name in the bundle, as they were before any was rewritten.
      const originals = new Map(), written = new Set();
      const siblings = (fileName) => ({
        read: (location) => {
          const name = path.posix.join(path.posix.dirname(fileName), location);
          if (!originals.has(name) && bundle[name]?.type === 'asset') originals.set(name, bytesOf(bundle[name]));
          return originals.get(name);
        },
        write: (location, bytes) => {
          const name = path.posix.join(path.posix.dirname(fileName), location);
          claim(written, name);
          if (bundle[name]) bundle[name].source = bytes;
          else this.emitFile({ type: 'asset', fileName: name, source: bytes });
        },
      });
      for (const asset of Object.values(bundle)) {
        if (asset.type !== 'asset' || !transform.accepts(asset.fileName)) continue;
        // The emitted name has a hash in it; per-file options may name the source file.
        const out = await transform(asset.fileName, bytesOf(asset), [...(asset.originalFileNames ?? []), ...(asset.names ?? [])],
                                    siblings(asset.fileName));
        if (out) asset.source = out;
      }
    },
    async writeBundle() {
      // Files in publicDir are copied as they are, outside the bundle: shrink them in outDir.
      if (!publicDir || !existsSync(publicDir) || !outDir) return;
      const written = new Set();
      // A model's external data file: read from publicDir as it was, written to outDir.
      const siblings = (source, target) => ({
        read: (location) => {
          const file = path.join(path.dirname(source), location);
          return existsSync(file) && statSync(file).isFile() ? readFileSync(file) : undefined;
        },
        write: (location, bytes) => {
          const file = path.join(path.dirname(target), location);
          claim(written, file);
          replaceFile(file, bytes);
        },
      });
      const walk = async (dir) => {
        for (const name of readdirSync(dir)) {
          const p = path.join(dir, name);
          if (statSync(p).isDirectory()) await walk(p);
          else {
            const target = path.join(outDir, path.relative(publicDir, p));
            if (!existsSync(target)) continue;
            const out = await transform(path.relative(publicDir, p).split(path.sep).join('/'), readFileSync(target), [], siblings(p, target));
            if (out) replaceFile(target, out);
          }
        }
      };
      await walk(publicDir);
    },
  };
}

// A build stopped mid-write leaves the copy whole.
function replaceFile(file, bytes) {
  writeFileSync(`${file}.partial`, bytes);
  renameSync(`${file}.partial`, file);
}
