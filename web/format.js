// Numbers as the page shows them: sizes, how much smaller, what downloads cost, counts.

export function formatBytes(n) {
  if (n == null || Number.isNaN(n)) return '–';
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let i = 0;
  while (Math.abs(n) >= 1000 && i < units.length - 1) n /= 1000, i++;
  return `${n.toFixed(i === 0 ? 0 : n < 10 ? 2 : 1)} ${units[i]}`;
}
// Dollars: cents up to $1,000 (one column reads alike), whole dollars above; under a cent, said so.
export const money = (x) => {
  if (!Number.isFinite(x)) return '–';
  if (x > 0 && x < 0.005) return '< $0.01';
  const cents = Math.abs(x) < 1000 ? 2 : 0;
  return x.toLocaleString('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: cents, maximumFractionDigits: cents });
};

// How much smaller a file is, in the CLI's words: "2.8× smaller" (before ÷ after; two decimals
// under 2×, none from 10×), "1.05× larger", "same size"; with `saves`, also the share saved
// ("2.8× smaller, saves 64.2 %").
export function sizeChange(before, after, { saves = false } = {}) {
  if (!(before > 0) || !(after > 0)) return '–';
  if (before === after) return 'same size';
  const r = before > after ? before / after : after / before;
  const share = (100 * Math.abs(1 - after / before)).toFixed(1);
  // A change that rounds to 1.00× is said as a share ("0.3 % smaller").
  if (r < 1.005) return `${share} % ${before > after ? 'smaller' : 'larger'}`;
  const ratio = `${r.toFixed(r < 2 ? 2 : r < 10 ? 1 : 0)}× ${before > after ? 'smaller' : 'larger'}`;
  if (!saves) return ratio;
  return before > after ? `${ratio}, saves ${share} %` : `${ratio}, ${share} % more`;
}

// Monthly and yearly egress cost of `bytes` per download. Prices are per GiB (2^30 bytes).
export function downloadCost(bytes, pricePerGiB, downloadsPerMonth) {
  const month = (bytes / 2 ** 30) * pricePerGiB * downloadsPerMonth;
  return { month, year: 12 * month };
}


export const capital = (text) => `${text[0].toUpperCase()}${text.slice(1)}`;
export const samplesText = (n) => `${n} sample${n === 1 ? '' : 's'}`;
