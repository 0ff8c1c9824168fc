// What the command line prints: warnings and progress bars on standard error, and the summary table
// (sizes, target mode's evidence, --verify's results).
import path from 'node:path';
import { isStream } from './cli_files.js';
import { sizeChange } from './cli_sizes.js';
import { FEW_SAMPLES, declaredShape, worstOutput } from './verify.js';
import { evidenceLines } from './target_table.js';

// A warning on standard error, unless --quiet; a progress bar on the line is cleared first.
// `always`: said with --quiet too (what makes the result doubtful).
export function warn(a, text, always = false) {
  if (a.quiet && !always) return;
  process.stderr.write(`${process.stderr.isTTY ? '\r\x1b[K' : ''}onnx-shrink: warning: ${text}\n`);
}

export function formatBytes(n, digits = 1) {
  if (n == null) return '-';
  const units = ['B', 'kB', 'MB', 'GB'];
  let i = 0;
  while (n >= 1000 && i < units.length - 1) n /= 1000, i++;
  return `${n.toFixed(i === 0 ? 0 : digits)} ${units[i]}`;
}

export function progressBar(name, quiet) {
  if (quiet || !process.stderr.isTTY) return () => {};
  let last = -1;
  return (fraction, stage) => {
    if (stage === 'done') return void process.stderr.write('\r\x1b[K');
    const percent = Math.floor(fraction * 100);
    if (percent === last) return;
    last = percent;
    const width = 24, filled = Math.round(fraction * width);
    process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(percent).padStart(3)}% ${stage.padEnd(8)} ${name}`);
    if (fraction >= 1 && stage === 'writing') process.stderr.write('\r\x1b[K');
  };
}

// The summary goes to standard output, or to standard error when a result or report went there.
export function printTable(rows, a) {
  if (a.quiet || a.json || rows.length === 0) return;
  const say = [a.output, a.report].some((t) => t !== null && isStream(t)) ? console.error : console.log;
  if (a.inspect) {
    for (const { input, report } of rows) {
      say(`${input === '-' ? 'standard input' : input}: ${report.summary}`);
      for (const t of report.tensors) {
        const what = t.changed ? `${t.scheme}${t.axis !== undefined ? ` axis ${t.axis}` : ''}${t.bits ? ` ${t.bits} bits` : ''} ` +
                                 `${t.exact ? 'exact' : t.sqnrDb == null ? '' : `${t.sqnrDb.toFixed(1)} dB`}${t.reason ? ` (${t.reason})` : ''}` : `kept: ${t.reason}`;
        say(`  ${t.name.padEnd(40)} ${t.dtype.padEnd(8)} [${t.shape.join(', ')}] ${formatBytes(t.bytesBefore)} -> ${formatBytes(t.bytesAfter)}  ${what}`);
      }
    }
    return;
  }
  // Brotli's quality in its header, and beside a size of another quality (results over 4 MB).
  const qualities = rows.map((r) => r.brotli?.quality).filter(Boolean);
  const quality = qualities[0] ?? 11;
  const header = ['model', 'before', 'after', 'gzip -6', `brotli -q ${quality}`, 'size'];
  // Each file as the user would type it from here (out/a/x.shrunk.onnx), or its name when far off.
  const shown = (file) => {
    if (file === '-') return '(stdout)';
    const relative = path.relative(process.cwd(), file);
    return relative.startsWith('..') || path.isAbsolute(relative) ? path.basename(file) : relative;
  };
  const written = rows.filter((r) => !r.target || r.output);
  const lines = written.map((r) => [shown(r.output ?? r.input), formatBytes(r.before), formatBytes(r.after), formatBytes(r.gzip),
                                 `${formatBytes(r.brotli?.bytes)}${r.brotli && r.brotli.quality !== quality ? ` (-q ${r.brotli.quality})` : ''}`,
                                 sizeChange(r.before, r.after)]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells) => cells.map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
  if (lines.length) say(fmt(header));
  for (const l of lines) say(fmt(l));
  for (const r of rows) {
    if (r.target) for (const line of evidenceLines(r.target, { text: r.goalText, decision: a.decision, name: shown(r.output ?? r.input), formatBytes })) say(line);
  }
  for (const r of rows) if (r.report?.unchanged) say(`${shown(r.output ?? r.input)}: ${r.report.summary}`);
  for (const r of rows) {
    if (!r.verify) continue;
    const files = Object.keys(a.inputFiles);
    const samples = `${r.samples} sample${r.samples === 1 ? '' : 's'}`;
    const random = r.report.model.inputs.some((i) => a.inputFiles[i.name] === undefined && a.values[i.name] === undefined);
    const fed = Object.entries(a.feedBack).map(([input, output]) => `; ${output} fed back as ${input}`).join('');
    const guessedShapes = r.guessed.list.length ? `; GUESSED SHAPES ${r.report.model.inputs
      .filter((i) => r.guessed.list.some((g) => g.input === i.name))
      .map((i) => `${i.name}=${declaredShape(i.shape, a.dim).shape.join('x')}`).join(' ')}` : '';
    const values = Object.keys(a.values);
    const fixed = values.length ? `${files.length ? '; ' : ''}fixed values: ${values.join(', ')}` : '';
    const given = (files.length || values.length ? `${files.length ? `inputs from files: ${files.join(', ')}` : ''}${fixed}${random ? '; others seeded random' : ''}`
                                                  : 'seeded random inputs') + `; ${samples}${fed}${guessedShapes}`;
    if (r.candidates) {
      say(`schemes for ${shown(r.output)} (onnxruntime-node, ${given}):`);
      for (const c of r.candidates) {
        const worst = worstOutput(c.outputs, Object.values(a.feedBack));
        say(`  ${c.scheme.padEnd(8)} ${formatBytes(c.bytes, 3).padStart(10)}  gzip ${formatBytes(c.gzipBytes, 3).padStart(10)}  worst rel. L2 ${worst.relL2.toExponential(3)} (${worst.name})` +
                    `${c.kept ? '  kept' : ''}`);
      }
      if (r.samples < FEW_SAMPLES) {
        say(`  chosen on ${samples}: which of two good schemes moves the outputs less on a few inputs often differs on others; ` +
            'give it many inputs like those the model will meet');
      }
    }
    say(`verify ${shown(r.output)} (onnxruntime-node, ${given}):`);
    for (const o of r.verify) {
      say(`  ${o.name}: max abs ${o.maxAbs.toExponential(3)}  mean abs ${o.meanAbs.toExponential(3)}  rel. L2 ${o.relL2.toExponential(3)}  ` +
                  `cosine ${o.cosine.toFixed(6)}${o.agreement === undefined ? '' : `  same side of ${a.threshold}: ${(100 * o.agreement).toFixed(3)} %`}` +
                  `${o.ok ? '' : '  BEYOND TOLERANCE'}${o.constant ? '  CONSTANT' : o.identical ? '  IDENTICAL' : ''}`);
    }
  }
}
