// The value after a command-line flag of a bench script (node bench/X.mjs --runs 5), or `fallback`.
export function option(name, fallback) {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
}
