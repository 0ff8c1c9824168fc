#include "onnx_fields.h"

namespace onnx_shrink::onnx {

int element_bits(int32_t t) {
  switch (t) {
    case kFloat: case kInt32: case kUint32: return 32;
    case kUint8: case kInt8: case kBool: return 8;
    case kFloat8E4M3FN: case kFloat8E4M3FNUZ: case kFloat8E5M2: case kFloat8E5M2FNUZ: case kFloat8E8M0: return 8;
    case kUint16: case kInt16: case kFloat16: case kBfloat16: return 16;
    case kInt64: case kDouble: case kUint64: case kComplex64: return 64;
    case kComplex128: return 128;
    case kUint4: case kInt4: case kFloat4E2M1: return 4;
    default: return 0;
  }
}

const char* dtype_name(int32_t t) {
  switch (t) {
    case kFloat: return "float32";
    case kUint8: return "uint8";
    case kInt8: return "int8";
    case kUint16: return "uint16";
    case kInt16: return "int16";
    case kInt32: return "int32";
    case kInt64: return "int64";
    case kString: return "string";
    case kBool: return "bool";
    case kFloat16: return "float16";
    case kDouble: return "float64";
    case kUint32: return "uint32";
    case kUint64: return "uint64";
    case kComplex64: return "complex64";
    case kComplex128: return "complex128";
    case kBfloat16: return "bfloat16";
    case kFloat8E4M3FN: return "float8e4m3fn";
    case kFloat8E4M3FNUZ: return "float8e4m3fnuz";
    case kFloat8E5M2: return "float8e5m2";
    case kFloat8E5M2FNUZ: return "float8e5m2fnuz";
    case kUint4: return "uint4";
    case kInt4: return "int4";
    case kFloat4E2M1: return "float4e2m1";
    case kFloat8E8M0: return "float8e8m0";
    default: return "unknown";
  }
}

}  // namespace onnx_shrink::onnx
