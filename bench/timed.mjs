// Runs a command to completion and returns its wall time and peak resident memory (GNU time).
// The wall time is measured here, to the microsecond: GNU time's %e has 10 ms steps, a tenth of a
// 150 MB native run. It includes starting GNU time itself (about a millisecond).
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';

export function timed(command, args) {
  const start = performance.now();
  const p = spawnSync('/usr/bin/time', ['-f', '%M', command, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const seconds = (performance.now() - start) / 1000;
  if (p.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${p.stderr.slice(-2000)}`);
  const kb = Number(p.stderr.trim().split('\n').at(-1));
  return { seconds, rss: kb * 1024, stdout: p.stdout };
}
