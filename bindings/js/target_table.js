// Target mode's evidence as the CLI prints it: a line saying what was aimed at and on what, each
// point tried (bytes on the objective, raw bytes, and the output error measured on the calibration
// samples and on those held out, or the error predicted without samples), the chosen one marked,
// and whether the target was met and whether the numbers are measurements or estimates.

import { calibrationAim, meets, oneOf } from './target.js';

const OBJECTIVE_NAMES = { brotli: 'brotli -q 9', gzip: 'gzip -9', raw: 'raw' };

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
const error = (x) => (x === undefined || x === null ? '-' : Number.isFinite(x) ? x.toExponential(2) : 'inf');
const share = (x) => (x === undefined || x === null ? '-' : `${(100 * x).toFixed(3)} %`);

// The columns of the errors of one set of samples (calibration or held out).
function errorCells(m, decisions) {
  return [error(m?.relL2), error(m?.maxAbs), ...(decisions ? [share(m?.agreement)] : [])];
}

// What the chosen point reached, against the goal, in words.
function reached(goal, point, formatBytes, objective, aim) {
  const m = point.measured;
  const tighter = aim && aim.value !== calibrationAim(goal).value ? ', tighter as the weights were rounded with these samples\' inputs in view' : '';
  if (goal.kind === 'agree') {
    return `keeps ${share(m.agreement)} of decisions (the target: ${share(goal.value)} or more; calibrated to ${share((aim ?? calibrationAim(goal)).value)}, ` +
           `half the loss, as decisions near the boundary flip from sample to sample${tighter})`;
  }
  const to = tighter ? `; calibrated to ${error(aim.value)}${tighter}` : '';
  if (goal.kind === 'relL2') return `moves the worst output${whose(m, 'relL2')} by rel. L2 ${error(m.relL2)} (the target: ${error(goal.value)} or less${goal.ofDefault ? ", the default's" : ''}${to})`;
  if (goal.kind === 'maxAbs') return `moves an output value${whose(m, 'maxAbs')} by ${error(m.maxAbs)} at most (the target: ${error(goal.value)} or less${to})`;
  if (goal.kind === 'size') return `is ${formatBytes(point.bytes, 3)} by ${OBJECTIVE_NAMES[objective]} (the target: ${formatBytes(goal.bytes, 3)} or less)`;
  return `has a predicted rel. L2 of ${error(point.predicted)} (the default's, by the same estimate: ${error(goal.predicted)})`;
}

// How the table names each search's codes (target.js: best()).
export const codesName = (p) => (p.beyond === 'the model left alone' ? 'none' : p.scheme === 'channel' ? (p.rounding === 'gptq' ? 'per channel, GPTQ' : 'per channel') : 'default');
// The searches' order in the table: the default's codes, per-channel codes rounded by GPTQ, plain per-channel codes.
const codesOrder = (p) => (p.scheme === 'channel' ? (p.rounding === 'gptq' ? 1 : 2) : 0);
// The kinds of codes the points were searched with, in that order: "the default's codes and plain
// per-channel codes".
export function searchedPhrase(points) {
  const names = ["the default's codes", 'per-channel codes rounded with the inputs in view (GPTQ)', 'plain per-channel codes'];
  return oneOf([...new Set(points.map(codesOrder))].sort().map((k) => names[k])).replace(/ or ([^,]*)$/, ' and $1');
}
// A point's codes in a sentence.
export const codesPhrase = (p) => (p.scheme === 'channel' ? `per-channel codes${p.rounding === 'gptq' ? ' rounded with the inputs in view (GPTQ)' : ''}` : 'the default\'s codes');

/**
 * A sentence on the data-aware bias correction (target.js, bias_shift.js), or '' when it was not
 * tried. `error(x)`: how an error is written.
 */
export function correctionText(c, error) {
  if (!c) return '';
  if (!c.measured) return `Biases were not moved by the samples' channel means: that needs two or more calibration samples, to check it on samples the means did not come from.`;
  const how = `every tensor at ${c.measured.bits} bits, each half of the calibration samples corrected by the other half's means: ` +
              `the target's measure ${error(c.measured.without)} without, ${error(c.measured.with)} with`;
  return c.kept ? `Biases of ${c.layers} layers moved by the samples' channel means, against the shift each point's rounding causes (${how}).`
                : `Biases were not moved by the samples' channel means: it did not hold on samples the means did not come from (${how}).`;
}

/**
 * A sentence on the rounding with the inputs in view (target.js, gptq.js), or '' when it was not
 * tried. `error(x)`: how an error is written; `bySize`: a size target, which has no error to tighten.
 */
export function roundingText(r, error, bySize = false) {
  if (!r) return '';
  if (!r.measured) return 'Per-channel codes were rounded to the nearest code: rounding with the inputs in view needs two or more calibration samples, to check it on samples it did not see.';
  const how = `every tensor at ${r.measured.bits} bits, each half of the calibration samples rounding for the other half: ` +
              `the target's measure ${error(r.measured.without)} nearest, ${error(r.measured.with)} with the inputs in view`;
  return r.kept ? `Per-channel codes of ${r.layers} layers rounded with the samples' inputs in view (GPTQ, damped by ${r.measured.damping}; ${how})` +
                  (bySize ? '.' : '; ') +
                  (bySize ? '' : r.overfit.toFixed(2) === '1.00' ? 'it fits the calibration samples no closer than others, so they are held to the target itself.'
                                                   : `the calibration samples are held to a target ${r.overfit.toFixed(2)}× tighter, as the rounding fits them.`)
                : `Per-channel codes were rounded to the nearest code: rounding with the inputs in view did not hold on samples it did not see (${how}).`;
}

// ' (output NAME)': which output the worst `key` is of, when the model has more than one.
function whose(m, key) {
  const worst = m.perOutput?.length > 1 ? m.perOutput.find((o) => o[key] === m[key]) : null;
  return worst ? ` (${worst.name})` : '';
}

/**
 * The table's lines. `target`: shrinkToTarget's result.target; `text`: the target as given
 * (agree=0.999); `decision`: as given, or undefined; `name`: the file as shown; `formatBytes(n,
 * digits)`: the CLI's sizes.
 */
export function evidenceLines(target, { text, decision, name, formatBytes }) {
  const { points, chosen, objective, estimated, samples, goal } = target;
  const decisions = decision !== undefined && points.some((p) => p.measured?.agreement !== undefined);
  const heldOut = samples?.heldOut > 0;
  const on = estimated ? 'no samples: the errors below are ESTIMATES, predicted from each tensor\'s rounding noise, not measured'
                       : `measured in onnxruntime-node on ${plural(samples.calibration, 'calibration sample')}` +
                         (heldOut ? `, reported on ${samples.heldOut} held out` : ', none held out (give two or more samples to check on some)');
  const lines = [`target ${text}${decision === undefined ? '' : ` (decisions: ${decision})`} for ${name}, smallest by ${OBJECTIVE_NAMES[objective]}; ${on}:`];
  const sizeHead = [OBJECTIVE_NAMES[objective], ...(objective === 'raw' ? [] : ['raw'])];
  const errorHead = ['rel. L2', 'max abs', ...(decisions ? ['kept'] : [])];
  // Searched with more than one kind of codes (target.js: best()): a column says which.
  const schemes = points.some((p) => p.scheme);
  // The mean bits per value of the tensors it chooses for, which tells apart points of like size.
  const bits = points.some((p) => p.bits !== undefined);
  const head = [...(schemes ? ['codes'] : []), ...(bits ? ['bits'] : []), ...sizeHead, ...(estimated ? ['est. rel. L2'] : [...errorHead, ...(heldOut ? errorHead.map((h) => `held-out ${h}`) : [])])];
  const rows = [...points].sort((p, q) => codesOrder(p) - codesOrder(q) || p.step - q.step).map((p) => [
    ...(schemes ? [codesName(p)] : []), ...(bits ? [p.bits === undefined ? '-' : p.bits.toFixed(2)] : []),
    formatBytes(p.bytes, 3), ...(objective === 'raw' ? [] : [formatBytes(p.raw, 3)]),
    ...(estimated ? [error(p.predicted)] : [...errorCells(p.measured, decisions), ...(heldOut ? errorCells(p.heldOut, decisions) : [])]),
    [p.default ? 'the default' : '', p.beyond ?? '', p === chosen ? (target.met ? 'chosen' : 'closest') : ''].filter(Boolean).join(', '),
  ]).filter((row, k, all) => all.findIndex((r) => r.join('\n') === row.join('\n')) === k);  // the same file found by two searches: once
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const format = (cells) => `  ${cells.map((c, i) => (i < head.length ? c.padStart(widths[i]) : c)).join('  ')}`.trimEnd();
  lines.push(format(head), ...rows.map(format));
  const moved = correctionText(target.biasCorrection, error);
  // (With several searches, each checks the correction for itself: this is the chosen file's.)
  if (moved) lines.push(schemes ? `In the ${target.met ? 'chosen' : 'closest'} file's search: ${moved}` : moved);
  // The rounding of the per-channel search, whichever search the chosen file comes from.
  const rounded = roundingText(target.rounding ?? target.searches?.['channel+gptq']?.rounding ?? target.searches?.channel?.rounding, error,
                               target.goal?.kind === 'size');
  if (rounded) lines.push(rounded);
  if (schemes) {
    lines.push(`Searched with ${searchedPhrase(points)}; the ${target.met ? 'chosen' : 'closest'} file has ${codesPhrase(chosen)}.`);
  }
  const kind = estimated ? 'These are estimates (no samples): give --input to measure.' : 'These are measurements.';
  if (!target.met) {
    lines.push(`target NOT met: ${target.why}; nothing written. ${kind}`);
    return lines;
  }
  const held = heldOut && chosen.heldOut
    ? ` On the ${samples.heldOut} held out: rel. L2 ${error(chosen.heldOut.relL2)}${whose(chosen.heldOut, 'relL2')}, max abs ${error(chosen.heldOut.maxAbs)}${whose(chosen.heldOut, 'maxAbs')}` +
      `${decisions ? `, ${share(chosen.heldOut.agreement)} of decisions kept` : ''}` +
      `${!meets(goal, chosen.heldOut) ? ', which MISSES the target: calibrate on more samples like those the model will meet' : ''}.`
    : '';
  const where = estimated || goal.kind === 'size' || goal.kind === 'default' ? '' : ' on the calibration samples';
  const past = !chosen.beyond ? ''
    : goal.kind === 'size' ? ` Every point of the path fits, so a file with more bits was taken: ${chosen.beyond}.`
    : ` No point of the path meets the target; the chosen file is ${chosen.beyond}.`;
  lines.push(`target met: the chosen file ${reached(goal, chosen, formatBytes, objective, target.aim)}${where}.${past}${held} ${kind}`);
  return lines;
}
