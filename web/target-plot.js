// The evidence of a target search as an inline SVG (no library): bytes on the wire (the objective)
// across, the measured error up (a log scale: each bit fewer multiplies the error), every point
// tried, the chosen one and the picked one marked, the target as a dashed line, and the reference
// points (the plain modes and the original tool's method) measured the same way. Without samples
// the errors are the search's estimates, and the references, which have none, are vertical lines
// at their sizes.

const SVG = 'http://www.w3.org/2000/svg';

// What the error axis shows for a target: decisions changed for an agreement target, the max abs
// error for a max abs target, otherwise the relative L2 error; without samples, the estimate.
export function errorMetric(kind, estimated) {
  if (estimated) return { key: 'predicted', label: 'estimated relative error (no samples)', of: (p) => p.predicted ?? null, percent: false };
  if (kind === 'agree') return { key: 'changed', label: 'decisions changed', of: (p) => (p.measured?.agreement == null ? null : 1 - p.measured.agreement), percent: true };
  if (kind === 'maxAbs') return { key: 'maxAbs', label: 'max abs error', of: (p) => p.measured?.maxAbs ?? null, percent: false };
  return { key: 'relL2', label: 'relative L2 error', of: (p) => p.measured?.relL2 ?? null, percent: false };
}

export const formatError = (value, percent) => (value == null ? '–' : value === 0 ? '0'
  : percent ? `${(100 * value).toPrecision(2)} %` : value.toPrecision(2));

function el(name, attributes = {}, text) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

// About `count` round values from lo to hi (1, 2 or 5 times a power of ten apart).
function linearTicks(lo, hi, count) {
  const raw = (hi - lo) / count, power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) out.push(v);
  return out;
}

// Log-scale ticks from 10^lo to 10^hi: each power of ten, and 2 and 5 times it when the range
// spans few of them.
function logTicks(lo, hi) {
  const steps = hi - lo < 2.5 ? [1, 2, 5] : [1];
  const out = [];
  for (let d = Math.floor(lo); d <= Math.ceil(hi); d++) {
    for (const m of steps) {
      const v = m * 10 ** d;
      if (Math.log10(v) >= lo && Math.log10(v) <= hi) out.push(v);
    }
  }
  return out;
}

// Where names go beside marks: the first of right, left, above and below the mark that stays in
// `area` and covers no mark or name placed before (else the first that stays in it). Text boxes
// are estimated from the length (11 px type).
function labelPlacer(area) {
  const taken = [];
  const overlaps = (a) => taken.some((b) => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2);
  const inside = (a) => a.x1 >= area.left && a.x2 <= area.right && a.y1 >= area.top && a.y2 <= area.bottom;
  const placer = {
    block(cx, cy, r) {
      taken.push({ x1: cx - r, x2: cx + r, y1: cy - r, y2: cy + r });
    },
    // Beside a mark at (cx, cy).
    place(cx, cy, text) {
      const w = text.length * 6.5 + 4, h = 13;
      const beside = (dy) => [
        { x: cx + 9, y: cy + 4 + dy, anchor: 'start', box: { x1: cx + 8, x2: cx + 9 + w, y1: cy - 8 + dy, y2: cy + 5 + dy } },
        { x: cx - 9, y: cy + 4 + dy, anchor: 'end', box: { x1: cx - 9 - w, x2: cx - 8, y1: cy - 8 + dy, y2: cy + 5 + dy } },
      ];
      return choose([
        ...beside(0),
        { x: cx, y: cy - 11, anchor: 'middle', box: { x1: cx - w / 2, x2: cx + w / 2, y1: cy - 11 - h + 3, y2: cy - 8 } },
        { x: cx, y: cy + 21, anchor: 'middle', box: { x1: cx - w / 2, x2: cx + w / 2, y1: cy + 8, y2: cy + 8 + h } },
        ...beside(-h - 2), ...beside(h + 2), ...beside(-2 * h - 4), ...beside(2 * h + 4),  // a row or two up or down
      ]);
    },
    // Along a horizontal line at cy: above or below it, at the right end or the left.
    placeBeside(cy, text) {
      const w = text.length * 6.5 + 4;
      return choose([[cy - 5, cy - 16, cy - 3], [cy + 14, cy + 3, cy + 16]].flatMap(([y, y1, y2]) => [
        { x: area.right - 4, y, anchor: 'end', box: { x1: area.right - 4 - w, x2: area.right - 3, y1, y2 } },
        { x: area.left + 4, y, anchor: 'start', box: { x1: area.left + 3, x2: area.left + 4 + w, y1, y2 } },
      ]));
    },
    // Beside a vertical line at cx, in one of the rows from the top.
    placeOnLine(cx, text) {
      const w = text.length * 6.5 + 4, rows = [0, 1, 2, 3, 4, 5].map((k) => area.top + 14 + 15 * k);
      return choose(rows.flatMap((y) => [
        { x: cx + 4, y, anchor: 'start', box: { x1: cx + 3, x2: cx + 4 + w, y1: y - 10, y2: y + 3 } },
        { x: cx - 4, y, anchor: 'end', box: { x1: cx - 4 - w, x2: cx - 3, y1: y - 10, y2: y + 3 } },
      ]));
    },
  };
  function choose(options) {
    const at = options.find((o) => inside(o.box) && !overlaps(o.box)) ?? options.find((o) => inside(o.box)) ?? options[0];
    taken.push(at.box);
    return at;
  }
  return placer;
}

const REF_SHAPES = {
  int8: (x, y, r) => el('rect', { x: x - r, y: y - r, width: 2 * r, height: 2 * r }),
  palette: (x, y, r) => el('path', { d: `M${x} ${y - r * 1.3}L${x + r * 1.3} ${y}L${x} ${y + r * 1.3}L${x - r * 1.3} ${y}Z` }),
  tensor: (x, y, r) => el('path', { d: `M${x} ${y - r * 1.3}L${x + r * 1.2} ${y + r}L${x - r * 1.2} ${y + r}Z` }),
};

// The plot for `view`: { points, references, chosen (index), picked (index), metric (errorMetric),
// goal ({ error } or { bytes }), objective, quality, width, height, formatBytes, onPick(index) }.
export function targetPlot(view) {
  const { points, references, chosen, picked, metric, goal, width, height, formatBytes, onPick } = view;
  const small = width < 480;
  const margin = { left: small ? 56 : 64, right: small ? 10 : 20, top: 30, bottom: 44 };
  const plotW = width - margin.left - margin.right, plotH = height - margin.top - margin.bottom;
  const svg = el('svg', { width, height, viewBox: `0 0 ${width} ${height}`, role: 'img',
                          'aria-labelledby': 'target-plot-title target-plot-desc', class: 'target-plot' });
  const title = el('title', { id: 'target-plot-title' },
                   `Bytes on the wire (${view.objective}${view.quality ? `, quality ${view.quality}` : ''}) against ${metric.label}`);
  const desc = el('desc', { id: 'target-plot-desc' }, describe(view));
  svg.append(title, desc);

  // Scales: bytes across (linear), the error up (log; 0 at the floor).
  const values = [...points, ...references].map((p) => metric.of(p)).filter((v) => v != null);
  const positive = values.filter((v) => v > 0);
  if (goal?.error > 0) positive.push(goal.error);
  const top = Math.max(...positive, 1e-6), floor = Math.min(...positive, top) / 2;
  const yLo = Math.log10(floor), yHi = Math.log10(top * 1.5);
  const allBytes = [...points, ...references].map((p) => p.bytes);
  if (goal?.bytes) allBytes.push(goal.bytes);
  const bMin = Math.min(...allBytes), bMax = Math.max(...allBytes), pad = Math.max((bMax - bMin) * 0.06, bMax * 0.01);
  const xLo = bMin - pad, xHi = bMax + pad;
  const x = (b) => margin.left + ((b - xLo) / (xHi - xLo)) * plotW;
  const y = (v) => margin.top + plotH - ((Math.log10(Math.max(v, floor)) - yLo) / (yHi - yLo)) * plotH;

  // Axes, grid and ticks.
  const axes = el('g', { class: 'axes' });
  axes.append(el('rect', { x: margin.left, y: margin.top, width: plotW, height: plotH, class: 'frame' }));
  for (const b of linearTicks(xLo, xHi, small ? 3 : 5)) {
    // A name near an edge of the plot ends (or starts) at its tick, inside the picture.
    const anchor = x(b) > width - 36 ? 'end' : x(b) < 36 ? 'start' : 'middle';
    axes.append(el('line', { x1: x(b), x2: x(b), y1: margin.top, y2: margin.top + plotH, class: 'grid' }),
                el('text', { x: x(b), y: margin.top + plotH + 16, 'text-anchor': anchor, class: 'tick' }, formatBytes(b)));
  }
  for (const v of logTicks(yLo, yHi)) {
    axes.append(el('line', { x1: margin.left, x2: margin.left + plotW, y1: y(v), y2: y(v), class: 'grid' }),
                el('text', { x: margin.left - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'tick' }, formatError(v, metric.percent)));
  }
  if (values.includes(0)) axes.append(el('text', { x: margin.left - 6, y: y(floor) + 4, 'text-anchor': 'end', class: 'tick' }, '0'));
  axes.append(el('text', { x: margin.left + plotW / 2, y: height - 6, 'text-anchor': 'middle', class: 'axis-title' },
                 `bytes on the wire: ${view.objective}${view.quality ? ` (quality ${view.quality})` : ''}`),
              el('text', { x: 4, y: 16, 'text-anchor': 'start', class: 'axis-title' }, `↑ ${metric.label}`));
  svg.append(axes);

  // Names go where they cover no mark and no other name: the marks first, then the target's, then
  // the references'.
  const labels = labelPlacer({ left: margin.left, top: margin.top, right: margin.left + plotW, bottom: margin.top + plotH });
  for (const p of points) labels.block(x(p.bytes), y(metric.of(p) ?? floor), 6);
  for (const r of references) if (metric.of(r) != null) labels.block(x(r.bytes), y(metric.of(r)), 7);

  // The target.
  if (goal?.error > 0 || goal?.bytes) {
    const g = el('g', { class: 'goal' });
    if (goal.bytes) {
      const at = labels.placeOnLine(x(goal.bytes), 'target');
      g.append(el('line', { x1: x(goal.bytes), x2: x(goal.bytes), y1: margin.top, y2: margin.top + plotH }),
               el('text', { x: at.x, y: at.y, 'text-anchor': at.anchor }, 'target'));
    } else {
      const at = labels.placeBeside(y(goal.error), 'target');
      g.append(el('line', { x1: margin.left, x2: margin.left + plotW, y1: y(goal.error), y2: y(goal.error) }),
               el('text', { x: at.x, y: at.y, 'text-anchor': at.anchor }, 'target'));
    }
    svg.append(g);
  }

  // The reference points, each with its name beside it.
  const refs = el('g', { class: 'refs' });
  for (const r of references) {
    const v = metric.of(r), g = el('g', { class: `ref ref-${r.key}`, 'data-ref': r.key, 'data-bytes': r.bytes });
    g.append(el('title', {}, `${r.label}: ${formatBytes(r.bytes)}, ${metric.label} ${formatError(v, metric.percent)}`));
    const cx = x(r.bytes);
    if (v == null) {
      const at = labels.placeOnLine(cx, r.label);
      g.append(el('line', { x1: cx, x2: cx, y1: margin.top, y2: margin.top + plotH, class: 'ref-line' }),
               el('text', { x: at.x, y: at.y, 'text-anchor': at.anchor, class: 'ref-label' }, r.label));
    } else {
      const cy = y(v), at = labels.place(cx, cy, r.label);
      g.append(REF_SHAPES[r.key](cx, cy, 5.5));
      g.append(el('text', { x: at.x, y: at.y, 'text-anchor': at.anchor, class: 'ref-label' }, r.label));
    }
    refs.append(g);
  }
  svg.append(refs);

  // Every point tried; the chosen one larger, the picked one ringed. A point is picked by a click.
  const dots = el('g', { class: 'points' });
  points.forEach((p, i) => {
    const v = metric.of(p);
    // The second search's points (per-channel codes, target.js: better()) hollow.
    const channel = p.scheme === 'channel';
    const c = el('circle', { cx: x(p.bytes), cy: y(v ?? floor), r: i === chosen ? 7 : 4.5, class: `pt${channel ? ' channel' : ''}${i === chosen ? ' chosen' : ''}`,
                             'data-index': i, 'data-bytes': p.bytes });
    c.append(el('title', {}, `${i === chosen ? 'chosen: ' : ''}${formatBytes(p.bytes)}, ${metric.label} ${formatError(v, metric.percent)}` +
                             `${channel ? ', per-channel codes' : ''}`));
    c.addEventListener('click', () => onPick?.(i));
    dots.append(c);
  });
  if (picked != null && points[picked]) {
    const p = points[picked];
    dots.append(el('circle', { cx: x(p.bytes), cy: y(metric.of(p) ?? floor), r: 11, class: 'picked', 'data-index': picked }));
  }
  svg.append(dots);
  return svg;
}

// The plot in words (the SVG's description): the points, the chosen one, the references.
function describe({ points, references, chosen, metric, formatBytes, objective }) {
  const c = points[chosen];
  const sizes = points.map((p) => p.bytes);
  return `${points.length} points tried, from ${formatBytes(Math.min(...sizes))} to ${formatBytes(Math.max(...sizes))} (${objective}). ` +
    (c ? `Chosen: ${formatBytes(c.bytes)}, ${metric.label} ${formatError(metric.of(c), metric.percent)}. ` : '') +
    `For reference: ${references.map((r) => `${r.label} ${formatBytes(r.bytes)}${metric.of(r) == null ? '' : `, ${formatError(metric.of(r), metric.percent)}`}`).join('; ')}.`;
}
