// Silero VAD on inputs other than the corpus's one recording: quieter and louder, with added noise,
// played backwards, and through the model's 8 kHz branch (the recording low-passed and decimated).
// One recording is one operating point; these show whether a scheme's gain holds away from it.
import { floats } from './corpus.mjs';

// 2:1 decimation after a 31-tap windowed-sinc low-pass (cut-off at 0.9 of the new Nyquist rate).
function decimate(x) {
  const taps = 31, half = 15, h = new Float64Array(taps);
  let sum = 0;
  for (let k = 0; k < taps; k++) {
    const t = k - half, w = 2 * Math.PI * 0.225 * t;
    h[k] = (t === 0 ? 1 : Math.sin(w) / w) * (0.5 - 0.5 * Math.cos((2 * Math.PI * (k + 0.5)) / taps));
    sum += h[k];
  }
  const y = new Float32Array(x.length >> 1);
  for (let i = 0; i < y.length; i++) {
    let a = 0;
    for (let k = 0; k < taps; k++) {
      const j = 2 * i + k - half;
      if (j >= 0 && j < x.length) a += h[k] * x[j];
    }
    y[i] = a / sum;
  }
  return y;
}

// The variants: name, samples, sample rate. Noise from a fixed linear congruential generator.
export function sileroInputs() {
  const x = floats('speech.bin');
  let seed = 12345;
  const noise = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648 - 0.5);
  return [
    { name: '16 kHz, as recorded', samples: x, rate: 16000 },
    { name: '16 kHz, ¼ the level', samples: x.map((v) => v * 0.25), rate: 16000 },
    { name: '16 kHz, twice the level', samples: x.map((v) => v * 2), rate: 16000 },
    { name: '16 kHz, white noise added (±0.005)', samples: x.map((v) => v + 0.01 * noise()), rate: 16000 },
    { name: '16 kHz, played backwards', samples: x.slice().reverse(), rate: 16000 },
    { name: '8 kHz (the 8 kHz branch)', samples: decimate(x), rate: 8000 },
  ];
}
