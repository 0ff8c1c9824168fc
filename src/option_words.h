// Option words: the word for each value of each Options enum, one table per enum (word <-> value).
//
// The native CLI, the Embind layer and the report ask these tables; the JS front ends have their
// own single table (bindings/js/options.js), which a test checks against this one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "onnx_shrink.h"

namespace onnx_shrink {

template <typename Enum>
struct OptionWord {
  const char* word;
  Enum value;
};

// A table and its length.
template <typename Enum>
struct OptionWords {
  const char* option;  // the JS option name ("mode", "externalData", ...)
  const OptionWord<Enum>* words;
  size_t count;

  // The value of `word`; false when the table has no such word.
  bool parse(const std::string& word, Enum& value) const {
    for (size_t k = 0; k < count; ++k) {
      if (word == words[k].word) {
        value = words[k].value;
        return true;
      }
    }
    return false;
  }
  const char* word(Enum value) const {
    for (size_t k = 0; k < count; ++k) {
      if (words[k].value == value) return words[k].word;
    }
    return "";
  }
  // "'a', 'b' or 'c'" (quote = true) or "a, b or c".
  std::string list(bool quote) const {
    std::string s;
    for (size_t k = 0; k < count; ++k) {
      s += k == 0 ? "" : k + 1 == count ? " or " : ", ";
      s += quote ? std::string("'") + words[k].word + "'" : std::string(words[k].word);
    }
    return s;
  }
};

extern const OptionWords<Mode> kModeWords;
extern const OptionWords<Scheme> kSchemeWords;
extern const OptionWords<Form> kFormWords;
extern const OptionWords<SmallTensors> kSmallWords;
extern const OptionWords<ExternalData> kExternalWords;

// Options::bits as a word: "auto" for 0, else the number (the code formats' bits: code_format.h).
std::string bits_word(uint32_t bits);
// "auto, 8, 9, 10, 12 or 16".
std::string bits_words();
// The bits `word` names; false for a word that names none.
bool parse_bits(const std::string& word, uint32_t& bits);

}  // namespace onnx_shrink
