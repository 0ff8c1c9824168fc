import type { OnnxFileOptions, OnnxPluginOptions, Precompress } from './vite.js';

export type { OnnxFileOptions, OnnxPluginOptions, Precompress };
export { createOnnxTransform } from './vite.js';

/** The part of esbuild's PluginBuild the plugin uses. */
interface PluginBuild {
  initialOptions: { loader?: { [ext: string]: string }; logLevel?: string; absWorkingDir?: string; metafile?: boolean };
  onLoad(options: { filter: RegExp }, callback: (args: { path: string }) => unknown): void;
  onEnd(callback: (result: { errors: unknown[]; metafile?: object; outputFiles?: object[] }) => unknown): void;
}

/**
 * An esbuild plugin that shrinks the .onnx files a bundle imports, with the loader the build sets
 * for their extension (`file` when it sets none). Failures are build errors naming the file.
 * With `precompress`, the compressed copies (`NAME.br`, `NAME.gz`) of the models esbuild emits as
 * files (`file`, `copy` loaders; not inlined ones) are written beside them when the build ends, or
 * added to `outputFiles` with `write: false`; the plugin turns on `metafile`, where esbuild says
 * which output is which model.
 */
export default function onnxShrink(options?: OnnxPluginOptions): {
  name: string;
  setup(build: PluginBuild): void;
};
