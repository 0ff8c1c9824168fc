// Inference latency in onnxruntime-node: median of repeated runs on the corpus inputs.
import ort from 'onnxruntime-node';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fixtures } from './corpus.mjs';

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export async function latency(modelPath, kind, runs = 20) {
  const session = await ort.InferenceSession.create(readFileSync(modelPath), { intraOpNumThreads: 1 });
  let feeds;
  if (kind === 'det') {
    const b = readFileSync(path.join(fixtures, 'det_x.bin'));
    feeds = { x: new ort.Tensor('float32', new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4), [1, 3, 320, 640]) };
  } else {
    feeds = { input: new ort.Tensor('float32', new Float32Array(512).fill(0.01), [1, 512]),
              state: new ort.Tensor('float32', new Float32Array(256), [2, 1, 128]),
              sr: new ort.Tensor('int64', BigInt64Array.from([16000n]), []) };
  }
  await session.run(feeds);  // warm-up
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await session.run(feeds);
    times.push(performance.now() - t);
  }
  return median(times);
}
