// onnx-shrink at build time, for webpack 5 (and tools whose builds are webpack, such as Next.js):
// shrinks the .onnx assets a compilation emits, such as `new URL('./vad.onnx', import.meta.url)`
// or files copied by copy-webpack-plugin. It needs no import of webpack: the compiler hands over
// its own classes (compiler.webpack), so the plugin works with whichever webpack the project has.
import path from 'node:path';
import { claim, createOnnxTransform } from './transform.js';

const NAME = 'onnx-shrink';

export { createOnnxTransform };

export default class OnnxShrinkPlugin {
  /** options: as for the Vite plugin (shrink options, `files`, `include`). */
  constructor(options = {}) {
    this.options = options;
  }

  apply(compiler) {
    const { Compilation, WebpackError, sources } = compiler.webpack;
    const logger = compiler.getInfrastructureLogger(NAME);
    const transform = createOnnxTransform({ ...this.options, log: (m) => logger.info(m) });
    // In watch mode an unchanged asset keeps its source object: shrink it once, not on every rebuild.
    const done = new WeakMap();
    compiler.hooks.thisCompilation.tap(NAME, (compilation) => {
      compilation.hooks.processAssets.tapPromise(
        // After other plugins' additions and optimizations, where minifiers run.
        { name: NAME, stage: Compilation.PROCESS_ASSETS_STAGE_OPTIMIZE_SIZE },
        async () => {
          const bytesOf = (source) => {
            const buffer = source.buffer();
            return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
          };
          // External data files (copied beside their model) by asset name, as they were before
          // any was rewritten.
          const originals = new Map(), written = new Set();
          const siblings = (modelName, wrote) => ({
            read: (location) => {
              const name = path.posix.join(path.posix.dirname(modelName), location);
              const asset = compilation.getAsset(name);
              if (!originals.has(name) && asset) originals.set(name, bytesOf(asset.source));
              return originals.get(name);
            },
            write: (location, bytes) => {
              const name = path.posix.join(path.posix.dirname(modelName), location);
              claim(written, name);
              const source = new sources.RawSource(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
              if (compilation.getAsset(name)) compilation.updateAsset(name, source, { onnxShrunk: true });
              else compilation.emitAsset(name, source, { onnxShrunk: true });
              wrote.data = true;
            },
          });
          for (const asset of compilation.getAssets()) {
            if (asset.info.onnxShrunk || !transform.accepts(asset.name)) continue;
            let shrunk = done.get(asset.source);
            if (!shrunk) {
              const wrote = { data: false };
              let out;
              try {
                out = await transform(asset.name, bytesOf(asset.source), asset.info.sourceFilename ? [asset.info.sourceFilename] : [],
                                      siblings(asset.name, wrote));
              } catch (e) {
                // The build goes on and fails at its end with every file's error, as webpack's own do.
                const error = new WebpackError(`${NAME}: ${e.message}`);
                error.file = asset.name;
                compilation.errors.push(error);
                continue;
              }
              if (!out) continue;
              shrunk = new sources.RawSource(Buffer.from(out.buffer, out.byteOffset, out.byteLength));
              // A model with a data file is made again on each rebuild: the pair must match.
              if (!wrote.data) done.set(asset.source, shrunk);
            }
            compilation.updateAsset(asset.name, shrunk, { onnxShrunk: true });
          }
        },
      );
    });
  }
}

export { OnnxShrinkPlugin };
