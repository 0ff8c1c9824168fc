// The engine for JavaScript: a thin Embind layer. The JS wrapper (bindings/js/core.js) owns
// everything else: loading, option defaults, turning results into Errors.
//
// Bytes in: either a buffer the wrapper allocated in the wasm heap and filled once (`malloc`), or
// a synchronous reader read(offset, length, pointer) that fills wasm memory from a File, a Blob
// or a file descriptor, slice by slice. Bytes out: sink(pointer, length) calls, whose view the
// wrapper copies at once.
//
// No JS exception crosses this layer: it would unwind the engine's frames without running their
// destructors (leaking its buffers in this long-lived module). The wrapper catches them in its
// callbacks and answers false instead; the engine then stops with an Error, and the wrapper throws
// what it caught.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "onnx_shrink.h"

using emscripten::val;
using namespace onnx_shrink;

namespace {

struct JsOptions {
  std::string mode = "int8", scheme = "auto", form = "fold", externalData = "auto", externalLocation;
  uint32_t levels = 256, block = 0, externalAlignment = 4096, roundingDraw = 0;
  double minElements = 16384, externalThreshold = 1024;
  val exclude = val::array(), excludeNodes = val::array(), excludeOps = val::array();
};

std::vector<std::string> strings(const val& array) {
  std::vector<std::string> out;
  const unsigned n = array["length"].as<unsigned>();
  for (unsigned i = 0; i < n; ++i) out.push_back(array[i].as<std::string>());
  return out;
}

Options convert(const JsOptions& j) {
  Options o;
  if (j.mode == "palette") o.mode = Mode::Palette;
  else if (j.mode != "int8") throw Error(ErrorCode::BadOption, "mode must be 'int8' or 'palette', not '" + j.mode + "'");
  const std::string& s = j.scheme;
  o.scheme = s == "channel" ? Scheme::Channel : s == "tensor" ? Scheme::Tensor : s == "kmeans" ? Scheme::KMeans
           : s == "uniform" ? Scheme::Uniform : Scheme::Auto;
  if (s != "auto" && o.scheme == Scheme::Auto) throw Error(ErrorCode::BadOption, "unknown scheme '" + s + "'");
  if (j.form == "dq") o.form = Form::Dq;
  else if (j.form != "fold") throw Error(ErrorCode::BadOption, "form must be 'fold' or 'dq', not '" + j.form + "'");
  o.external = j.externalData == "inline" ? ExternalData::Inline : j.externalData == "external" ? ExternalData::External : ExternalData::Auto;
  if (j.externalData != "auto" && o.external == ExternalData::Auto) {
    throw Error(ErrorCode::BadOption, "externalData must be 'auto', 'inline' or 'external'");
  }
  o.levels = j.levels;
  o.block = j.block;
  o.min_elements = static_cast<uint64_t>(j.minElements);
  o.exclude = strings(j.exclude);
  o.exclude_nodes = strings(j.excludeNodes);
  o.exclude_ops = strings(j.excludeOps);
  o.external_location = j.externalLocation;
  o.external_threshold = static_cast<uint64_t>(j.externalThreshold);
  o.external_alignment = j.externalAlignment;
  o.rounding_draw = j.roundingDraw;
  return o;
}

// A source read through a JS function (offset, length, pointer) that fills wasm memory.
std::unique_ptr<Source> js_source(const val& source) {
  if (source["pointer"].as<bool>()) {
    return std::make_unique<MemorySource>(reinterpret_cast<const void*>(source["pointer"].as<uintptr_t>()),
                                          static_cast<uint64_t>(source["size"].as<double>()));
  }
  val read = source["read"];
  return std::make_unique<CallbackSource>(static_cast<uint64_t>(source["size"].as<double>()),
                                          [read](uint64_t offset, void* dst, size_t length) {
                                            const val ok = read(static_cast<double>(offset), static_cast<double>(length),
                                                                reinterpret_cast<uintptr_t>(dst));
                                            if (!ok.as<bool>()) throw Error(ErrorCode::Io, "reading the input failed");
                                          });
}

class JsSink final : public Sink {
 public:
  explicit JsSink(val sink) : sink_(std::move(sink)) {}
  void expect(uint64_t total) override {
    if (!sink_.call<bool>("expect", static_cast<double>(total))) throw Error(ErrorCode::Io, "writing the output failed");
  }
  void write(const void* bytes, size_t length) override {
    if (!sink_.call<bool>("write", reinterpret_cast<uintptr_t>(bytes), static_cast<double>(length))) {
      throw Error(ErrorCode::Io, "writing the output failed");
    }
  }

 private:
  val sink_;
};

// Runs shrink or expand. `io` holds the JS side: model (source), external(name) -> source or
// null, sink, externalSink, progress(fraction, stage) -> bool.
val run(const std::string& what, const JsOptions& options, val io) {
  val result = val::object();
  try {
    std::unique_ptr<Source> model = js_source(io["model"]);
    std::vector<std::unique_ptr<Source>> externals;
    Io hooks;
    val external = io["external"];
    hooks.external = [&externals, external](const std::string& location) -> const Source* {
      val s = external(location);
      if (s.isFalse()) throw Error(ErrorCode::Io, "reading external data '" + location + "' failed");
      if (s.isNull() || s.isUndefined()) return nullptr;
      externals.push_back(js_source(s));
      return externals.back().get();
    };
    val progress = io["progress"];
    hooks.progress = [progress](double fraction, const char* stage) {
      return progress(fraction, std::string(stage)).as<bool>();
    };
    JsSink out(io["sink"]);
    std::unique_ptr<JsSink> external_out;
    if (!io["externalSink"].isUndefined()) external_out = std::make_unique<JsSink>(io["externalSink"]);
    hooks.external_sink = external_out.get();
    Report report;
    if (what == "expand") report = expand(*model, out, hooks);
    else report = shrink(*model, convert(options), what == "inspect" ? nullptr : &out, hooks);
    result.set("report", to_json(report));
  } catch (const Error& e) {
    result.set("code", std::string(error_code_name(e.code)));
    result.set("message", std::string(e.what()));
  } catch (const std::bad_alloc&) {
    result.set("code", std::string("OUT_OF_MEMORY"));
    result.set("message", std::string("out of memory: the model does not fit in this WebAssembly instance's 4 GB"));
  } catch (const std::exception& e) {
    // A bug of ours: say what broke instead of an opaque WebAssembly.Exception.
    result.set("code", std::string("INTERNAL"));
    result.set("message", std::string("internal error: ") + e.what());
  }
  return result;
}

uintptr_t allocate(double size) { return reinterpret_cast<uintptr_t>(std::malloc(static_cast<size_t>(size))); }
void release(uintptr_t pointer) { std::free(reinterpret_cast<void*>(pointer)); }
std::string engine_version() { return version(); }

}  // namespace

EMSCRIPTEN_BINDINGS(onnx_shrink) {
  emscripten::value_object<JsOptions>("Options")
      .field("mode", &JsOptions::mode)
      .field("scheme", &JsOptions::scheme)
      .field("form", &JsOptions::form)
      .field("levels", &JsOptions::levels)
      .field("block", &JsOptions::block)
      .field("minElements", &JsOptions::minElements)
      .field("exclude", &JsOptions::exclude)
      .field("excludeNodes", &JsOptions::excludeNodes)
      .field("excludeOps", &JsOptions::excludeOps)
      .field("externalData", &JsOptions::externalData)
      .field("externalLocation", &JsOptions::externalLocation)
      .field("externalThreshold", &JsOptions::externalThreshold)
      .field("externalAlignment", &JsOptions::externalAlignment)
      .field("roundingDraw", &JsOptions::roundingDraw);
  emscripten::function("run", &run);
  emscripten::function("allocate", &allocate);
  emscripten::function("release", &release);
  emscripten::function("version", &engine_version);
}
