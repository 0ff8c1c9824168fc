// Opset raise (see opset_raise.h).
#include "plan/opset_raise.h"

#include <algorithm>

#include "code_format.h"
#include "opset.h"

namespace onnx_shrink {

int64_t raise_opset(const ModelIndex& index, const std::vector<Item>& items, Report& report) {
  int64_t required = 0;
  for (const Item& item : items) {
    if (item.action == Action::Int8) required = std::max(required, required_opset(item.layout, Form::Dq));
  }
  const int64_t current = index.opset("");
  if (required <= current) return 0;
  const char* why = required >= required_opset(Form::Dq, Grouping::Blocks, 0) ? "DequantizeLinear with blocks needs opset 21"
                                                                               : "DequantizeLinear per channel needs opset 13";
  if (std::any_of(index.graphs.begin(), index.graphs.end(), [](const GraphInfo& g) { return g.function; })) {
    throw Error(ErrorCode::Unsupported, std::string("the dq form: ") + why + " and the model uses opset " + std::to_string(current) +
                                            "; it defines functions with their own opset imports, so raising it is not "
                                            "known to be safe. Use the fold form (the default): it works at opset " +
                                            std::to_string(current) + " and onnxruntime folds it at load");
  }
  const std::vector<std::string> changed = ops_changed_between(index, current, required);
  if (!changed.empty()) {
    std::string list;
    for (size_t i = 0; i < changed.size() && i < 8; ++i) list += (i ? ", " : "") + changed[i];
    if (changed.size() > 8) list += ", ...";
    throw Error(ErrorCode::Unsupported, std::string("the dq form: ") + why + ", the model uses opset " +
                                            std::to_string(current) + ", and these operators it uses have definitions that changed by then: " +
                                            list + ". Use the fold form (the default): it works at opset " + std::to_string(current) +
                                            " and onnxruntime folds it at load, so inference speed is unchanged");
  }
  OpsetChange change;
  change.from = current;
  change.to = required;
  change.reason = std::string(why) + "; no operator the model uses changed behaviour between the two";
  report.opset_changes.push_back(change);
  const int64_t ir = ir_version_for_opset(required);
  if (index.ir_version < ir) report.ir_version_after = ir;
  return required;
}

}  // namespace onnx_shrink
