// Packing the package: npm's prepack step refuses a tree without the built engine, and the lock file
// holds every platform's optional packages, so that `npm ci` accepts it and an install leaves it as
// it is.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from './temp_dir.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

test('npm pack without the built engine stops with what to run; with it, it packs the engine', () => {
  const dir = tempDir('pack');
  for (const entry of ['package.json', 'README.md', 'LICENSE', 'bindings', 'tools']) cpSync(path.join(root, entry), path.join(dir, entry), { recursive: true });
  const pack = () => spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts=false'], { cwd: dir, encoding: 'utf8' });
  const bare = pack();
  assert.notEqual(bare.status, 0, 'packed without dist/');
  assert.match(bare.stderr, /cannot pack: dist\/onnx-shrink\.wasm and dist\/onnx-shrink\.mjs are missing\. Run \.\/dev build first/);
  mkdirSync(path.join(dir, 'dist'));
  for (const file of ['onnx-shrink.wasm', 'onnx-shrink.mjs']) cpSync(path.join(root, 'dist', file), path.join(dir, 'dist', file));
  const built = pack();
  assert.equal(built.status, 0, built.stderr);
  const files = JSON.parse(built.stdout)[0].files.map((f) => f.path);
  assert.ok(files.includes('dist/onnx-shrink.wasm') && files.includes('dist/onnx-shrink.mjs'), files.join(', '));
});

test('the lock file has every platform\'s optional packages (npm ci takes it; installing adds none)', () => {
  const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
  const names = Object.keys(lock.packages);
  // Rollup (Vite's) ships one native package per platform; npm install on another platform adds
  // the ones a lock written on one platform lacks, and npm ci refuses such a lock.
  const rollup = lock.packages['node_modules/rollup'];
  assert.ok(rollup, 'no rollup in the lock');
  const optional = Object.keys(rollup.optionalDependencies ?? {});
  assert.ok(optional.length > 10, `rollup lists ${optional.length} optional packages`);
  for (const name of optional) assert.ok(names.includes(`node_modules/${name}`), `${name} is missing from package-lock.json`);
  assert.equal(lock.packages[''].devDependencies?.vite, pkg.devDependencies.vite);
});
