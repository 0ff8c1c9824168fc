// The report as JSON. Hand-written rather than a JSON library: it only writes, the shape is
// fixed, and every byte counts in the WebAssembly build.
#include <cmath>

#include "onnx_shrink.h"

namespace onnx_shrink {

namespace {

class Json {
 public:
  std::string out;

  // Every value and key starts with sep(): a comma when something precedes it at this level.
  void string(const std::string& s) {
    sep();
    out += '"';
    for (size_t i = 0; i < s.size(); ++i) {
      const unsigned char c = static_cast<unsigned char>(s[i]);
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
          if (c < 0x20) {
            static const char hex[] = "0123456789abcdef";
            out += "\\u00";
            out += hex[c >> 4];
            out += hex[c & 15];
          } else if (c < 0x80) {
            out += static_cast<char>(c);
          } else {
            i = utf8(s, i);
          }
      }
    }
    out += '"';
    need_ = true;
  }
  // Three decimals are all a report needs (no printf: it would double the WebAssembly's size).
  void number(double v) {
    sep();
    if (std::isfinite(v) && std::fabs(v) < 9e15) {
      const int64_t milli = static_cast<int64_t>(std::llround(v * 1000.0));
      const uint64_t a = static_cast<uint64_t>(milli < 0 ? -milli : milli);
      if (milli < 0) out += '-';
      out += std::to_string(a / 1000);
      const uint64_t frac = a % 1000;
      if (frac) {
        out += '.';
        out += static_cast<char>('0' + frac / 100);
        if (frac % 100) out += static_cast<char>('0' + frac / 10 % 10);
        if (frac % 10) out += static_cast<char>('0' + frac % 10);
      }
    } else {
      out += "null";
    }
    need_ = true;
  }
  void null() { raw("null"); }
  void integer(int64_t v) { raw(std::to_string(v)); }
  void unsigned_integer(uint64_t v) { raw(std::to_string(v)); }
  void boolean(bool v) { raw(v ? "true" : "false"); }
  void key(const std::string& k) {
    string(k);
    out += ':';
    need_ = false;
  }
  void open(char c) {
    sep();
    out += c;
    need_ = false;
  }
  void close(char c) {
    out += c;
    need_ = true;
  }
  template <typename T, typename F>
  void array(const std::vector<T>& values, F each) {
    open('[');
    for (const T& v : values) each(v);
    close(']');
  }

 private:
  void sep() {
    if (need_) out += ',';
    need_ = false;
  }
  void raw(const std::string& text) {
    sep();
    out += text;
    need_ = true;
  }
  // Copies one UTF-8 sequence starting at s[i], or U+FFFD if it is not valid. Returns its last index.
  size_t utf8(const std::string& s, size_t i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const size_t n = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    bool ok = n > 0 && i + n <= s.size();
    for (size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
    if (!ok) {
      out += "\xef\xbf\xbd";
      return i;
    }
    out.append(s, i, n);
    return i + n - 1;
  }
  bool need_ = false;
};

void value_info(Json& j, const ValueInfo& v) {
  j.open('{');
  j.key("name"), j.string(v.name);
  j.key("dtype"), j.string(v.dtype);
  j.key("shape");
  if (!v.has_shape) {
    j.null();
  } else {
    j.open('[');
    for (size_t i = 0; i < v.shape.size(); ++i) {
      if (v.shape[i] >= 0) j.integer(v.shape[i]);
      else if (!v.symbols[i].empty()) j.string(v.symbols[i]);
      else j.null();
    }
    j.close(']');
  }
  j.close('}');
}

}  // namespace

std::string to_json(const Report& r) {
  Json j;
  j.open('{');
  j.key("version"), j.string(version());
  j.key("mode"), j.string(r.mode);
  j.key("summary"), j.string(r.summary);
  j.key("unchanged"), j.boolean(r.unchanged);
  j.key("model");
  j.open('{');
  j.key("irVersion"), j.integer(r.ir_version);
  j.key("irVersionAfter"), j.integer(r.ir_version_after);
  j.key("producer"), j.string(r.producer);
  j.key("opsets");
  j.open('{');
  for (const auto& o : r.opsets) j.key(o.first.empty() ? "ai.onnx" : o.first), j.integer(o.second);
  j.close('}');
  j.key("inputs"), j.array(r.inputs, [&](const ValueInfo& v) { value_info(j, v); });
  j.key("outputs"), j.array(r.outputs, [&](const ValueInfo& v) { value_info(j, v); });
  j.close('}');
  j.key("totals");
  j.open('{');
  j.key("modelBytesBefore"), j.unsigned_integer(r.model_bytes_before);
  j.key("modelBytesAfter"), j.unsigned_integer(r.model_bytes_after);
  j.key("externalBytesBefore"), j.unsigned_integer(r.external_bytes_before);
  j.key("externalBytesAfter"), j.unsigned_integer(r.external_bytes_after);
  j.key("weightBytesBefore"), j.unsigned_integer(r.weight_bytes_before);
  j.key("weightBytesAfter"), j.unsigned_integer(r.weight_bytes_after);
  j.key("tensorsChanged"), j.unsigned_integer(r.tensors_changed);
  j.key("smallTensors"), j.unsigned_integer(r.small_tensors);
  j.key("smallTensorBytes"), j.unsigned_integer(r.small_tensor_bytes);
  j.key("smallTensorsFp16"), j.unsigned_integer(r.small_tensors_fp16);
  j.key("smallTensorBytesAfter"), j.unsigned_integer(r.small_tensor_bytes_after);
  j.close('}');
  j.key("opsetChanges"), j.array(r.opset_changes, [&](const OpsetChange& c) {
    j.open('{');
    j.key("domain"), j.string(c.domain.empty() ? "ai.onnx" : c.domain);
    j.key("from"), j.integer(c.from);
    j.key("to"), j.integer(c.to);
    j.key("reason"), j.string(c.reason);
    j.close('}');
  });
  j.key("removedInputs"), j.array(r.removed_inputs, [&](const std::string& s) { j.string(s); });
  j.key("float16Tensors"), j.array(r.float16_tensors, [&](const std::pair<std::string, std::string>& t) {
    j.open('{');
    j.key("name"), j.string(t.first);
    j.key("graph"), j.string(t.second);
    j.close('}');
  });
  j.key("tensors"), j.array(r.tensors, [&](const TensorReport& t) {
    j.open('{');
    j.key("name"), j.string(t.name);
    j.key("graph"), j.string(t.graph);
    j.key("location"), j.string(t.location);
    if (!t.node.empty()) j.key("node"), j.string(t.node);
    j.key("dtype"), j.string(t.dtype);
    j.key("shape"), j.array(t.shape, [&](int64_t d) { j.integer(d); });
    j.key("consumers"), j.array(t.consumers, [&](const std::string& s) { j.string(s); });
    j.key("bytesBefore"), j.unsigned_integer(t.bytes_before);
    j.key("bytesAfter"), j.unsigned_integer(t.bytes_after);
    j.key("changed"), j.boolean(t.changed);
    if (!t.reason.empty()) j.key("reason"), j.string(t.reason);
    if (t.changed) {
      j.key("scheme"), j.string(t.scheme);
      if (t.axis >= 0) j.key("axis"), j.integer(t.axis);
      if (t.factor_axis >= 0) j.key("factorAxis"), j.integer(t.factor_axis);
      if (t.block) j.key("block"), j.unsigned_integer(t.block);
      if (t.levels) j.key("levels"), j.unsigned_integer(t.levels);
      if (t.bits) j.key("bits"), j.unsigned_integer(t.bits), j.key("entropyBytes"), j.unsigned_integer(t.entropy_bytes);
      j.key("sqnrDb");
      if (t.exact) j.null();
      else j.number(t.sqnr_db);
      j.key("exact"), j.boolean(t.exact);
    }
    j.close('}');
  });
  j.close('}');
  return j.out;
}

}  // namespace onnx_shrink
