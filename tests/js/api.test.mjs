// The JS API (WebAssembly engine) in Node: results, errors, options, inputs, and byte-identical
// output with the native build on every fixture.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import fsPromises from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { expand, fileSource, inspect, OnnxShrinkError, shrink, version, wasmMemory } from '../../bindings/js/index.node.js';
import { createOnnxTransform } from '../../bindings/js/vite.js';
import { tempDir } from './temp_dir.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const fixtures = path.join(root, 'tests', 'fixtures');
const native = process.env.ONNX_SHRINK_CLI || path.join(root, 'build', 'onnx-shrink');
const silero = readFileSync(path.join(fixtures, 'silero_vad_v5.onnx'));

// Every fixture: the two real models and the synthetic ones of the Python tests.
const synthetic = tempDir('models');
const made = spawnSync('/usr/bin/python3', [path.join(root, 'tests', 'python', 'models.py'), synthetic]);
assert.equal(made.status, 0, String(made.stderr));
const models = [path.join(fixtures, 'silero_vad_v5.onnx'), path.join(fixtures, 'ch_PP-OCRv4_det_infer.onnx'),
                ...readdirSync(synthetic).map((f) => path.join(synthetic, f))];

const MODES = {
  int8: { cli: [], js: {} },
  channel: { cli: ['--scheme', 'channel'], js: { scheme: 'channel' } },
  tensor: { cli: ['--scheme', 'tensor'], js: { scheme: 'tensor' } },
  block32: { cli: ['--block', '32'], js: { block: 32 } },
  palette: { cli: ['--mode', 'palette'], js: { mode: 'palette' } },
  palette64: { cli: ['--mode', 'palette', '--levels', '64', '--scheme', 'kmeans'], js: { mode: 'palette', levels: 64, scheme: 'kmeans' } },
  uniform: { cli: ['--mode', 'palette', '--scheme', 'uniform'], js: { mode: 'palette', scheme: 'uniform' } },
  bits8: { cli: ['--bits', '8'], js: { bits: 8 } },
  bits10: { cli: ['--bits', '10'], js: { bits: 10 } },
  bits12Small: { cli: ['--bits', '12', '--small', 'fp16'], js: { bits: 12, small: 'fp16' } },
  keep: { cli: ['--small', 'keep'], js: { small: 'keep' } },
  bits4: { cli: ['--bits', '4'], js: { bits: 4 } },
  bits2Channel: { cli: ['--bits', '2', '--scheme', 'channel'], js: { bits: 2, scheme: 'channel' } },
};

test('wasm output is byte-identical to the native build on every fixture and mode', async () => {
  const out = tempDir('native');
  let compared = 0;
  for (const model of models) {
    for (const [name, mode] of Object.entries(MODES)) {
      const target = path.join(out, `${path.basename(model)}.${name}.onnx`);
      const p = spawnSync(native, [model, '-o', target, '-q', ...mode.cli]);
      assert.equal(p.status, 0, `${model} ${name}: ${p.stderr}`);
      const { model: bytes } = await shrink(readFileSync(model), mode.js);
      assert.ok(Buffer.from(bytes).equals(readFileSync(target)), `${path.basename(model)} ${name}: wasm and native differ`);
      compared++;
    }
  }
  assert.equal(compared, models.length * Object.keys(MODES).length);
  assert.ok(models.length >= 16);
});

test('shrink, inspect and expand', async () => {
  // One version, package.json's: CMakeLists.txt reads it into the engine.
  assert.equal(await version(), JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version);
  const { model, report, externalData } = await shrink(silero);
  assert.ok(model instanceof Uint8Array);
  assert.equal(externalData, undefined);
  assert.equal(report.totals.tensorsChanged, 12);
  assert.equal(report.totals.modelBytesAfter, model.byteLength);
  assert.ok(model.byteLength < silero.byteLength * 0.4);
  const inspected = await inspect(silero);
  assert.equal(inspected.totals.modelBytesAfter, model.byteLength);
  assert.deepEqual(inspected.tensors.map((t) => t.sqnrDb), report.tensors.map((t) => t.sqnrDb));
  let expandReport = null;
  const expanded = await expand(model, { onReport: (r) => (expandReport = r) });
  // Back to float tensors of the original sizes (give or take the names of new nodes): the 12
  // large ones and the small ones stored as float16.
  assert.equal(expandReport.tensorsChanged ?? expandReport.totals.tensorsChanged, 12 + report.totals.smallTensorsFp16);
  // The report names the small tensors it stored as float16: expand() turns each back.
  assert.equal(report.float16Tensors.length, report.totals.smallTensorsFp16);
  const expandedNames = new Set(expandReport.tensors.map((t) => `${t.graph} ${t.name}`));
  for (const t of report.float16Tensors) assert.ok(expandedNames.has(`${t.graph} ${t.name}`), `${t.graph} ${t.name}`);
  assert.ok(Math.abs(expanded.byteLength - silero.byteLength) < 150 * expandReport.totals.tensorsChanged);
  assert.equal(expandReport.mode, 'expand');
  assert.equal(expandReport.unchanged, false);
  let plainReport = null;
  await expand(silero, { onReport: (r) => (plainReport = r) });  // never shrunk: nothing to expand
  assert.equal(plainReport.unchanged, true);
  assert.match(plainReport.summary, /Nothing to expand/);
  // ArrayBuffer, views and readers give the same result as a Uint8Array.
  const buffer = silero.buffer.slice(silero.byteOffset, silero.byteOffset + silero.byteLength);
  assert.ok(Buffer.from((await shrink(buffer)).model).equals(Buffer.from(model)));
  const reader = { size: silero.byteLength, read: (o, n) => silero.subarray(o, o + n) };
  assert.ok(Buffer.from((await shrink(reader)).model).equals(Buffer.from(model)));
  const file = fileSource(path.join(fixtures, 'silero_vad_v5.onnx'));
  assert.ok(Buffer.from((await shrink(file)).model).equals(Buffer.from(model)));
  file.close();
  assert.throws(() => fileSource('/nonexistent/m.onnx'),
                (e) => e instanceof OnnxShrinkError && e.code === 'IO' && /^cannot read '\/nonexistent\/m\.onnx': ENOENT/.test(e.message));
  // onModelData: the same bytes in pieces, in order, and no array in the result.
  const pieces = [];
  const streamed = await shrink(silero, { onModelData: (c) => pieces.push(c) });
  assert.equal(streamed.model.byteLength, 0);
  assert.ok(pieces.length > 1);
  assert.ok(Buffer.concat(pieces).equals(Buffer.from(model)));
  const expandedPieces = [];
  await expand(model, { onModelData: (c) => expandedPieces.push(c) });
  assert.ok(Buffer.concat(expandedPieces).equals(Buffer.from(expanded)));
  // chunks: 'view': the same bytes, each piece a view into the engine's memory (a part of a larger
  // buffer, not an array of its own), copied here before the callback returns.
  for (const [run, whole] of [[(o) => shrink(silero, o), model], [(o) => expand(model, o), expanded]]) {
    const copies = [];
    let views = 0;
    await run({ chunks: 'view', onModelData: (c) => {
      views += c.byteLength < c.buffer.byteLength ? 1 : 0;
      copies.push(Buffer.from(c));
    } });
    assert.equal(views, copies.length);
    assert.ok(copies.length > 1);
    assert.ok(Buffer.concat(copies).equals(Buffer.from(whole)));
  }
});

test('errors carry a code and a message that says what is wrong', async () => {
  const expectError = async (promise, code, words) => {
    await assert.rejects(promise, (e) => {
      assert.ok(e instanceof OnnxShrinkError);
      assert.equal(e.code, code);
      assert.match(e.message, words);
      return true;
    });
  };
  await expectError(shrink(new Uint8Array([0x3c, 0x68, 0x74, 0x6d, 0x6c])), 'NOT_ONNX', /not an ONNX model/);
  await expectError(shrink(silero.subarray(0, silero.byteLength / 2)), 'TRUNCATED', /ends/);
  await expectError(shrink(silero, { levels: 'many' }), 'BAD_OPTION', /levels/);
  await expectError(shrink(silero, { levels: 16 }), 'BAD_OPTION', /^levels applies to palette mode, not int8 mode$/);  // as the CLI says
  // A tensor's bits above 8 in the DequantizeLinear form: 8, saying why.
  const conv = 'If_0_else_branch__Inline_0__encoder.1.reparam_conv.weight';
  const dq = (await inspect(silero, { form: 'dq', tensorBits: { [conv]: 10 } })).tensors.find((t) => t.name === conv);
  assert.deepEqual([dq.bits, dq.reason], [8, '8 bits: DequantizeLinear takes 8-bit codes']);
  await expectError(shrink(silero, { bogus: 1 }), 'BAD_OPTION', /unknown option 'bogus'/);
  await expectError(shrink(silero, { externalData: 'external' }), 'BAD_OPTION', /externalData: 'external' needs externalLocation, the data file's name/);
  // Weights that are Constant nodes' values stay in their nodes: said, not silently inline.
  const constants = await shrink(silero, { externalData: 'external', externalLocation: 'v.onnx.data' });
  assert.equal(constants.externalData, undefined);
  assert.match(constants.report.summary, /No tensor went to external data: the model's weights are Constant nodes' values/);
  await expectError(shrink(silero, { minElements: -1 }), 'BAD_OPTION', /option 'minElements' should be a whole number of 0 or more, not -1/);
  await expectError(shrink(silero, { mode: 'palette', levels: 1 }), 'BAD_OPTION', /between 2 and 65536/);
  await expectError(shrink(silero, { mode: 'palette', levels: 2 ** 32 + 256 }), 'BAD_OPTION', /levels' should be at most 4294967295/);
  await expectError(shrink(silero, { bits: 11 }), 'BAD_OPTION', /bits must be auto, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12 or 16 \(got 11\)/);
  await expectError(shrink(silero, { tensorBits: { nothing: 4 } }), 'BAD_OPTION', /tensor bits: the model has no float tensor named 'nothing'/);
  // Names are the model's: a typo is an error, not an option that does nothing (op types are not checked).
  await expectError(shrink(silero, { exclude: ['nothing'] }), 'BAD_OPTION', /exclude: the model has no float tensor named 'nothing'/);
  await expectError(shrink(silero, { mode: 'palette', excludeNodes: ['nothing'] }), 'BAD_OPTION', /exclude nodes: the model has no node named 'nothing'/);
  assert.ok((await shrink(silero, { excludeOps: ['NoSuchOp'] })).report.tensors.some((t) => t.changed));
  await expectError(shrink(silero, { tensorBits: { 'If_0_then_branch__Inline_0__decoder.rnn.weight_hh': 11 } }), 'BAD_OPTION',
                    /tensorBits for 'If_0_then_branch__Inline_0__decoder\.rnn\.weight_hh': bits must be auto, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12 or 16, not 11/);
  await expectError(shrink(silero, { mode: 'palette', tensorBits: { nothing: 4 } }), 'BAD_OPTION', /tensor bits apply to int8 mode; palette mode takes levels/);
  await expectError(shrink(silero, { tensorBits: { nothing: 'four' } }), 'BAD_OPTION', /tensorBits for 'nothing': bits must be auto, 2, .* or 16, not "four"/);
  await expectError(shrink(silero, { bits: 'many' }), 'BAD_OPTION', /option 'bits' should be 'auto' or a number/);
  await expectError(shrink(silero, { bits: 10, form: 'dq' }), 'BAD_OPTION', /bits above 8 need the fold form/);
  await expectError(shrink(silero, { bits: 9, scheme: 'tensor' }), 'BAD_OPTION', /original tool's 8-bit formula/);
  await expectError(shrink(silero, { mode: 'palette', bits: 8 }), 'BAD_OPTION', /bits applies to int8 mode/);
  await expectError(shrink(silero, { mode: 'palette', small: 'fp16' }), 'BAD_OPTION', /small applies to int8 mode/);
  await expectError(shrink(silero, { small: 'half' }), 'BAD_OPTION', /small must be 'auto', 'fp16' or 'keep'/);
  await expectError(shrink(null), 'BAD_OPTION', /no model/);
  // A file name is not read as one: the error says what reads a file (in Node) or a URL (elsewhere).
  await expectError(shrink('model.onnx'), 'BAD_OPTION',
                    /^the model was given as a string, 'model\.onnx', which onnx-shrink does not open: to read a file, pass fileSource\('model\.onnx'\) instead \(import \{ fileSource \} from 'onnx-shrink'\)$/);
  await expectError(inspect('models/m.onnx'), 'BAD_OPTION', /fileSource\('models\/m\.onnx'\)/);
  await expectError(shrink(silero, { external: { 'm.onnx.data': 'm.onnx.data' } }), 'BAD_OPTION',
                    /^the external data 'm\.onnx\.data' was given as a string, .*pass fileSource\('m\.onnx\.data'\) instead/);
  const browser = await import('../../bindings/js/index.js');  // fails before it would fetch the engine
  await expectError(browser.shrink('model.onnx'), 'BAD_OPTION', /to load it from a URL, pass fetch\('model\.onnx'\) instead$/);
  // Numbers past what the engine holds exactly are refused, not wrapped around into small ones.
  await expectError(shrink(silero, { minElements: 1e20 }), 'BAD_OPTION', /'minElements' should be at most 9007199254740991, not 100000000000000000000/);
  assert.equal((await shrink(silero, { minElements: 2 ** 32 + 5 })).report.unchanged, true);
  await expectError(shrink(silero, { exclude: 'x' }), 'BAD_OPTION', /'exclude' should be an array, not string/);
  await expectError(shrink(silero, { onProgress: 5 }), 'BAD_OPTION', /'onProgress' should be a function, not number/);
  await expectError(shrink(silero, { signal: true }), 'BAD_OPTION', /'signal' should be an AbortSignal/);
  await expectError(expand(silero, { chunks: 'views' }), 'BAD_OPTION', /^chunks must be 'copy' or 'view', not "views"$/);
  await expectError(shrink(silero, 5), 'BAD_OPTION', /the options should be an object, not number/);
  await expectError(shrink({ size: 10.5, read: () => silero }), 'BAD_OPTION', /the model's reader has size 10.5: it should be a whole number of bytes, below 2\^53/);
  assert.equal((await shrink(silero, null)).report.mode, 'int8');  // null: the defaults
  const det = readFileSync(path.join(fixtures, 'ch_PP-OCRv4_det_infer.onnx'));
  await expectError(shrink(det, { form: 'dq' }), 'UNSUPPORTED', /^the dq form: DequantizeLinear per channel needs opset 13, .* Use the fold form \(the default\)/);  // in words for the API and the CLI
  // The build-tool hook says which file failed, with the engine's code.
  const transform = createOnnxTransform();
  await expectError(transform('assets/page.onnx', new Uint8Array([0x3c, 0x68])), 'NOT_ONNX', /^assets\/page\.onnx: not an ONNX model/);
  // ... by its source's name too, when the emitted name is a hash.
  await expectError(transform('3f2a9c.onnx', new Uint8Array([0x3c, 0x68]), ['src/models/page.onnx']), 'NOT_ONNX',
                    /^src\/models\/page\.onnx \(3f2a9c\.onnx\): not an ONNX model/);
  // The engine still works after an error.
  assert.equal((await shrink(silero)).report.totals.tensorsChanged, 12);
});

test('the build-tool hook: per-file options match the emitted name or a source name', async () => {
  const logged = [];
  const transform = createOnnxTransform({ mode: 'palette', log: (m) => logged.push(m),
                                          files: { 'models/vad.onnx': { mode: 'int8' }, 'skip.onnx': false } });
  assert.equal(await transform('vad.json', silero), null, 'only .onnx files');
  assert.deepEqual(['a.onnx', 'B.ONNX', 'a.js', 'a.onnx.data'].map(transform.accepts), [true, true, false, false]);
  assert.equal(await transform('assets/skip.onnx', silero), null);
  assert.equal(await transform('a1b2.onnx', silero, ['src/skip.onnx']), null, 'by its source name');
  const int8 = await transform('a1b2.onnx', silero, ['src/models/vad.onnx']);
  assert.ok(Buffer.from(int8).equals((await shrink(silero)).model), 'the per-file options of the source name');
  const palette = await transform('assets/vad-a1b2.onnx', silero, ['other/vad.onnx']);
  assert.ok(Buffer.from(palette).equals((await shrink(silero, { mode: 'palette' })).model), 'a name ending must match whole folders');
  // The log names the source (webpack renames the emitted file after); palette keeps the raw size.
  assert.deepEqual(logged, [`src/models/vad.onnx: ${silero.byteLength} -> ${int8.byteLength} bytes (2.8× smaller)`,
                            `other/vad.onnx: ${silero.byteLength} -> ${palette.byteLength} bytes (same size, smaller by gzip and brotli)`]);
  // The same model and options again (a watch mode rebuild): the same bytes, shrunk once.
  assert.ok(Buffer.from(await transform('a1b2.onnx', silero, ['src/models/vad.onnx'])).equals(Buffer.from(int8)));
  assert.equal(logged.length, 2);
  assert.equal(transform.unmatched().length, 0);
});

test('the build-tool hook: a model with external data keeps its layout, both files shrunk', async () => {
  const dir = tempDir('hook-external');
  assert.equal(spawnSync('/usr/bin/python3', [path.join(root, 'bench', 'make_model.py'), '12', path.join(dir, 'm.onnx'), '--external', '--sum']).status, 0);
  const model = readFileSync(path.join(dir, 'm.onnx')), data = readFileSync(path.join(dir, 'm.onnx.data'));
  const logged = [], writes = [];
  const transform = createOnnxTransform({ log: (m) => logged.push(m) });
  const siblings = { read: (location) => (location === 'm.onnx.data' ? data : undefined), write: (location, bytes) => writes.push([location, bytes]) };
  const out = await transform('models/m.onnx', model, [], siblings);
  const expected = await shrink(model, { external: { 'm.onnx.data': data }, externalData: 'external', externalLocation: 'm.onnx.data' });
  assert.ok(Buffer.from(out).equals(expected.model), 'the model, pointing at m.onnx.data');
  assert.equal(writes.length, 1);
  assert.equal(writes[0][0], 'm.onnx.data');
  assert.ok(Buffer.from(writes[0][1]).equals(expected.externalData), 'the data file, shrunk');
  assert.ok(expected.externalData.byteLength < data.byteLength / 3);
  assert.match(logged[0], new RegExp(`^models/m\\.onnx: ${model.byteLength} -> ${out.byteLength} bytes \\+ ${data.byteLength} -> ${expected.externalData.byteLength} in m\\.onnx\\.data$`));
  // Without siblings (esbuild), or with the data file missing: an error that says what to do.
  await assert.rejects(transform('m.onnx', model), { code: 'EXTERNAL_DATA_MISSING', message: /^m\.onnx: .*m\.onnx\.data.*shrink this one with the CLI, or leave it alone/ });
  await assert.rejects(transform('m.onnx', model, [], { read: () => undefined, write: () => assert.fail('nothing to write') }),
                       { code: 'EXTERNAL_DATA_MISSING' });
  // A self-contained model writes no data file.
  await transform('silero.onnx', silero, [], { read: () => assert.fail('no data file to read'), write: () => assert.fail('no data file to write') });
});

test('a fetch Response, or a promise of one, is a model; a failed download is an IO error, not a model', async () => {
  const expected = (await shrink(silero)).model;
  assert.ok(Buffer.from((await shrink(new Response(silero))).model).equals(expected));
  assert.ok(Buffer.from((await shrink(Promise.resolve(new Response(silero)))).model).equals(expected), 'shrink(fetch(url))');
  assert.equal((await inspect(new Response(new Blob([silero])))).totals.tensorsChanged, 12);
  assert.ok(Buffer.from(await expand(new Response(expected))).byteLength > expected.byteLength);
  await assert.rejects(shrink(new Response('<h1>Not here</h1>', { status: 404, statusText: 'Not Found' })),
                       { code: 'IO', message: /the model's download failed: HTTP 404 Not Found/ });
  // A download that fails before any response (fetch rejects): an IO error too, in every call.
  for (const call of [shrink, inspect, expand]) {
    await assert.rejects(call(Promise.reject(new TypeError('fetch failed'))),
                         (e) => e instanceof OnnxShrinkError && e.code === 'IO' && e.message === 'the model could not be read: fetch failed');
  }
  const used = new Response(silero);
  await used.arrayBuffer();
  await assert.rejects(shrink(used), { code: 'BAD_OPTION', message: /Response body was already read/ });
  await assert.rejects(shrink(Promise.reject(new TypeError('fetch failed'))), /fetch failed/);
  // External data by name may be a Response too.
  const dir = tempDir('response');
  assert.equal(spawnSync('/usr/bin/python3', [path.join(root, 'bench', 'make_model.py'), '20', path.join(dir, 'm.onnx'), '--external']).status, 0);
  const model = readFileSync(path.join(dir, 'm.onnx'));
  const data = readFileSync(path.join(dir, 'm.onnx.data'));
  const viaResponse = await shrink(model, { external: { 'm.onnx.data': new Response(data) } });
  assert.ok(Buffer.from(viaResponse.model).equals((await shrink(model, { external: { 'm.onnx.data': data } })).model));
});

test('a callback that throws (a reader, onModelData, onProgress, external) stops the run with its error named, and the engine goes on', async () => {
  const boom = new Error('disk on fire');
  const failingReader = (after) => ({ size: silero.byteLength, read: (offset, length) => {
    if (offset >= after) throw boom;
    return silero.subarray(offset, offset + length);
  } });
  await assert.rejects(shrink(failingReader(400000)), (e) => e instanceof OnnxShrinkError && e.code === 'IO' &&
                       e.message === 'reading the model failed: disk on fire' && e.cause === boom);
  await assert.rejects(shrink(silero, { onModelData: () => { throw boom; } }),
                       { code: 'IO', message: 'writing the model failed: disk on fire' });
  await assert.rejects(shrink(silero, { onProgress: () => { throw boom; } }), (e) => e === boom, 'a user callback\'s own error');
  const dir = tempDir('throwing-external');
  assert.equal(spawnSync('/usr/bin/python3', [path.join(root, 'bench', 'make_model.py'), '5', path.join(dir, 'm.onnx'), '--external']).status, 0);
  await assert.rejects(shrink(readFileSync(path.join(dir, 'm.onnx')), { external: () => { throw boom; } }),
                       { code: 'IO', message: 'finding external data failed: disk on fire' });
  // An external function answers at once: a promise or (outside a Web Worker) a Blob is refused in words.
  const m = readFileSync(path.join(dir, 'm.onnx')), data = readFileSync(path.join(dir, 'm.onnx.data'));
  await assert.rejects(shrink(m, { external: async () => data }), { code: 'BAD_OPTION', message: /came as a promise: an external function must answer at once/ });
  await assert.rejects(shrink(m, { external: () => new Blob([data]) }), { code: 'BAD_OPTION', message: /\(a Blob only in a Web Worker\)/ });
  const viaReader = await shrink(m, { external: () => ({ size: data.byteLength, read: (o, l) => data.subarray(o, o + l) }) });
  assert.ok(Buffer.from(viaReader.model).equals((await shrink(m, { external: { 'm.onnx.data': data } })).model));
  // Runs that fail halfway give their memory back: many of them do not grow the module.
  await shrink(silero);
  const before = await wasmMemory();
  for (let i = 0; i < 60; i++) await assert.rejects(shrink(failingReader(1500000)), { code: 'IO' });
  assert.equal(await wasmMemory(), before);
  assert.equal((await shrink(silero)).report.totals.tensorsChanged, 12);
});

test('progress and cancelling', async () => {
  const seen = [];
  await shrink(silero, { onProgress: (f, stage) => void seen.push([f, stage]) });
  assert.ok(seen.length > 3);
  const writing = seen.filter(([, s]) => s === 'writing').map(([f]) => f);
  assert.deepEqual(writing, [...writing].sort((a, b) => a - b));
  assert.equal(writing.at(-1), 1);
  await assert.rejects(shrink(silero, { onProgress: () => false }), { code: 'CANCELLED' });
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(shrink(silero, { signal: controller.signal }), { code: 'CANCELLED' });
});

test('external data in, by name and by function, and out', async () => {
  const dir = tempDir('external');
  const made = spawnSync('/usr/bin/python3', [path.join(root, 'bench', 'make_model.py'), '20', path.join(dir, 'm.onnx'), '--external', '--sum']);
  assert.equal(made.status, 0, String(made.stderr));
  const model = readFileSync(path.join(dir, 'm.onnx'));
  const data = readFileSync(path.join(dir, 'm.onnx.data'));
  await assert.rejects(shrink(model), { code: 'EXTERNAL_DATA_MISSING', message: /m\.onnx\.data/ });
  const byName = await shrink(model, { external: { 'm.onnx.data': data } });
  const byFunction = await shrink(model, { external: (name) => (name === 'm.onnx.data' ? data : undefined) });
  assert.ok(Buffer.from(byName.model).equals(Buffer.from(byFunction.model)));
  // The report names the data files the model refers to; another file given is not among them.
  const withStray = await shrink(model, { external: { 'm.onnx.data': data, 'notes.txt': new Uint8Array(10) } });
  assert.deepEqual(withStray.report.externalFiles, ['m.onnx.data']);
  assert.deepEqual(byFunction.report.externalFiles, ['m.onnx.data']);
  assert.deepEqual((await shrink(silero)).report.externalFiles, []);
  assert.equal(byName.externalData, undefined);  // auto: the result fits inline
  assert.ok(byName.model.byteLength < data.byteLength * 0.3);
  const chunks = [];
  const split = await shrink(model, { external: { 'm.onnx.data': data }, externalData: 'external', externalLocation: 'out.data',
                                      onExternalData: (c) => chunks.push(c) });
  const total = chunks.reduce((n, c) => n + c.byteLength, 0);
  assert.equal(total, split.report.totals.externalBytesAfter);
  assert.ok(split.model.byteLength < 20000);
  writeFileSync(path.join(dir, 'out.onnx'), split.model);
  writeFileSync(path.join(dir, 'out.data'), Buffer.concat(chunks));
  // Shrinking the result again changes no tensor; auto brings the data back inline.
  const again = await shrink(readFileSync(path.join(dir, 'out.onnx')), { external: { 'out.data': readFileSync(path.join(dir, 'out.data')) } });
  assert.equal(again.report.totals.tensorsChanged, 0);
  assert.equal(again.externalData, undefined);
  assert.ok(Math.abs(again.model.byteLength - (split.model.byteLength + total)) < 0.05 * total);
  // onnxruntime reads the split model with its data file and computes what the inline one does.
  const ort = (await import('onnxruntime-node')).default;
  writeFileSync(path.join(dir, 'inline.onnx'), byName.model);
  const x = new ort.Tensor('float32', Float32Array.from({ length: 1024 }, (_, i) => Math.sin(i)), [1, 1024]);
  const a = await (await ort.InferenceSession.create(path.join(dir, 'out.onnx'))).run({ x });
  const b = await (await ort.InferenceSession.create(path.join(dir, 'inline.onnx'))).run({ x });
  assert.deepEqual(Array.from(a.y.data), Array.from(b.y.data));
  // ... and what the original (read with its own data file) computes, to 8-bit accuracy.
  const o = await (await ort.InferenceSession.create(path.join(dir, 'm.onnx'))).run({ x });
  let num = 0, den = 0;
  o.y.data.forEach((v, i) => { num += (v - b.y.data[i]) ** 2; den += v * v; });
  assert.ok(Math.sqrt(num / den) < 0.02, `relative L2 ${Math.sqrt(num / den)}`);
});

test('openForRuntime: a session on the expanded model (or, with expand: false, on the shrunk bytes), from bytes or a Response', async () => {
  const ort = (await import('onnxruntime-node')).default;
  const { openForRuntime } = await import('../../bindings/js/index.node.js');
  const { model } = await shrink(silero);
  const feeds = () => ({
    input: new ort.Tensor('float32', Float32Array.from({ length: 512 }, (_, i) => 0.3 * Math.sin(i / 5)), [1, 512]),
    state: new ort.Tensor('float32', new Float32Array(256), [2, 1, 128]),
    sr: new ort.Tensor('int64', BigInt64Array.from([16000n]), []),
  });
  const probability = async (session) => (await session.run(feeds())).output.data[0];
  const expected = await probability(await ort.InferenceSession.create(await expand(model)));
  const direct = await probability(await ort.InferenceSession.create(model));
  // Expanding computes what onnxruntime's folding computes: the same outputs, bit for bit.
  assert.equal(expected, direct);
  assert.equal(await probability(await openForRuntime(ort, model)), expected);
  assert.equal(await probability(await openForRuntime(ort, Promise.resolve(new Response(model)))), expected);
  assert.equal(await probability(await openForRuntime(ort, model.buffer.slice(model.byteOffset, model.byteOffset + model.byteLength), { expand: false })), expected);
  assert.equal(await probability(await openForRuntime(ort, new Response(model), { expand: false })), expected);
  const original = await probability(await ort.InferenceSession.create(silero));
  assert.ok(Math.abs(expected - original) < 0.02, `${expected} against the original's ${original}`);
  // Errors say what is wrong.
  await assert.rejects(openForRuntime({}, model), (e) => e.code === 'BAD_OPTION' && /onnxruntime as its first argument/.test(e.message));
  await assert.rejects(openForRuntime(ort, model, { expand: 'yes' }), (e) => e.code === 'BAD_OPTION' && /'expand' should be a boolean/.test(e.message));
  await assert.rejects(openForRuntime(ort, new Response('', { status: 404 }), { expand: false }), (e) => e.code === 'IO' && /HTTP 404/.test(e.message));
  await assert.rejects(openForRuntime(ort, new Uint8Array([1, 2, 3]), { expand: true }), (e) => e instanceof OnnxShrinkError && e.code !== 'INTERNAL');
  const cancelled = new AbortController();
  cancelled.abort();
  await assert.rejects(openForRuntime(ort, model, { expand: false, signal: cancelled.signal }), (e) => e.code === 'CANCELLED');
  // Handed over unread, bytes onnxruntime refuses are named by the engine, as on the expand() path.
  await assert.rejects(openForRuntime(ort, new Uint8Array(1000).fill(7)), { code: 'NOT_ONNX', message: /^not an ONNX model: .*\(at byte 0\)$/ });
  await assert.rejects(openForRuntime(ort, model.subarray(0, 100000)), { code: 'TRUNCATED' });
  // A misspelt option is refused whichever path the model takes; so are expand()'s output options.
  await assert.rejects(openForRuntime(ort, model, { sesionOptions: {} }), { code: 'BAD_OPTION', message: /^unknown option 'sesionOptions': openForRuntime\(\) takes .*'sessionOptions'$/ });
  await assert.rejects(openForRuntime(ort, model, { chunks: 'view' }), { code: 'BAD_OPTION', message: /^openForRuntime\(\) does not take option 'chunks'/ });
  await assert.rejects(openForRuntime(ort, { then: (_, no) => no(new TypeError('fetch failed')) }), { code: 'IO', message: 'the model could not be read: fetch failed' });
});

test('values that set a shape (Resize scales) are kept exact, even when every tensor is asked to shrink', async () => {
  const ort = (await import('onnxruntime-node')).default;
  const det = readFileSync(path.join(fixtures, 'ch_PP-OCRv4_det_infer.onnx'));
  const { model, report } = await shrink(det, { minElements: 1 });
  const kept = report.tensors.filter((t) => /sets an output's shape/.test(t.reason ?? ''));
  // PP-OCR det's six upsampling Resize nodes, each with its scales [1, 1, 2, 2] (8-bit codes made them 0.998 and 2.002).
  assert.equal(kept.length, 6);
  for (const t of kept) {
    assert.equal(t.changed, false);
    assert.equal(t.reason, "it sets an output's shape: kept exact");
    assert.deepEqual(t.consumers, ['Resize']);
  }
  assert.ok(report.totals.tensorsChanged > 300);
  // The model loads and runs: before, onnxruntime refused it (Add: incompatible dimensions).
  const session = await ort.InferenceSession.create(model);
  const x = new ort.Tensor('float32', new Float32Array(3 * 64 * 64).fill(0.5), [1, 3, 64, 64]);
  const out = await session.run({ x });
  assert.deepEqual(Object.values(out)[0].dims, [1, 1, 64, 64]);
});

test('expand() refuses the options it would ignore, and views used after their callback returns', async () => {
  const { model } = await shrink(silero);
  await assert.rejects(expand(model, { mode: 'palette' }), { code: 'BAD_OPTION', message: /^expand\(\) does not take option 'mode'; it takes 'external', .*'chunks'$/ });
  await assert.rejects(expand(model, { bits: 4 }), { code: 'BAD_OPTION', message: /does not take option 'bits'/ });
  await assert.rejects(expand(model, { mdoe: 'palette' }), { code: 'BAD_OPTION', message: /^unknown option 'mdoe': expand\(\) takes/ });
  // An async onModelData with views would write chunks the engine has already overwritten.
  await assert.rejects(expand(model, { chunks: 'view', onModelData: async () => {} }), { code: 'BAD_OPTION', message: /^onModelData returned a promise, but with chunks: 'view'/ });
  await assert.rejects(shrink(silero, { chunks: 'view', onModelData: () => Promise.resolve() }), { code: 'BAD_OPTION', message: /^onModelData returned a promise/ });
  // Copies may be kept: a promise is fine there.
  const kept = [];
  await expand(model, { onModelData: async (chunk) => void kept.push(chunk) });
  assert.ok(Buffer.concat(kept).equals(await expand(model)));
  // A promise is waited for before the next chunk, and the call resolves after the last: fs/promises'
  // write() at the file's position (its writes, not waited for, once landed out of order).
  const file = path.join(tempDir('async-chunks'), 'expanded.onnx');
  const handle = await fsPromises.open(file, 'w');
  let writing = 0, most = 0;
  await expand(model, { onModelData: async (chunk) => {
    most = Math.max(most, ++writing);
    await handle.write(chunk);
    writing--;
  } });
  await handle.close();
  assert.equal(most, 1);
  assert.ok(readFileSync(file).equals(await expand(model)));
  // A run cancelled halfway gives no chunk after it rejects (a caller closes its file then).
  let given = 0, late = 0, rejected = false;
  await assert.rejects(shrink(silero, { onModelData: async () => { given++; if (rejected) late++; await new Promise((r) => setImmediate(r)); },
                                        onProgress: (f, stage) => !(stage === 'writing' && f > 0.5) }), { code: 'CANCELLED' });
  rejected = true;
  for (let turn = 0; turn < 20; turn++) await new Promise((r) => setImmediate(r));  // the turns queued chunks would take (one each), no timer
  assert.ok(given >= 1);
  assert.equal(late, 0);
  // A rejection fails the call (IO, the original as its cause), and the process goes on.
  const full = new Error('disk full');
  await assert.rejects(expand(model, { onModelData: async () => { throw full; } }),
                       (e) => e.code === 'IO' && e.message === 'writing the model failed: disk full' && e.cause === full);
});

test('an engine file that cannot be read or started is an OnnxShrinkError naming where it came from', () => {
  const script = `
    import { env, version } from ${JSON.stringify(path.join(root, 'bindings', 'js', 'index.node.js'))};
    const out = [];
    env.wasmPath = '/no/such/onnx-shrink.wasm';
    await version().catch((e) => out.push([e.name, e.code, e.message]));
    env.wasmPath = undefined;
    env.wasmBinary = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 5]);
    await version().catch((e) => out.push([e.name, e.code, e.message]));
    env.wasmBinary = undefined;
    out.push(await version());
    console.log(JSON.stringify(out));`;
  const p = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(p.status, 0, p.stderr);
  const [missing, broken, recovered] = JSON.parse(p.stdout);
  assert.equal(missing[0], 'OnnxShrinkError');
  assert.equal(missing[1], 'IO');
  assert.match(missing[2], /^the engine's WebAssembly file could not be read from env\.wasmPath \(\/no\/such\/onnx-shrink\.wasm\): ENOENT/);
  assert.deepEqual(broken.slice(0, 2), ['OnnxShrinkError', 'IO']);
  assert.match(broken[2], /^the engine's WebAssembly module from env\.wasmBinary did not start: CompileError: .*\(is it the \.wasm of this version of onnx-shrink\?\)$/);
  assert.match(recovered, /^\d+\.\d+\.\d+/);
});

test('openForRuntime: by default, onnxruntime-node gets a shrunk file under 16 MB as it is (no external data given), any other runtime or size the expanded one', async () => {
  const { openForRuntime } = await import('../../bindings/js/index.node.js');
  const { model } = await shrink(silero);
  const plain = await expand(model);
  // A runtime that records what it is given (its env as onnxruntime-common 1.30 sets it).
  const runtime = (versions) => ({ env: { versions }, InferenceSession: { create: async (bytes) => bytes } });
  const node = runtime({ common: '1.30.0', node: '1.30.0' }), web = runtime({ common: '1.30.0', web: '1.30.0' });
  assert.deepEqual(await openForRuntime(node, model), model);
  assert.deepEqual(await openForRuntime(web, model), plain);
  assert.deepEqual(await openForRuntime(runtime(undefined), model), plain);  // an older runtime: expanded, as before
  assert.deepEqual(await openForRuntime(node, model, { expand: true }), plain);
  // The size as the input tells it before it is read: a Response's Content-Length, a reader's size.
  const response = (length) => new Response(model, { headers: length ? { 'content-length': String(length) } : {} });
  assert.deepEqual(await openForRuntime(node, response(16e6)), plain);
  assert.deepEqual(await openForRuntime(node, Promise.resolve(response(model.byteLength))), model);
  assert.deepEqual(await openForRuntime(node, response(0)), plain);  // size unknown: expanded
  const reader = (size) => ({ size, read: (offset, length) => model.subarray(offset, offset + length) });
  assert.deepEqual(await openForRuntime(node, reader(model.byteLength)), model);
  // External data given: expanded, which is how the data gets into the one model handed over.
  assert.deepEqual(await openForRuntime(node, model, { external: {} }), plain);
  await assert.rejects(openForRuntime(node, Promise.reject(new Error('offline'))), (e) => e.code === 'IO' && /offline/.test(e.message));
  assert.deepEqual(await openForRuntime(web, model, { expand: false }), model);
  assert.notEqual(model.byteLength, plain.byteLength);
});

test("the browser entry has every name the types declare: Node's own ones say they are Node's", async () => {
  const browser = await import('../../bindings/js/index.js');
  const node = await import('../../bindings/js/index.node.js');
  assert.deepEqual(Object.keys(browser).sort(), Object.keys(node).sort());
  await assert.rejects(browser.shrink(new Uint8Array(8), { target: 'size=0.5' }), { code: 'BAD_OPTION', message: /^target mode runs in Node/ });
  await assert.rejects(browser.shrinkToTarget(new Uint8Array(8), { target: 'size=0.5' }), { code: 'BAD_OPTION', message: /^target mode runs in Node/ });
  assert.throws(() => browser.fileSource('m.onnx'), { code: 'BAD_OPTION', message: /^fileSource\('m\.onnx'\) reads a file in Node; in a browser pass the bytes/ });
  assert.throws(() => browser.objectiveSize(new Uint8Array(8), 'brotli'), { code: 'BAD_OPTION', message: /CompressionStream/ });
});
