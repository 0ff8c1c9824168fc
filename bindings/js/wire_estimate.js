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
// Measured on the corpus (2026-11-26; silero VAD, PP-OCR det, the char transformer): files built
// along target mode's greedy paths (every tensor at 10 bits down to every tensor at 2; 12, 16 and
// 20 points spread along the paths of the entropy-only estimate, of these factors and of an
// earlier fit: 48 per model and size), each estimate calibrated on either end of its path: the
// factors that keep the worst |estimate / real - 1| least, smoothed (bench/size_estimate.mjs's
// fitFactors; worst 2.2 % for brotli -q 11, 5.0 % for -q 9, 4.8 % for gzip -9 on those files).
// A factor by rate alone cannot follow every tensor's own overhead (its values' distribution),
// which leaves those few percent; bench/size_estimate.mjs measures the estimate on new files.
export const RATE_KNOTS = [1, 2, 3, 4, 5, 6, 7, 8];
export const WIRE_FACTORS = {
  brotli11: [1.098, 1.129, 1.017, 1.071, 1.034, 1.025, 1.02, 1.017],
  brotli9: [1.095, 1.234, 1.224, 1.151, 1.079, 1.006, 1.091, 0.951],
  gzip: [1.06, 1.217, 1.227, 1.143, 1.074, 1.032, 1.054, 0.973],
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
    calibrate(bits, realBytes) {
      rest = realBytes - tensors(bits);
    },
    estimate: (bits) => Math.round(rest + tensors(bits)),
  };
}
