// Field numbers and enums of onnx.proto (ONNX IR), for the messages the engine reads or writes.
// Source of truth: onnx/onnx.proto (proto2). Only what this engine touches is listed.
#pragma once

#include <cstdint>

namespace onnx_shrink::onnx {

namespace model {  // ModelProto
constexpr uint32_t kIrVersion = 1, kProducerName = 2, kProducerVersion = 3, kDomain = 4, kModelVersion = 5,
                   kDocString = 6, kGraph = 7, kOpsetImport = 8, kMetadataProps = 14, kTrainingInfo = 20,
                   kFunctions = 25;
}
namespace opset {  // OperatorSetIdProto
constexpr uint32_t kDomain = 1, kVersion = 2;
}
namespace graph {  // GraphProto
constexpr uint32_t kNode = 1, kName = 2, kInitializer = 5, kDocString = 10, kInput = 11, kOutput = 12,
                   kValueInfo = 13, kQuantizationAnnotation = 14, kSparseInitializer = 15;
}
namespace function {  // FunctionProto
constexpr uint32_t kName = 1, kInput = 4, kNode = 7, kOpsetImport = 9, kDomain = 10;
}
namespace node {  // NodeProto
constexpr uint32_t kInput = 1, kOutput = 2, kName = 3, kOpType = 4, kAttribute = 5, kDocString = 6, kDomain = 7;
}
namespace attr {  // AttributeProto
constexpr uint32_t kName = 1, kF = 2, kI = 3, kS = 4, kT = 5, kG = 6, kFloats = 7, kInts = 8, kStrings = 9,
                   kTensors = 10, kGraphs = 11, kDocString = 13, kType = 20, kRefAttrName = 21;
// AttributeProto.AttributeType
constexpr uint64_t kTypeFloat = 1, kTypeInt = 2, kTypeString = 3, kTypeTensor = 4, kTypeGraph = 5,
                   kTypeFloats = 6, kTypeInts = 7, kTypeTensors = 9, kTypeGraphs = 10;
}  // namespace attr
namespace tensor {  // TensorProto
constexpr uint32_t kDims = 1, kDataType = 2, kSegment = 3, kFloatData = 4, kInt32Data = 5, kStringData = 6,
                   kInt64Data = 7, kName = 8, kRawData = 9, kDoubleData = 10, kUint64Data = 11, kDocString = 12,
                   kExternalData = 13, kDataLocation = 14, kMetadataProps = 16;
constexpr uint64_t kLocationDefault = 0, kLocationExternal = 1;
}  // namespace tensor
namespace entry {  // StringStringEntryProto
constexpr uint32_t kKey = 1, kValue = 2;
}
namespace value_info {  // ValueInfoProto
constexpr uint32_t kName = 1, kType = 2, kDocString = 3;
}
namespace type {  // TypeProto and TypeProto.Tensor
constexpr uint32_t kTensorType = 1;
constexpr uint32_t kElemType = 1, kShape = 2;
}  // namespace type
namespace shape {  // TensorShapeProto and its Dimension
constexpr uint32_t kDim = 1;
constexpr uint32_t kDimValue = 1, kDimParam = 2;
}  // namespace shape

// TensorProto.DataType
enum DataType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUint32 = 12,
  kUint64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBfloat16 = 16,
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUint4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
  kFloat8E8M0 = 24,
};

// Bits per element of a data type (4 for int4), or 0 when it has no fixed size (string, unknown).
int element_bits(int32_t data_type);
// "float32", "int64", ... or "type N" for unknown values.
const char* dtype_name(int32_t data_type);
inline bool is_float_weight_type(int32_t t) { return t == kFloat || t == kFloat16 || t == kBfloat16 || t == kDouble; }
// The largest finite value of a float weight type that the engine's fp32 arithmetic can reach
// (fp64 weights are coded in fp32, so FLT_MAX for them too).
inline float largest_finite(int32_t t) { return t == kFloat16 ? 65504.0f : t == kBfloat16 ? 3.38953139e38f : 3.40282347e38f; }

}  // namespace onnx_shrink::onnx
