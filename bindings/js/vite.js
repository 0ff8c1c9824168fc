// onnx-shrink at build time: a Vite (and Rollup) plugin that shrinks the .onnx files a build
// emits. The generic hook it is built on (transform.js) is exported here too, for other bundlers.
import { existsSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createOnnxTransform } from './transform.js';

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
      for (const asset of Object.values(bundle)) {
        if (asset.type !== 'asset') continue;
        const bytes = typeof asset.source === 'string' ? new TextEncoder().encode(asset.source) : asset.source;
        // The emitted name has a hash in it; per-file options may name the source file.
        const out = await transform(asset.fileName, bytes, [...(asset.originalFileNames ?? []), ...(asset.names ?? [])]);
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
