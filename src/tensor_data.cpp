#include "tensor_data.h"

#include <cstring>

#include "kernels/kernels.h"
#include "proto/onnx_fields.h"

namespace onnx_shrink {

uint64_t TensorData::raw_size(const TensorInfo& t) {
  return (t.elements * uint64_t(onnx::element_bits(t.data_type)) + 7) / 8;
}

const Source& TensorData::external(const TensorInfo& t) {
  auto it = externals_.find(t.location);
  if (it != externals_.end()) return *it->second;
  const Source* source = resolver_ ? resolver_->find(t.location) : nullptr;
  if (!source) {
    throw Error(ErrorCode::ExternalDataMissing, "tensor '" + t.name + "' keeps its data in the external file '" +
                                                    t.location + "', which was not supplied");
  }
  externals_[t.location] = source;
  return *source;
}

void TensorData::check(const TensorInfo& t) {
  if (t.kind != DataKind::External) return;
  const Source& source = external(t);
  const uint64_t need = raw_size(t);
  const uint64_t length = t.external_length_given ? t.data.size() : need;
  if (t.external_length_given && length != need) {
    throw Error(ErrorCode::ExternalDataInvalid, "tensor '" + t.name + "' needs " + std::to_string(need) +
                                                    " bytes but its external data length is " + std::to_string(length));
  }
  if (t.data.begin > source.size() || length > source.size() - t.data.begin) {
    throw Error(ErrorCode::ExternalDataInvalid,
                "tensor '" + t.name + "' needs bytes " + std::to_string(t.data.begin) + " to " +
                    std::to_string(t.data.begin + length) + " of '" + t.location + "', which has only " +
                    std::to_string(source.size()) + " bytes");
  }
}

const uint8_t* TensorData::stored(const TensorInfo& t) {
  if (t.kind == DataKind::External) {
    check(t);
    const Source& source = external(t);
    const uint64_t n = raw_size(t);
    if (source.data()) return source.data() + t.data.begin;
    stored_.resize(static_cast<size_t>(n));
    source.read(t.data.begin, stored_.data(), static_cast<size_t>(n));
    return stored_.data();
  }
  if (model_.source().data()) return model_.source().data() + t.data.begin;
  stored_.resize(static_cast<size_t>(t.data.size()));
  model_.source().read(t.data.begin, stored_.data(), static_cast<size_t>(t.data.size()));
  return stored_.data();
}

const uint8_t* TensorData::raw(const TensorInfo& t) {
  switch (t.kind) {
    case DataKind::Raw:
    case DataKind::External:
    case DataKind::Float:   // packed fixed32: the same bytes as raw fp32
    case DataKind::Double:  // packed fixed64: the same bytes as raw fp64
      return stored(t);
    default:
      throw Error(ErrorCode::Unsupported, "tensor '" + t.name + "' stores its data in a form that cannot be copied as raw bytes");
  }
}

const uint8_t* TensorData::floats(const TensorInfo& t) {
  const size_t n = static_cast<size_t>(t.elements);
  if (t.kind == DataKind::Int32) {
    // fp16/bf16 bit patterns, one varint each.
    converted_.resize(n * 4);
    std::vector<uint8_t> halves(n * 2);
    uint64_t count = 0;
    proto::Trail trail;
    trail.push("tensor '" + t.name + "'");
    proto::for_each_packed_varint(model_, trail, t.data.begin, t.data.end, [&](uint64_t v) {
      if (count < n) {
        const uint16_t h = static_cast<uint16_t>(v);
        std::memcpy(halves.data() + 2 * count, &h, 2);
      }
      ++count;
    });
    if (count != n) {
      throw Error(ErrorCode::Malformed, "tensor '" + t.name + "' has " + std::to_string(n) + " elements but " +
                                            std::to_string(count) + " values in int32_data");
    }
    if (t.data_type == onnx::kFloat16) kernels::halves_to_floats(halves.data(), n, converted_.data());
    else kernels::bfloats_to_floats(halves.data(), n, converted_.data());
    return converted_.data();
  }
  const uint8_t* bytes = raw(t);
  switch (t.data_type) {
    case onnx::kFloat:
      return bytes;
    case onnx::kFloat16:
      converted_.resize(n * 4);
      kernels::halves_to_floats(bytes, n, converted_.data());
      return converted_.data();
    case onnx::kBfloat16:
      converted_.resize(n * 4);
      kernels::bfloats_to_floats(bytes, n, converted_.data());
      return converted_.data();
    case onnx::kDouble: {
      converted_.resize(n * 4);
      for (size_t i = 0; i < n; ++i) {
        double d;
        std::memcpy(&d, bytes + 8 * i, 8);
        kernels::store_f32(converted_.data() + 4 * i, static_cast<float>(d));
      }
      return converted_.data();
    }
    default:
      throw Error(ErrorCode::Unsupported, "tensor '" + t.name + "' is not a float tensor");
  }
}

}  // namespace onnx_shrink
