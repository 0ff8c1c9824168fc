// Each corpus input cut in two, for asking whether what one input says about a rounding holds on
// another: silero's recording as its first and second halves (each streamed from a fresh state),
// PP-OCR det's page as its left and right halves (1x3x320x320 each; the model is fully
// convolutional, so each half is a page of its own).
import { floats, runDet, streamSilero } from './corpus.mjs';

// Columns [from, from + width) of det's 1x3x320x640 page.
function columns(page, from, width) {
  const y = new Float32Array(3 * 320 * width);
  for (let row = 0; row < 3 * 320; row++) y.set(page.subarray(row * 640 + from, row * 640 + from + width), row * width);
  return y;
}

// { model: [{ name, run(ort, bytes) -> outputs }, { ... }] } for both corpus models.
export function inputHalves() {
  const speech = floats('speech.bin'), chunks = Math.floor(speech.length / 512), cut = 512 * (chunks >> 1);
  const page = floats('det_x.bin');
  return {
    silero: [
      { name: 'first half of the recording', run: (ort, bytes) => streamSilero(ort, bytes, speech.subarray(0, cut), 16000) },
      { name: 'second half of the recording', run: (ort, bytes) => streamSilero(ort, bytes, speech.subarray(cut, 512 * chunks), 16000) },
    ],
    det: [
      { name: 'left half of the page', run: (ort, bytes) => runDet(ort, bytes, columns(page, 0, 320), [1, 3, 320, 320]) },
      { name: 'right half of the page', run: (ort, bytes) => runDet(ort, bytes, columns(page, 320, 320), [1, 3, 320, 320]) },
    ],
  };
}
