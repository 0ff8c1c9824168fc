// The option words' tables (see option_words.h).
#include "option_words.h"

#include "code_format.h"

namespace onnx_shrink {

namespace {
template <typename Enum>
constexpr OptionWord w(const char* word, Enum value) {
  return {word, static_cast<uint8_t>(value)};
}
const OptionWord kModes[] = {w("int8", Mode::Int8), w("palette", Mode::Palette)};
const OptionWord kSchemes[] = {w("auto", Scheme::Auto), w("channel", Scheme::Channel), w("tensor", Scheme::Tensor),
                               w("kmeans", Scheme::KMeans), w("uniform", Scheme::Uniform)};
const OptionWord kForms[] = {w("fold", Form::Fold), w("dq", Form::Dq)};
const OptionWord kSmall[] = {w("auto", SmallTensors::Auto), w("fp16", SmallTensors::Fp16), w("keep", SmallTensors::Keep)};
const OptionWord kExternal[] = {w("auto", ExternalData::Auto), w("inline", ExternalData::Inline), w("external", ExternalData::External)};
template <size_t N>
constexpr OptionWords table(const char* option, const OptionWord (&words)[N]) {
  return {option, words, N};
}
}  // namespace

const OptionWords kModeWords = table("mode", kModes);
const OptionWords kSchemeWords = table("scheme", kSchemes);
const OptionWords kFormWords = table("form", kForms);
const OptionWords kSmallWords = table("small", kSmall);
const OptionWords kExternalWords = table("externalData", kExternal);

bool OptionWords::parse(const std::string& text, uint8_t& value) const {
  for (size_t k = 0; k < count; ++k) {
    if (text == words[k].word) {
      value = words[k].value;
      return true;
    }
  }
  return false;
}

const char* OptionWords::word(uint8_t value) const {
  for (size_t k = 0; k < count; ++k) {
    if (words[k].value == value) return words[k].word;
  }
  return "";
}

std::string OptionWords::list(bool quote) const {
  std::string s;
  for (size_t k = 0; k < count; ++k) {
    s += k == 0 ? "" : k + 1 == count ? " or " : ", ";
    s += quote ? std::string("'") + words[k].word + "'" : std::string(words[k].word);
  }
  return s;
}

std::string bits_words() {
  std::string s = "auto";
  size_t left = 0;
  for (const CodeFormat& f : code_formats()) left += !f.codebook;
  for (const CodeFormat& f : code_formats()) {
    if (!f.codebook) s += (--left == 0 ? " or " : ", ") + std::to_string(f.bits);
  }
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
