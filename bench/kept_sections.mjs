// What `./dev bench` keeps of the BENCHMARKS.md it rewrites: what this run does not measure.
//
// The bench writes its own sections from scratch. Sections, subsections and rows of the Targets
// table that this run does not write (measurements made by hand, each dated where it was written,
// or by an earlier full run that --quick leaves out) are kept as they were:
// - a `## ` section whose heading the bench does not write: after the bench's sections, under
//   "## Measured earlier", in their old order;
// - a `### ` subsection whose heading its `## ` section (one the bench writes) does not have: at
//   the end of that section;
// - a row of the Targets table whose first cell the bench does not write: after the bench's rows.
// Text directly under a heading the bench writes is the bench's, and replaced. Headings inside
// ``` blocks are text.

export const HAND_HEADING = '## Measured earlier';
const HAND_INTRO = 'Kept by `./dev bench` as they were: the sections below, and subsections and rows of the Targets table ' +
                   'that the run above did not write, measured by hand (each dated where it was written) or by an earlier full run. ' +
                   'A note by hand in a section the bench writes goes in a `###` subsection of it: text directly under its heading is replaced.';

// Lines split into a prelude and the parts that open with a heading of `level` ('## ' or '### ').
function split(lines, level) {
  const parts = [];
  let current = { heading: null, lines: [] }, fenced = false;
  for (const line of lines) {
    if (line.startsWith('```')) fenced = !fenced;
    if (!fenced && line.startsWith(level)) {
      parts.push(current);
      current = { heading: line.trim(), lines: [line] };
    } else {
      current.lines.push(line);
    }
  }
  parts.push(current);
  return { prelude: parts[0].lines, parts: parts.slice(1) };
}

// A section's lines without the blank lines at its end.
function trimmed(lines) {
  let end = lines.length;
  while (end > 0 && lines[end - 1].trim() === '') --end;
  return lines.slice(0, end);
}

// A table row's first cell with its numbers as '#' (a quick run counts fewer draws), or null for a
// line that is not a row of data.
function firstCell(line) {
  if (!line.startsWith('|') || /^\|\s*-/.test(line)) return null;
  return line.split('|')[1].trim().replace(/[0-9][0-9.,]*/g, '#');
}

// The Targets section with the old rows the bench did not write added after its own.
function withKeptRows(section, previous) {
  if (!previous) return section;
  const own = new Set(section.map(firstCell).filter((c) => c !== null));
  const header = section.find((l) => firstCell(l) !== null);  // the header row: the first row
  const kept = previous.filter((l) => {
    const cell = firstCell(l);
    return cell !== null && l !== header && !own.has(cell);
  });
  if (!kept.length) return section;
  let last = section.length - 1;
  while (last >= 0 && !section[last].startsWith('|')) --last;
  return [...section.slice(0, last + 1), ...kept, ...section.slice(last + 1)];
}

// `generated` with what `previous` had that the bench did not write.
export function keepHandWritten(previous, generated) {
  const before = split(previous.split('\n'), '## ');
  const after = split(generated.split('\n'), '## ');
  const written = new Set(after.parts.map((p) => p.heading));
  written.add(HAND_HEADING);
  const old = new Map(before.parts.map((p) => [p.heading, p.lines]));

  const out = [...after.prelude];
  for (const part of after.parts) {
    let lines = part.lines;
    if (part.heading === '## Targets') lines = withKeptRows(lines, old.get(part.heading));
    const oldLines = old.get(part.heading);
    if (oldLines && part.heading !== '## Targets') {
      const own = new Set(split(lines, '### ').parts.map((p) => p.heading));
      const kept = split(oldLines, '### ').parts.filter((p) => !own.has(p.heading));
      if (kept.length) lines = [...trimmed(lines), '', ...kept.flatMap((p) => [...trimmed(p.lines), ''])];
    }
    out.push(...lines);
  }
  const hand = before.parts.filter((p) => !written.has(p.heading));
  const kept = hand.length ? ['', HAND_HEADING, '', HAND_INTRO, '', ...hand.flatMap((p) => [...trimmed(p.lines), ''])] : [];
  return `${trimmed([...trimmed(out), ...kept]).join('\n')}\n`;
}
