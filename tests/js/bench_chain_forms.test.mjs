// bench/chain_forms.py, which the full ./dev bench runs on each shrunk file (bench/session.mjs): it
// edits the low bits' chains of both their forms, and its forms that claim the same weights give
// the same outputs as the file they were made from, in onnxruntime-node. It stopped the full bench
// once, when the engine's low bits took their current form (a Gather from a digit table).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ort from 'onnxruntime-node';
import { shrink } from '../../bindings/js/index.node.js';
import { tempDir } from './temp_dir.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const fixture = (name) => path.join(root, 'tests', 'fixtures', name);
const dir = tempDir('chain-forms');

function chainForms(file, prefix) {
  const p = spawnSync('/usr/bin/python3', [path.join(root, 'bench', 'chain_forms.py'), file, path.join(dir, prefix)], { encoding: 'utf8' });
  assert.equal(p.status, 0, p.stderr);
  return JSON.parse(p.stdout);
}

// The model's output on one seeded input (x: 1x128), as bits.
async function output(file) {
  const x = new Float32Array(128);
  let s = 7;
  for (let i = 0; i < x.length; i++) x[i] = ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
  const session = await ort.InferenceSession.create(file);
  const result = await session.run({ x: new ort.Tensor('float32', x, [1, 128]) });
  await session.release();
  return Object.values(result).map((t) => [...new Uint32Array(t.data.buffer, t.data.byteOffset, t.data.length)]);
}

// Every form that keeps the weights gives the outputs of `file`, bit for bit; the BOUND forms do not
// keep them (they drop steps of each chain to time what those cost).
async function checkForms(file, made) {
  const expected = await output(file);
  for (const [form, { file: edited }] of Object.entries(made)) {
    if (form === 'shrunk' || !edited || form.startsWith('bound')) continue;
    assert.deepEqual(await output(edited), expected, form);
  }
}

test('the low bits\' current form (a Gather from a digit table): every form but int-unpack, the same outputs', async () => {
  const made = await shrink(readFileSync(fixture('low_bits_source.onnx')), { tensorBits: { w0: 9, w1: 10 } });
  const file = path.join(dir, 'current.onnx');
  writeFileSync(file, made.model);
  const forms = chainForms(file, 'current');
  assert.ok(forms.shrunk['low-bit unpack'] > 0);
  assert.equal(forms['int-unpack'].file, null);  // its chain is the first form's only
  for (const form of ['int16-codes', 'low-bytes', 'bound-cast-mul']) assert.ok(forms[form].file, form);
  assert.equal(forms['int16-codes']['low-bit unpack'], undefined);  // the chains and their digit tables gone
  assert.equal(forms['int16-codes']['int16 dequant'], 2 * 4);      // Cast -> Mul -> Add -> Mul a weight
  await checkForms(file, forms);
});

test('the low bits\' first form (Cast -> Div -> Floor -> Mod -> Div -> Reshape): every form, the same outputs', async () => {
  const file = fixture('low_bits_v1.onnx');
  const forms = chainForms(file, 'first');
  for (const form of ['int16-codes', 'int-unpack', 'low-bytes']) assert.ok(forms[form].file, form);
  assert.equal(forms['int16-codes']['low-bit unpack'], undefined);
  await checkForms(file, forms);
});
