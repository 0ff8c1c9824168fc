// onnx-shrink at build time, for webpack 5 (and tools whose builds are webpack, such as Next.js):
// shrinks the .onnx assets a compilation emits, such as `new URL('./vad.onnx', import.meta.url)`
// or files copied by copy-webpack-plugin. It needs no import of webpack: the compiler hands over
// its own classes (compiler.webpack), so the plugin works with whichever webpack the project has.
import path from 'node:path';
import { checkLeftAlone, claim, createOnnxTransform, precompressed } from './transform.js';

const NAME = 'onnx-shrink';

export { createOnnxTransform };

export default class OnnxShrinkPlugin {
  /** options: as for the Vite plugin (shrink options, `files`, `include`, `precompress`). */
  constructor(options = {}) {
    createOnnxTransform(options);  // its options checked here: a typo fails where the plugin is made
    this.options = options;
  }

  apply(compiler) {
    const { Compilation, WebpackError, sources } = compiler.webpack;
    const logger = compiler.getInfrastructureLogger(NAME);
    const transform = createOnnxTransform({ ...this.options, log: (m) => logger.info(m) });
    // In watch mode an unchanged asset keeps its source object: shrink it once, not on every rebuild
    // (and compress it once).
    const done = new WeakMap(), compressed = new WeakMap();
    const bytesOf = (source) => {
      const buffer = source.buffer();
      return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    };
    const rawSource = (bytes) => new sources.RawSource(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    compiler.hooks.thisCompilation.tap(NAME, (compilation) => {
      compilation.hooks.processAssets.tapPromise(
        // After other plugins' additions and optimizations, where minifiers run.
        { name: NAME, stage: Compilation.PROCESS_ASSETS_STAGE_OPTIMIZE_SIZE },
        async () => {
          // External data files (copied beside their model) by asset name, as they were before
          // any was rewritten.
          const originals = new Map(), written = new Set();
          const siblings = (modelName, wrote, precompress) => ({
            read: (location) => {
              const name = path.posix.join(path.posix.dirname(modelName), location);
              const asset = compilation.getAsset(name);
              if (!originals.has(name) && asset) originals.set(name, bytesOf(asset.source));
              return originals.get(name);
            },
            write: (location, bytes) => {
              const name = path.posix.join(path.posix.dirname(modelName), location);
              claim(written, name);
              const source = rawSource(bytes);
              const info = { onnxShrunk: true, onnxPrecompress: precompress };
              if (compilation.getAsset(name)) compilation.updateAsset(name, source, info);
              else compilation.emitAsset(name, source, info);
              wrote.data = true;
            },
          });
          const leftAlone = [];
          for (const asset of compilation.getAssets()) {
            if (asset.info.onnxShrunk || !transform.accepts(asset.name)) continue;
            const sourceNames = asset.info.sourceFilename ? [asset.info.sourceFilename] : [];
            if (transform.leftAlone(asset.name, sourceNames)) leftAlone.push({ name: asset.name, bytes: bytesOf(asset.source) });
            const precompress = transform.precompress(asset.name, sourceNames);
            let shrunk = done.get(asset.source);
            if (!shrunk) {
              const wrote = { data: false };
              let out;
              try {
                out = await transform(asset.name, bytesOf(asset.source), sourceNames, siblings(asset.name, wrote, precompress));
              } catch (e) {
                // The build goes on and fails at its end with every file's error, as webpack's own do.
                const error = new WebpackError(`${NAME}: ${e.message}`);
                error.file = asset.name;
                compilation.errors.push(error);
                continue;
              }
              if (!out) continue;
              shrunk = rawSource(out);
              // A model with a data file is made again on each rebuild: the pair must match.
              if (!wrote.data) done.set(asset.source, shrunk);
            }
            compilation.updateAsset(asset.name, shrunk, { onnxShrunk: true, onnxPrecompress: precompress });
          }
          try {
            checkLeftAlone(leftAlone, written);
          } catch (e) {
            compilation.errors.push(new WebpackError(`${NAME}: ${e.message}`));
          }
          for (const key of transform.unmatched()) {
            compilation.warnings.push(new WebpackError(`${NAME}: files['${key}'] matched no model of this build`));
          }
        },
      );
      // Compressed copies of the shrunk files, once their names are final (webpack puts the new
      // content hash into them in between), where compression-webpack-plugin writes its own.
      compilation.hooks.processAssets.tapPromise(
        { name: NAME, stage: Compilation.PROCESS_ASSETS_STAGE_OPTIMIZE_TRANSFER },
        async () => {
          for (const asset of compilation.getAssets()) {
            const formats = asset.info.onnxPrecompress ?? [];
            if (formats.length === 0) continue;
            let copies = compressed.get(asset.source);
            if (!copies || copies.formats !== formats.join()) {
              copies = { formats: formats.join(), files: await precompressed(formats, '', bytesOf(asset.source)) };
              compressed.set(asset.source, copies);
            }
            for (const copy of copies.files) {
              const name = asset.name + copy.fileName;
              const source = rawSource(copy.bytes);
              if (compilation.getAsset(name)) compilation.updateAsset(name, source, { compressed: true });
              else compilation.emitAsset(name, source, { compressed: true });
            }
          }
        },
      );
    });
  }
}

export { OnnxShrinkPlugin };
