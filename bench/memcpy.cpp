// The physical limit: memcpy of N megabytes, best of several runs, in MB/s. Also the machine's
// memory bandwidth for BENCHMARKS.md.
//   bench_memcpy MEGABYTES
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

int main(int argc, char** argv) {
  const size_t bytes = static_cast<size_t>(argc > 1 ? std::atof(argv[1]) : 256) * 1000000;
  std::vector<char> a(bytes, 1), b(bytes, 2);
  double best = 1e9;
  for (int run = 0; run < 5; ++run) {
    const auto t0 = std::chrono::steady_clock::now();
    std::memcpy(b.data(), a.data(), bytes);
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
    a[run] = b[bytes - 1 - run];  // keep the copies observable
  }
  std::printf("%.1f\n", bytes / best / 1e6);
  return a[0] == 42;
}
