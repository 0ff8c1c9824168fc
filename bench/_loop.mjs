import { readFileSync } from 'node:fs';
import { expand, version } from '../bindings/js/index.node.js';
const bytes = readFileSync(process.argv[2]);
const n = +process.argv[3] || 200;
await version();
for (let i = 0; i < 30; i++) await expand(bytes);
const t = performance.now();
for (let i = 0; i < n; i++) await expand(bytes);
console.log(((performance.now() - t) / n).toFixed(2), 'ms a call');
