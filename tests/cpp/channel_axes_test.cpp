// Channel axes (src/plan/channel_axes.h) on small hand-built indexes: one test per op rule, and the
// ways the search looks through other ops. Adding an op's rule means adding its test here: the last
// test checks that every rule has one.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "plan/channel_axes.h"

using namespace onnx_shrink;

namespace {

Attribute int_attr(const char* name, int64_t v) {
  Attribute a;
  a.name = name;
  a.has_int = true;
  a.i = v;
  return a;
}
Attribute ints_attr(const char* name, std::vector<int64_t> v) {
  Attribute a;
  a.name = name;
  a.has_ints = true;
  a.ints = std::move(v);
  return a;
}
Attribute string_attr(const char* name, const char* s) {
  Attribute a;
  a.name = name;
  a.has_string = true;
  a.s = s;
  return a;
}

// A model as the index sees it: one main graph (and functions), weights and nodes.
class Model {
 public:
  Model() { graph("main"); }

  int32_t graph(const std::string& path) {
    GraphInfo g;
    g.path = path;
    index_.graphs.push_back(g);
    return static_cast<int32_t>(index_.graphs.size() - 1);
  }
  // A model-local function domain.name whose body is a graph of its own, reading `inputs`.
  int32_t function(const std::string& domain, const std::string& name, std::vector<std::string> inputs) {
    const int32_t g = graph("function '" + domain + "." + name + "'");
    GraphInfo& f = index_.graphs[g];
    f.function = true;
    f.function_domain = domain;
    f.function_name = name;
    f.function_inputs = std::move(inputs);
    return g;
  }
  void weight(const std::string& name, std::vector<int64_t> dims) {
    TensorInfo t;
    t.name = name;
    t.dims = std::move(dims);
    t.graph = 0;
    index_.tensors.push_back(t);
  }
  Model& node(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs,
              std::vector<Attribute> attributes = {}, const std::string& domain = "", int32_t graph = 0) {
    NodeInfo n;
    n.op_type = op;
    n.domain = domain;
    n.graph = graph;
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    n.attributes = std::move(attributes);
    index_.graphs[graph].nodes.push_back(static_cast<int32_t>(index_.nodes.size()));
    index_.nodes.push_back(n);
    return *this;
  }
  // The axes of weight `name` (the first weight so called).
  std::pair<int64_t, int64_t> axes(const std::string& name) const {
    const Scope scope(index_);
    for (const TensorInfo& t : index_.tensors) {
      if (t.name != name) continue;
      const Axes a = channel_axes(index_, scope, t, scope.consumers(t));
      return {a.out, a.in};
    }
    ADD_FAILURE() << "no weight " << name;
    return {-2, -2};
  }

 private:
  ModelIndex index_;
};

using AxesPair = std::pair<int64_t, int64_t>;

// One weight read by one node at input `input` (the others are activations).
AxesPair single(const std::string& op, uint32_t input, std::vector<int64_t> dims, std::vector<Attribute> attributes = {},
                const std::string& domain = "") {
  Model m;
  m.weight("w", std::move(dims));
  std::vector<std::string> inputs(std::max<uint32_t>(input + 1, 2), "x");
  inputs[input] = "w";
  m.node(op, inputs, {"y"}, std::move(attributes), domain);
  return m.axes("w");
}

// What a lone weight of this shape gets with no reader that knows it: [out, in, ...] after leading 1s.
AxesPair fallback(std::vector<int64_t> dims) {
  Model m;
  m.weight("w", std::move(dims));
  return m.axes("w");
}

}  // namespace

TEST(ChannelAxes, Conv) {
  EXPECT_EQ(single("Conv", 1, {64, 32, 3, 3}), AxesPair(0, 1));
  EXPECT_EQ(single("Conv", 2, {64}), fallback({64}));  // its bias: not a kernel
}

TEST(ChannelAxes, DeformConv) {  // opset 19: W is [oC, C / group, kH, kW], as Conv's
  EXPECT_EQ(single("DeformConv", 1, {64, 32, 3, 3}, {int_attr("group", 2)}), AxesPair(0, 1));
  // One output channel (a mask head): without the rule, the fallback would skip the leading 1.
  EXPECT_EQ(single("DeformConv", 1, {1, 64, 3, 3}), AxesPair(0, 1));
  EXPECT_EQ(single("DeformConv", 2, {1, 18, 8, 8}), fallback({1, 18, 8, 8}));  // its offsets: not a kernel
}

TEST(ChannelAxes, ConvTranspose) {
  EXPECT_EQ(single("ConvTranspose", 1, {32, 64, 3, 3}), AxesPair(1, 0));  // [in, out / group, kh, kw]
  EXPECT_EQ(single("ConvTranspose", 1, {32, 16, 3, 3}, {int_attr("group", 2)}), AxesPair(0, -1));
}

TEST(ChannelAxes, MatMul) {
  EXPECT_EQ(single("MatMul", 1, {256, 512}), AxesPair(1, 0));        // B: [in, out]
  EXPECT_EQ(single("MatMul", 0, {512, 256}), AxesPair(0, 1));        // A: [out, in]
  EXPECT_EQ(single("MatMul", 1, {4, 256, 512}), AxesPair(2, 1));     // batched
}

TEST(ChannelAxes, Gemm) {
  EXPECT_EQ(single("Gemm", 1, {256, 512}), AxesPair(1, 0));
  EXPECT_EQ(single("Gemm", 1, {512, 256}, {int_attr("transB", 1)}), AxesPair(0, 1));
  EXPECT_EQ(single("Gemm", 0, {256, 512}, {int_attr("transA", 1)}), AxesPair(1, 0));
}

TEST(ChannelAxes, Gather) {
  EXPECT_EQ(single("Gather", 0, {30000, 512}), AxesPair(0, -1));  // embedding rows
  EXPECT_EQ(single("Gather", 0, {30000, 512}, {int_attr("axis", -1)}), AxesPair(1, -1));
}

TEST(ChannelAxes, Einsum) {
  EXPECT_EQ(single("Einsum", 1, {256, 512}, {string_attr("equation", "bsc,cd->bsd")}), AxesPair(1, 0));
  EXPECT_EQ(single("Einsum", 1, {256, 512}, {string_attr("equation", "bsc , cd -> bsd")}), AxesPair(1, 0));
  // A repeated label or an implicit output: no axes from it (the fallback decides).
  EXPECT_EQ(single("Einsum", 1, {256, 256}, {string_attr("equation", "bc,cc->b")}), fallback({256, 256}));
  EXPECT_EQ(single("Einsum", 0, {512, 256}, {string_attr("equation", "...c,cd->...d")}), fallback({512, 256}));
  EXPECT_EQ(single("Einsum", 1, {256, 512}, {string_attr("equation", "bc,cd")}), fallback({256, 512}));
}

TEST(ChannelAxes, RecurrentOps) {
  for (const char* op : {"LSTM", "GRU", "RNN"}) {
    EXPECT_EQ(single(op, 1, {1, 1024, 256}), AxesPair(1, 2)) << op;  // W: [directions, gates * hidden, input]
    EXPECT_EQ(single(op, 2, {1, 1024, 256}), AxesPair(1, 2)) << op;  // R
  }
}

TEST(ChannelAxes, OnnxruntimeFusedOps) {
  EXPECT_EQ(single("FusedConv", 1, {64, 32, 3, 3}, {}, "com.microsoft"), AxesPair(0, 1));
  EXPECT_EQ(single("FusedGemm", 1, {512, 256}, {int_attr("transB", 1)}, "com.microsoft"), AxesPair(0, 1));
  EXPECT_EQ(single("FusedMatMul", 1, {256, 512}, {}, "com.microsoft"), AxesPair(1, 0));
  // Batch axes transposed: no axes from it (the fallback decides).
  EXPECT_EQ(single("FusedMatMul", 1, {4, 256, 512}, {int_attr("transBatchB", 1)}, "com.microsoft"), fallback({4, 256, 512}));
  EXPECT_EQ(single("Attention", 1, {768, 2304}, {}, "com.microsoft"), AxesPair(1, 0));
  EXPECT_EQ(single("LongformerAttention", 4, {768, 2304}, {}, "com.microsoft"), AxesPair(1, 0));
  EXPECT_EQ(single("DecoderAttention", 3, {768, 1536}, {}, "com.microsoft"), AxesPair(1, 0));
  EXPECT_EQ(single("EmbedLayerNormalization", 2, {30522, 768}, {}, "com.microsoft"), AxesPair(0, -1));
  // An op of that domain with no rule gives nothing (it is not looked up as a local function).
  EXPECT_EQ(single("MatMulNBits", 1, {256, 512}, {}, "com.microsoft"), fallback({256, 512}));
}

TEST(ChannelAxes, LooksThroughCastAndIdentity) {
  Model m;
  m.weight("w", {256, 512});
  m.node("Cast", {"w"}, {"w32"}, {int_attr("to", 1)}).node("Identity", {"w32"}, {"w2"}).node("MatMul", {"x", "w2"}, {"y"});
  EXPECT_EQ(m.axes("w"), AxesPair(1, 0));
}

TEST(ChannelAxes, MapsATransposeBack) {
  Model m;  // a kernel stored [kh, kw, in, out], transposed to [out, in, kh, kw] for the Conv
  m.weight("w", {3, 3, 32, 64});
  m.node("Transpose", {"w"}, {"wt"}, {ints_attr("perm", {3, 2, 0, 1})}).node("Conv", {"x", "wt"}, {"y"});
  EXPECT_EQ(m.axes("w"), AxesPair(3, 2));
  Model r;  // no perm: the axes reversed
  r.weight("w", {512, 256});
  r.node("Transpose", {"w"}, {"wt"}).node("MatMul", {"x", "wt"}, {"y"});
  EXPECT_EQ(r.axes("w"), AxesPair(0, 1));
  Model bad;  // a perm that is none: nothing from it
  bad.weight("w", {512, 256});
  bad.node("Transpose", {"w"}, {"wt"}, {ints_attr("perm", {0, 0})}).node("MatMul", {"x", "wt"}, {"y"});
  EXPECT_EQ(bad.axes("w"), fallback({512, 256}));
}

TEST(ChannelAxes, FollowsAWeightIntoALocalFunction) {
  Model m;
  m.weight("w", {256, 512});
  const int32_t f = m.function("local", "Dense", {"input", "kernel"});
  m.node("MatMul", {"input", "kernel"}, {"out"}, {}, "", f);
  m.node("Dense", {"x", "w"}, {"y"}, {}, "local");
  EXPECT_EQ(m.axes("w"), AxesPair(1, 0));
}

TEST(ChannelAxes, FallsBackToOutThenIn) {
  EXPECT_EQ(fallback({64, 32, 3, 3}), AxesPair(0, 1));
  EXPECT_EQ(fallback({1, 512, 768}), AxesPair(1, 2));  // a position embedding: a scale per position
  EXPECT_EQ(fallback({512}), AxesPair(0, -1));
}

TEST(ChannelAxes, EveryRuleHasATest) {
  // The ops the tests above exercise; a new rule without a test fails here.
  const std::set<std::string> tested = {
      ":Conv", ":DeformConv", ":ConvTranspose", ":MatMul", ":Gemm", ":Gather", ":Einsum", ":LSTM", ":GRU", ":RNN",
      "com.microsoft:FusedConv", "com.microsoft:FusedGemm", "com.microsoft:FusedMatMul", "com.microsoft:Attention",
      "com.microsoft:LongformerAttention", "com.microsoft:DecoderAttention", "com.microsoft:EmbedLayerNormalization"};
  for (const std::string& op : channel_axis_ops()) EXPECT_TRUE(tested.count(op)) << op << " has a rule but no test";
}
