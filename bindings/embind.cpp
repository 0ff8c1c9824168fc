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
#include "option_words.h"

using emscripten::val;
using namespace onnx_shrink;

namespace {

std::vector<std::string> strings(const val& array) {
  std::vector<std::string> out;
  const unsigned n = array["length"].as<unsigned>();
  for (unsigned i = 0; i < n; ++i) out.push_back(array[i].as<std::string>());
  return out;
}

// The value of option `t.option` of `j`, by its word.
uint8_t choose(const val& j, const OptionWords& t) {
  const std::string word = j[t.option].as<std::string>();
  uint8_t value = 0;
  if (!t.parse(word, value)) throw Error(ErrorCode::BadOption, std::string(t.option) + " must be " + t.list(true) + ", not '" + word + "'");
  return value;
}

// The options object as core.js normalises it (every field present, of the right type). Read
// field by field rather than declared as a value_object: a smaller module.
Options convert(const val& j) {
  auto text = [&](const char* key) { return j[key].as<std::string>(); };
  auto number = [&](const char* key) { return j[key].as<double>(); };
  Options o;
  o.mode = static_cast<Mode>(choose(j, kModeWords));
  o.scheme = static_cast<Scheme>(choose(j, kSchemeWords));
  o.form = static_cast<Form>(choose(j, kFormWords));
  o.external = static_cast<ExternalData>(choose(j, kExternalWords));
  o.small = static_cast<SmallTensors>(choose(j, kSmallWords));
  o.levels = static_cast<uint32_t>(number("levels"));
  o.block = static_cast<uint32_t>(number("block"));
  o.bits = static_cast<uint32_t>(number("bits"));
  o.min_elements = static_cast<uint64_t>(number("minElements"));
  // tensorBits: {name: bits}, which core.js passes as strings of the bits' character code and the
  // name (a smaller module than reading the object here).
  for (const std::string& s : strings(j["tensorBitsList"])) o.tensor_bits.emplace_back(s.substr(1), static_cast<uint8_t>(s[0]));
  o.exclude = strings(j["exclude"]);
  o.exclude_nodes = strings(j["excludeNodes"]);
  o.exclude_ops = strings(j["excludeOps"]);
  o.external_location = text("externalLocation");
  o.external_threshold = static_cast<uint64_t>(number("externalThreshold"));
  o.external_alignment = static_cast<uint32_t>(number("externalAlignment"));
  return o;
}

// A source read through a JS function (offset, length, pointer) that fills wasm memory. (A class
// of its own rather than a CallbackSource: a std::function costs the module more.)
class JsSource final : public Source {
 public:
  JsSource(uint64_t size, val read) : size_(size), read_(std::move(read)) {}
  uint64_t size() const override { return size_; }
  void read(uint64_t offset, void* destination, size_t length) const override {
    const val ok = read_(static_cast<double>(offset), static_cast<double>(length), reinterpret_cast<uintptr_t>(destination));
    if (!ok.as<bool>()) throw Error(ErrorCode::Io, "reading the input failed");
  }

 private:
  uint64_t size_;
  val read_;
};

std::unique_ptr<Source> js_source(const val& source) {
  const uint64_t size = static_cast<uint64_t>(source["size"].as<double>());
  if (source["pointer"].as<bool>()) return std::make_unique<MemorySource>(reinterpret_cast<const void*>(source["pointer"].as<uintptr_t>()), size);
  return std::make_unique<JsSource>(size, source["read"]);
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

// external(name) -> a source, null (no such file) or false (the JS side failed).
class JsExternal final : public ExternalResolver {
 public:
  explicit JsExternal(val external) : external_(std::move(external)) {}
  const Source* find(const std::string& location) override {
    val s = external_(location);
    if (s.isFalse()) throw Error(ErrorCode::Io, "reading external data '" + location + "' failed");
    if (s.isNull() || s.isUndefined()) return nullptr;
    sources_.push_back(js_source(s));
    return sources_.back().get();
  }

 private:
  val external_;
  std::vector<std::unique_ptr<Source>> sources_;
};

class JsProgress final : public Progress {
 public:
  explicit JsProgress(val progress) : progress_(std::move(progress)) {}
  bool report(double fraction, const char* stage) override { return progress_(fraction, std::string(stage)).as<bool>(); }

 private:
  val progress_;
};

// Runs shrink or expand. `io` holds the JS side: model (source), external(name) -> source or
// null, sink, externalSink, progress(fraction, stage) -> bool.
val run(const std::string& what, val options, val io) {
  val result = val::object();
  try {
    std::unique_ptr<Source> model = js_source(io["model"]);
    JsExternal external(io["external"]);
    JsProgress progress(io["progress"]);
    Io hooks;
    hooks.external = &external;
    hooks.progress = &progress;
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
  emscripten::function("run", &run);
  emscripten::function("allocate", &allocate);
  emscripten::function("release", &release);
  emscripten::function("version", &engine_version);
}
