// The two real models and their real inputs (tests/fixtures, from ../shared/corpus), and what a
// user reads off their outputs. Used by the tests and by the accuracy benchmark.
//
//   silero_vad_v5:   streamed in chunks of 512 samples (16 kHz), state fed back; the decision is
//                    "speech" when the chunk's probability is over 0.5.
//   PP-OCR v4 det:   one 1x3x320x640 page; the decision is "text" for each pixel of the probability
//                    map over 0.3 (PaddleOCR's binarisation threshold).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'tests', 'fixtures');

export function floats(file) {
  const b = readFileSync(path.join(fixtures, file));
  return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
}

// PP-OCR det's page (1x3x320x640) as four samples, its quadrants (1x3x160x320 each, the model is
// fully convolutional), back to back as the CLI's --input and the API's samples take them: for
// target mode, the top two calibrate and the bottom two are held back.
export function pageQuadrants() {
  const x = floats('det_x.bin');
  const out = new Float32Array(4 * 3 * 160 * 320);
  let o = 0;
  for (let a = 0; a < 2; a++) {
    for (let q = 0; q < 2; q++) {
      for (let c = 0; c < 3; c++) {
        for (let r = 0; r < 160; r++, o += 320) out.set(x.subarray((c * 320 + a * 160 + r) * 640 + q * 320, (c * 320 + a * 160 + r) * 640 + q * 320 + 320), o);
      }
    }
  }
  return new Uint8Array(out.buffer);
}

export const corpus = {
  silero: {
    file: 'silero_vad_v5.onnx',
    threshold: 0.5,
    unit: 'chunks',
    run: (ort, bytes) => streamSilero(ort, bytes, floats('speech.bin'), 16000),
  },
  det: {
    file: 'ch_PP-OCRv4_det_infer.onnx',
    threshold: 0.3,
    unit: 'pixels',
    run: (ort, bytes) => runDet(ort, bytes, floats('det_x.bin'), [1, 3, 320, 640]),
  },
};

// PP-OCR det's probability map for a page `x` of `shape` (1x3xHxW; the model is fully convolutional).
export async function runDet(ort, bytes, x, shape) {
  const session = await ort.InferenceSession.create(bytes);
  const r = await session.run({ x: new ort.Tensor('float32', x, shape) });
  const out = Float32Array.from(r[session.outputNames[0]].data);
  await session.release?.();
  return out;
}

// Silero's speech probabilities for `samples` at `rate` (16000 or 8000 Hz), streamed in chunks of
// 32 ms with the state fed back, as silero expects.
export async function streamSilero(ort, bytes, samples, rate) {
  const session = await ort.InferenceSession.create(bytes);
  const chunk = rate === 16000 ? 512 : 256;
  let state = new ort.Tensor('float32', new Float32Array(2 * 128), [2, 1, 128]);
  const sr = new ort.Tensor('int64', BigInt64Array.from([BigInt(rate)]), []);
  const out = [];
  for (let i = 0; i + chunk <= samples.length; i += chunk) {
    const r = await session.run({ input: new ort.Tensor('float32', samples.slice(i, i + chunk), [1, chunk]), state, sr });
    out.push(r.output.data[0]);
    state = r.stateN;
  }
  await session.release?.();
  return Float32Array.from(out);
}

// Agreement of decisions, relative L2 error and max abs error between two outputs.
export function compare(reference, candidate, threshold) {
  let agree = 0, num = 0, den = 0, maxAbs = 0;
  for (let i = 0; i < reference.length; i++) {
    if ((reference[i] > threshold) === (candidate[i] > threshold)) agree++;
    const d = candidate[i] - reference[i];
    num += d * d;
    den += reference[i] * reference[i];
    maxAbs = Math.max(maxAbs, Math.abs(d));
  }
  return { agreement: agree / reference.length, relL2: Math.sqrt(num / den), maxAbs, count: reference.length };
}

export function modelBytes(name) {
  return readFileSync(path.join(fixtures, corpus[name].file));
}
