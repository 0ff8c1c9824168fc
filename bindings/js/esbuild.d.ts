import type { OnnxPluginOptions } from './vite.js';

export type { OnnxPluginOptions };
export { createOnnxTransform } from './vite.js';

/** The part of esbuild's PluginBuild the plugin uses. */
interface PluginBuild {
  initialOptions: { loader?: { [ext: string]: string }; logLevel?: string; absWorkingDir?: string };
  onLoad(options: { filter: RegExp }, callback: (args: { path: string }) => unknown): void;
}

/**
 * An esbuild plugin that shrinks the .onnx files a bundle imports, with the loader the build sets
 * for their extension (`file` when it sets none). Failures are build errors naming the file.
 */
export default function onnxShrink(options?: OnnxPluginOptions): {
  name: string;
  setup(build: PluginBuild): void;
};
