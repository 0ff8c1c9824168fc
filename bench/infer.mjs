// Runs one generated model (bench/make_model.py) in onnxruntime-node on a fixed input and writes
// its output y as raw float32 bytes. Its own process: a session of the 4.4 GB model holds its
// weights in memory, and two such sessions in one process came near this machine's 24 GB.
//   node bench/infer.mjs MODEL.onnx OUT.bin
import { writeFileSync } from 'node:fs';
import ort from 'onnxruntime-node';

const [model, out] = process.argv.slice(2);
const x = new ort.Tensor('float32', Float32Array.from({ length: 1024 }, (_, i) => Math.cos(i)), [1, 1024]);
const session = await ort.InferenceSession.create(model);
const { y } = await session.run({ x });
writeFileSync(out, y.data);
