import type { OnnxPluginOptions } from './vite.js';

export type { OnnxPluginOptions };
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
 */
export default class OnnxShrinkPlugin {
  constructor(options?: OnnxPluginOptions);
  options: OnnxPluginOptions;
  apply(compiler: Compiler): void;
}
export { OnnxShrinkPlugin };
