// The build plugins' `precompress` option, from the repository's own files (the fresh projects of
// package.test.mjs build with the packed package): which files get which copies, bad values,
// and esbuild's `write: false`, where the copies go into outputFiles.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import onnxShrinkEsbuild from '../../bindings/js/esbuild.js';
import { shrink } from '../../bindings/js/index.node.js';
import onnxShrink, { createOnnxTransform } from '../../bindings/js/vite.js';
import OnnxShrinkPlugin from '../../bindings/js/webpack.js';
import { tempDir } from './temp_dir.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const silero = readFileSync(path.join(root, 'tests', 'fixtures', 'silero_vad_v5.onnx'));

test('precompress: the copies each file gets, by the plugin options and its own', async () => {
  const hook = createOnnxTransform({ precompress: ['br', 'gzip'],
                                     files: { 'big.onnx': { precompress: ['gzip'] }, 'raw.onnx': { precompress: [] }, 'skip.onnx': false } });
  assert.deepEqual(hook.precompress('assets/a-1234.onnx', ['src/a.onnx']), ['br', 'gzip']);
  assert.deepEqual(hook.precompress('assets/b-1234.onnx', ['src/models/big.onnx']), ['gzip']);  // matched by its source's name
  assert.deepEqual(hook.precompress('raw.onnx'), []);
  assert.deepEqual(hook.precompress('skip.onnx'), []);  // left alone: nothing shrunk, nothing to compress
  assert.deepEqual(hook.precompress('app.js'), []);
  assert.equal(hook.precompresses, true);
  // precompress is the plugin's: shrink() does not get it (it would refuse an option it does not know).
  const out = await hook('a.onnx', silero);
  assert.ok(Buffer.from(out).equals(Buffer.from((await shrink(silero)).model)));
  // Off by default.
  const plain = createOnnxTransform({});
  assert.deepEqual(plain.precompress('a.onnx'), []);
  assert.equal(plain.precompresses, false);
  assert.equal(createOnnxTransform({ files: { 'a.onnx': { precompress: ['br'] } } }).precompresses, true);
});

// webpack renames a file after the plugin shrank it (realContentHash): the log names the source,
// where a hashed name would be stale; errors name both.
test('the log names a model by its source file; an error by both names', async () => {
  const lines = [];
  const hook = createOnnxTransform({ log: (m) => lines.push(m) });
  await hook('assets/0a1b2c.onnx', silero, ['src/models/vad.onnx']);
  assert.equal(lines.length, 1);
  assert.match(lines[0], /^src\/models\/vad\.onnx: 2327524 -> \d+ bytes \(2\.8× smaller\)$/);
  await assert.rejects(hook('assets/0a1b2c.onnx', new Uint8Array(8), ['src/broken.onnx']), /^OnnxShrinkError: src\/broken\.onnx \(assets\/0a1b2c\.onnx\): /);
});

test('precompress: anything but a list of br and gzip is refused by every plugin, when it is set up', () => {
  const bad = [['zstd'], 'br', ['br', 'deflate'], true];
  for (const precompress of bad) {
    const message = /precompress should be a list of 'br' and 'gzip'/;
    assert.throws(() => onnxShrink({ precompress }), { code: 'BAD_OPTION', message });
    assert.throws(() => onnxShrink({ files: { 'a.onnx': { precompress } } }), { code: 'BAD_OPTION', message: /files\['a\.onnx'\]\.precompress/ });
    assert.throws(() => new OnnxShrinkPlugin({ precompress }), { code: 'BAD_OPTION', message });
    assert.throws(() => onnxShrinkEsbuild({ precompress }).setup({ initialOptions: {}, onLoad() {}, onEnd() {} }), { code: 'BAD_OPTION', message });
  }
});

test('esbuild with write: false: the compressed copies are output files beside the model', async () => {
  const dir = tempDir('plugins');
  mkdirSync(path.join(dir, 'src'));
  writeFileSync(path.join(dir, 'src', 'vad.onnx'), silero);
  writeFileSync(path.join(dir, 'src', 'index.js'), "import url from './vad.onnx'; console.log(url);");
  const build = (precompress) => esbuild.build({
    absWorkingDir: dir, entryPoints: ['src/index.js'], bundle: true, outdir: 'out', write: false, logLevel: 'silent',
    loader: { '.onnx': 'file' }, plugins: [onnxShrinkEsbuild(precompress ? { precompress } : {})],
  });
  const names = (result) => result.outputFiles.map((f) => path.relative(dir, f.path)).sort();
  const without = await build(null);
  assert.equal(without.metafile, undefined, 'no metafile unless the build asks for one, or precompress needs it');
  const model = without.outputFiles.find((f) => f.path.endsWith('.onnx'));
  assert.ok(Buffer.from(model.contents).equals(Buffer.from((await shrink(silero)).model)));
  assert.deepEqual(names(without).filter((f) => /\.(br|gz)$/.test(f)), []);
  const result = await build(['br', 'gzip']);
  const emitted = path.relative(dir, model.path);
  assert.deepEqual(names(result), [...names(without), `${emitted}.br`, `${emitted}.gz`].sort());
  const file = (suffix) => Buffer.from(result.outputFiles.find((f) => f.path === model.path + suffix).contents);
  assert.ok(brotliDecompressSync(file('.br')).equals(Buffer.from(model.contents)));
  assert.ok(gunzipSync(file('.gz')).equals(Buffer.from(model.contents)));
});

test('every plugin checks its options when it is made, before the build, and says which files keys matched no model', () => {
  const setUp = [(o) => onnxShrink(o), (o) => new OnnxShrinkPlugin(o), (o) => onnxShrinkEsbuild(o)];
  for (const make of setUp) {
    // Values out of the options' ranges, and an int8 option in palette mode (found by a review: they failed mid-build).
    assert.throws(() => make({ bits: 11 }), { code: 'BAD_OPTION', message: 'bits must be auto, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12 or 16 (got 11)' });
    assert.throws(() => make({ mode: 'palette', levels: 1 }), { code: 'BAD_OPTION', message: 'levels must be between 2 and 65536 (got 1)' });
    assert.throws(() => make({ block: 48 }), { code: 'BAD_OPTION', message: /^block must be a power of two from 16 to 4096/ });
    assert.throws(() => make({ files: { 'a.onnx': { mode: 'palette', block: 64 } } }),
                  { code: 'BAD_OPTION', message: "files['a.onnx']: block applies to int8 mode, not palette mode" });
    assert.throws(() => make({ blok: 64 }), { code: 'BAD_OPTION', message: "unknown option 'blok'" });
    assert.throws(() => make({ files: { 'a.onnx': { mode: 'int4' } } }), { code: 'BAD_OPTION', message: /^files\['a\.onnx'\]: mode must be 'int8' or 'palette'/ });
    assert.throws(() => make({ onModelData() {} }), { code: 'BAD_OPTION', message: /^onModelData: not a build plugin's option/ });
    assert.throws(() => make({ include: '.onnx' }), { code: 'BAD_OPTION', message: /^include should be a RegExp/ });
  }
  const transform = createOnnxTransform({ files: { 'vad.onnx': false, 'vda.onnx': { mode: 'palette' } } });
  assert.equal(transform.leftAlone('assets/vad-1a2b.onnx', ['src/vad.onnx']), true);
  assert.equal(transform.leftAlone('assets/det-1a2b.onnx', ['src/det.onnx']), false);
  assert.deepEqual(transform.unmatched(), ['vda.onnx']);
});

test("Vite's library mode, which inlines models unshrunk, is said when the build starts", async () => {
  const { build, createLogger } = await import('vite');
  const dir = tempDir('vite-lib');
  mkdirSync(path.join(dir, 'src'));
  writeFileSync(path.join(dir, 'src', 'm.onnx'), silero);
  writeFileSync(path.join(dir, 'src', 'main.js'), "export const u = new URL('./m.onnx', import.meta.url).href;");
  const warnings = [];
  const logger = { ...createLogger('silent'), warn: (m) => warnings.push(m) };
  await build({ root: dir, customLogger: logger, logLevel: 'warn', configFile: false,
                build: { lib: { entry: 'src/main.js', formats: ['es'], fileName: 'lib' }, outDir: 'dist' }, plugins: [onnxShrink()] });
  assert.ok(warnings.some((w) => w.startsWith('onnx-shrink: library mode inlines the models a module refers to as data URLs, unshrunk')), warnings.join('\n'));
});

test('a model under build.assetsInlineLimit, which Vite inlines unshrunk, is said; its files key counts as matched', async () => {
  const { build, createLogger } = await import('vite');
  const dir = tempDir('vite-inline');
  mkdirSync(path.join(dir, 'src'));
  writeFileSync(path.join(dir, 'src', 'm.onnx'), silero);
  writeFileSync(path.join(dir, 'index.html'), '<script type="module" src="/src/main.js"></script>');
  writeFileSync(path.join(dir, 'src', 'main.js'), "console.log(new URL('./m.onnx', import.meta.url).href);");
  const warnings = [];
  const logger = { ...createLogger('silent'), warn: (m) => warnings.push(m) };
  await build({ root: dir, customLogger: logger, logLevel: 'warn', configFile: false,
                build: { assetsInlineLimit: 1e8, outDir: 'dist' }, plugins: [onnxShrink({ files: { 'src/m.onnx': { mode: 'palette' } } })] });
  assert.ok(warnings.some((w) => /^onnx-shrink: src\/m\.onnx \(2327524 bytes\) is under build\.assetsInlineLimit: Vite puts it into the code as a data URL, unshrunk/.test(w)),
            warnings.join('\n'));
  assert.ok(!warnings.some((w) => /matched no model/.test(w)), warnings.join('\n'));
});

test('esbuild rebuilds: a changed model gets a new name, and the compressed copies of the old one go', async () => {
  const dir = tempDir('esbuild-rebuild');
  writeFileSync(path.join(dir, 'vad.onnx'), silero);
  writeFileSync(path.join(dir, 'app.js'), "import url from './vad.onnx'; console.log(url);");
  const context = await esbuild.context({ entryPoints: [path.join(dir, 'app.js')], bundle: true, outdir: path.join(dir, 'out'), absWorkingDir: dir,
                                          loader: { '.onnx': 'file' }, logLevel: 'silent', plugins: [onnxShrinkEsbuild({ precompress: ['gzip'] })] });
  try {
    const copies = () => readdirSync(path.join(dir, 'out')).filter((f) => f.endsWith('.gz'));
    await context.rebuild();
    const [first] = copies();
    assert.match(first, /^vad-\w+\.onnx\.gz$/);
    writeFileSync(path.join(dir, 'vad.onnx'), (await shrink(silero, { mode: 'palette' })).model);  // another model under the same name
    await context.rebuild();
    const after = copies();
    assert.equal(after.length, 1);
    assert.notEqual(after[0], first);
  } finally {
    await context.dispose();
  }
});

test("a file's own mode drops the other mode's options it would inherit from the plugin's", () => {
  // (A palette plugin's levels were refused for a file made int8, which built before levels was checked.)
  assert.doesNotThrow(() => createOnnxTransform({ mode: 'palette', levels: 64, files: { 'det.onnx': { mode: 'int8' } } }));
  assert.doesNotThrow(() => createOnnxTransform({ block: 64, files: { 'vad.onnx': { mode: 'palette' } } }));
  // Its own are still checked.
  assert.throws(() => createOnnxTransform({ files: { 'vad.onnx': { mode: 'palette', block: 64 } } }), { code: 'BAD_OPTION', message: /block applies to int8 mode/ });
});
