// The option words' tables (see option_words.h).
#include "option_words.h"

#include "code_format.h"

namespace onnx_shrink {

namespace {
const OptionWord<Mode> kModes[] = {{"int8", Mode::Int8}, {"palette", Mode::Palette}};
const OptionWord<Scheme> kSchemes[] = {{"auto", Scheme::Auto},     {"channel", Scheme::Channel}, {"tensor", Scheme::Tensor},
                                       {"kmeans", Scheme::KMeans}, {"uniform", Scheme::Uniform}};
const OptionWord<Form> kForms[] = {{"fold", Form::Fold}, {"dq", Form::Dq}};
const OptionWord<SmallTensors> kSmall[] = {{"auto", SmallTensors::Auto}, {"fp16", SmallTensors::Fp16}, {"keep", SmallTensors::Keep}};
const OptionWord<ExternalData> kExternal[] = {
    {"auto", ExternalData::Auto}, {"inline", ExternalData::Inline}, {"external", ExternalData::External}};

template <typename Enum, size_t N>
constexpr OptionWords<Enum> table(const char* option, const OptionWord<Enum> (&words)[N]) {
  return {option, words, N};
}
}  // namespace

const OptionWords<Mode> kModeWords = table("mode", kModes);
const OptionWords<Scheme> kSchemeWords = table("scheme", kSchemes);
const OptionWords<Form> kFormWords = table("form", kForms);
const OptionWords<SmallTensors> kSmallWords = table("small", kSmall);
const OptionWords<ExternalData> kExternalWords = table("externalData", kExternal);

std::string bits_word(uint32_t bits) { return bits == 0 ? "auto" : std::to_string(bits); }

std::string bits_words() {
  std::string s = "auto";
  const auto& formats = code_formats();
  std::vector<uint32_t> bits;
  for (const CodeFormat& f : formats) {
    if (!f.codebook) bits.push_back(f.bits);
  }
  for (size_t k = 0; k < bits.size(); ++k) s += (k + 1 == bits.size() ? " or " : ", ") + std::to_string(bits[k]);
  return s;
}

bool parse_bits(const std::string& word, uint32_t& bits) {
  if (word == "auto") {
    bits = 0;
    return true;
  }
  for (const CodeFormat& f : code_formats()) {
    if (!f.codebook && word == std::to_string(f.bits)) {
      bits = f.bits;
      return true;
    }
  }
  return false;
}

}  // namespace onnx_shrink
