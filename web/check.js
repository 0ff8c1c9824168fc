// "Check accuracy": runs the original and the shrunk model in onnxruntime-web (served from this
// site) on the same inputs (the user's data files, one sample or several back to back, or seeded
// random values of the declared shapes; from the second sample on, an input can be a model's own
// output of the sample before), and compares the outputs over all samples.
import { ort } from './ort-web.js';
import { sampleCount, compareModels } from './vendor/onnx-shrink/bindings/js/verify.js';

async function session(model, external) {
  const externalData = [];
  for (const [path, data] of Object.entries(external)) {
    externalData.push({ path, data: data instanceof Blob ? new Uint8Array(await data.arrayBuffer()) : data });
  }
  return ort.InferenceSession.create(model, externalData.length ? { externalData } : {});
}

self.onmessage = async (event) => {
  const { id, original, originalExternal, shrunk, shrunkExternal, inputs, threshold } = event.data;
  try {
    const bytes = new Uint8Array(await original.arrayBuffer());
    for (const input of inputs) if (input.file) input.bytes = new Uint8Array(await input.file.arrayBuffer());
    const samples = sampleCount(inputs);
    const reference = await session(bytes, originalExternal);
    const candidate = await session(new Uint8Array(await shrunk.arrayBuffer()), shrunkExternal);
    // Inputs given back from an output: each model gets its own output of the sample before.
    const feedBack = Object.fromEntries(inputs.filter((input) => input.feedBack).map((input) => [input.name, input.feedBack]));
    const runReference = async (feeds) => {
      try {
        return await reference.run(feeds);
      } catch (e) {
        throw new Error(`the original model does not run on these inputs (set their shapes and values above): ${e.message}`);
      }
    };
    const outputs = await compareModels(ort.Tensor, inputs, runReference, (feeds) => candidate.run(feeds), {
      feedBack, threshold, onSample: (done) => samples > 1 && self.postMessage({ id, done, samples }),
    });
    self.postMessage({ id, outputs, samples });
  } catch (e) {
    self.postMessage({ id, error: e.message || String(e) });
  }
};
