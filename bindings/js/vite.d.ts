import type { ShrinkOptions } from './index.js';

export interface OnnxPluginOptions extends ShrinkOptions {
  /**
   * Per-file options by file name (or name ending, such as `models/vad.onnx`), matched against the
   * emitted name and the source file's; false leaves the file alone.
   */
  files?: Record<string, ShrinkOptions | false>;
  /** Which emitted files are models (default /\.onnx$/i). */
  include?: RegExp;
}

/** The files beside a model, for one whose weights are in an external data file. */
export interface Siblings {
  read(location: string): Uint8Array | undefined;
  write(location: string, bytes: Uint8Array): void;
}

/**
 * The generic hook: (fileName, bytes, sourceNames, siblings) => shrunk bytes, or null to leave the
 * file as it is. sourceNames are other names of the file (its source's) for matching `files`;
 * siblings give a model with an external data file that file, and take back its shrunk one.
 */
export declare function createOnnxTransform(
  options?: OnnxPluginOptions & { log?: (message: string) => void },
): ((fileName: string, bytes: Uint8Array, sourceNames?: readonly string[], siblings?: Siblings | null) => Promise<Uint8Array | null>) & {
  /** Whether a file name is one the hook shrinks (options.include), to ask before taking its bytes. */
  accepts(fileName: string): boolean;
};

/** A Vite (and Rollup) plugin that shrinks the .onnx files a build emits. */
export default function onnxShrink(options?: OnnxPluginOptions): {
  name: string;
  apply: 'build';
  enforce: 'post';
  [hook: string]: unknown;
};
