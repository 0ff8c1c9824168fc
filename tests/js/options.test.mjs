// The option table (bindings/js/options.js) against the places that spell its words again:
// index.d.ts (types cannot import values), the page's controls (web/index.html), and what the API
// and the CLI accept.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DEFAULTS, OPTION, OPTIONS, words } from '../../bindings/js/options.js';
import { normaliseOptions } from '../../bindings/js/core.js';
import { DECISIONS, OBJECTIVES, TARGET_FORMS, TARGET_KINDS } from '../../bindings/js/target.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (file) => readFileSync(path.join(root, file), 'utf8');
const sorted = (values) => [...values].map(String).sort();
// Everything an option takes by name: its words, and the numbers beside them (bits).
const taken = (o) => [...words(o), ...(o.numbers ?? [])];
const inRange = (o, n) => Number.isInteger(n) && (o.min === undefined || (n >= o.min && n <= o.max)) && (!o.powerOfTwo || (n & (n - 1)) === 0);

test('the table: each default is a value of its option, each flag the key in kebab case', () => {
  for (const o of OPTIONS) {
    if (o.words) assert.ok(taken(o).includes(o.default), `${o.key}: default ${o.default} is not one of ${taken(o)}`);
    else if (typeof o.default === 'number') assert.ok(o.default === 0 || inRange(o, o.default), `${o.key}: default ${o.default} out of range`);
    if (o.flag) assert.equal(o.flag, `--${o.key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
    if (o.mode) assert.ok(OPTION.mode.words.includes(o.mode), `${o.key}: no mode '${o.mode}'`);
    if (o.words && !Array.isArray(o.words)) assert.deepEqual(sorted(Object.keys(o.words)), sorted(OPTION.mode.words));
    for (const [, key] of o.help.matchAll(/`(\w+)`/g)) assert.ok(OPTION[key], `${o.key}'s help names no option '${key}'`);
  }
  assert.equal(DEFAULTS.minElements, 16384);
});

// ShrinkOptions' properties in index.d.ts: name -> { type (aliases resolved), doc }.
function declaredOptions() {
  const dts = read('bindings/js/index.d.ts');
  const aliases = Object.fromEntries([...dts.matchAll(/export type (\w+) =([^;]+);/g)].map(([, name, type]) => [name, type.trim()]));
  const body = /export interface ShrinkOptions \{([\s\S]*?)\n\}/.exec(dts)[1];
  const props = {};
  for (const [, doc, name, type] of body.matchAll(/\/\*\*([\s\S]*?)\*\/\s*(\w+)\?: ([^;]+);/g)) {
    props[name] = { type: aliases[type.trim()] ?? type.trim(), doc: doc.replace(/\s*\n\s*\*?/g, ' ') };
  }
  assert.equal(Object.keys(props).length, [...body.matchAll(/^\s*\w+\?:/gm)].length, 'every ShrinkOptions property has a doc comment');
  return props;
}

test('index.d.ts: every option, with the same words, numbers, ranges and defaults', () => {
  const props = declaredOptions();
  const notInTable = Object.keys(props).filter((name) => !OPTION[name]);
  assert.deepEqual(notInTable.sort(), ['chunks', 'external', 'onExternalData', 'onModelData', 'onProgress', 'onReport', 'signal']);
  for (const o of OPTIONS) {
    const prop = props[o.key];
    assert.ok(prop, `index.d.ts has no option '${o.key}'`);
    if (o.words) {
      const parts = prop.type.split('|').map((p) => p.trim());
      assert.deepEqual(sorted(parts.map((p) => p.replace(/^'(.*)'$/, '$1'))), sorted(taken(o)), `${o.key}: ${prop.type}`);
      assert.deepEqual(sorted(parts.filter((p) => /^\d+$/.test(p))), sorted(o.numbers ?? []), `${o.key}: ${prop.type}`);
    } else {
      // (tensorBits takes what bits takes.)
      const type = Array.isArray(o.default) ? 'string[]' : o.key === 'tensorBits' ? "Record<string, NonNullable<ShrinkOptions['bits']>>" : typeof o.default;
      assert.equal(prop.type, type, `${o.key}: ${prop.type}`);
    }
    // Defaults as the docs give them: "(default 256)", "(default 1024 bytes)", "auto (default)",
    // "'auto' (default)", "fold (default; ...)". Every option with a default says it.
    const said = [...prop.doc.matchAll(/\(default ([^\s;)]+)/g), ...prop.doc.matchAll(/'?([\w.]+)'? \(default[;)]/g)].map((m) => m[1]);
    if (o.default !== '' && typeof o.default !== 'object') assert.ok(said.length, `${o.key}: its doc gives no default (${prop.doc})`);
    for (const d of said) assert.equal(d, String(o.default), `${o.key}: its doc gives the default ${d}`);
    const ranges = [...prop.doc.matchAll(/(\d+)\.\.(\d+)/g)].map((m) => `${m[1]}..${m[2]}`);
    assert.deepEqual(ranges, o.max === undefined ? [] : [`${o.min}..${o.max}`], `${o.key}: ranges in its doc`);
    if (o.powerOfTwo) assert.match(prop.doc, /power of two/, `${o.key}: its doc does not say it is a power of two`);
  }
});

test('web/index.html: the controls offer only the options\' values, with their defaults chosen', () => {
  const html = read('web/index.html');
  const modes = [...html.matchAll(/<input type="radio" name="mode" value="(\w+)"( checked)?/g)];
  assert.deepEqual(sorted(modes.map((m) => m[1])), sorted(words(OPTION.mode)));
  assert.deepEqual(modes.filter((m) => m[2]).map((m) => m[1]), [DEFAULTS.mode]);
  let checked = 0;
  for (const o of OPTIONS.filter((x) => x.flag)) {
    const id = o.flag.slice(2);
    const select = new RegExp(`<select id="${id}"[^>]*>([\\s\\S]*?)</select>`).exec(html);
    const input = new RegExp(`<input id="${id}"([^>]*)>`).exec(html);
    if (select) {
      const options = [...select[1].matchAll(/<option value="([^"]*)"( selected)?/g)];
      if (!options.length) continue;  // filled by app.js (scheme: from the table; exclude: the model's tensors)
      for (const [, value] of options) {
        const ok = o.words ? taken(o).map(String).includes(value) : Number(value) === o.default || inRange(o, Number(value));
        assert.ok(ok, `#${id} offers ${value}, which option '${o.key}' does not take`);
      }
      assert.equal((options.find((m) => m[2]) ?? options[0])[1], String(o.default), `#${id}: the default is not the one chosen`);
      checked++;
    } else if (input && o.key === 'levels') {  // a slider of powers of two
      const attr = (name) => Number(new RegExp(`${name}="(\\d+)"`).exec(input[1])[1]);
      assert.ok(2 ** attr('min') >= o.min && 2 ** attr('max') <= o.max, `#levels: 2^${attr('min')}..2^${attr('max')} out of range`);
      assert.equal(2 ** attr('value'), o.default);
      assert.match(html, new RegExp(`<output id="levels-value" for="levels">${o.default}</output>`));
      checked++;
    } else if (input) {
      assert.match(input[1], new RegExp(`value="${o.default}"`), `#${id}: its value is not the default ${o.default}`);
      checked++;
    }
  }
  assert.ok(checked >= 7, `only ${checked} controls found`);
});

test('the API and the CLI take the words of the table, and name them when given another', async () => {
  assert.deepEqual(normaliseOptions({}), { ...DEFAULTS, bits: 0, tensorBitsList: [] });
  for (const o of OPTIONS.filter((x) => x.words && !x.numbers)) {
    const needs = o.key === 'externalData' ? { externalLocation: 'm.onnx.data' } : {};  // 'external' names its file
    for (const w of words(o)) assert.equal(normaliseOptions({ [o.key]: w, ...needs })[o.key], w);
    assert.throws(() => normaliseOptions({ [o.key]: 'bogus' }), (e) => e.code === 'BAD_OPTION' && e.message.startsWith(`${o.key} must be `) &&
                  e.message.endsWith(", not 'bogus'") && words(o).every((w) => e.message.includes(`'${w}'`)));
  }
  const cli = path.join(root, 'bindings', 'js', 'cli.js');
  const help = spawnSync(process.execPath, [cli, '--help'], { encoding: 'utf8' }).stdout;
  for (const o of OPTIONS.filter((x) => x.flag)) {
    assert.match(help, new RegExp(`^  ${o.flag} ${Array.isArray(o.words) ? taken(o).join('\\|') : '\\S+'}`, 'm'));
    const bad = spawnSync(process.execPath, [cli, 'm.onnx', o.flag, 'bogus'], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    const expected = o.words ? `${o.flag} takes ${taken(o).join(', ').replace(/, ([^,]*)$/, ' or $1')}, not 'bogus'` : typeof o.default === 'number' ? `${o.flag} needs a whole number` : null;
    if (expected) assert.ok(bad.stderr.startsWith(`onnx-shrink: ${expected}`), bad.stderr);
  }
});

test('target mode\'s words (bindings/js/target.js): the CLI\'s help and errors, index.d.ts and the README use them', () => {
  const cli = path.join(root, 'bindings', 'js', 'cli.js');
  const help = spawnSync(process.execPath, [cli, '--help'], { encoding: 'utf8' }).stdout;
  const targets = [...TARGET_KINDS.map((kind) => `${kind}=N`), 'default'];
  for (const [flag, taken] of [['--target', targets], ['--decision', DECISIONS], ['--objective', OBJECTIVES]]) {
    assert.match(help, new RegExp(`^  ${flag} ${taken.join('\\|')}\\s`, 'm'), flag);
  }
  assert.match(help.replace(/\n {28}/g, ' '), /^  --objective \S+ with --target: the size to make smallest: .*; default brotli$/m);
  const bad = (...args) => spawnSync(process.execPath, [cli, 'm.onnx', ...args], { encoding: 'utf8' });
  const or = (items) => `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
  const objective = bad('--target', 'size=1MB', '--objective', 'bogus');
  assert.equal(objective.status, 2);
  assert.ok(objective.stderr.startsWith(`onnx-shrink: --objective takes ${or(OBJECTIVES)}, not 'bogus'\n`), objective.stderr);
  const target = bad('--target', 'bogus');
  assert.ok(target.stderr.startsWith(`onnx-shrink: --target takes ${or([...Object.values(TARGET_FORMS), 'default'])}, not 'bogus'\n`), target.stderr);
  const decision = bad('--target', 'agree=0.9', '--decision', 'bogus');
  assert.ok(decision.stderr.startsWith(`onnx-shrink: --decision takes ${or(DECISIONS)} (e.g. threshold:0.3), not 'bogus'\n`), decision.stderr);
  // index.d.ts: TargetOptions' objective is the words; its target and decision docs, and the result's
  // goal, name every kind and form.
  const dts = read('bindings/js/index.d.ts');
  const options = /export interface TargetOptions extends [^{]*\{([\s\S]*?)\n\}/.exec(dts)[1];
  const objectiveType = /objective\?: ([^;]+);/.exec(options)[1];
  assert.deepEqual(sorted(objectiveType.split('|').map((w) => w.trim().replace(/^'(.*)'$/, '$1'))), sorted(OBJECTIVES));
  const targetDoc = /\/\*\*([^*]*)\*\/\s*target: string;/.exec(options)[1];
  for (const kind of TARGET_KINDS) assert.match(targetDoc, new RegExp(`'${kind}=`), `index.d.ts: target's doc has no ${kind}=`);
  assert.match(targetDoc, /'default'/);
  const decisionDoc = /\/\*\*([^*]*)\*\/\s*decision\?: string;/.exec(options)[1];
  for (const d of DECISIONS) assert.ok(decisionDoc.includes(`'${d}'`), `index.d.ts: decision's doc has no '${d}'`);
  const goal = /goal: \{ kind: ([^;]+);/.exec(dts)[1];
  assert.deepEqual(sorted(goal.split('|').map((w) => w.trim().replace(/^'(.*)'$/, '$1'))), sorted([...TARGET_KINDS, 'default']));
  // The README's target mode names every kind, decision and objective.
  const readme = read('README.md');
  const section = /\n### Target mode\n([\s\S]*?)\n## /.exec(readme)?.[1];
  assert.ok(section, 'README.md has no "### Target mode" section');
  for (const word of [...TARGET_KINDS.map((kind) => `${kind}=`), 'default', ...DECISIONS, ...OBJECTIVES]) {
    assert.ok(section.includes(word), `README.md's target mode does not mention ${word}`);
  }
});

test('the engine\'s own word tables (src/option_words.cpp, as the native CLI\'s --help prints them) hold the same words', () => {
  const cli = process.env.ONNX_SHRINK_CLI ?? path.join(root, 'build', 'onnx-shrink');
  const help = spawnSync(cli, ['--help'], { encoding: 'utf8' });
  assert.equal(help.status, 0, help.stderr);
  for (const o of OPTIONS.filter((x) => x.words && x.flag)) {
    const line = new RegExp(`^  ${o.flag} (\\S+)`, 'm').exec(help.stdout);
    assert.ok(line, `the native CLI has no ${o.flag}`);
    assert.deepEqual(sorted(line[1].split('|')), sorted(taken(o)), `${o.flag}: the engine's words differ from options.js`);
  }
});
