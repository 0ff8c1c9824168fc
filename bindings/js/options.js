// The options of shrink() and inspect(), once for the JS side: the API (core.js), the CLI
// (cli.js: its flags, choices and usage text) and the page (web/app.js, whose controls have the
// flags' names as ids) read them here. index.d.ts and web/index.html spell them again, and
// tests/js/options.test.mjs checks that they agree with this table. The engine checks ranges and
// which options go together (src/shrink.cpp validate()).
//
// One entry per option:
//   key        the JS API's name
//   flag       the CLI flag (null: none; the CLI sets it itself, or it is the API's alone)
//   mode       the one mode it applies to, when only one
//   words      the words it takes (a list, or a list per mode); `numbers`: the numbers it also takes
//   min, max   a whole number's documented range (`powerOfTwo`: only powers of two; 0 may also be
//              allowed, as `help` says); the engine checks it
//   uint32     the engine holds it in 32 bits (other numbers are exact up to 2^53)
//   default
//   help       one line; another option is named as `key`
export const OPTIONS = [
  { key: 'mode', flag: '--mode', words: ['int8', 'palette'], default: 'int8',
    help: 'int8: 8-bit codes expanded in the graph; palette: at most `levels` values per tensor, stored as floats (compresses several-fold)' },
  { key: 'scheme', flag: '--scheme', words: { int8: ['auto', 'channel', 'tensor'], palette: ['auto', 'kmeans', 'uniform'] }, default: 'auto',
    help: 'tensor and uniform reproduce the original Shrink Ray (the Python tool onnx-shrink was made to beat)' },
  { key: 'levels', flag: '--levels', mode: 'palette', min: 2, max: 65536, uint32: true, default: 256,
    help: 'levels per tensor' },
  { key: 'block', flag: '--block', mode: 'int8', min: 16, max: 4096, powerOfTwo: true, uint32: true, default: 0,
    help: 'one scale per this many values along the reduction axis, or 0: per channel' },
  { key: 'form', flag: '--form', mode: 'int8', words: ['fold', 'dq'], default: 'fold',
    help: 'Cast->Mul->Add, which onnxruntime computes once when the session is created (fold), or DequantizeLinear (dq), computed at every inference' },
  { key: 'bits', flag: '--bits', mode: 'int8', words: ['auto'], numbers: [2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 16], default: 'auto',
    help: 'bits per value of the codes. auto: 8, plus a 9th and 10th for the tensors the bytes `small` saves pay for, ' +
          'those rounded worst first (lowest estimated signal-to-noise ratio, SQNR): never larger than 8 bits with the small tensors kept. A number: that many for every tensor that can take them ' +
          '(2 to 7: still one byte per value, which gzip and brotli store in about that many bits)' },
  { key: 'tensorBits', flag: '--tensor-bits', mode: 'int8', default: {},
    help: 'bits for the named tensors instead of `bits`: {name: bits} (on the command line NAME=BITS,...)' },
  { key: 'minElements', flag: '--min-elements', default: 16384,
    help: 'smaller tensors get no 8-bit codes (see `small`) and no palette' },
  { key: 'small', flag: '--small', mode: 'int8', words: ['auto', 'fp16', 'keep'], default: 'auto',
    help: 'float32 tensors under `minElements` stored as float16 behind a Cast where float16 holds them ' +
          '(auto: when large ones are shrunk; fp16: always); keep: left alone' },
  { key: 'exclude', flag: '--exclude', default: [], help: 'tensors to leave alone, by name' },
  { key: 'excludeNodes', flag: '--exclude-nodes', default: [], help: 'leave the weights read by these nodes alone' },
  { key: 'excludeOps', flag: '--exclude-ops', default: [], help: 'leave the weights read by these op types alone' },
  { key: 'externalData', flag: '--external-data', words: ['auto', 'inline', 'external'], default: 'auto',
    help: 'where tensor data goes (auto: inline unless over 2 GB)' },
  { key: 'externalLocation', flag: null, default: '', help: 'the external data file name written into the model' },
  { key: 'externalThreshold', flag: null, default: 1024, help: 'tensors of fewer bytes stay inline' },
  { key: 'externalAlignment', flag: null, min: 1, max: 1 << 20, powerOfTwo: true, uint32: true, default: 4096,
    help: 'offset alignment of external tensors' },
];

/** Each option's entry by its key. */
export const OPTION = Object.fromEntries(OPTIONS.map((o) => [o.key, o]));

/** Each option's default by its key. */
export const DEFAULTS = Object.fromEntries(OPTIONS.map((o) => [o.key, o.default]));

/** The words an option takes: in `mode`, or in any mode. */
export function words(option, mode) {
  const { words: w = [] } = option;
  if (Array.isArray(w)) return w;
  return mode ? w[mode] : [...new Set(Object.values(w).flat())];
}
