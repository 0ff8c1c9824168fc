// onnx-shrink at build time, for webpack 5 (and tools whose builds are webpack, such as Next.js):
// shrinks the .onnx assets a compilation emits, such as `new URL('./vad.onnx', import.meta.url)`
// or files copied by copy-webpack-plugin. It needs no import of webpack: the compiler hands over
// its own classes (compiler.webpack), so the plugin works with whichever webpack the project has.
import { createOnnxTransform } from './transform.js';

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
          for (const asset of compilation.getAssets()) {
            if (asset.info.onnxShrunk) continue;
            let shrunk = done.get(asset.source);
            if (!shrunk) {
              const buffer = asset.source.buffer();
              const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
              let out;
              try {
                out = await transform(asset.name, bytes, asset.info.sourceFilename ? [asset.info.sourceFilename] : []);
              } catch (e) {
                // The build goes on and fails at its end with every file's error, as webpack's own do.
                const error = new WebpackError(`${NAME}: ${e.message}`);
                error.file = asset.name;
                compilation.errors.push(error);
                continue;
              }
              if (!out) continue;
              shrunk = new sources.RawSource(Buffer.from(out.buffer, out.byteOffset, out.byteLength));
              done.set(asset.source, shrunk);
            }
            compilation.updateAsset(asset.name, shrunk, { onnxShrunk: true });
          }
        },
      );
    });
  }
}

export { OnnxShrinkPlugin };
