// main() for the C++ tests built to WebAssembly and run by node (the SIMD128 kernels against
// their scalar twins, the wire format).
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
