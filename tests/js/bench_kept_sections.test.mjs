// ./dev bench rewrites BENCHMARKS.md: what it keeps of the old file (bench/kept_sections.mjs).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HAND_HEADING, keepHandWritten } from '../../bench/kept_sections.mjs';

const generated = [
  '# Benchmarks', '', 'Generated today.', '',
  '## Targets', '', '| what | target | measured |  |', '| --- | --- | --- | --- |',
  '| native speed | ≥ 1000 MB/s | 1100 MB/s | met |', '| det: medians over 3 draws | ≤ 0.25 | 0.2 | met |', '',
  '## Speed', '', 'New speed text.', '', '### By shape', '', 'New shapes.', '',
  '## Accuracy', '', 'New accuracy.', '',
].join('\n');

const previous = [
  '# Benchmarks', '', 'Generated last week.', '',
  '## Targets', '', '| what | target | measured |  |', '| --- | --- | --- | --- |',
  '| native speed | ≥ 1000 MB/s | 900 MB/s | **missed** |', '| det: medians over 16 draws | ≤ 0.25 | 0.3 | **missed** |',
  '| issue 22, by hand | ≥ 1 | 1.2 (2026-11-27) | met |', '',
  '## Speed', '', 'Old speed text.', '', '### By shape', '', 'Old shapes.', '', '### Tried by hand (2026-11-27)', '', 'A profile.', '',
  '## Where the time goes (by hand)', '', 'Hand text.', '', '```', '## not a heading', '```', '', '### A detail', '', 'More.', '',
  '## Accuracy', '', 'Old accuracy.', '',
].join('\n');

test('the bench\'s own text is replaced; hand sections, subsections and target rows are kept', () => {
  const out = keepHandWritten(previous, generated);
  for (const gone of ['Generated last week.', 'Old speed text.', 'Old shapes.', 'Old accuracy.', '900 MB/s', 'over 16 draws']) {
    assert.ok(!out.includes(gone), `'${gone}' should be replaced`);
  }
  for (const kept of ['| issue 22, by hand | ≥ 1 | 1.2 (2026-11-27) | met |', 'A profile.', 'Hand text.', '## not a heading', 'More.']) {
    assert.ok(out.includes(kept), `'${kept}' should be kept`);
  }
  const lines = out.split('\n');
  const at = (line) => lines.indexOf(line);
  // The hand target row after the bench's rows; the hand subsection at the end of its section.
  assert.equal(at('| issue 22, by hand | ≥ 1 | 1.2 (2026-11-27) | met |'), at('| det: medians over 3 draws | ≤ 0.25 | 0.2 | met |') + 1);
  assert.ok(at('New shapes.') < at('### Tried by hand (2026-11-27)') && at('### Tried by hand (2026-11-27)') < at('## Accuracy'));
  // Hand sections after the bench's, under one heading, with their subsections and code blocks whole.
  assert.ok(at('New accuracy.') < at(HAND_HEADING) && at(HAND_HEADING) < at('## Where the time goes (by hand)'));
  assert.ok(at('## not a heading') < at('### A detail'));
  assert.equal(lines.filter((l) => l.startsWith('## ') && l !== '## not a heading').length, 5);
});

test('rewriting twice gives the same file, and no old file gives the bench\'s own', () => {
  const once = keepHandWritten(previous, generated);
  assert.equal(keepHandWritten(once, generated), once);
  assert.equal(keepHandWritten('', generated), `${generated.trimEnd()}\n`);
});
