// The point of target mode's path that meets a target, found with few points built and measured:
// for large models, where each point costs seconds (a 150 MB file built, compressed and run).
//
// The path's points are ordered so that a target holds on one side of some point: an error bound
// from the first point up to it (`prefix`), a size bound from it to the last. The search keeps the
// nearest point known to meet the target and the nearest known to miss it, and guesses the next
// point from the predictions along the path (the predicted error, or the estimated bytes) scaled by
// the last measurement: measured ≈ scale × predicted. A good prediction lands next to the boundary
// in two or three points; when two guesses in a row fall on the same side, the next halves the
// interval instead (a bisection step), so that a bad prediction costs no more than bisection. It
// stops when the two points are neighbours or `nearEnough(a, b)` says that what lies between them
// is not worth measuring (a difference in bytes).

// count: the path's length; evaluate(k) -> point; ok(point); measured(point) and predicted(k): the
// quantity compared (measured ≈ scale × predicted), rising away from the side that meets the target;
// limit: its bound; onStep(fraction).
export async function guidedSearch(count, { evaluate, ok, measured, predicted, limit, prefix, nearEnough, onStep = () => {} }) {
  const at = (j) => (prefix ? j : count - 1 - j);  // j: 0 is the end that meets the target most easily
  let lo = -1, hi = count;  // the last j known to meet it, the first known to miss it
  let best = null, missed = null, scale = 1, lastSide = null, streak = 0, steps = 0, shown = 0;
  onStep(0);
  while (hi - lo > 1 && !(lo >= 0 && hi < count && nearEnough(at(lo), at(hi)))) {
    let j;
    if (streak >= 2) {
      j = Math.floor((Math.max(lo, 0) + Math.min(hi, count - 1) + (lo < 0 ? 0 : 1)) / 2);
    } else {
      j = lo + 1;
      for (let i = hi - 1; i > lo; i--) if (scale * predicted(at(i)) <= limit) { j = i; break; }
    }
    j = Math.min(Math.max(j, lo + 1), hi - 1);
    const tried = await evaluate(at(j));
    const side = ok(tried.point);
    if (side) lo = j, (best = tried);
    else hi = j, (missed = tried);
    streak = side === lastSide ? streak + 1 : 1;
    lastSide = side;
    const m = measured(tried.point), q = predicted(at(j));
    if (m > 0 && q > 0) scale = m / q;
    steps++;
    shown = Math.max(shown, steps / (steps + Math.ceil(Math.log2(Math.max(2, hi - lo)))));
    onStep(Math.min(1, shown));
  }
  return { met: best !== null, chosen: best ?? missed };
}
