// onnx-shrink at build time, for esbuild: shrinks the .onnx files a bundle imports
// (`import url from './vad.onnx'`) as esbuild loads them, so what it emits (`file`, `copy`) or
// inlines (`binary`, `dataurl`) is the shrunk model, and a content hash in the name is the shrunk
// bytes'. The loader stays the one the build sets for the extension (`file` when it sets none).
// With `precompress`, compressed copies of the emitted models are written beside them when the
// build ends (the build's metafile says where esbuild put them: the plugin turns it on).
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createOnnxTransform, precompressed } from './transform.js';

export { createOnnxTransform };

export default function onnxShrink(options = {}) {
  const { include = /\.onnx$/i, ...rest } = options;
  createOnnxTransform({ ...rest, include });  // its options checked here: a typo fails where the plugin is made
  return {
    name: 'onnx-shrink',
    setup(build) {
      // Said at esbuild's own 'info' level and above (its CLI's default; its JS API's is 'warning').
      const verbose = ['info', 'debug', 'verbose'].includes(build.initialOptions.logLevel);
      const log = verbose ? (m) => console.error(`onnx-shrink: ${m}`) : () => {};
      const transform = createOnnxTransform({ ...rest, include, log });
      const loaders = build.initialOptions.loader ?? {};
      const workingDir = build.initialOptions.absWorkingDir ?? process.cwd();
      // esbuild loads every file again on each rebuild (watch, serve): shrink a file once per version
      // (and compress it once).
      const done = new Map();
      let copiesWritten = new Set();  // the compressed copies the last build wrote
      if (transform.precompresses) build.initialOptions.metafile = true;
      build.onLoad({ filter: include }, async (args) => {
        const name = path.relative(workingDir, args.path);
        const loader = loaders[path.extname(args.path)] ?? 'file';
        const { mtimeMs, size } = await stat(args.path);
        const version = `${mtimeMs}:${size}`;
        const cached = done.get(args.path);
        if (cached?.version === version) return { contents: cached.contents, loader };
        const bytes = await readFile(args.path);
        let out;
        try {
          out = await transform(name, bytes);
        } catch (e) {
          return { errors: [{ text: e.message, detail: e }] };
        }
        const contents = out ?? bytes;
        // Compressed copies of a file esbuild emits as it is, not of a bundle it is inlined into.
        const emitted = out && (loader === 'file' || loader === 'copy');
        done.set(args.path, { version, contents, precompress: emitted ? transform.precompress(name) : [], copies: null });
        return { contents, loader };
      });
      build.onEnd(async (result) => {
        // A `files` key no model of the build matched: most likely a misspelt name.
        // (In the result, and printed: esbuild has logged its own by now.)
        for (const key of transform.unmatched()) {
          const text = `onnx-shrink: files['${key}'] matched no model of this build`;
          result.warnings.push({ text });
          if (!['error', 'silent'].includes(build.initialOptions.logLevel)) console.error(`warning: ${text}`);
        }
        if (!transform.precompresses || result.errors.length > 0 || !result.metafile) return;
        // The emitted files whose one input is a model shrunk above (`file`, `copy`; an inlined
        // one is in the bundle's code).
        const models = new Map([...done].map(([file, entry]) => [path.relative(workingDir, file).split(path.sep).join('/'), entry]));
        const wrote = new Set();
        for (const [output, { inputs }] of Object.entries(result.metafile.outputs)) {
          const sources = Object.keys(inputs);
          const entry = sources.length === 1 ? models.get(sources[0]) : undefined;
          if (!entry || entry.precompress.length === 0) continue;
          entry.copies ??= await precompressed(entry.precompress, '', entry.contents);
          const target = path.resolve(workingDir, output);
          for (const copy of entry.copies) {
            if (result.outputFiles) {
              result.outputFiles.push({ path: target + copy.fileName, contents: copy.bytes, hash: '',
                                        get text() { return new TextDecoder().decode(this.contents); } });
            } else {
              await writeFile(`${target}${copy.fileName}.partial`, copy.bytes);
              await rename(`${target}${copy.fileName}.partial`, target + copy.fileName);
              wrote.add(target + copy.fileName);
            }
          }
        }
        // In watch mode a changed model gets a new name: the copies of its old one go with it.
        for (const file of copiesWritten) if (!wrote.has(file)) await rm(file, { force: true });
        copiesWritten = wrote;
      });
    },
  };
}
