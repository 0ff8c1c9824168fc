// onnx-shrink at build time, for esbuild: shrinks the .onnx files a bundle imports
// (`import url from './vad.onnx'`) as esbuild loads them, so what it emits (`file`, `copy`) or
// inlines (`binary`, `dataurl`) is the shrunk model, and a content hash in the name is the shrunk
// bytes'. The loader stays the one the build sets for the extension (`file` when it sets none).
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { createOnnxTransform } from './transform.js';

export { createOnnxTransform };

export default function onnxShrink(options = {}) {
  const { include = /\.onnx$/i, ...rest } = options;
  return {
    name: 'onnx-shrink',
    setup(build) {
      // Said at esbuild's own 'info' level and above (its CLI's default; its JS API's is 'warning').
      const verbose = ['info', 'debug', 'verbose'].includes(build.initialOptions.logLevel);
      const log = verbose ? (m) => console.error(`onnx-shrink: ${m}`) : () => {};
      const transform = createOnnxTransform({ ...rest, include, log });
      const loaders = build.initialOptions.loader ?? {};
      // esbuild loads every file again on each rebuild (watch, serve): shrink a file once per version.
      const done = new Map();
      build.onLoad({ filter: include }, async (args) => {
        const name = path.relative(build.initialOptions.absWorkingDir ?? process.cwd(), args.path);
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
        done.set(args.path, { version, contents });
        return { contents, loader };
      });
    },
  };
}
