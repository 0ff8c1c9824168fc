import type { OnnxFileOptions, OnnxPluginOptions, Precompress } from './vite.js';

export type { OnnxFileOptions, OnnxPluginOptions, Precompress };
export { createOnnxTransform } from './vite.js';

/** The part of webpack's Compiler the plugin uses (webpack 5; Rspack too). */
interface Compiler {
  webpack: object;
  hooks: object;
  getInfrastructureLogger(name: string): object;
}

/**
 * A webpack 5 plugin that shrinks the .onnx assets a compilation emits (`new URL('./m.onnx',
 * import.meta.url)`, asset modules, copied files). Failures become compilation errors naming the file.
 * With `precompress`, the compressed copies (`NAME.br`, `NAME.gz`) are assets too, added with the
 * final names (after webpack has put the shrunk bytes' content hash in), with `info.compressed`,
 * at the stage where compression-webpack-plugin adds its own.
 */
export default class OnnxShrinkPlugin {
  constructor(options?: OnnxPluginOptions);
  options: OnnxPluginOptions;
  apply(compiler: Compiler): void;
}
export { OnnxShrinkPlugin };
