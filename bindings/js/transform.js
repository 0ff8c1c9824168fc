// The build-time hook every bundler plugin of onnx-shrink is built on (Vite/Rollup, webpack,
// esbuild): given an emitted file's name and bytes, the shrunk bytes, or null to leave the file.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { sizeChange } from './cli_sizes.js';
import { normaliseOptions } from './core.js';
import { OnnxShrinkError, shrink } from './index.node.js';
import { OPTIONS } from './options.js';

// A file's shrink options: the plugin's, then its own. Another mode's options that it inherits
// from the plugin's are left out (a palette plugin's levels do not reach a file made int8).
function mergedOptions(defaults, own) {
  const merged = { ...defaults, ...own };
  const mode = merged.mode ?? 'int8';
  for (const o of OPTIONS) if (o.mode && o.mode !== mode && !(o.key in own)) delete merged[o.key];
  return merged;
}

const brotli = promisify(zlib.brotliCompress), gzip = promisify(zlib.gzip);

/**
 * The `precompress` words: each a compressed copy of a shrunk model (and of its external data
 * file) written beside it, NAME + suffix, for hosts that serve it with `Content-Encoding` instead
 * of compressing it themselves (many do not compress `application/octet-stream`).
 */
export const PRECOMPRESS = {
  // Brotli's highest quality, with its largest standard window (what every browser decodes).
  br: {
    suffix: '.br',
    compress: (bytes) => brotli(bytes, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
        [zlib.constants.BROTLI_PARAM_LGWIN]: zlib.constants.BROTLI_MAX_WINDOW_BITS,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
      },
    }),
  },
  gzip: { suffix: '.gz', compress: (bytes) => gzip(bytes, { level: zlib.constants.Z_BEST_COMPRESSION }) },
};

// `precompress` as given (undefined: none), checked: a list of PRECOMPRESS's words.
function checkPrecompress(value, where) {
  if (value === undefined) return;
  const words = Object.keys(PRECOMPRESS);
  if (!Array.isArray(value) || value.some((w) => !words.includes(w))) {
    throw new OnnxShrinkError(`${where}precompress should be a list of ${words.map((w) => `'${w}'`).join(' and ')}, ` +
                              `not ${JSON.stringify(value)}`, 'BAD_OPTION');
  }
}

// Compressed copies already made, by the bytes they were made of (in watch mode a model shrunk
// before comes back as the same array) and the format.
const copiesMade = new WeakMap();

/** The compressed copies of a file: [{ fileName: fileName + suffix, bytes }], one per word. */
export async function precompressed(formats, fileName, bytes) {
  if (!copiesMade.has(bytes)) copiesMade.set(bytes, new Map());
  const made = copiesMade.get(bytes);
  return Promise.all([...new Set(formats)].map(async (format) => {
    if (!made.has(format)) {
      made.set(format, PRECOMPRESS[format].compress(bytes).then((out) => new Uint8Array(out.buffer, out.byteOffset, out.byteLength)));
    }
    return { fileName: fileName + PRECOMPRESS[format].suffix, bytes: await made.get(format) };
  }));
}

/**
 * The generic hook: returns async (fileName, bytes, sourceNames, siblings) => shrunk bytes, or null
 * to leave the file. options.files maps file names (or name endings) to per-file options, or to
 * false to skip; a key matches the emitted name or one of the source names (bundlers emit
 * `vad-3f2a.onnx` for `src/vad.onnx`). Everything else in options applies to every model.
 *
 * siblings, when the bundler can give them, are the files beside the model, for a model whose
 * weights are in an external data file: `{ read(location) => bytes | undefined, write(location,
 * bytes) }`. The result keeps that layout (the model and its data file, under the same names,
 * both shrunk), since the page that loads it names the data file to onnxruntime-web.
 *
 * options.precompress (also per file) is not the hook's to do: it says which compressed copies the
 * plugin writes beside the shrunk files (`hook.precompress(fileName, sourceNames)`; `precompressed`).
 */
export function createOnnxTransform(options = {}) {
  const { files = {}, include = /\.onnx$/i, log = () => {}, precompress = [], ...defaults } = options;
  if (!(include instanceof RegExp)) throw new OnnxShrinkError(`include should be a RegExp (e.g. /\\.onnx$/), not ${JSON.stringify(include)}`, 'BAD_OPTION');
  checkPrecompress(precompress, '');
  checkShrinkOptions(defaults, '');
  for (const [key, perFile] of Object.entries(files)) {
    if (perFile === false) continue;
    checkPrecompress(perFile?.precompress, `files['${key}'].`);
    const { precompress: _, ...own } = perFile ?? {};
    checkShrinkOptions(mergedOptions(defaults, own), `files['${key}']: `);
  }
  const matched = new Set();  // the `files` keys some model matched (the others are said at the end)
  // Watch mode rebuilds give the same models again: each is shrunk once per content and options
  // (not a model with a data file, whose pair is written anew).
  const made = new Map();
  const matches = (name, key) => name === key || name.endsWith('/' + key) || path.posix.basename(name) === key;
  // A file's options (shrink options and precompress), or false to leave it alone.
  const optionsFor = (fileName, sourceNames) => {
    if (!include.test(fileName)) return false;
    const names = [fileName, ...sourceNames].map((n) => n.split(path.sep).join('/'));
    const key = Object.keys(files).find((k) => names.some((n) => matches(n, k)));
    if (key !== undefined) matched.add(key);
    const perFile = key === undefined ? {} : files[key];
    if (perFile === false) return false;
    return { names, precompress, ...mergedOptions(defaults, perFile) };
  };
  const transform = async (fileName, bytes, sourceNames = [], siblings = null) => {
    const found = optionsFor(fileName, sourceNames);
    if (!found) return null;
    const { names, ...shrinkOptions } = found;
    delete shrinkOptions.precompress;  // the plugin's, not shrink()'s
    // Messages name the source file too: the emitted name may be a bare hash. The log names the
    // source alone: webpack's realContentHash renames the file after this.
    const label = names.length > 1 && names[1] !== fileName ? `${names[1]} (${fileName})` : fileName;
    const logLabel = names.length > 1 ? names[1] : fileName;
    const key = `${createHash('sha256').update(bytes).digest('hex')} ${JSON.stringify(shrinkOptions)}`;
    if (made.has(key)) return made.get(key);
    let result;
    try {
      result = await shrinkKeepingLayout(bytes, shrinkOptions, siblings);
    } catch (e) {
      // A build shrinks many files: say which one failed (the code stays).
      if (e instanceof OnnxShrinkError) throw new OnnxShrinkError(`${label}: ${e.message}`, e.code);
      throw e;
    }
    const data = result.data ? ` + ${result.data.before} -> ${result.data.after} in ${result.data.location}` : '';
    // Palette keeps the raw size: its gain is in the compressed copies a host serves.
    const change = sizeChange(bytes.byteLength, result.model.byteLength) + (shrinkOptions.mode === 'palette' ? ', smaller by gzip and brotli' : '');
    log(`${logLabel}: ${bytes.byteLength} -> ${result.model.byteLength} bytes${result.data ? '' : ` (${change})`}${data}`);
    if (!result.data) made.set(key, result.model);
    return result.model;
  };
  // Whether a file is a model to shrink, asked before its bytes are taken (a bundle's JS, CSS and
  // images need not be copied out to be turned down).
  transform.accepts = (fileName) => include.test(fileName);
  // The `precompress` words for a model the hook shrinks (and for its external data file): none
  // unless the options ask for them.
  transform.precompress = (fileName, sourceNames = []) => optionsFor(fileName, sourceNames).precompress ?? [];
  // Whether any file may get compressed copies (a bundler may need to be told to keep track of them).
  transform.precompresses = precompress.length > 0 || Object.values(files).some((f) => f && f.precompress?.length > 0);
  // Whether `files` says to leave this model alone (false).
  transform.leftAlone = (fileName, sourceNames = []) => include.test(fileName) && !optionsFor(fileName, sourceNames);
  // The `files` keys no model of the build matched so far (a misspelt name shrinks the model it meant).
  transform.unmatched = () => Object.keys(files).filter((k) => !matched.has(k));
  return transform;
}

// The writer's own options: the plugin writes the files, so they are not the user's to give.
const PLUGIN_WRITES = ['onModelData', 'onExternalData', 'chunks', 'onReport', 'onProgress', 'signal', 'external', 'target'];

// Shrink options as shrink() will check them, checked when the plugin is made: a typo is one
// error before the build, not one per model (or none when no model matches).
function checkShrinkOptions(options, where) {
  const taken = PLUGIN_WRITES.filter((k) => options[k] !== undefined);
  if (taken.length) {
    throw new OnnxShrinkError(`${where}${taken.join(', ')}: not a build plugin's option (the plugin reads and writes the files itself)`, 'BAD_OPTION');
  }
  try {
    normaliseOptions(options);
  } catch (e) {
    throw new OnnxShrinkError(`${where}${e.message}`, e.code);
  }
}

// Models left alone (files: false) whose weights are in a data file the build rewrote for another
// model would load the wrong weights: refused, naming both. `models`: [{ name, bytes }]; `written`:
// the data files rewritten (their model's bytes name them, as external data locations).
export function checkLeftAlone(models, written) {
  for (const { name, bytes } of models) {
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const shared = [...written].find((file) => text.includes(path.basename(file)));
    if (shared) {
      throw new OnnxShrinkError(`${name} is left alone (files: false), but its weights are in '${path.basename(shared)}', which this build ` +
                                'rewrote for another model: shrink models that share a data file with the CLI, or give each its own', 'UNSUPPORTED');
    }
  }
}

// Shrinks a model whose weights may be in one external data file among `siblings`. The engine
// asks for each data file it needs; a model that had one gets it back under the same name (the
// engine would otherwise put small results inline), unless the options say where data goes.
async function shrinkKeepingLayout(bytes, options, siblings) {
  const used = new Map();
  const external = (location) => {
    if (!siblings || path.isAbsolute(location) || location.split(/[\\/]/).includes('..')) return undefined;
    const data = siblings.read(location);
    if (!data) return undefined;
    used.set(location, data.byteLength);
    // A reader, so the engine copies in one tensor at a time however large the file.
    return { size: data.byteLength, read: (offset, length) => data.subarray(offset, offset + length) };
  };
  let result;
  try {
    result = await shrink(bytes, { ...options, external });
  } catch (e) {
    if (e.code === 'EXTERNAL_DATA_MISSING' && !siblings) {
      throw new OnnxShrinkError(`${e.message}. This bundler's plugin shrinks self-contained models: shrink this one with the CLI, ` +
                                'or leave it alone with files: { NAME: false }', e.code);
    }
    throw e;
  }
  let location = options.externalLocation;
  if (used.size > 0 && options.externalData === undefined) {
    if (used.size > 1) {
      throw new OnnxShrinkError(`its weights are in ${used.size} data files (${[...used.keys()].join(', ')}); a build keeps ` +
                                'one beside each model: shrink it with the CLI, or leave it alone with files: { NAME: false }', 'UNSUPPORTED');
    }
    [location] = used.keys();
    result = await shrink(bytes, { ...options, external, externalData: 'external', externalLocation: location });
  }
  if (!result.externalData && !used.has(location)) return { model: result.model };
  if (!siblings) {
    throw new OnnxShrinkError("its result has an external data file, which this bundler's plugin cannot add: shrink it with the CLI", 'UNSUPPORTED');
  }
  const data = result.externalData ?? new Uint8Array(0);
  siblings.write(location, data);
  return { model: result.model, data: { location, before: used.get(location) ?? 0, after: data.byteLength } };
}

// Marks an external data file as rewritten by this build; a second model that keeps its weights
// in the same file would overwrite the first one's, so it is refused.
export function claim(written, name) {
  if (written.has(name)) {
    throw new OnnxShrinkError(`'${name}' holds the weights of another model of this build too: shrink models that share a data ` +
                              'file with the CLI, or give each model its own', 'UNSUPPORTED');
  }
  written.add(name);
}
