import type { ShrinkOptions } from './index.js';

/** A compressed copy of a file: `br` (brotli), `gzip`. */
export type Precompress = 'br' | 'gzip';

/** The options of shrink() that a plugin sets itself (it reads and writes the files): refused. */
export type PluginWrites = 'onModelData' | 'onExternalData' | 'chunks' | 'onReport' | 'onProgress' | 'signal' | 'external';

/** Options of one model: how it is shrunk, and which compressed copies of it are written. */
export interface OnnxFileOptions extends Omit<ShrinkOptions, PluginWrites> {
  /**
   * Compressed copies to write beside each shrunk model, and beside its external data file if it
   * has one: `NAME.br` (brotli at its highest quality, 11, and largest standard window) for `br`,
   * `NAME.gz` (gzip level 9) for `gzip`. Default none.
   *
   * The compressed sizes onnx-shrink reports count on the host compressing `.onnx` files, and many
   * hosts do not compress what they serve as `application/octet-stream`. A server or CDN that
   * serves precompressed files (nginx `brotli_static`/`gzip_static`, Caddy `precompressed`,
   * Express `express-static-gzip`, ...) sends `NAME.br` with `Content-Encoding: br` to a browser
   * that accepts it, at no compression cost per request; the browser gets back the model's bytes.
   * Palette models gain the most (several-fold). A build step is where the slow, best compression
   * belongs: it runs once per build, and once per changed model in watch mode.
   */
  precompress?: readonly Precompress[];
}

export interface OnnxPluginOptions extends OnnxFileOptions {
  /**
   * Per-file options by file name (or name ending, such as `models/vad.onnx`), matched against the
   * emitted name and the source file's; false leaves the file alone.
   */
  files?: Record<string, OnnxFileOptions | false>;
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
  /**
   * The compressed copies (options.precompress, or the file's own) a plugin writes of a file the
   * hook shrinks and of its external data file; none for a file it leaves alone.
   */
  precompress(fileName: string, sourceNames?: readonly string[]): Precompress[];
  /** Whether any file may get compressed copies. */
  precompresses: boolean;
};

/**
 * A Vite (and Rollup) plugin that shrinks the .onnx files a build emits. A model a module refers
 * to (`new URL('./m.onnx', import.meta.url)`, `import url from './m.onnx?url'`) is shrunk before
 * Vite names it, so that the hash in its name (and in the names of the chunks that refer to it)
 * follows the shrunk bytes: a change of options or of onnx-shrink gives a new name, and hosts
 * that cache hashed names for good serve the new file. Models only HTML or CSS refer to are
 * shrunk after, under the name of the original (with a warning); files from `publicDir` keep
 * their names.
 */
export default function onnxShrink(options?: OnnxPluginOptions): {
  name: string;
  apply: 'build';
  enforce: 'post';
  [hook: string]: unknown;
};
