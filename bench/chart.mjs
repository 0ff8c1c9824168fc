// Scatter charts as SVG text, drawn without a library: labelled points on a linear x axis from 0
// against a logarithmic y axis in whole decades, with a title, axis names and a legend. Used for
// bench/size-accuracy.svg (bench/run.mjs) and bench/wire-accuracy.svg (bench/wire_accuracy.mjs).

// A decade's label: 0.001, not 0.0010000000000000002.
const decade = (y) => String(Number((10 ** y).toPrecision(1)));

// One chart. `points`: [{ x, y (> 0; drawn at no less than yFloor), label, colour, title, above }]
// (a label goes right of its point, or above it); the x axis runs to `xRoom` times the largest x,
// with grid lines every `xStep`, labelled by `xTick(x)`; `legend`: [{ text, colour }].
export function scatter({ width: W = 760, height: H = 430, title, xLabel, yLabel, points, xStep, xTick, legend = [], yFloor = 1e-4, xRoom = 1.05 }) {
  const L = 70, R = 20, T = 30, B = 60;
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => Math.log10(Math.max(p.y, yFloor)));
  const x0 = 0, x1 = Math.max(...xs) * xRoom, y0 = Math.floor(Math.min(...ys)), y1 = Math.max(Math.ceil(Math.max(...ys)), y0 + 1);
  const px = (x) => L + ((x - x0) / (x1 - x0)) * (W - L - R);
  const py = (y) => T + ((y1 - y) / (y1 - y0)) * (H - T - B);
  let svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">\n`;
  svg += `<rect width="${W}" height="${H}" fill="white"/>\n`;
  svg += `<text x="${W / 2}" y="18" text-anchor="middle" font-size="14">${title}</text>\n`;
  for (let y = y0; y <= y1; y++) {
    svg += `<line x1="${L}" x2="${W - R}" y1="${py(y)}" y2="${py(y)}" stroke="#ddd"/><text x="${L - 6}" y="${py(y) + 4}" text-anchor="end">${decade(y)}</text>\n`;
  }
  for (let x = 0; x <= x1; x += xStep) {
    svg += `<line y1="${T}" y2="${H - B}" x1="${px(x)}" x2="${px(x)}" stroke="#eee"/><text x="${px(x)}" y="${H - B + 16}" text-anchor="middle">${xTick(x)}</text>\n`;
  }
  svg += `<text x="${(L + W - R) / 2}" y="${H - 22}" text-anchor="middle">${xLabel}</text>\n`;
  svg += `<text transform="translate(16 ${(T + H - B) / 2}) rotate(-90)" text-anchor="middle">${yLabel}</text>\n`;
  // Labels (10 px text, about 5.5 px a character) moved down, a line at a time, off the labels
  // placed before them, with a thin line back to their point when moved.
  const placed = [];
  const overlaps = (b) => placed.some((q) => b[0] < q[2] && q[0] < b[2] && b[1] < q[3] && q[1] < b[3]);
  // Labels above their points first; a label that would leave the chart on the right goes to the left.
  const order = points.map((_, i) => i).sort((a, b) => !!points[b].above - !!points[a].above || ys[b] - ys[a] || xs[a] - xs[b]);
  for (const i of order) {
    const p = points[i], cx = px(xs[i]), cy = py(ys[i]), w = 5.5 * p.label.length;
    svg += `<circle cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" r="4.5" fill="${p.colour}"><title>${p.title}</title></circle>`;
    const onLeft = !p.above && cx + 7 + w > W - R;
    let [lx, ly, anchor] = p.above ? [cx, cy - 9, ' text-anchor="middle"'] : onLeft ? [cx - 7, cy + 4, ' text-anchor="end"'] : [cx + 7, cy + 4, ''];
    const left = p.above ? lx - w / 2 : onLeft ? lx - w : lx;
    const box = (y) => [left, y - 9, left + w, y + 2];
    for (let k = 0; k < 12 && overlaps(box(ly)); k++) ly += p.above ? -11 : 11;
    placed.push(box(ly));
    if (ly - cy > 8) svg += `<line x1="${cx.toFixed(1)}" y1="${cy.toFixed(1)}" x2="${(onLeft ? lx + 1 : lx - 1).toFixed(1)}" y2="${(ly - 3).toFixed(1)}" stroke="${p.colour}" stroke-width="0.5"/>`;
    svg += `<text x="${lx.toFixed(1)}" y="${ly.toFixed(1)}" font-size="10" fill="${p.colour}"${anchor}>${p.label}</text>\n`;
  }
  svg += legend.map((l, i) => `<text x="${W - R - 150}" y="${T + 14 + 16 * i}" fill="${l.colour}">● ${l.text}</text>`).join('');
  if (legend.length) svg += '\n';
  return `${svg}</svg>\n`;
}

// Charts one above the other in one SVG (each keeps its own axes).
export function stacked(charts) {
  const size = (svg) => /width="(\d+)" height="(\d+)"/.exec(svg).slice(1).map(Number);
  const width = Math.max(...charts.map((c) => size(c)[0]));
  let top = 0, body = '';
  for (const c of charts) {
    body += c.replace('<svg ', `<svg y="${top}" `);
    top += size(c)[1];
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${top}">\n${body}</svg>\n`;
}

// A round grid step (1, 2 or 5 times a power of ten) giving about `count` lines up to `max`.
export function gridStep(max, count = 8) {
  const raw = max / count, power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
}
