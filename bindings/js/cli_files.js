// The command line's files: which models a run reads (files, folders, pipes) and where each result
// goes, refusing any result that would replace an input; results written under a temporary name
// and put in place whole (TempFile), or copied whole to a pipe; data files read to their end.
import { closeSync, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, realpathSync, renameSync, rmSync, statSync,
         writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OnnxShrinkError, fileSource } from './index.node.js';

// The models to work on: files as given, and the .onnx files in given folders (and their
// subfolders). `under` is a model's folder relative to the folder it was found in ('' for a file
// given by name): with -o FOLDER, its result goes to the same subfolder there.
export function expandInputs(inputs) {
  const out = [];
  const walk = (dir, under) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((x, y) => x.name.localeCompare(y.name))) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p, path.join(under, entry.name));
      else if (entry.name.endsWith('.onnx') && !entry.name.endsWith('.shrunk.onnx')) out.push({ file: p, under });
    }
  };
  if (inputs.includes('-') && inputs.length > 1) {
    throw new OnnxShrinkError("'-' (a model from standard input) goes alone: give the other models in another run", 'BAD_OPTION');
  }
  for (const input of inputs) {
    if (input === '-') {
      out.push({ file: input, under: '' });
      continue;
    }
    if (!existsSync(input)) throw new OnnxShrinkError(`'${input}' does not exist`, 'IO');
    if (statSync(input).isDirectory()) walk(input, '');
    else out.push({ file: input, under: '' });
  }
  if (out.length === 0) {
    const folders = inputs.filter((i) => i !== '-').map((i) => `'${i}'`).join(', ');
    throw new OnnxShrinkError(`no .onnx files in ${folders} (files named *.shrunk.onnx are results, left out)`, 'IO');
  }
  return out;
}

export function outputFor({ file, under }, a, many) {
  const base = path.basename(file).replace(/\.onnx$/i, '') + (a.expand ? '.expanded.onnx' : '.shrunk.onnx');
  if (!a.output) return path.join(path.dirname(file), base);
  if (a.output === '-') return a.output;
  // A folder: one that exists, or a name ending in a slash (made, as any missing folder is).
  const folder = /[\\/]$/.test(a.output) || (existsSync(a.output) && statSync(a.output).isDirectory());
  if (many || folder) return path.join(a.output, under, base);
  return a.output;
}

// --report must not replace one of the models given (their data files are checked once read).
export function checkReportTarget(inputs, a) {
  if (!a.report || a.report === '-') return;
  const replaced = inputs.find((i) => i.file !== '-' && (path.resolve(i.file) === path.resolve(a.report) || sameFile(i.file, a.report)));
  if (replaced) {
    throw new OnnxShrinkError(`--report '${a.report}' would replace '${replaced.file}', one of the models given; ` +
                              'onnx-shrink never overwrites its input', 'BAD_OPTION');
  }
}

// Two models whose results would land on one file, or a result that would replace another of
// the models given (`m.onnx m.shrunk.onnx`): refused before any work, naming both.
export function checkDistinctOutputs(inputs, a, many) {
  if (a.inspect) return;
  const seen = new Map();
  for (const input of inputs) {
    const output = path.resolve(outputFor(input, a, many));
    const other = seen.get(output);
    if (other) {
      throw new OnnxShrinkError(`'${other.file}' and '${input.file}' would both be written to '${output}': ` +
                                'give them one at a time, or with their folder', 'BAD_OPTION');
    }
    seen.set(output, input);
    if (a.report && a.report !== '-' && (path.resolve(a.report) === output || sameFile(a.report, output))) {
      throw new OnnxShrinkError(`--report and the result of '${input.file}' would both be written to '${output}'`, 'BAD_OPTION');
    }
    const replaced = inputs.find((i) => i !== input && i.file !== '-' && (path.resolve(i.file) === output || sameFile(i.file, output)));
    if (replaced) {
      throw new OnnxShrinkError(`the result of '${input.file}' would replace '${replaced.file}', another of the models given; ` +
                                'onnx-shrink never overwrites its input: give them one at a time, or choose an output folder (-o)', 'BAD_OPTION');
    }
  }
}

export function sameFile(p, q) {
  try {
    const s = statSync(p), t = statSync(q);
    return s.dev === t.dev && s.ino === t.ino;
  } catch {
    return false;
  }
}

// Removes `file` if this process ends without removing or renaming it, however it ends (see
// janitor.js). The janitor is started with the first temporary file and does not hold this
// process open.
let janitor = null;
function removeIfLeftBehind(file) {
  if (!janitor) {
    janitor = spawn(process.execPath, [fileURLToPath(new URL('./janitor.js', import.meta.url))],
                    { detached: true, windowsHide: true, stdio: ['pipe', 'ignore', 'ignore'] });
    janitor.on('error', () => {});  // best effort: without it, a kill may leave a .partial file
    janitor.stdin.on('error', () => {});
    janitor.unref();
    janitor.stdin.unref();
  }
  if (!file.includes('\n')) janitor.stdin.write(`${path.resolve(file)}\n`);
}

// Whether a result goes to a stream (standard output as '-', or an existing pipe, terminal or
// device such as /dev/stdout) rather than into a file that can be replaced.
export function isStream(target) {
  if (target === '-') return true;
  try {
    const st = statSync(target);
    return !st.isFile() && !st.isDirectory();
  } catch {
    return false;
  }
}

// A link to a file: the file it points to gets the result, and the link stays a link.
function linkTarget(target) {
  try {
    return lstatSync(target).isSymbolicLink() ? realpathSync(target) : target;
  } catch {
    return target;  // a dangling link, or no file yet
  }
}

let tempCount = 0;

// A file written under a temporary name and renamed on success: no partial output, ever. For a
// stream the temporary file is in the system's temporary folder, and commit() copies it out whole:
// a failed run sends nothing down a pipe, and never replaces /dev/stdout with a file.
// The folders of `dir` that do not exist yet, made from the top down. (Node 20's mkdirSync with
// `recursive` loops for ever where a parent cannot be made, e.g. under /proc/self.)
function makeFolders(dir) {
  const missing = [];
  let d = path.resolve(dir);
  while (!existsSync(d)) {
    missing.push(d);
    if (path.dirname(d) === d) break;
    d = path.dirname(d);
  }
  if (existsSync(d) && !statSync(d).isDirectory()) throw new Error(`'${d}' is a file, not a folder`);
  for (const folder of missing.reverse()) mkdirSync(folder);
}

export class TempFile {
  constructor(target, tag) {
    this.target = target;
    this.stream = isStream(target);
    const real = this.stream ? target : linkTarget(target);
    // The process's id in the name: two runs writing one path (one after the other, its janitor
    // still finishing; or side by side) never share, nor remove, each other's temporary file.
    const unique = `${process.pid}-${++tempCount}`;
    this.temp = this.stream ? path.join(tmpdir(), `onnx-shrink-${unique}${tag ? `.${tag}` : ''}.partial`)
                            : `${real}${tag ? `.${tag}` : ''}.${unique}.partial`;
    this.real = real;
    removeIfLeftBehind(this.temp);  // first: a kill right after the file appears still removes it
    try {
      makeFolders(path.dirname(this.temp));
      this.fd = openSync(this.temp, 'w');
    } catch (e) {
      // The temporary file's name is ours: the error names the file asked for.
      throw new OnnxShrinkError(`cannot write '${target}': ${e.message.replaceAll(this.temp, this.real)}`, 'IO');
    }
    this.size = 0;
  }
  write(bytes) {
    let done = 0;
    try {
      while (done < bytes.byteLength) done += writeSync(this.fd, bytes, done, bytes.byteLength - done);
    } catch (e) {
      throw new OnnxShrinkError(`cannot write '${this.target === '-' ? 'standard output' : this.target}': ${e.message}`, 'IO');
    }
    this.size += bytes.byteLength;
  }
  commit() {
    closeSync(this.fd);
    this.fd = null;
    if (!this.stream) return renameSync(this.temp, this.real);
    try {
      copyToStream(this.temp, this.target);
    } catch (e) {
      throw new OnnxShrinkError(`cannot write '${this.target === '-' ? 'standard output' : this.target}': ${e.message}`, 'IO');
    } finally {
      rmSync(this.temp, { force: true });
    }
  }
  discard() {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    rmSync(this.temp, { force: true });
  }
}

// Copies a finished file to standard output ('-') or to a pipe or device, in slices. A pipe that
// is full (EAGAIN: Node leaves standard output non-blocking) is waited for, not given up on.
function copyToStream(file, target) {
  const out = target === '-' ? 1 : openSync(target, 'w');
  const input = openSync(file, 'r');
  const chunk = Buffer.allocUnsafe(1 << 20);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  try {
    for (let n; (n = readSync(input, chunk)) > 0;) {
      for (let done = 0; done < n;) {
        try {
          done += writeSync(out, chunk, done, n - done);
        } catch (e) {
          if (e.code !== 'EAGAIN') throw e;
          Atomics.wait(pause, 0, 0, 2);
        }
      }
    }
  } finally {
    closeSync(input);
    if (out !== 1) closeSync(out);
  }
}


// External data files are looked up beside the model; locations may not leave its folder.
export function externalResolver(modelPath, opened, paths) {
  const dir = path.dirname(modelPath);
  const sources = new Map();  // one open file per location, however often the engine asks (target mode: every point)
  return (location) => {
    if (sources.has(location)) return sources.get(location);
    if (path.isAbsolute(location) || location.split(/[\\/]/).includes('..')) {
      throw new OnnxShrinkError(`external data location '${location}' leaves the model's folder`, 'EXTERNAL_DATA_INVALID');
    }
    const p = path.join(dir, location);
    if (!existsSync(p)) return undefined;
    if (!statSync(p).isFile()) throw new OnnxShrinkError(`external data '${location}' is not a file: '${p}' is a folder or a device`, 'EXTERNAL_DATA_INVALID');
    const source = fileSource(p);
    opened.push(source);
    paths.push(p);
    sources.set(location, source);
    return source;
  };
}

// A model file, read in slices; or a pipe (`<(curl …)`, /dev/stdin), read whole first, as it
// cannot be read twice. A pipe has no name to put the result beside: it needs -o.
export function modelSource(input, a) {
  if (input !== '-' && statSync(input).isFile()) return fileSource(input);
  if (!a.output && !a.inspect) {
    const what = input === '-' ? 'no file name to put the result beside' : `'${input}' is not a regular file (a pipe?)`;
    throw new OnnxShrinkError(`${what}: name the result with -o`, 'BAD_OPTION');
  }
  let bytes;
  try {
    bytes = readDataFile(input === '-' ? 0 : input);
  } catch (e) {
    throw new OnnxShrinkError(`cannot read '${input}': ${e.code === 'ERR_FS_FILE_TOO_LARGE' ? 'over 2 GiB, more than a pipe is read into memory' : e.message}`, 'IO');
  }
  return {
    bytes,  // for --verify: the pipe cannot be opened again
    size: bytes.byteLength,
    read: (offset, length) => bytes.subarray(offset, offset + length),
    readInto: (offset, target) => target.set(bytes.subarray(offset, offset + target.byteLength)),
    close() {},
  };
}

// An input's data file, whole. A pipe or device (e.g. `--input x=<(make-data)`) is read to its
// end, up to the 2 GiB a regular file may have: /dev/zero ends in an error, not in a hang.
const DATA_LIMIT = 2 ** 31;
export function readDataFile(file) {
  const fd = typeof file === 'number' ? file : openSync(file, 'r');  // a number: standard input
  const pause = new Int32Array(new SharedArrayBuffer(4));
  try {
    if (fstatSync(fd).isFile()) return readFileSync(fd);
    const chunks = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(1 << 20);
      let n;
      try {
        n = readSync(fd, chunk);
      } catch (e) {
        if (e.code !== 'EAGAIN') throw e;  // a non-blocking pipe with nothing in it yet
        Atomics.wait(pause, 0, 0, 2);
        continue;
      }
      if (n === 0) return Buffer.concat(chunks, total);
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > DATA_LIMIT) throw Object.assign(new Error('too large'), { code: 'ERR_FS_FILE_TOO_LARGE' });
    }
  } finally {
    if (fd !== file) closeSync(fd);
  }
}

export const dataFileOf = (output) => path.join(path.dirname(output), `${path.basename(output)}.data`);

// A result must not replace a file the input reads: `-o b.onnx` writes b.onnx.data, which may be
// the input model's own data file. Known once the engine has opened them, before anything is
// put in place.
export function refuseToReplaceInputs(inputs, targets, reads = 'which the input model reads') {
  for (const target of targets) {
    const input = inputs.find((p) => sameFile(p, target));
    if (input) {
      const which = path.resolve(target) === path.resolve(input) ? `'${input}'` : `'${target}' (the same file as '${input}')`;
      throw new OnnxShrinkError(`the result would replace ${which}, ${reads}; ` +
                                'onnx-shrink never overwrites its input: choose another output name', 'BAD_OPTION');
    }
  }
}
