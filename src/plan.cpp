// The planner's pipeline: scope -> selection -> opset -> bits -> emission -> layout -> report.
#include "plan.h"

#include <set>

#include "code_format.h"
#include "name_order.h"
#include "option_words.h"
#include "plan/bit_allocation.h"
#include "plan/emit.h"
#include "plan/opset_raise.h"
#include "plan/scope.h"
#include "plan/selection.h"

namespace onnx_shrink {

namespace {

constexpr uint64_t kProtobufLimit = 2147483647;  // INT32_MAX: the largest message protobuf reads

// What the report says of the model before anything changes.
void describe_model(const ModelIndex& index, const Options& options, Report& r) {
  r.mode = kModeWords.word(options.mode);
  r.ir_version = r.ir_version_after = index.ir_version;
  for (const OpsetImport& o : index.opsets) r.opsets.emplace_back(o.domain, o.version);
  r.producer = index.producer;
  const GraphInfo& main = index.graphs[0];
  std::set<std::string, NameOrder> initializer_names;
  for (int32_t t : main.initializers) initializer_names.insert(index.tensors[t].name);
  for (const ValueField& v : main.inputs) {
    if (!initializer_names.count(v.info.name)) r.inputs.push_back(v.info);
  }
  for (const ValueField& v : main.outputs) r.outputs.push_back(v.info);
  r.model_bytes_before = index.size;
  r.external_bytes_before = index.external_bytes();
}

// The report's sizes and totals once the layout is known.
void summarise(const ModelIndex& index, Plan& plan) {
  Report& r = plan.report;
  r.model_bytes_after = plan.output_size;
  r.external_bytes_after = plan.external_size;
  r.small_tensor_bytes_after = r.small_tensor_bytes;
  for (const Item& item : plan.items) {
    const TensorInfo& t = index.tensors[item.tensor];
    if (item.action == Action::Half) {
      ++r.small_tensors_fp16;
      r.float16_tensors.emplace_back(t.name, index.graphs[t.graph].path);
      r.small_tensor_bytes_after -= 2 * t.elements;
    }
    if (item.action != Action::Int8 || item.report < 0) continue;
    TensorReport& tr = r.tensors[item.report];
    tr.bits = format_of(item.layout).bits;
    tr.bytes_after = stored_bytes(item.layout, item.form, t.dims, t.elements);
  }
  for (const TensorReport& t : r.tensors) {
    if (!t.changed) continue;
    ++r.tensors_changed;
    r.weight_bytes_before += t.bytes_before;
    r.weight_bytes_after += t.bytes_after;
  }
  r.unchanged = plan.edits.empty();
  uint64_t work = 0;
  for (const Item& item : plan.items) work += TensorData::raw_size(index.tensors[item.tensor]);
  plan.work = work;
}

}  // namespace

Plan plan_shrink(const ModelIndex& index, TensorData& data, const Options& options, bool external_output, Progress* progress) {
  Plan plan;
  describe_model(index, options, plan.report);
  const Scope scope(index);
  const bool int8 = options.mode == Mode::Int8;
  if (int8) check_int8_opset(index);
  select_items(index, scope, data, options, progress, plan);
  const int64_t raised = int8 && options.form == Form::Dq ? raise_opset(index, plan.items, plan.report) : 0;
  if (int8 && options.bits == 0) allocate_low_bits(index, plan.items);
  emit_edits(index, scope, data, options, external_output, raised, plan);
  plan.output_size = finish_layout(index, plan.edits);
  if (plan.output_size > kProtobufLimit) {
    throw Error(ErrorCode::TooLarge, "the result would be " + std::to_string(plan.output_size) +
                                         " bytes, over the 2 GB limit of a protobuf file: write external data");
  }
  summarise(index, plan);
  return plan;
}

}  // namespace onnx_shrink
