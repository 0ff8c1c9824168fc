// Removes the temporary files of a CLI run that ended without removing them itself: killed
// (Ctrl-C, SIGTERM, even SIGKILL), crashed, or out of memory. Node cannot run a signal handler
// while the engine works (one long synchronous call), so the CLI does not try: it starts this
// process in a session of its own (Ctrl-C reaches only the CLI) and writes it the path of each
// temporary file, one per line. Its stdin ends when the CLI exits, however that came about; then
// whichever of the files still exist are removed. A file the CLI committed no longer exists under
// its temporary name, so a run that ends well leaves this nothing to do.
import { rmSync } from 'node:fs';

const paths = new Set();
let partial = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (text) => {
  const lines = (partial + text).split('\n');
  partial = lines.pop();
  for (const line of lines) if (line) paths.add(line);
});
process.stdin.on('end', () => {
  for (const file of paths) rmSync(file, { force: true });
});
