// The package as users get it: `npm pack`, installed (from the npm cache) into a fresh folder, used
// from Node, its CLI, its TypeScript types, and its Vite (7 and 8), webpack and esbuild plugins in
// fresh projects.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { tempDir } from './temp_dir.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const fixtures = path.join(root, 'tests', 'fixtures');
const npm = (cwd, ...args) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const versionOf = (name) => JSON.parse(readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
let app, tarball;

// Vite 8 (on Rolldown), beside the repository's Vite 7: the version the repository's
// devDependencies pin as `vite8` (npm:vite@8), or else this one.
const VITE8 = existsSync(path.join(root, 'node_modules', 'vite8', 'package.json')) ? versionOf('vite8') : '8.3.8';

// The compressed copies of `file` that precompress wrote (NAME.br, NAME.gz) hold exactly its bytes,
// and there are those and no others.
function checkCopies(file, formats) {
  const bytes = readFileSync(file);
  for (const [format, suffix, decompress] of [['br', '.br', brotliDecompressSync], ['gzip', '.gz', gunzipSync]]) {
    if (!formats.includes(format)) {
      assert.ok(!existsSync(file + suffix), `no ${path.basename(file)}${suffix}`);
      continue;
    }
    assert.ok(existsSync(file + suffix), `${path.basename(file)}${suffix} was written`);
    const copy = readFileSync(file + suffix);
    assert.ok(copy.length < bytes.length, `${path.basename(file)}${suffix} is smaller`);
    assert.ok(decompress(copy).equals(bytes), `${path.basename(file)}${suffix} holds ${path.basename(file)}`);
  }
}
// The compressed copies in a build's output folder (none when the build wrote nothing).
const compressedIn = (dir) => (existsSync(dir) ? readdirSync(dir, { recursive: true }) : []).filter((f) => /\.(br|gz)$/.test(f));

// A generated model whose weights are in m.onnx.data, in `dir`.
function externalModel(dir) {
  mkdirSync(dir, { recursive: true });
  const made = spawnSync('/usr/bin/python3', [path.join(root, 'bench', 'make_model.py'), '12', path.join(dir, 'm.onnx'), '--external', '--sum']);
  assert.equal(made.status, 0, String(made.stderr));
}

// The shrunk pair (m.onnx and its data file, as built) runs in onnxruntime-node close to the
// original pair, and is about 4x smaller.
async function checkExternalPair(originalDir, builtDir) {
  const { default: ort } = await import(path.join(root, 'node_modules', 'onnxruntime-node', 'dist', 'index.js'));
  const x = new ort.Tensor('float32', Float32Array.from({ length: 1024 }, (_, i) => Math.sin(i * 0.37)), [1, 1024]);
  const run = async (dir) => (await (await ort.InferenceSession.create(path.join(dir, 'm.onnx'))).run({ x })).y.data;
  const [reference, shrunk] = [await run(originalDir), await run(builtDir)];
  let num = 0, den = 0;
  for (let i = 0; i < reference.length; i++) num += (shrunk[i] - reference[i]) ** 2, den += reference[i] ** 2;
  assert.ok(Math.sqrt(num / den) < 0.01, `rel. L2 ${Math.sqrt(num / den)}`);
  const size = (dir) => statSync(path.join(dir, 'm.onnx')).size + statSync(path.join(dir, 'm.onnx.data')).size;
  assert.ok(size(builtDir) < size(originalDir) / 3.5, `${size(builtDir)} of ${size(originalDir)} bytes`);
}

before(() => {
  const dir = tempDir('pack');
  const packed = JSON.parse(npm(root, 'pack', '--json', '--pack-destination', dir));
  tarball = path.join(dir, packed[0].filename);
  const files = packed[0].files.map((f) => f.path);
  assert.ok(files.includes('dist/onnx-shrink.wasm') && files.includes('bindings/js/index.d.ts'), files.join(' '));
  assert.ok(files.includes('BENCHMARKS.md'), 'the README\'s numbers cite it');
  assert.ok(!files.some((f) => f.startsWith('src/') || f.startsWith('tests/')), 'the tarball holds only what users need');
  app = path.join(dir, 'app');
  mkdirSync(app);
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  // From the npm cache the repository's own install filled, where it can: that install follows the
  // lock file and caches tarballs, not the registry's version lists that these version specs need,
  // so on a machine whose cache never had them npm fetches those (--offline failed there).
  // webpack's enhanced-resolve is pinned to the lock file's too: its 5.27.1 and 5.27.2 (December
  // 2026) ship types that tsc refuses without allowSyntheticDefaultImports, in webpack's own types.
  npm(app, 'install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball,
      `typescript@${versionOf('typescript')}`, `vite@${versionOf('vite')}`, `webpack@${versionOf('webpack')}`, `esbuild@${versionOf('esbuild')}`,
      `enhanced-resolve@${versionOf('enhanced-resolve')}`);
});

test('import from a fresh install and shrink', () => {
  copyFileSync(path.join(fixtures, 'silero_vad_v5.onnx'), path.join(app, 'silero.onnx'));
  writeFileSync(path.join(app, 'use.mjs'), `
    import { shrink, version } from 'onnx-shrink';
    import { readFileSync } from 'node:fs';
    const { model, report } = await shrink(readFileSync('silero.onnx'));
    console.log(JSON.stringify({ version: await version(), size: model.byteLength, changed: report.totals.tensorsChanged }));`);
  const out = JSON.parse(execFileSync(process.execPath, ['use.mjs'], { cwd: app, encoding: 'utf8' }));
  assert.equal(out.changed, 12);
  assert.ok(out.size < 900000);
});

test('the CLI of the installed package', () => {
  const p = spawnSync(path.join(app, 'node_modules', '.bin', 'onnx-shrink'), ['silero.onnx'], { cwd: app, encoding: 'utf8' });
  assert.equal(p.status, 0, p.stderr);
  assert.ok(existsSync(path.join(app, 'silero.shrunk.onnx')));
  assert.match(p.stdout, /\bbefore\b.*\bafter\b/);  // the table of sizes
});

test('tsc --strict accepts code using every exported type', () => {
  writeFileSync(path.join(app, 'types.ts'), `
    import { shrink, inspect, expand, version, env, fileSource, OnnxShrinkError } from 'onnx-shrink';
    import type { ErrorCode, Reader, Input, Mode, Scheme, Form, ExternalDataMode, Stage, ShrinkOptions, ValueInfo,
                  TensorReport, OpsetChange, Report, ShrinkResult, Env, FileSource, SyncInput } from 'onnx-shrink';
    import onnxShrink, { createOnnxTransform } from 'onnx-shrink/vite';
    import { declaredShape, sampleCount, sampleFeeds, carryOver, compareModels, worstOutput, OutputComparison, toHalfBits, fromHalfBits } from 'onnx-shrink/verify';
    import type { InputSpec, InputType, OutputError } from 'onnx-shrink/verify';
    import type { OnnxPluginOptions, OnnxFileOptions, Precompress } from 'onnx-shrink/vite';
    import OnnxShrinkPlugin from 'onnx-shrink/webpack';
    import type { Configuration } from 'webpack';
    import onnxShrinkEsbuild from 'onnx-shrink/esbuild';
    import type { BuildOptions } from 'esbuild';
    const esbuildOptions: BuildOptions = { bundle: true, loader: { '.onnx': 'file' }, plugins: [onnxShrinkEsbuild({ block: 64, precompress: ['br'] })] };
    const webpackConfig: Configuration = { mode: 'production', plugins: [new OnnxShrinkPlugin({ mode: 'palette', precompress: ['gzip'], files: { 'a.onnx': false } })] };
    const mode: Mode = 'palette', scheme: Scheme = 'auto', form: Form = 'fold', ext: ExternalDataMode = 'auto';
    const options: ShrinkOptions = { mode, scheme, form, externalData: ext, levels: 256, exclude: ['w'], bits: 'auto', small: 'fp16',
      onProgress: (fraction: number, stage: Stage) => fraction < 2 && stage !== 'reading',
      external: { 'model.onnx.data': new Uint8Array(4) }, onModelData: (chunk: Uint8Array) => void chunk.byteLength };
    const reader: Reader = { size: 4, read: (offset: number, length: number) => new Uint8Array(length + offset * 0) };
    const input: Input = reader;
    const fromFunction: ShrinkOptions = { external: (name: string): SyncInput | undefined => (name ? reader : undefined) };
    const e: Env = env;
    e.wasmPath = 'onnx-shrink.wasm';
    async function main(): Promise<void> {
      const result: ShrinkResult = await shrink(input, options);
      const report: Report = result.report;
      const tensors: TensorReport[] = report.tensors;
      const bits: number | undefined = tensors[0].bits;
      const halves: number = report.totals.smallTensorsFp16 + report.totals.smallTensorBytesAfter;
      const ten: ShrinkOptions = { bits: 10, small: 'keep' };
      const inputs: ValueInfo[] = report.model.inputs;
      const changes: OpsetChange[] = report.opsetChanges;
      const again: Report = await inspect(result.model);
      const plain: Uint8Array = await expand(result.model);
      await expand(result.model, { onModelData: (chunk: Uint8Array) => void chunk.byteLength, chunks: 'view' });
      // shrink() with a target is target mode, typed as such (README, "Target mode").
      const aimed = await shrink(plain, { target: 'agree=0.999', decision: 'threshold:0.3', samples: { x: new Float32Array(8) }, exclude: ['w'] });
      console.log(aimed.target.chosen.bytes, aimed.model.byteLength, aimed.target.heldOutMet);
      const v: string = await version();
      const file: FileSource = fileSource('silero.onnx');
      file.close();
      try { await shrink(new Uint8Array(1)); } catch (err) { if (err instanceof OnnxShrinkError) { const c: ErrorCode = err.code; console.log(c); } }
      const big: OnnxFileOptions = { block: 32, precompress: ['gzip'] };
      const pluginOptions: OnnxPluginOptions = { mode: 'int8', precompress: ['br', 'gzip'], files: { 'big.onnx': big, 'skip.onnx': false } };
      const plugin = onnxShrink(pluginOptions);
      const hook = createOnnxTransform(pluginOptions);
      const out: Uint8Array | null = await hook('a.onnx', plain);
      const copies: Precompress[] = hook.precompress('big.onnx', ['src/big.onnx']);
      console.log(copies.length, hook.precompresses);
      class Tensor { constructor(readonly type: string, readonly data: Float32Array, readonly dims: readonly number[]) {} }
      const half: InputType = 'float16';
      const specs: InputSpec[] = [{ name: 'x', dtype: 'float32', shape: [2], bytes: new Uint8Array(16) }];
      const one: number = fromHalfBits(toHalfBits(1));
      const comparison = new OutputComparison({ threshold: 0.5 });
      let previous: Record<string, Tensor> | null = null;
      for (const feeds of sampleFeeds(Tensor, specs)) {
        const next: Record<string, Tensor> = carryOver(feeds, previous, { x: 'x' });
        comparison.add(next, next);
        previous = next;
      }
      const errors: OutputError[] = comparison.results();
      const agreement: number | undefined = errors[0].agreement;
      const open: { shape: number[]; guessed: boolean } = declaredShape([1, 'n', null]);
      const ran: OutputError[] = await compareModels(Tensor, specs, async (f) => f, async (f) => f, { feedBack: { x: 'x' }, threshold: 0.5 });
      const worst: OutputError = worstOutput(ran);
      console.log(sampleCount(specs), errors[0].relL2, agreement, open.guessed, worst.name, half, one);
      console.log(bits, halves, ten.bits);
      console.log(tensors.length, inputs.length, changes.length, again.summary, v, plugin.name, out?.byteLength, webpackConfig.mode, esbuildOptions.bundle, fromFunction.external);
    }
    void main();`);
  const tsc = spawnSync(path.join(app, 'node_modules', '.bin', 'tsc'),
    ['--strict', '--noEmit', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--lib', 'es2022,dom', 'types.ts'],
    { cwd: app, encoding: 'utf8' });
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
  // TypeScript's older resolution reads no exports map: the subpaths' types come by typesVersions.
  const node10 = spawnSync(path.join(app, 'node_modules', '.bin', 'tsc'),
    ['--strict', '--noEmit', '--module', 'es2022', '--moduleResolution', 'node10', '--target', 'es2022', '--lib', 'es2022,dom', 'types.ts'],
    { cwd: app, encoding: 'utf8' });
  assert.equal(node10.status, 0, node10.stdout + node10.stderr);
});

test('onnx-shrink/verify from the installed package: samples, state carried over, errors', () => {
  writeFileSync(path.join(app, 'verify.mjs'), `
    import { sampleCount, sampleFeeds, carryOver, OutputComparison } from 'onnx-shrink/verify';
    class Tensor { constructor(type, data, dims) { Object.assign(this, { type, data, dims }); } }
    const inputs = [{ name: 'x', dtype: 'float32', shape: [2], bytes: new Uint8Array(new Float32Array([1, 2, 3, 4, 5, 6]).buffer) },
                    { name: 'h', dtype: 'float32', shape: [2], value: 0 }];
    // A "model" y = x + h, h' = y, and a copy of it that is off by 1 % on every value.
    const step = (feeds, k) => { const y = feeds.x.data.map((v, i) => k * (v + feeds.h.data[i])); return { y: new Tensor('float32', y, [2]), h: new Tensor('float32', y, [2]) }; };
    const comparison = new OutputComparison();
    let a = null, b = null;
    for (const feeds of sampleFeeds(Tensor, inputs)) {
      a = step(carryOver(feeds, a, { h: 'h' }), 1);
      b = step(carryOver(feeds, b, { h: 'h' }), 1.01);
      comparison.add(a, b);
    }
    console.log(JSON.stringify({ samples: sampleCount(inputs), last: Array.from(a.y.data), results: comparison.results() }));`);
  const out = JSON.parse(execFileSync(process.execPath, ['verify.mjs'], { cwd: app, encoding: 'utf8' }));
  assert.equal(out.samples, 3);
  assert.deepEqual(out.last, [9, 12]);  // 1+3+5 and 2+4+6: the state was carried over
  const y = out.results.find((r) => r.name === 'y');
  assert.ok(y.relL2 > 0.01 && y.relL2 < 0.04, JSON.stringify(y));  // the copy's 1 % compounds through its own state
});

test('a fresh Vite 7 project builds with the plugin and emits the shrunk models', async () => {
  const project = path.join(app, 'site');
  mkdirSync(path.join(project, 'public'), { recursive: true });
  copyFileSync(path.join(fixtures, 'silero_vad_v5.onnx'), path.join(project, 'vad.onnx'));
  copyFileSync(path.join(fixtures, 'ch_PP-OCRv4_det_infer.onnx'), path.join(project, 'public', 'det.onnx'));
  externalModel(path.join(project, 'public', 'ext'));
  // The page preloads the model its module fetches: one file, shrunk, named by both.
  writeFileSync(path.join(project, 'index.html'), '<!doctype html><link rel="preload" href="./vad.onnx" as="fetch" crossorigin>' +
                '<script type="module" src="./main.js"></script>');
  writeFileSync(path.join(project, 'main.js'), "console.log(new URL('./vad.onnx', import.meta.url).href);");
  writeFileSync(path.join(project, 'vite.config.js'),
    "import onnxShrink from 'onnx-shrink/vite';\nexport default { plugins: [onnxShrink({ files: { 'det.onnx': { mode: 'palette' }, " +
    "'vad.onnx': { scheme: 'channel' }, 'ext/m.onnx': { precompress: ['gzip'] } } })] };\n");
  const build = spawnSync(path.join(app, 'node_modules', '.bin', 'vite'), ['build'], { cwd: project, encoding: 'utf8' });
  assert.equal(build.status, 0, build.stdout + build.stderr);
  const assets = readdirSync(path.join(project, 'dist', 'assets')).filter((f) => f.endsWith('.onnx'));
  assert.equal(assets.length, 1, assets.join(' '));
  assert.match(readFileSync(path.join(project, 'dist', 'index.html'), 'utf8'), new RegExp(`<link rel="preload" href="/assets/${assets[0]}"`));
  const chunk = readdirSync(path.join(project, 'dist', 'assets')).find((f) => f.endsWith('.js'));
  assert.ok(readFileSync(path.join(project, 'dist', 'assets', chunk), 'utf8').includes(assets[0]), 'the module names the same file');
  const { shrink } = await import(path.join(root, 'bindings', 'js', 'index.node.js'));
  // The emitted name has a hash in it (vad-XXXX.onnx): the per-file options match the source's name.
  const expectedVad = (await shrink(readFileSync(path.join(fixtures, 'silero_vad_v5.onnx')), { scheme: 'channel' })).model;
  assert.ok(Buffer.from(expectedVad).equals(readFileSync(path.join(project, 'dist', 'assets', assets[0]))), 'the emitted model is the shrunk one');
  const expectedDet = (await shrink(readFileSync(path.join(fixtures, 'ch_PP-OCRv4_det_infer.onnx')), { mode: 'palette' })).model;
  assert.ok(Buffer.from(expectedDet).equals(readFileSync(path.join(project, 'dist', 'det.onnx'))), 'the public model is shrunk with its own options');
  // A public model with external data: both files shrunk, under their own names, and they run.
  await checkExternalPair(path.join(project, 'public', 'ext'), path.join(project, 'dist', 'ext'));
  // Its own precompress: a gzip copy beside the model and one beside its data file; none of the others.
  checkCopies(path.join(project, 'dist', 'ext', 'm.onnx'), ['gzip']);
  checkCopies(path.join(project, 'dist', 'ext', 'm.onnx.data'), ['gzip']);
  assert.deepEqual(compressedIn(path.join(project, 'dist')).sort(), ['ext/m.onnx.data.gz', 'ext/m.onnx.gz']);
});

// Three builds of one project with each Vite: no plugin, int8 (with precompress) and palette. The
// model a module refers to with new URL() and the one it imports with ?url get a new hashed name
// whenever their bytes change (a host may cache a hashed name for good), and so does the chunk
// that refers to them.
for (const major of [7, 8]) {
  test(`a fresh Vite ${major} project: hashed names follow the shrunk bytes; precompress writes .br and .gz`, async () => {
    let dir = app;
    if (major === 8) {
      dir = path.join(path.dirname(app), 'app-vite8');
      mkdirSync(dir);
      writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'app-vite8', private: true, type: 'module' }));
      npm(dir, 'install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball, `vite@${VITE8}`);
    }
    const vite = path.join(dir, 'node_modules', 'vite', 'package.json');
    assert.equal(JSON.parse(readFileSync(vite, 'utf8')).version.split('.')[0], String(major));
    const { shrink } = await import(path.join(root, 'bindings', 'js', 'index.node.js'));
    const vad = readFileSync(path.join(fixtures, 'silero_vad_v5.onnx')), det = readFileSync(path.join(fixtures, 'ch_PP-OCRv4_det_infer.onnx'));
    const variants = {
      none: { config: 'export default {};', vad, det },
      int8: { config: "import onnxShrink from 'onnx-shrink/vite';\n" +
                      "export default { plugins: [onnxShrink({ precompress: ['br', 'gzip'], files: { 'det.onnx': { precompress: [] } } })] };",
              vad: (await shrink(vad)).model, det: (await shrink(det)).model },
      palette: { config: "import onnxShrink from 'onnx-shrink/vite';\nexport default { plugins: [onnxShrink({ mode: 'palette' })] };",
                 vad: (await shrink(vad, { mode: 'palette' })).model, det: (await shrink(det, { mode: 'palette' })).model },
    };
    const contentOf = new Map();  // every emitted file's name -> its bytes' digest, over the three builds
    const names = { vad: new Set(), det: new Set() };
    for (const [variant, expected] of Object.entries(variants)) {
      const project = path.join(dir, `hash-${variant}`);
      mkdirSync(path.join(project, 'src', 'models'), { recursive: true });
      copyFileSync(path.join(fixtures, 'silero_vad_v5.onnx'), path.join(project, 'src', 'models', 'vad.onnx'));
      copyFileSync(path.join(fixtures, 'ch_PP-OCRv4_det_infer.onnx'), path.join(project, 'src', 'det.onnx'));
      writeFileSync(path.join(project, 'index.html'), '<!doctype html><script type="module" src="./src/main.js"></script>');
      writeFileSync(path.join(project, 'src', 'main.js'),
        "import det from './det.onnx?url';\nconsole.log(new URL('./models/vad.onnx', import.meta.url).href, det);\n");
      writeFileSync(path.join(project, 'vite.config.js'), expected.config + '\n');
      const build = spawnSync(path.join(dir, 'node_modules', '.bin', 'vite'), ['build'], { cwd: project, encoding: 'utf8' });
      assert.equal(build.status, 0, build.stdout + build.stderr);
      const assets = path.join(project, 'dist', 'assets');
      const files = readdirSync(assets).filter((f) => !/\.(br|gz)$/.test(f));
      for (const f of files) {
        const digest = createHash('sha256').update(readFileSync(path.join(assets, f))).digest('hex');
        assert.equal(contentOf.get(f) ?? digest, digest, `${f} is emitted with different bytes by two builds`);
        contentOf.set(f, digest);
      }
      const chunks = files.filter((f) => f.endsWith('.js'));
      assert.equal(chunks.length, 1, files.join(' '));
      const code = readFileSync(path.join(assets, chunks[0]), 'utf8');
      for (const model of ['vad', 'det']) {
        const emitted = files.filter((f) => f.startsWith(`${model}-`) && f.endsWith('.onnx'));
        assert.equal(emitted.length, 1, `${variant}: ${files.join(' ')}`);
        assert.ok(readFileSync(path.join(assets, emitted[0])).equals(expected[model]), `${variant}: ${emitted[0]} is the expected model`);
        assert.ok(code.includes(`/${emitted[0]}`) || code.includes(`"${emitted[0]}`), `${variant}: the chunk refers to ${emitted[0]}`);
        names[model].add(emitted[0]);
        checkCopies(path.join(assets, emitted[0]), variant === 'int8' && model === 'vad' ? ['br', 'gzip'] : []);
      }
      assert.equal(compressedIn(path.join(project, 'dist')).length, variant === 'int8' ? 2 : 0);
    }
    // Three different files each, under three names.
    assert.equal(names.vad.size, 3, [...names.vad].join(' '));
    assert.equal(names.det.size, 3, [...names.det].join(' '));
  });
}

test('a fresh webpack 5 project builds with the plugin: models shrunk, hashes and references updated, errors name the file', async () => {
  const project = path.join(app, 'webpack-site');
  mkdirSync(path.join(project, 'src', 'models'), { recursive: true });
  copyFileSync(path.join(fixtures, 'silero_vad_v5.onnx'), path.join(project, 'src', 'models', 'vad.onnx'));
  copyFileSync(path.join(fixtures, 'ch_PP-OCRv4_det_infer.onnx'), path.join(project, 'src', 'det.onnx'));
  writeFileSync(path.join(project, 'src', 'broken.onnx'), 'not a model');
  writeFileSync(path.join(project, 'src', 'index.js'),
    "console.log(new URL('./models/vad.onnx', import.meta.url).href, new URL('./det.onnx', import.meta.url).href);");
  writeFileSync(path.join(project, 'src', 'broken.js'), "console.log(new URL('./broken.onnx', import.meta.url).href);");
  // A model with external data, emitted with the names kept ([name][ext]) so that it finds its data.
  externalModel(path.join(project, 'src', 'ext'));
  writeFileSync(path.join(project, 'src', 'external.js'),
    "console.log(new URL('./ext/m.onnx', import.meta.url).href, new URL('./ext/m.onnx.data', import.meta.url).href);");
  // Two models whose weights are in one file: the second would overwrite the first's.
  copyFileSync(path.join(project, 'src', 'ext', 'm.onnx'), path.join(project, 'src', 'ext', 'm2.onnx'));
  writeFileSync(path.join(project, 'src', 'shared.js'),
    "console.log(new URL('./ext/m.onnx', import.meta.url).href, new URL('./ext/m2.onnx', import.meta.url).href, new URL('./ext/m.onnx.data', import.meta.url).href);");
  // webpack's Node API, as a webpack.config.js would set it up.
  writeFileSync(path.join(project, 'build.mjs'), `
    import webpack from 'webpack';
    import OnnxShrinkPlugin from 'onnx-shrink/webpack';
    const [entry, out, names, precompress, files] = process.argv.slice(2);
    const options = { files: files ? JSON.parse(files) : { 'det.onnx': { mode: 'palette', precompress: ['gzip'] } },
                      ...(precompress ? { precompress: JSON.parse(precompress) } : {}) };
    const compiler = webpack({ mode: 'production', context: process.cwd(), entry,
                               output: { path: process.cwd() + '/' + out, ...(names ? { assetModuleFilename: names } : {}) },
                               performance: { hints: false },
                               plugins: [new OnnxShrinkPlugin(options)] });
    compiler.run((err, stats) => {
      if (err) throw err;
      const { errors, assets } = stats.toJson({ all: false, errors: true, assets: true });
      console.log(JSON.stringify({ errors: errors.map((e) => e.message), assets: assets.map((a) => a.name) }));
      compiler.close(() => {});
    });`);
  const build = (...args) => JSON.parse(execFileSync(process.execPath, ['build.mjs', ...args], { cwd: project, encoding: 'utf8' }));
  // precompress: br and gzip for every model, but det.onnx's own: gzip only.
  const good = build('./src/index.js', 'dist', '', '["br","gzip"]');
  assert.deepEqual(good.errors, []);
  const { shrink } = await import(path.join(root, 'bindings', 'js', 'index.node.js'));
  const expected = [(await shrink(readFileSync(path.join(fixtures, 'silero_vad_v5.onnx')))).model,
                    (await shrink(readFileSync(path.join(fixtures, 'ch_PP-OCRv4_det_infer.onnx')), { mode: 'palette' })).model];
  const models = good.assets.filter((a) => a.endsWith('.onnx'));
  assert.equal(models.length, 2);
  const bundle = readFileSync(path.join(project, 'dist', 'main.js'), 'utf8');
  for (const name of models) {
    const bytes = readFileSync(path.join(project, 'dist', name));
    assert.ok(expected.some((e) => Buffer.from(e).equals(bytes)), `${name} is a shrunk model`);
    // webpack renews the content hash in the name after the plugin ran: the bundle must load that name.
    assert.ok(bundle.includes(name), `main.js refers to ${name}`);
    // The compressed copies have the final name too, and are assets of the build.
    const formats = bytes.equals(Buffer.from(expected[1])) ? ['gzip'] : ['br', 'gzip'];
    checkCopies(path.join(project, 'dist', name), formats);
    for (const suffix of formats.map((f) => (f === 'br' ? '.br' : '.gz'))) assert.ok(good.assets.includes(name + suffix), `${name}${suffix} is an asset`);
  }
  assert.equal(compressedIn(path.join(project, 'dist')).length, 3);
  const bad = build('./src/broken.js', 'dist-broken');
  assert.equal(bad.errors.length, 1);
  assert.deepEqual(compressedIn(path.join(project, 'dist-broken')), []);
  assert.match(bad.errors[0], /^onnx-shrink: src\/broken\.onnx \([0-9a-f]+\.onnx\): not an ONNX model/);
  const external = build('./src/external.js', 'dist-external', '[name][ext]', '["gzip"]');
  assert.deepEqual(external.errors, []);
  await checkExternalPair(path.join(project, 'src', 'ext'), path.join(project, 'dist-external'));
  checkCopies(path.join(project, 'dist-external', 'm.onnx'), ['gzip']);
  checkCopies(path.join(project, 'dist-external', 'm.onnx.data'), ['gzip']);
  const shared = build('./src/shared.js', 'dist-shared', '[name][ext]');
  assert.equal(shared.errors.length, 1);
  assert.match(shared.errors[0], /m2?\.onnx\): 'm\.onnx\.data' holds the weights of another model of this build too/);
  // One of them left alone would load the other's rewritten weights: refused too, naming both.
  const alone = build('./src/shared.js', 'dist-alone', '[name][ext]', '', '{"m2.onnx": false}');
  assert.deepEqual(alone.errors, ["onnx-shrink: m2.onnx is left alone (files: false), but its weights are in 'm.onnx.data', which this build " +
                                  'rewrote for another model: shrink models that share a data file with the CLI, or give each its own']);
});

test('a fresh esbuild project bundles with the plugin: imported models shrunk with the build\'s loader, errors name the file', async () => {
  const project = path.join(app, 'esbuild-site');
  mkdirSync(path.join(project, 'src', 'models'), { recursive: true });
  copyFileSync(path.join(fixtures, 'silero_vad_v5.onnx'), path.join(project, 'src', 'models', 'vad.onnx'));
  writeFileSync(path.join(project, 'src', 'broken.onnx'), 'not a model');
  writeFileSync(path.join(project, 'src', 'index.js'), "import url from './models/vad.onnx'; console.log(url);");
  writeFileSync(path.join(project, 'src', 'broken.js'), "import url from './broken.onnx'; console.log(url);");
  writeFileSync(path.join(project, 'build.mjs'), `
    import * as esbuild from 'esbuild';
    import onnxShrink from 'onnx-shrink/esbuild';
    const [entry, loader, precompress, out = 'out-' + loader] = process.argv.slice(2);
    const options = { files: { 'models/vad.onnx': { scheme: 'channel' } }, ...(precompress ? { precompress: JSON.parse(precompress) } : {}) };
    try {
      const r = await esbuild.build({ entryPoints: [entry], bundle: true, outdir: out, metafile: true, logLevel: 'silent',
                                      loader: { '.onnx': loader }, plugins: [onnxShrink(options)] });
      console.log(JSON.stringify({ outputs: Object.keys(r.metafile.outputs) }));
    } catch (e) { console.log(JSON.stringify({ errors: e.errors.map((x) => x.text) })); }`);
  const build = (...args) => JSON.parse(execFileSync(process.execPath, ['build.mjs', ...args], { cwd: project, encoding: 'utf8' }));
  const { shrink } = await import(path.join(root, 'bindings', 'js', 'index.node.js'));
  const expected = Buffer.from((await shrink(readFileSync(path.join(fixtures, 'silero_vad_v5.onnx')), { scheme: 'channel' })).model);
  const emitted = build('src/index.js', 'file').outputs.filter((f) => f.endsWith('.onnx'));
  assert.equal(emitted.length, 1);
  assert.ok(expected.equals(readFileSync(path.join(project, emitted[0]))), 'the emitted model is shrunk with its per-file options');
  assert.deepEqual(compressedIn(path.join(project, 'out-file')), []);
  // precompress: copies beside the emitted model, under its hashed name.
  const withCopies = build('src/index.js', 'file', '["br","gzip"]', 'out-precompress').outputs.filter((f) => f.endsWith('.onnx'));
  assert.deepEqual(withCopies.map((f) => path.basename(f)), emitted.map((f) => path.basename(f)));
  checkCopies(path.join(project, withCopies[0]), ['br', 'gzip']);
  assert.equal(compressedIn(path.join(project, 'out-precompress')).length, 2);
  build('src/index.js', 'binary', '["br","gzip"]');  // inlined into the bundle as base64: no file to compress
  assert.deepEqual(compressedIn(path.join(project, 'out-binary')), []);
  assert.ok(readFileSync(path.join(project, 'out-binary', 'index.js'), 'utf8').includes(expected.toString('base64')), 'the inlined model is shrunk');
  const bad = build('src/broken.js', 'file');
  assert.deepEqual(bad.errors.length, 1);
  assert.match(bad.errors[0], /^src\/broken\.onnx: not an ONNX model/);
});
