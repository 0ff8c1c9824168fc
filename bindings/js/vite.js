// onnx-shrink at build time: a Vite (and Rollup) plugin that shrinks the .onnx files a build
// emits. The generic hook it is built on (transform.js) is exported here too, for other bundlers.
//
// Vite names an asset after a hash of the bytes it is emitted with, when it is emitted: a model
// shrunk afterwards (in generateBundle) would keep the name of the original, and a host that
// caches hashed names for good would keep serving the old file. So the models a module refers to
// (`new URL('./m.onnx', import.meta.url)`, `import url from './m.onnx?url'`) are shrunk and emitted
// by this plugin, before Vite would read them, and Vite hashes the shrunk bytes (and the chunks
// that refer to them, the new names). Models only HTML or CSS refer to, or that another plugin
// emits, are still shrunk in generateBundle; files copied from publicDir keep their names anyway.
import { existsSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { checkLeftAlone, claim, createOnnxTransform, precompressed } from './transform.js';

export { createOnnxTransform };

// `new URL('...', import.meta.url)` with a plain string, as Vite's own asset plugin finds it.
// Comments and other strings match too, so that what is in them is passed over.
const NEW_URL = new RegExp([
  /\/\/[^\n]*/, /\/\*[\s\S]*?\*\//, /'(?:\\.|[^'\\\n])*'/, /"(?:\\.|[^"\\\n])*"/, /`(?:\\.|[^`\\])*`/,
  /\bnew\s+URL\s*\(\s*('[^'\\\n]*'|"[^"\\\n]*"|`[^`\\$]*`)\s*,\s*import\.meta\.url\s*(?:,\s*)?\)/,
].map((r) => r.source).join('|'), 'g');

/** Vite/Rollup plugin: shrinks emitted .onnx assets and .onnx files copied from publicDir. */
export default function onnxShrink(options = {}) {
  let config = null, outDir = null, publicDir = null, logger = null;
  const transform = createOnnxTransform({ ...options, log: (m) => logger?.info(`onnx-shrink: ${m}`) });
  // The models this plugin emitted: the reference id of each source file's (null: left to Vite),
  // for this build; and the source name of each reference id, for precompress (rebuilds in watch
  // mode may bring back a reference id of an earlier build from Rollup's cache).
  let emitted = new Map();
  const sourceOf = new Map();

  // Whether this is a Vite build of code for the browser (where Vite emits what modules refer to).
  const building = (context) => config?.command === 'build' &&
    (context.environment ? context.environment.config.consumer === 'client' : !config.build.ssr);
  const isFile = (file) => existsSync(file) && statSync(file).isFile();
  const inPublicDir = (file) => publicDir && !path.relative(publicDir, file).startsWith('..');
  // As Vite decides whether to put a file into the code as a data: URL.
  const inlined = (file, bytes) => {
    if (config.build.lib) return true;
    const limit = config.build.assetsInlineLimit;
    const decided = typeof limit === 'function' ? limit(file, bytes) : undefined;
    if (decided !== undefined && decided !== null) return Boolean(decided);
    return bytes.byteLength < (typeof limit === 'number' ? limit : 4096);
  };

  // Shrinks a model file and emits it; its reference id, or null to leave the file to Vite (not a
  // model of this build, one Vite inlines, or one with an external data file, whose layout
  // generateBundle keeps).
  const emit = async (context, file, noInline = false) => {
    if (!emitted.has(file)) {
      emitted.set(file, (async () => {
        if (inPublicDir(file) || !isFile(file)) return null;
        const bytes = await readFile(file);
        const name = path.relative(config.root, file).split(path.sep).join('/');
        if (!noInline && inlined(file, bytes)) {
          // (leftAlone also counts the model as matched by its files key, if it has one.)
          if (!transform.leftAlone(name) && bytes.byteLength >= 65536) {
            logger?.warn(`onnx-shrink: ${name} (${bytes.byteLength} bytes) is under build.assetsInlineLimit: Vite puts it into the code ` +
                         "as a data URL, unshrunk. Import it with '?url&no-inline' to have it shrunk, or lower assetsInlineLimit");
          }
          return null;
        }
        let hasData = false;
        const siblings = {
          read: () => void (hasData = true),
          write: () => {
            hasData = true;
            throw new Error('external data');
          },
        };
        let out;
        try {
          out = await transform(name, bytes, [], siblings);
        } catch (e) {
          if (hasData) return null;
          throw e;
        }
        if (!out) return null;
        const ref = context.emitFile({ type: 'asset', name: path.basename(file), originalFileName: name, source: out });
        sourceOf.set(ref, name);
        return ref;
      })());
    }
    const ref = await emitted.get(file);
    // A change to the model builds again in watch mode, as it would with Vite's own asset plugin.
    if (ref) context.addWatchFile(file);
    return ref;
  };
  // The model file a module's URL names, or null.
  const modelFile = async (context, url, importer) => {
    if (/[?#]/.test(url) || /^[a-z][a-z\d+.-]*:/i.test(url) || !transform.accepts(url)) return null;
    if (url.startsWith('.')) return path.resolve(path.dirname(importer), url);
    const resolved = await context.resolve(url, importer, { skipSelf: true });
    if (resolved && !resolved.external && path.isAbsolute(resolved.id)) return resolved.id.split('?')[0];
    return url.startsWith('/') ? null : path.resolve(path.dirname(importer), url);
  };

  return {
    name: 'onnx-shrink',
    apply: 'build',
    enforce: 'post',
    configResolved(resolved) {
      config = resolved;
      outDir = path.resolve(config.root, config.build.outDir);
      publicDir = config.publicDir || null;
      logger = config.logger;
      // Library mode inlines every asset as a data URL, from the original file: said, not shrunk.
      if (config.build.lib) {
        logger.warn('onnx-shrink: library mode inlines the models a module refers to as data URLs, unshrunk: shrink them before ' +
                    '(npx onnx-shrink), or load them from a URL the library is given');
      }
    },
    buildStart() {
      emitted = new Map();
    },
    // Before Vite's asset plugin reads the file a module's `new URL('./m.onnx', import.meta.url)`
    // names: that reference becomes Vite's placeholder for the shrunk model this plugin emitted.
    transform: {
      order: 'pre',
      async handler(code, id) {
        if (!building(this) || id.startsWith('\0') || !code.includes('import.meta.url')) return null;
        const importer = id.split('?')[0];
        let out = '', last = 0;
        for (const match of code.matchAll(NEW_URL)) {
          if (!match[1]) continue;
          const file = await modelFile(this, match[1].slice(1, -1), importer);
          let ref;
          try {
            ref = file && await emit(this, file);
          } catch (e) {
            this.error(e.message);  // names this plugin and the module (an Error object would be blamed on the HTML entry)
          }
          if (!ref) continue;
          // vite-ignore: Vite's plugin leaves it alone; it puts in the final URL when it renders the chunk.
          out += code.slice(last, match.index) + `new URL(/* @vite-ignore */ "__VITE_ASSET__${ref}__", import.meta.url)`;
          last = match.index + match[0].length;
        }
        return last === 0 ? null : { code: out + code.slice(last), map: null };
      },
    },
    // `import url from './m.onnx?url'` (or without ?url, with .onnx in assetsInclude), before
    // Vite's asset plugin loads it.
    load: {
      order: 'pre',
      async handler(id) {
        if (!building(this) || id.startsWith('\0')) return null;
        const at = id.indexOf('?');
        const file = at < 0 ? id : id.slice(0, at);
        const query = new URLSearchParams(at < 0 ? '' : id.slice(at + 1));
        if (!transform.accepts(file) || ![...query.keys()].every((k) => k === 'url' || k === 'no-inline')) return null;
        if (!query.has('url') && !(at < 0 && config.assetsInclude(file))) return null;
        const ref = await emit(this, file, query.has('no-inline'));
        if (!ref) return null;
        return { code: `export default "__VITE_ASSET__${ref}__";`, moduleSideEffects: false, moduleType: 'js' };
      },
    },
    async generateBundle(_, bundle) {
      const bytesOf = (asset) => (typeof asset.source === 'string' ? new TextEncoder().encode(asset.source) : asset.source);
      // The files to write compressed copies of: [fileName, precompress words].
      const compress = [];
      // The models emitted above, already shrunk.
      const ours = new Map();  // file name in the bundle -> source name
      for (const [ref, name] of sourceOf) {
        let fileName;
        try {
          fileName = this.getFileName(ref);
        } catch {
          continue;  // not of this build
        }
        if (bundle[fileName]?.type !== 'asset') continue;
        ours.set(fileName, name);
        compress.push([fileName, transform.precompress(name)]);
      }
      dropCopiesOfOurs(bundle, ours);
      // External data files by their name in the bundle, as they were before any was rewritten.
      const originals = new Map(), written = new Set();
      const siblings = (fileName, formats) => ({
        read: (location) => {
          const name = path.posix.join(path.posix.dirname(fileName), location);
          if (!originals.has(name) && bundle[name]?.type === 'asset') originals.set(name, bytesOf(bundle[name]));
          return originals.get(name);
        },
        write: (location, bytes) => {
          const name = path.posix.join(path.posix.dirname(fileName), location);
          claim(written, name);
          if (bundle[name]) bundle[name].source = bytes;
          else this.emitFile({ type: 'asset', fileName: name, source: bytes });
          compress.push([name, formats]);
        },
      });
      const leftAlone = [];
      for (const asset of Object.values(bundle)) {
        if (asset.type !== 'asset' || ours.has(asset.fileName) || !transform.accepts(asset.fileName)) continue;
        // The emitted name has a hash in it; per-file options may name the source file.
        const names = asset.names ?? (asset.name ? [asset.name] : []);
        const sourceNames = [...(asset.originalFileNames ?? []), ...names];
        if (transform.leftAlone(asset.fileName, sourceNames)) leftAlone.push({ name: asset.fileName, bytes: bytesOf(asset) });
        const formats = transform.precompress(asset.fileName, sourceNames);
        const out = await transform(asset.fileName, bytesOf(asset), sourceNames, siblings(asset.fileName, formats));
        if (!out) continue;
        asset.source = out;
        compress.push([asset.fileName, formats]);
        if (names.length > 0 && !names.includes(path.posix.basename(asset.fileName))) {
          this.warn(`${asset.fileName} was shrunk after Vite named it: a hash in its name is the original's. A model a module ` +
                    "refers to (new URL('./m.onnx', import.meta.url), import url from './m.onnx?url') gets the shrunk one's");
        }
      }
      checkLeftAlone(leftAlone, written);
      for (const [fileName, formats] of compress) {
        for (const copy of await precompressed(formats, fileName, bytesOf(bundle[fileName]))) {
          this.emitFile({ type: 'asset', fileName: copy.fileName, source: copy.bytes });
        }
      }
    },
    async writeBundle() {
      // Files in publicDir are copied as they are, outside the bundle: shrink them in outDir.
      if (!publicDir || !existsSync(publicDir) || !outDir) return;
      const written = new Set();
      // A model's external data file: read from publicDir as it was, written to outDir.
      const siblings = (source, target, compress) => ({
        read: (location) => {
          const file = path.join(path.dirname(source), location);
          return isFile(file) ? readFileSync(file) : undefined;
        },
        write: (location, bytes) => {
          const file = path.join(path.dirname(target), location);
          claim(written, file);
          replaceFile(file, bytes);
          compress.push([file, bytes]);
        },
      });
      const walk = async (dir) => {
        for (const name of readdirSync(dir)) {
          const p = path.join(dir, name);
          if (statSync(p).isDirectory()) await walk(p);
          else {
            const target = path.join(outDir, path.relative(publicDir, p));
            if (!existsSync(target)) continue;
            const fileName = path.relative(publicDir, p).split(path.sep).join('/');
            if (transform.leftAlone(fileName)) leftAlone.push({ name: fileName, bytes: readFileSync(p) });
            const compress = [];
            const out = await transform(fileName, readFileSync(target), [], siblings(p, target, compress));
            if (!out) continue;
            replaceFile(target, out);
            compress.push([target, out]);
            for (const [file, bytes] of compress) {
              for (const copy of await precompressed(transform.precompress(fileName), file, bytes)) replaceFile(copy.fileName, copy.bytes);
            }
          }
        }
      };
      const leftAlone = [];
      await walk(publicDir);
      checkLeftAlone(leftAlone, written);
    },
    closeBundle() {
      for (const key of transform.unmatched()) logger?.warn(`onnx-shrink: files['${key}'] matched no model of this build`);
    },
  };
}

// A model a module refers to and HTML or CSS refers to too: Vite emitted it again for the HTML or
// CSS, unshrunk, under the original's hash (a page would download both). Those references now name
// the shrunk one, and the copy goes. `ours`: file name in the bundle -> source name, of the models
// this plugin emitted.
function dropCopiesOfOurs(bundle, ours) {
  const bySource = new Map([...ours].map(([fileName, name]) => [name, fileName]));
  for (const asset of Object.values(bundle)) {
    if (asset.type !== 'asset' || ours.has(asset.fileName)) continue;
    const mine = (asset.originalFileNames ?? []).map((n) => bySource.get(n)).find(Boolean);
    if (!mine) continue;
    delete bundle[asset.fileName];
    // Referred to by path from the root, or from a file beside it: the name alone when the two
    // are in one folder (a hashed name is unique), else the whole path.
    const sameFolder = path.posix.dirname(asset.fileName) === path.posix.dirname(mine);
    const [from, to] = sameFolder ? [path.posix.basename(asset.fileName), path.posix.basename(mine)] : [asset.fileName, mine];
    for (const other of Object.values(bundle)) {
      if (other.type === 'chunk') other.code = other.code.split(from).join(to);
      else if (typeof other.source === 'string') other.source = other.source.split(from).join(to);
    }
  }
}

// A build stopped mid-write leaves the copy whole.
function replaceFile(file, bytes) {
  writeFileSync(`${file}.partial`, bytes);
  renameSync(`${file}.partial`, file);
}
