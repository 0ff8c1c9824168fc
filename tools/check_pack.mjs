// npm's prepack step: refuses to pack the package without its WebAssembly engine (dist/ is built by
// `./dev build`, not committed), so that a clone that was never built cannot publish a package that
// fails at its first import.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const needed = ['dist/onnx-shrink.wasm', 'dist/onnx-shrink.mjs'];
const missing = needed.filter((file) => !existsSync(path.join(root, file)) || statSync(path.join(root, file)).size === 0);
if (missing.length) {
  console.error(`onnx-shrink: cannot pack: ${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} missing. ` +
                'Run ./dev build first (it builds the WebAssembly engine into dist/).');
  process.exit(1);
}
