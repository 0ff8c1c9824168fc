// Runs a command to completion and returns its wall time and peak resident memory (GNU time).
import { spawnSync } from 'node:child_process';

export function timed(command, args) {
  const p = spawnSync('/usr/bin/time', ['-f', '%e %M', command, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (p.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${p.stderr.slice(-2000)}`);
  const [seconds, kb] = p.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  return { seconds, rss: kb * 1024, stdout: p.stdout };
}
