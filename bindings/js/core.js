// The JS API around the WebAssembly engine, shared by the browser and the Node entry points. They
// differ only in how they find the .wasm file (fetch or fs).
import createOnnxShrink from '../../dist/onnx-shrink.mjs';
import { DEFAULTS, OPTION, words } from './options.js';
import { makeOpenForRuntime } from './runtime.js';

/** An error from onnx-shrink; `code` says what kind ("NOT_ONNX", "TRUNCATED", ...). */
export class OnnxShrinkError extends Error {
  constructor(message, code) {
    super(message);
    this.name = 'OnnxShrinkError';
    this.code = code;
  }
}

const CALLBACKS = ['onProgress', 'onExternalData', 'onModelData', 'onReport'];
// What onModelData and onExternalData receive: arrays of their own (copy), or views of the
// engine's memory, valid until the callback returns (view): no copy and no fresh memory for each
// chunk, 21-30 % of a first streamed expand() of the 151.5 MB conv stack in two runs
// (BENCHMARKS.md, "Chunks as views").
const CHUNKS = ['copy', 'view'];

function badOption(message) {
  return new OnnxShrinkError(message, 'BAD_OPTION');
}

// 'a', 'b' or 'c'
// 'a, b or c', of the items as they are or quoted.
const orList = (items) => items.map(String).join(', ').replace(/, ([^,]*)$/, ' or $1');
const quoted = (items) => orList(items.map((w) => `'${w}'`));

// The options expand() takes (and openForRuntime(), with its own two): the shrink options would
// change nothing there, so they are refused rather than ignored.
export const EXPAND_OPTIONS = ['external', 'onProgress', 'signal', 'onReport', 'onModelData', 'chunks'];

// Refuses an option `what` (e.g. 'expand()') does not take, naming those it does.
export function onlyOptions(options, allowed, what) {
  if (options == null || typeof options !== 'object' || Array.isArray(options)) return;
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined || allowed.includes(key)) continue;
    const known = Object.hasOwn(OPTION, key) || CALLBACKS.includes(key) || EXPAND_OPTIONS.includes(key);
    throw badOption(known ? `${what} does not take option '${key}'; it takes ${quoted(allowed)}` : `unknown option '${key}': ${what} takes ${quoted(allowed)}`);
  }
}

// Options as the engine takes them (see options.js); unknown names, wrong types and words an
// option does not take are errors, not ignored. The engine checks ranges and combinations.
export function normaliseOptions(options = {}) {
  options ??= {};
  if (typeof options !== 'object' || Array.isArray(options)) throw badOption(`the options should be an object, not ${typeof options}`);
  const out = { ...DEFAULTS };
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    if (CALLBACKS.includes(key)) {
      if (typeof value !== 'function') throw badOption(`option '${key}' should be a function, not ${typeof value}`);
      continue;
    }
    if (key === 'chunks') {
      if (!CHUNKS.includes(value)) throw badOption(`chunks must be ${quoted(CHUNKS)}, not ${JSON.stringify(value)}`);
      continue;
    }
    if (key === 'signal') {
      if (typeof value !== 'object' || !('aborted' in value)) throw badOption("option 'signal' should be an AbortSignal");
      continue;
    }
    if (key === 'external') {
      if (typeof value !== 'object' && typeof value !== 'function') {
        throw badOption("option 'external' should map file names to data, or be a function (name) => data");
      }
      continue;
    }
    const option = Object.hasOwn(OPTION, key) ? OPTION[key] : null;
    if (!option) throw badOption(`unknown option '${key}'`);
    if (option.numbers) {  // bits: a word or one of its numbers
      if (!option.words.includes(value) && !Number.isInteger(value)) {
        throw badOption(`option '${key}' should be ${quoted(option.words)} or a number, not ${JSON.stringify(value)}`);
      }
      if (!option.words.includes(value) && !option.numbers.includes(value)) {
        throw badOption(`${key} must be ${orList([...option.words, ...option.numbers])} (got ${value})`);  // (as the engine says it)
      }
      out[key] = value;
      continue;
    }
    const expected = Array.isArray(option.default) ? 'array' : option.default === null ? 'null' : typeof option.default;
    const actual = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
    if (expected !== actual) throw badOption(`option '${key}' should be ${expected === 'array' ? 'an' : 'a'} ${expected}, not ${actual}`);
    if (option.words && !words(option).includes(value)) throw badOption(`${key} must be ${quoted(words(option))}, not '${value}'`);
    if (expected === 'number' && !(Number.isInteger(value) && value >= 0)) {
      throw badOption(`option '${key}' should be a whole number${value < 0 ? ' of 0 or more' : ''}, not ${value}`);
    }
    const most = option.uint32 ? 0xffffffff : Number.MAX_SAFE_INTEGER;
    if (expected === 'number' && value > most) throw badOption(`option '${key}' should be at most ${most}, not ${value}`);
    // The table's range of levels and block (0 too, for per-channel scales), as the engine says it.
    if (key === 'block' && value && (value < option.min || value > option.max || (value & (value - 1)))) {
      throw badOption(`${key} must be a power of two from ${option.min} to ${option.max}, or 0 for per-channel scales (got ${value})`);
    }
    if (key === 'levels' && (value < option.min || value > option.max)) {
      throw badOption(`${key} must be between ${option.min} and ${option.max} (got ${value})`);
    }
    if (expected === 'array' && !value.every((v) => typeof v === 'string')) {
      throw badOption(`option '${key}' should list names (strings)`);
    }
    if (expected === 'object') {  // tensorBits: what `bits` takes, per tensor
      const bits = OPTION.bits;
      for (const [name, v] of Object.entries(value)) {
        if (!bits.words.includes(v) && !bits.numbers.includes(v)) {
          throw badOption(`tensorBits for '${name}': bits must be ${orList([...bits.words, ...bits.numbers])}, not ${JSON.stringify(v)}`);
        }
      }
    }
    out[key] = value;
  }
  if (out.externalData === 'external' && !out.externalLocation) {
    throw badOption("externalData: 'external' needs externalLocation, the data file's name that the model will refer to " +
                    "(e.g. 'model.onnx.data' beside 'model.onnx'; the CLI names it after its output)");
  }
  // (The engine refuses int8's options in palette mode, and says why; palette's one would pass
  // unread. A block is refused here too, so that a build plugin's options fail where it is made.)
  if (out.mode !== 'palette' && options.levels !== undefined) throw badOption(`levels applies to palette mode, not ${out.mode} mode`);
  if (out.mode === 'palette' && out.block) throw badOption('block applies to int8 mode, not palette mode');
  if (out.bits === 'auto') out.bits = 0;  // the engine takes 0 for auto
  // As the engine reads it: the bits (0 for auto) as one character's code, then the name.
  out.tensorBitsList = Object.entries(out.tensorBits).map(([name, bits]) => String.fromCharCode(bits === 'auto' ? 0 : bits) + name);
  return out;
}

function isBlob(x) {
  return typeof Blob !== 'undefined' && x instanceof Blob;
}

function asBytes(input) {
  if (input instanceof Uint8Array) return input;
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  return null;
}

// The size in bytes of an input prepare() takes, when known without reading it (bytes, a Blob, a
// reader, a Response with Content-Length; `Response` itself is not named, see prepare), else undefined.
function knownSize(input) {
  const bytes = asBytes(input);
  if (bytes) return bytes.byteLength;
  if (typeof input?.size === 'number') return input.size;  // a Blob, a reader
  const length = Number(input?.headers?.get?.('content-length'));
  return length > 0 ? length : undefined;
}

// A Blob read synchronously (in a Web Worker) through a window of WINDOW bytes: the engine reads
// tensor by tensor, front to back, and each FileReaderSync call costs far more than its bytes
// (measured in Chromium: 4 MB slices read at a third of the speed of 32 MB ones).
const WINDOW = 32 << 20;
const WHOLE = 256 << 20;
function blobReader(blob) {
  const reader = new FileReaderSync();
  const slice = (from, to) => new Uint8Array(reader.readAsArrayBuffer(blob.slice(from, to)));
  let start = 0, window = new Uint8Array(0);
  return {
    size: blob.size,
    readInto(offset, target) {
      const end = offset + target.byteLength;
      if (offset < start || end > start + window.byteLength) {
        if (target.byteLength >= WINDOW) return target.set(slice(offset, end));
        start = offset;
        window = slice(offset, Math.min(blob.size, offset + WINDOW));
      }
      target.set(window.subarray(offset - start, end - start));
    },
    read(offset, length) {
      const out = new Uint8Array(length);
      this.readInto(offset, out);
      return out;
    },
  };
}

// Bytes held as consecutive parts (a Blob read as several slices at once): a read may span parts.
export function partsReader(parts) {
  const starts = [];
  let size = 0;
  for (const p of parts) starts.push(size), (size += p.byteLength);
  const readInto = (offset, target) => {
    let k = 0;
    while (k + 1 < parts.length && starts[k + 1] <= offset) k++;
    for (let at = 0; at < target.byteLength; k++) {
      const from = offset + at - starts[k];
      const n = Math.min(parts[k].byteLength - from, target.byteLength - at);
      target.set(parts[k].subarray(from, from + n), at);
      at += n;
    }
  };
  return {
    size,
    readInto,
    read(offset, length) {
      const k = parts.findIndex((p, i) => starts[i] <= offset && offset + length <= starts[i] + p.byteLength);
      if (k >= 0) return parts[k].subarray(offset - starts[k], offset - starts[k] + length);
      const out = new Uint8Array(length);
      readInto(offset, out);
      return out;
    },
  };
}

// A Blob's bytes as parts read at once: in Chromium four slices read side by side arrive sooner
// than the whole Blob in one read (the 151.5 MB conv stack in a worker: 148-177 ms against
// 148-375 ms, a fresh page's first read the slowest), and are not joined into one array (which
// would cost a fresh copy of the whole model: 76-103 ms).
const READ_PARTS = 4;
async function blobParts(blob) {
  const step = Math.ceil(blob.size / READ_PARTS) || 1;
  const slices = [];
  for (let from = 0; from < blob.size; from += step) slices.push(blob.slice(from, Math.min(blob.size, from + step)).arrayBuffer());
  return (await Promise.all(slices)).map((b) => new Uint8Array(b));
}

// A fetch Response's body as a Blob (which a browser may keep on disk: a large model is then read
// in slices, as a dropped file is). A failed download is an error, not a model of an error page.
async function responseBlob(response, what) {
  const where = response.url ? ` (${response.url})` : '';
  if (!response.ok) {
    throw new OnnxShrinkError(`the ${what}'s download failed: HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}${where}`, 'IO');
  }
  if (response.bodyUsed) throw badOption(`the ${what}'s Response body was already read${where}`);
  try {
    return await response.blob();
  } catch (e) {
    throw new OnnxShrinkError(`the ${what}'s download failed: ${e.message}${where}`, 'IO');
  }
}

// A { size, read(offset, length) } reader (fileSource() in Node, or the caller's own).
const isReader = (input) => typeof input.size === 'number' && typeof input.read === 'function';
function reader(input, what) {
  if (!Number.isSafeInteger(input.size) || input.size < 0) throw badOption(`the ${what}'s reader has size ${input.size}: it should be a whole number of bytes, below 2^53`);
  return { size: input.size, read: input.read.bind(input), readInto: input.readInto?.bind(input) };
}

// What an `external` function gives, for the engine that waits on it: bytes, a reader, or a
// Blob where it can be read synchronously (a Web Worker).
function syncSource(given, what, pathHint) {
  if (typeof given === 'string') throw notAName(given, what, pathHint);
  const bytes = asBytes(given);
  if (bytes) return { bytes };
  if (isBlob(given) && typeof FileReaderSync !== 'undefined') return blobReader(given);
  if (isReader(given)) return reader(given, what);
  if (typeof given.then === 'function') {
    throw badOption(`the ${what} came as a promise: an external function must answer at once; pass external as { name: data } instead`);
  }
  throw badOption(`the ${what} must be bytes or a { size, read(offset, length) } reader${isBlob(given) ? ' (a Blob only in a Web Worker)' : ''}; ` +
                  'pass external as { name: data } for Blobs and Responses');
}

// A file name or URL given where the data should be: what to pass instead (`pathHint`, from the
// entry point: fileSource() in Node, fetch() in a browser).
function notAName(input, what, pathHint) {
  const shown = input.length > 200 ? `${input.slice(0, 197)}...` : input;
  const quoted = `'${shown.replace(/['\\]/g, '\\$&')}'`;
  return badOption(`the ${what} was given as a string, ${quoted}, which onnx-shrink does not open: ${pathHint(quoted)}`);
}

// Turns an input into something the engine can read synchronously: bytes, or a reader.
// Blobs are read in slices when FileReaderSync exists (in a Web Worker), otherwise all at once.
async function prepare(input, what, pathHint) {
  if (input != null && typeof input.then === 'function') {
    try {
      input = await input;  // shrink(fetch(url))
    } catch (e) {
      // A failed download (fetch rejects with a TypeError) is an IO error, as an HTTP error is.
      throw e instanceof OnnxShrinkError ? e : new OnnxShrinkError(`the ${what} could not be read: ${e?.message ?? e}`, 'IO');
    }
  }
  if (input == null) throw badOption(`no ${what} given`);
  if (typeof input === 'string') throw notAName(input, what, pathHint);
  // Bytes and readers before the Response check: Node 20 loads its fetch (undici) when `Response`
  // is first named, 20-33 ms on this machine, which a first call would otherwise pay.
  const bytes = asBytes(input);
  if (bytes) return { bytes };
  if (isReader(input)) return reader(input, what);
  if (typeof Response !== 'undefined' && input instanceof Response) input = await responseBlob(input, what);
  if (isBlob(input)) {
    if (typeof FileReaderSync !== 'undefined') {
      // Up to WHOLE bytes are read up front (several times faster than synchronous reads in slices)
      // and kept in JS memory; the engine still copies in one tensor at a time, so its memory stays small.
      if (input.size > WHOLE) return blobReader(input);
      return partsReader(await blobParts(input));
    }
    return { bytes: new Uint8Array(await input.arrayBuffer()) };
  }
  throw badOption(`the ${what} must be a Uint8Array, an ArrayBuffer, a Blob, a fetch Response or a { size, read(offset, length) } reader`);
}

// The first exception of a run's callbacks. A callback never throws into the engine (see
// bindings/embind.cpp): it records the exception and answers `fallback`, which stops the engine.
// `what` says what the callback does ('reading the model', ...), or is null for a user's callback
// whose exception is passed on as it is (onProgress, onReport).
function failures() {
  let first = null, during = null;
  return {
    guard: (fn, fallback, what) => (...args) => {
      if (first) return fallback;
      try {
        return fn(...args);
      } catch (e) {
        first = e ?? new Error(String(e));
        during = what;
        return fallback;
      }
    },
    // What the caller sees: our own errors as they are; a failed read or write (a user's reader or
    // onModelData, a disk) as an IO error naming what failed, with the original as its cause.
    rethrow() {
      if (!first) return;
      if (first instanceof OnnxShrinkError || during === null) throw first;
      throw Object.assign(new OnnxShrinkError(`${during} failed: ${first.message ?? first}`, 'IO'), { cause: first });
    },
  };
}

// Bytes of at least AS_READER reach the engine as a reader, a tensor at a time, instead of copied
// whole into WebAssembly memory, whose fresh pages a process's first call pays for: the 151.5 MB
// conv stack's first shrink in Node took 337-389 ms against 393-475 ms (medians 339 and 412), in
// 33 MB of WebAssembly memory against 188 MB; the first expand() of its 39 MB output 207-315 ms
// against 227-337 ms, in 33 MB against 53 MB (BENCHMARKS.md, "2026-11-27, late evening").
const AS_READER = 32 << 20;
const asSource = (prepared) => (prepared.bytes && prepared.bytes.byteLength >= AS_READER ? partsReader([prepared.bytes]) : prepared);

// A prepared input as the engine's source: bytes are placed in the wasm heap once.
function toSource(module, prepared, owned, guard, what) {
  if (prepared.bytes) {
    const size = prepared.bytes.byteLength;
    const pointer = module.allocate(Math.max(size, 1));
    if (!pointer) throw new OnnxShrinkError(`cannot allocate ${size} bytes in WebAssembly memory`, 'OUT_OF_MEMORY');
    owned.push(pointer);
    module.HEAPU8.set(prepared.bytes, pointer);
    return { pointer, size };
  }
  return {
    pointer: 0,
    size: prepared.size,
    read: guard((offset, length, pointer) => {
      if (prepared.readInto) {
        prepared.readInto(offset, module.HEAPU8.subarray(pointer, pointer + length));
        return true;
      }
      const chunk = prepared.read(offset, length);
      if (!chunk || chunk.byteLength !== length) throw new OnnxShrinkError(`a read of ${length} bytes at ${offset} returned ${chunk ? chunk.byteLength : 'nothing'}`, 'IO');
      module.HEAPU8.set(chunk, pointer);
      return true;
    }, false, what),
  };
}

// A view of the engine's memory used after its callback returned (the callback gave a promise).
const laterView = (callback) => badOption(`${callback} returned a promise, but with chunks: 'view' each chunk is valid only until ` +
  "the callback returns. Write it synchronously (fs.writeSync, hash.update) or use chunks: 'copy' (the default) for " +
  'streams and fs/promises, which keep the chunk');

// Collects output into one array of the announced size, or passes chunks to options[callback]
// (onModelData or onExternalData): copies, or with `views` the engine's memory itself. The engine
// announces the size and writes every byte of the one array (checked).
// Copies to a callback that returns a promise (fs/promises) are given one at a time, each once the
// last one's promise has settled; settled() waits for the last, and rejects as the first failed;
// abandon(), when the run failed, gives no more and waits for the one being written.
function collector(module, options, callback, views, guard, what) {
  const onChunk = options[callback];
  let array = null, at = 0, queue = null, dropped = false;
  const give = (chunk) => {
    if (queue) queue = queue.then(() => (dropped ? undefined : onChunk(chunk)));
    else {
      const answer = onChunk(chunk);
      if (typeof answer?.then === 'function') queue = Promise.resolve(answer);
    }
    queue?.catch(() => {});  // (awaited by settled(), unless the run fails first)
  };
  return {
    expect: guard((total) => {
      if (!onChunk) array = new Uint8Array(total);
      return true;
    }, false, what),
    write: guard((pointer, length) => {
      const view = module.HEAPU8.subarray(pointer, pointer + length);
      if (onChunk && views) {
        // A promise says the chunk is used after the callback returns, when a view no longer holds it.
        if (typeof onChunk(view)?.then === 'function') throw laterView(callback);
      } else if (onChunk) {
        give(view.slice());
      } else {
        array.set(view, at);
      }
      at += length;
      return true;
    }, false, what),
    result() {
      if (array && at !== array.byteLength) throw new OnnxShrinkError(`internal error: ${what}: ${at} of ${array.byteLength} bytes written`, 'INTERNAL');
      return onChunk ? undefined : array ?? new Uint8Array(0);
    },
    async settled() {
      try {
        await queue;
      } catch (e) {
        throw Object.assign(new OnnxShrinkError(`${what} failed: ${e?.message ?? e}`, 'IO'), { cause: e });
      }
    },
    async abandon() {
      dropped = true;
      await queue?.catch(() => {});
    },
  };
}

// `loadWasm(wasmPath)` gives the engine's .wasm bytes; `pathHint(quotedName)` says what to pass
// instead of a file name or URL (a string is never read as one).
export function createApi(loadWasm, pathHint = (name) => `pass the model's bytes or a reader, e.g. await fetch(${name})`) {
  const env = { wasmPath: undefined, wasmBinary: undefined };
  let modulePromise = null;

  function engine() {
    if (!modulePromise) {
      modulePromise = (async () => {
        const from = env.wasmBinary ? 'env.wasmBinary' : env.wasmPath ? `env.wasmPath (${env.wasmPath})` : 'the package\'s dist/onnx-shrink.wasm';
        let wasmBinary = env.wasmBinary;
        try {
          wasmBinary ??= await loadWasm(env.wasmPath);
        } catch (e) {
          throw e instanceof OnnxShrinkError ? e : Object.assign(new OnnxShrinkError(`the engine's WebAssembly file could not be read from ${from}: ${e?.message ?? e}`, 'IO'), { cause: e });
        }
        try {
          return await createOnnxShrink({ wasmBinary });
        } catch (e) {
          const message = String(e?.message ?? e).replace(/^Aborted\((.*)\)\. Build with.*$/s, '$1');
          throw Object.assign(new OnnxShrinkError(`the engine's WebAssembly module from ${from} did not start: ${message} ` +
                                                  '(is it the .wasm of this version of onnx-shrink?)', 'IO'), { cause: e });
        }
      })();
      modulePromise.catch(() => (modulePromise = null));
    }
    return modulePromise;
  }

  async function run(what, input, options) {
    options ??= {};
    const engineOptions = normaliseOptions(options);
    const signal = options.signal;
    if (signal?.aborted) throw new OnnxShrinkError('cancelled', 'CANCELLED');
    // The module is compiled (on a first call) while the input is read.
    const loading = engine();
    loading.catch(() => {});  // awaited below, unless reading the input fails first
    const model = await prepare(input, 'model', pathHint);
    const externals = new Map();
    if (options.external && typeof options.external === 'object' && !isBlob(options.external) && !asBytes(options.external)) {
      for (const [name, value] of Object.entries(options.external)) externals.set(name, await prepare(value, `external data '${name}'`, pathHint));
    }
    const module = await loading;
    const owned = [];
    const failed = failures();
    const { guard } = failed;
    const read = new Set();  // the external data files the model refers to (and the engine read)
    const views = options.chunks === 'view';
    const out = collector(module, options, 'onModelData', views, guard, 'writing the model');
    const external = collector(module, options, 'onExternalData', views, guard, 'writing the external data');
    try {
      const io = {
        model: toSource(module, asSource(model), owned, guard, 'reading the model'),
        external: guard((name) => {
          let value = externals.get(name);
          if (!value && typeof options.external === 'function') {
            const given = options.external(name);
            if (given != null) value = syncSource(given, `external data '${name}'`, pathHint);
          }
          if (value) read.add(name);
          return value ? toSource(module, asSource(value), owned, guard, `reading external data '${name}'`) : null;
        }, false, 'finding external data'),
        progress: guard((fraction, stage) => {
          if (signal?.aborted) return false;
          return options.onProgress?.(fraction, stage) !== false;
        }, false, null),
        sink: out,
        externalSink: external,
      };
      const result = module.run(what, engineOptions, io);
      failed.rethrow();
      if (result.code) throw new OnnxShrinkError(result.message, result.code);
      await out.settled();
      await external.settled();
      const externalData = external.result();
      const modelBytes = out.result() ?? new Uint8Array(0);  // empty when onModelData took it
      const report = JSON.parse(result.report);
      report.externalFiles = [...read];
      options.onReport?.(report);
      return { model: modelBytes, report, externalData: externalData && externalData.byteLength ? externalData : undefined };
    } catch (e) {
      // A failed or cancelled run writes no more: a caller that closes its file on the error gets
      // nothing after it.
      await out.abandon();
      await external.abandon();
      throw e;
    } finally {
      for (const pointer of owned) module.release(pointer);
    }
  }

  /** Turns a shrunk model back into plain float weights. */
  const expand = async (input, options) => {
    onlyOptions(options, EXPAND_OPTIONS, 'expand()');
    return (await run('expand', input, options)).model;
  };
  // A model's (or `what`'s) whole bytes from anything run() takes: a Blob as one read, not as the
  // parts run() reads it in.
  const wholeBytes = async (input, what = 'model') => {
    if (isBlob(input)) return new Uint8Array(await input.arrayBuffer());  // one array, not parts to join
    const prepared = await prepare(input, what, pathHint);
    return prepared.bytes ?? prepared.read(0, prepared.size);
  };
  return {
    env,
    /** Shrinks a model: resolves to { model, report, externalData? }. */
    shrink: (input, options) => run('shrink', input, options),
    /** What shrink would do, without writing: resolves to the report. */
    inspect: async (input, options) => (await run('inspect', input, options)).report,
    expand,
    /** The whole bytes of anything shrink() takes as a model or as external data (not exported). */
    wholeBytes,
    /** An onnxruntime session on a shrunk model, by the path faster for that runtime (see runtime.js). */
    openForRuntime: makeOpenForRuntime({ expand, inspect: (bytes) => run('inspect', bytes, {}), wholeBytes, knownSize, onlyOptions, OnnxShrinkError }),
    /** The engine's version. */
    version: async () => (await engine()).version(),
    /** Bytes of WebAssembly memory the engine has grown to (it never shrinks): its peak use. */
    wasmMemory: async () => (await engine()).HEAPU8.byteLength,
  };
}
