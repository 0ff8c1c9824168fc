// The compressed sizes the command line's table shows beside a result: brotli, measured from the
// result's files or as the engine wrote it, and how many times smaller the result is.
import { closeSync, openSync, readSync } from 'node:fs';
import { once } from 'node:events';
import { constants as zlibConstants, createBrotliCompress } from 'node:zlib';

// The brotli size of a result (its model and data files, as opened now: a commit may rename them,
// or copy them to a stream and remove them), or null past 64 MB, as gzip's. Quality 11, the
// reference of BENCHMARKS.md and what static hosts precompress with, for results up to 4 MB: it
// runs at about half a megabyte to a megabyte a second. Larger results get 9, many times faster
// and a few percent larger. zlib compresses on a background thread, beside the check; show(bar)
// draws its progress from then on (once the check, which has a bar of its own, is done).
const BROTLI_BEST_UP_TO = 4e6, BROTLI_UP_TO = 64e6;
// Inputs from which brotli at quality 9 runs beside the engine: their results are most likely
// over BROTLI_BEST_UP_TO (the int8 default keeps about a quarter). Below, a result of 4 MB or less
// would be measured twice (quality 9 wasted beside quality 11: PP-OCR det's CLI run took 0.2 s longer).
export const BROTLI_STREAM_FROM = 4 * BROTLI_BEST_UP_TO;
export function brotliSize(run) {
  const total = run.size;
  let fed = 0;
  if (total > BROTLI_UP_TO) return { done: Promise.resolve(null), show() {} };
  const quality = total <= BROTLI_BEST_UP_TO ? 11 : 9;
  const fds = [run.model.temp, ...(run.externalFile ? [run.externalFile.temp] : [])].map((file) => openSync(file, 'r'));
  const measure = async (report) => {
    const stream = createBrotliCompress({ params: { [zlibConstants.BROTLI_PARAM_QUALITY]: quality, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: total } });
    let size = 0;
    stream.on('data', (chunk) => (size += chunk.byteLength));
    const done = new Promise((resolve, reject) => stream.on('end', resolve).on('error', reject));
    for (const fd of fds) {
      for (let at = 0; ;) {
        const chunk = Buffer.allocUnsafe(256 << 10);
        const n = readSync(fd, chunk, 0, chunk.byteLength, at);
        if (n === 0) break;
        at += n;
        if (!stream.write(chunk.subarray(0, n))) await once(stream, 'drain');  // (rejects on 'error', and removes its listeners)
        report((fed += n));
      }
    }
    stream.end();
    await done;
    return { bytes: size, quality };
  };
  return shownMeasure(total, (report) => measure(report).catch(() => null).finally(() => fds.forEach((fd) => closeSync(fd))), () => fed);
}

// The brotli size at quality 9 of a result measured as the engine wrote it (shrinkTo's
// `streamBrotli`), in brotliSize's shape, when brotliSize would measure it at 9 too: larger than
// BROTLI_BEST_UP_TO, up to BROTLI_UP_TO, no external data file. Null otherwise (brotliSize then
// measures it from its files). The same bytes as brotliSize's stream gives.
export function streamedBrotli(run) {
  const sizes = run.sizes;
  if (!sizes) return null;
  if (run.externalFile || run.size <= BROTLI_BEST_UP_TO || run.size > BROTLI_UP_TO) {
    sizes.stopBrotli();  // not wanted after all: brotliSize measures the files
    return null;
  }
  return shownMeasure(run.size, (report) => {
    sizes.onFed(report);
    return sizes.done().then(({ brotli }) => (brotli === null ? null : { bytes: brotli, quality: 9 }));
  }, sizes.fed);
}

// A brotli measure as the table waits on it: `done`, and show(bar), which draws its progress from
// then on. `work(report)` runs it, calling report(bytes taken so far); `fed()` gives that number.
function shownMeasure(total, work, fed) {
  let bar = null, finished = false;
  const done = work((n) => bar?.(n / total, 'brotli')).finally(() => {
    finished = true;
    bar?.(1, 'done');
  });
  return {
    done,
    show(progress) {
      if (finished) return;
      bar = progress;
      bar(fed() / total, 'brotli');
    },
  };
}

// The table's brotli size of target mode's file when the search measured it already: the chosen
// point's bytes by brotli -q 9, the quality the table uses past BROTLI_BEST_UP_TO (the same bytes
// as brotliSize's stream makes: 36,242,368 of a 39.5 MB file both ways). Null otherwise.
export function chosenBrotli(target, size, objective = 'brotli') {
  if (objective !== 'brotli' || size <= BROTLI_BEST_UP_TO || size > BROTLI_UP_TO || target.chosen.raw !== size) return null;
  return { done: Promise.resolve({ bytes: target.chosen.bytes, quality: 9 }), show() {} };
}

// How much smaller the result is, in the words the page uses too: "2.8× smaller" (before ÷ after;
// two decimals under 2×, none from 10×), "1.05× larger" when it grew, "same size"; a change that
// rounds to 1.00× as a share ("0.3 % smaller").
export function sizeChange(before, after) {
  if (!before || !after) return '-';
  if (before === after) return 'same size';
  const r = before > after ? before / after : after / before;
  if (r < 1.005) return `${(100 * Math.abs(1 - after / before)).toFixed(1)} % ${before > after ? 'smaller' : 'larger'}`;
  return `${r.toFixed(r < 2 ? 2 : r < 10 ? 1 : 0)}× ${before > after ? 'smaller' : 'larger'}`;
}
