// The engine end to end on the two real models (tests/fixtures), through the public API.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "onnx_shrink.h"

using namespace onnx_shrink;

namespace {

std::vector<uint8_t> load(const std::string& name) {
  std::ifstream f(std::string(ONNX_SHRINK_FIXTURES) + "/" + name, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

const std::vector<uint8_t>& silero() {
  static const std::vector<uint8_t> bytes = load("silero_vad_v5.onnx");
  return bytes;
}
const std::vector<uint8_t>& det() {
  static const std::vector<uint8_t> bytes = load("ch_PP-OCRv4_det_infer.onnx");
  return bytes;
}

std::vector<uint8_t> run(const std::vector<uint8_t>& model, const Options& o, Report* report = nullptr) {
  MemorySource source(model.data(), model.size());
  VectorSink out;
  Report r = shrink(source, o, &out);
  if (report) *report = r;
  return out.bytes;
}

Options mode(Mode m, Scheme s = Scheme::Auto) {
  Options o;
  o.mode = m;
  o.scheme = s;
  return o;
}

std::vector<Options> all_modes() {
  std::vector<Options> v = {mode(Mode::Int8), mode(Mode::Int8, Scheme::Channel), mode(Mode::Int8, Scheme::Tensor),
                            mode(Mode::Palette), mode(Mode::Palette, Scheme::KMeans), mode(Mode::Palette, Scheme::Uniform)};
  Options blocks = mode(Mode::Int8);
  blocks.block = 32;
  v.push_back(blocks);
  Options dq = mode(Mode::Int8);
  dq.form = Form::Dq;
  v.push_back(dq);  // silero (opset 16) can take per-axis DequantizeLinear
  return v;
}

}  // namespace

TEST(Engine, NothingToShrinkComesBackByteIdentical) {
  for (const auto* model : {&silero(), &det()}) {
    Options o;
    o.min_elements = uint64_t(1) << 40;
    Report r;
    const std::vector<uint8_t> out = run(*model, o, &r);
    EXPECT_EQ(out, *model);
    EXPECT_TRUE(r.unchanged);
    EXPECT_EQ(r.tensors_changed, 0u);
    EXPECT_NE(r.summary.find("Nothing to shrink"), std::string::npos);
    EXPECT_NE(r.summary.find("min_elements"), std::string::npos) << r.summary;  // not "8-bit already"
  }
}

TEST(Engine, ShrinkingTwiceChangesNothing) {
  // The 8-bit output holds no large float tensors any more.
  const std::vector<uint8_t> once = run(silero(), Options());
  Report r;
  const std::vector<uint8_t> twice = run(once, Options(), &r);
  EXPECT_EQ(once, twice);
  EXPECT_TRUE(r.unchanged);
  EXPECT_NE(r.summary.find("8-bit values already"), std::string::npos) << r.summary;
}

TEST(Engine, EveryModeShrinksAndIsDeterministic) {
  for (const Options& o : all_modes()) {
    Report r;
    const std::vector<uint8_t> a = run(silero(), o, &r);
    const std::vector<uint8_t> b = run(silero(), o);
    EXPECT_EQ(a, b);
    EXPECT_EQ(r.tensors_changed, 12u);
    EXPECT_EQ(r.model_bytes_after, a.size());
    if (o.mode == Mode::Int8) {
      EXPECT_LT(a.size(), silero().size() * 45 / 100) << static_cast<int>(o.scheme);
    } else {
      EXPECT_EQ(a.size(), silero().size());  // palette keeps the raw size
    }
    for (const TensorReport& t : r.tensors) {
      EXPECT_TRUE(t.changed) << t.name;
      // The seed's per-tensor scales and palettes reach only ~20 dB on this model's convolutions.
      const bool coarse = o.mode == Mode::Palette || o.scheme == Scheme::Tensor;
      EXPECT_GT(t.sqnr_db, coarse ? 15.0 : 30.0) << t.name;
    }
  }
}

TEST(Engine, ReadingInSlicesGivesTheSameBytes) {
  // The model read through a callback in small slices (as a File in a browser) produces exactly
  // the output of the model in memory.
  for (const auto* model : {&silero(), &det()}) {
    for (const Options& o : {mode(Mode::Int8), mode(Mode::Palette)}) {
      const std::vector<uint8_t> expected = run(*model, o);
      size_t reads = 0;
      CallbackSource sliced(model->size(), [&](uint64_t offset, void* dst, size_t length) {
        ++reads;
        std::memcpy(dst, model->data() + offset, length);
      });
      VectorSink out;
      shrink(sliced, o, &out);
      EXPECT_EQ(out.bytes, expected);
      EXPECT_GT(reads, 0u);
    }
  }
}

TEST(Engine, InspectReportsWhatShrinkDoes) {
  Report shrunk, inspected;
  run(det(), Options(), &shrunk);
  MemorySource source(det().data(), det().size());
  inspected = shrink(source, Options(), nullptr);
  ASSERT_EQ(shrunk.tensors.size(), inspected.tensors.size());
  EXPECT_EQ(shrunk.model_bytes_after, inspected.model_bytes_after);
  for (size_t i = 0; i < shrunk.tensors.size(); ++i) {
    EXPECT_EQ(shrunk.tensors[i].sqnr_db, inspected.tensors[i].sqnr_db);
    EXPECT_EQ(shrunk.tensors[i].scheme, inspected.tensors[i].scheme);
  }
  EXPECT_EQ(shrunk.summary.rfind("Shrank ", 0), 0u) << shrunk.summary;
  EXPECT_EQ(inspected.summary.rfind("Would shrink ", 0), 0u) << inspected.summary;  // nothing was written
  const std::string json = to_json(inspected);
  EXPECT_NE(json.find("\"tensors\":["), std::string::npos);
  EXPECT_NE(json.find("\"conv2d_107.w_0\""), std::string::npos);
}

TEST(Engine, ReportDescribesTheModel) {
  Report r;
  run(silero(), Options(), &r);
  EXPECT_EQ(r.ir_version, 8);
  ASSERT_EQ(r.opsets.size(), 1u);
  EXPECT_EQ(r.opsets[0].second, 16);
  ASSERT_EQ(r.inputs.size(), 3u);
  EXPECT_EQ(r.inputs[0].name, "input");
  EXPECT_EQ(r.inputs[2].dtype, "int64");
  ASSERT_EQ(r.outputs.size(), 2u);
  for (const TensorReport& t : r.tensors) {
    EXPECT_EQ(t.location, "constant");
    EXPECT_NE(t.graph.find("main/If_0:"), std::string::npos) << t.graph;
  }
}

TEST(Engine, SeedSchemeIsSmallestAndChannelSchemesStayWithinFivePercent) {
  Report tensor, channel, automatic;
  for (const auto* model : {&silero(), &det()}) {
    const size_t t = run(*model, mode(Mode::Int8, Scheme::Tensor), &tensor).size();
    const size_t c = run(*model, mode(Mode::Int8, Scheme::Channel), &channel).size();
    const size_t a = run(*model, mode(Mode::Int8), &automatic).size();
    EXPECT_LE(t, c);
    EXPECT_LE(c, t * 105 / 100);
    EXPECT_LE(a, t * 105 / 100);
  }
}

TEST(Engine, DequantizeLinearFormRefusesWhenTheOpsetCannotBeRaised) {
  Options o;
  o.form = Form::Dq;
  try {
    run(det(), o);  // opset 11, and Softmax/Resize/... changed by 13
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code, ErrorCode::Unsupported);
    EXPECT_NE(std::string(e.what()).find("Use the fold form (the default)"), std::string::npos) << e.what();
  }
  Report r;
  run(silero(), o, &r);  // opset 16: per-axis DequantizeLinear needs nothing
  EXPECT_TRUE(r.opset_changes.empty());
  o.block = 32;  // blocks need 21, but ReduceMean's axes moved to an input at 18
  try {
    run(silero(), o);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ReduceMean"), std::string::npos) << e.what();
  }
}

TEST(Engine, ExcludedTensorsAreLeftAlone) {
  Report first;
  run(silero(), Options(), &first);
  Options o;
  o.exclude = {first.tensors[0].name};
  o.exclude_ops = {"Slice"};
  Report r;
  run(silero(), o, &r);
  EXPECT_FALSE(r.tensors[0].changed);
  EXPECT_EQ(r.tensors[0].reason, "excluded by name");
  size_t slices = 0;
  for (const TensorReport& t : r.tensors) {
    if (t.consumers == std::vector<std::string>{"Slice"}) {
      ++slices;
      EXPECT_FALSE(t.changed);
    }
  }
  EXPECT_EQ(slices, 4u);
}

// A name the model lacks is a typo, not an option that does nothing; op types are not checked,
// since one list may serve several models.
TEST(Engine, ExcludedNamesTheModelLacksAreNamed) {
  const std::pair<std::function<void(Options&)>, std::string> cases[] = {
      {[](Options& o) { o.exclude = {"no such tensor"}; }, "exclude: the model has no float tensor named 'no such tensor'"},
      {[](Options& o) { o.exclude_nodes = {"no such node"}; }, "exclude nodes: the model has no node named 'no such node'"},
  };
  for (const auto& [set, message] : cases) {
    Options o;
    set(o);
    try {
      run(silero(), o);
      FAIL() << message;
    } catch (const Error& e) {
      EXPECT_EQ(e.code, ErrorCode::BadOption);
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
  Options ops;
  ops.exclude_ops = {"NoSuchOp"};
  Report r;
  run(silero(), ops, &r);
  EXPECT_GT(r.tensors.size(), 0u);
}

TEST(Engine, ProgressIsMonotoneAndCancellable) {
  MemorySource source(det().data(), det().size());
  VectorSink out;
  struct Watch final : Progress {
    double last = -1;
    bool monotone = true, go_on = true;
    bool report(double f, const char* stage) override {
      if (std::string(stage) == "writing") {
        monotone &= f >= last;
        last = f;
      }
      return go_on;
    }
  } watch;
  Io io;
  io.progress = &watch;
  shrink(source, Options(), &out, io);
  EXPECT_TRUE(watch.monotone);
  EXPECT_EQ(watch.last, 1.0);

  watch.go_on = false;
  VectorSink cancelled;
  try {
    shrink(source, Options(), &cancelled, io);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code, ErrorCode::Cancelled);
  }
  EXPECT_TRUE(cancelled.bytes.empty());  // stopped while reading, before writing
}

TEST(Engine, OptionsAreValidated) {
  auto bad = [](Options o) {
    try {
      validate(o);
      return false;
    } catch (const Error& e) {
      return e.code == ErrorCode::BadOption && std::string(e.what()).size() > 10;
    }
  };
  Options o;
  o.mode = Mode::Palette;
  o.levels = 1;
  EXPECT_TRUE(bad(o));
  o.levels = 70000;
  EXPECT_TRUE(bad(o));
  o.levels = 256;
  o.scheme = Scheme::Tensor;
  EXPECT_TRUE(bad(o));
  Options p;
  p.block = 48;
  EXPECT_TRUE(bad(p));
  p.block = 32;
  p.scheme = Scheme::KMeans;
  EXPECT_TRUE(bad(p));
  Options q;
  q.external = ExternalData::External;
  EXPECT_TRUE(bad(q));
  q.external_location = "../x.data";
  EXPECT_TRUE(bad(q));
  q.external_location = "x.data";
  EXPECT_FALSE(bad(q));
  Options r = mode(Mode::Palette);
  r.rounding_draw = 3;
  EXPECT_TRUE(bad(r));
  Options d = mode(Mode::Int8);
  d.form = Form::Dq;
  d.rounding_draw = 3;
  EXPECT_TRUE(bad(d));  // a shifted grid has no integer zero point
  Options b;
  for (uint32_t bits : {0u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 9u, 10u, 12u, 16u}) {
    b.bits = bits;
    EXPECT_FALSE(bad(b)) << bits;
  }
  for (uint32_t bits : {1u, 11u, 13u, 17u, 32u}) {
    b.bits = bits;
    EXPECT_TRUE(bad(b)) << bits;
  }
  b.bits = 10;
  b.form = Form::Dq;
  EXPECT_TRUE(bad(b));  // DequantizeLinear takes 8-bit codes
  b.form = Form::Fold;
  b.scheme = Scheme::Tensor;
  EXPECT_TRUE(bad(b));  // the original tool's formula
  b.bits = 4;
  EXPECT_TRUE(bad(b));
  b.bits = 0;
  b.tensor_bits = {{"w", 4}};
  EXPECT_TRUE(bad(b));
  b.scheme = Scheme::Auto;
  EXPECT_FALSE(bad(b));
  b.tensor_bits = {{"w", 0}};  // auto (the bits are checked with the model: CodeFormat tests)
  EXPECT_FALSE(bad(b));
  b.tensor_bits = {{"w", 10}};
  b.form = Form::Dq;
  EXPECT_FALSE(bad(b));  // that tensor keeps 8 bits, and the report says why
  b.tensor_bits.clear();
  b.form = Form::Fold;
  Options s = mode(Mode::Palette);
  s.small = SmallTensors::Fp16;
  EXPECT_TRUE(bad(s));
  s.small = SmallTensors::Keep;
  EXPECT_FALSE(bad(s));
  s.bits = 8;
  EXPECT_TRUE(bad(s));
}

// The default spends what float16 small tensors save on low bits of the codes: never a larger
// result than 8-bit codes with the small tensors left alone; the allocation and the sizes the report
// gives agree with the bytes written; each extra bit buys about 6 dB.
TEST(Engine, AutoBitsArePaidForBySmallTensors) {
  for (const auto* model : {&silero(), &det()}) {
    Report automatic, plain, ten;
    Options o;
    const std::vector<uint8_t> a = run(*model, o, &automatic);
    o.bits = 8;
    o.small = SmallTensors::Keep;
    const std::vector<uint8_t> p = run(*model, o, &plain);
    o.bits = 10;
    run(*model, o, &ten);
    EXPECT_LE(a.size(), p.size());
    EXPECT_EQ(automatic.model_bytes_after, a.size());
    EXPECT_GT(automatic.small_tensors_fp16, 0u);
    EXPECT_EQ(plain.small_tensors_fp16, 0u);
    EXPECT_LT(automatic.small_tensor_bytes_after, automatic.small_tensor_bytes);
    ASSERT_EQ(automatic.tensors.size(), plain.tensors.size());
    int raised = 0;
    for (size_t k = 0; k < plain.tensors.size(); ++k) {
      const TensorReport &x = automatic.tensors[k], &y = plain.tensors[k], &z = ten.tensors[k];
      EXPECT_EQ(y.bits, 8u);
      if (x.bits == 8) continue;
      ++raised;
      const uint64_t n = x.bytes_before / 4;
      // n (bits - 8) / 8 packed bytes, and the three constants that read them.
      EXPECT_GE(x.bytes_after, y.bytes_after + n * (x.bits - 8) / 8);
      EXPECT_NEAR(x.sqnr_db - y.sqnr_db, 6.02 * (x.bits - 8), 0.6) << x.name;
      EXPECT_NEAR(z.sqnr_db - y.sqnr_db, 12.04, 0.6) << z.name;
    }
    EXPECT_GT(raised, 8);  // silero 10 of 12 (codebooks keep 8), det all 18
  }
}

// A rounding draw is another grid for the same weights: other codes, the same size, the same
// accuracy to within a fraction of a dB on every tensor; draw 0 is the default grid itself. Per
// channel, the shifted grids round a good part of the weights the other way, not only the few near
// the ends of each range.
TEST(Engine, RoundingDrawsChangeTheCodesButNotTheirQuality) {
  for (const auto* model : {&silero(), &det()}) {
    for (Scheme scheme : {Scheme::Auto, Scheme::Channel, Scheme::Tensor}) {
      Options o = mode(Mode::Int8, scheme);
      Report base, drawn;
      const std::vector<uint8_t> standard = run(*model, o, &base);
      o.rounding_draw = 0;
      EXPECT_EQ(run(*model, o), standard);
      o.rounding_draw = 7;
      const std::vector<uint8_t> other = run(*model, o, &drawn);
      EXPECT_NE(other, standard);
      EXPECT_EQ(other.size(), standard.size());
      EXPECT_EQ(run(*model, o), other);  // deterministic
      ASSERT_EQ(drawn.tensors.size(), base.tensors.size());
      size_t changed = 0;
      for (size_t k = 0; k < base.tensors.size(); ++k) {
        const TensorReport& a = base.tensors[k];
        const TensorReport& b = drawn.tensors[k];
        EXPECT_EQ(a.scheme, b.scheme) << a.name;
        if (a.exact || a.scheme == "codebook" || !a.changed) continue;
        changed += 1;
        EXPECT_NEAR(b.sqnr_db, a.sqnr_db, 0.5) << a.name;
      }
      EXPECT_GT(changed, 0u);
      if (scheme != Scheme::Tensor) {
        size_t differ = 0;
        for (size_t k = 0; k < other.size(); ++k) differ += other[k] != standard[k];
        EXPECT_GT(double(differ), 0.1 * double(other.size()));  // the range-widening draws changed 3-6 %
      }
    }
  }
}

TEST(Engine, ExpandUndoesTheGraphChanges) {
  for (const Options& o : {mode(Mode::Int8), mode(Mode::Int8, Scheme::Tensor)}) {
    Report made;
    const std::vector<uint8_t> shrunk = run(silero(), o, &made);
    // The default stores the small tensors as float16 (16 of silero's 22), the original tool's
    // scheme none.
    EXPECT_EQ(made.small_tensors_fp16, o.scheme == Scheme::Tensor ? 0u : 16u);
    MemorySource source(shrunk.data(), shrunk.size());
    VectorSink expanded;
    const Report r = expand(source, expanded);
    EXPECT_EQ(r.tensors_changed, 12u + made.small_tensors_fp16) << static_cast<int>(o.scheme);
    // Back to float tensors of the original sizes: within a few hundred bytes of the original
    // (names of the new nodes and constants, about 150 bytes a tensor).
    EXPECT_NEAR(static_cast<double>(expanded.bytes.size()), static_cast<double>(silero().size()),
                150.0 * static_cast<double>(r.tensors_changed));
    // And nothing left to expand.
    MemorySource again(expanded.bytes.data(), expanded.bytes.size());
    VectorSink twice;
    EXPECT_TRUE(expand(again, twice).unchanged);
    EXPECT_EQ(twice.bytes, expanded.bytes);
  }
}
