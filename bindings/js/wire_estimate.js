// Target mode's estimate of a candidate's bytes on the wire (brotli, gzip or raw), without building
// it: each changed tensor's bytes at its depth, from the dry runs' facts (target.js's depthTable),
// plus the rest of the file (graph, small and kept tensors), which no depth changes.
//
//  - raw: a tensor's stored bytes.
//  - brotli, gzip: the entropy of its codes (order 0, as the engine reports it) by a correction
//    factor (below), its low bits (9 and 10 bits: noise) and its other stored bytes (scales,
//    offsets) as they are.
//  - the rest: calibrated on a file the search builds anyway (its first point): its real size less
//    its tensors' estimate. Before that, the estimate is the changed tensors' alone.

// The correction: compressed bytes per byte of code entropy, by the codes' entropy rate (bits per
// value; piecewise linear between these rates, flat beyond). Brotli and gzip code each symbol in a
// whole number of bits (Huffman-like prefix codes, brotli -q 10 and 11 with context modelling on
// top), so their overhead over the entropy varies with the rate, more at 2 to 4 bits a value.
// Measured on the corpus (silero VAD, PP-OCR det, the char transformer: every tensor at 10 bits
// down to every tensor at 2 along target mode's greedy path, 12 files each, each calibrated on
// either end): the factors that keep the worst |estimate / real - 1| least, smoothed
// (`node bench/size_estimate.mjs --fit`; bench/size_estimate.mjs for the errors).
export const RATE_KNOTS = [1, 2, 3, 4, 5, 6, 7, 8];
export const WIRE_FACTORS = {
  brotli11: [1.13, 1.154, 1.039, 1.081, 1.039, 1.032, 1.025, 1.022],
  brotli9: [1.021, 1.227, 1.163, 1.106, 1.048, 0.99, 1.068, 0.953],
  gzip: [1.033, 1.228, 1.176, 1.125, 1.073, 1.022, 1.054, 0.97],
};

// Which factors a size uses: brotli at quality 10 or 11 (context modelling), below (measured at 9),
// or gzip.
export function factorKey(objective, brotliQuality = 9) {
  if (objective === 'gzip') return 'gzip';
  if (objective === 'brotli') return brotliQuality >= 10 ? 'brotli11' : 'brotli9';
  throw new Error(`no size estimate for the objective '${objective}'`);
}

// The factor at `rate` bits per value.
export function factorAt(factors, rate) {
  if (rate <= RATE_KNOTS[0]) return factors[0];
  if (rate >= RATE_KNOTS.at(-1)) return factors.at(-1);
  const i = RATE_KNOTS.findIndex((k) => k > rate) - 1;
  const t = (rate - RATE_KNOTS[i]) / (RATE_KNOTS[i + 1] - RATE_KNOTS[i]);
  return factors[i] * (1 - t) + factors[i + 1] * t;
}

// A tensor's estimated bytes on the wire at one depth (d: a depth table's row.at[bits]: its bits,
// elements, stored bytes `raw`, code entropy `codes` (low bits at their width) and `entropy` (that
// and its other stored bytes)). `factors`: others than WIRE_FACTORS' (to fit them).
export function tensorCost(objective, brotliQuality = 9, factors = undefined) {
  if (objective === 'raw') return (d) => d.raw;
  factors ??= WIRE_FACTORS[factorKey(objective, brotliQuality)];
  return (d) => {
    const low = (d.elements * Math.max(0, d.bits - 8)) / 8;
    const codes = d.codes - low;
    return factorAt(factors, (8 * codes) / d.elements) * codes + low + (d.entropy - d.codes);
  };
}

// The whole file's estimate for a configuration (bits[i]: rows[i]'s depth), once calibrated on one
// built file (before then: the changed tensors' bytes alone).
export function wireEstimator(rows, objective, brotliQuality = 9) {
  const cost = tensorCost(objective, brotliQuality);
  const tensors = (bits) => rows.reduce((s, r, i) => s + cost(r.at[bits[i]]), 0);
  let rest = 0;
  return {
    cost,
    tensors,
    calibrate(bits, realBytes) {
      rest = realBytes - tensors(bits);
    },
    estimate: (bits) => Math.round(rest + tensors(bits)),
  };
}
