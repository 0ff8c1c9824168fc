// Temporary folders for one test file, removed when its process exits, passed or failed (node
// --test runs each file in a process of its own). ONNX_SHRINK_KEEP_TEST_FILES=1 keeps them, to
// look at what a failing test left.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const made = [];
process.on('exit', () => {
  if (process.env.ONNX_SHRINK_KEEP_TEST_FILES) return;
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

export function tempDir(name) {
  const dir = mkdtempSync(path.join(tmpdir(), `onnx-shrink-${name}-`));
  made.push(dir);
  return dir;
}
