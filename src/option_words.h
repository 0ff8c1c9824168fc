// Option words: the word for each value of each Options enum, one table per enum (word <-> value).
//
// The native CLI, the Embind layer and the report ask these tables; the JS front ends have their
// own single table (bindings/js/options.js), which tests/js/options.test.mjs checks against this
// one (through the native CLI's usage text, which prints these words).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "onnx_shrink.h"

namespace onnx_shrink {

struct OptionWord {
  const char* word;
  uint8_t value;  // the enumerator, as its underlying value
};

// One enum's words. (Not a template: the WebAssembly module carries one copy of the lookups.)
struct OptionWords {
  const char* option;  // the JS option name ("mode", "externalData", ...)
  const OptionWord* words;
  size_t count;

  // The value of `word`; false when the table has no such word.
  bool parse(const std::string& word, uint8_t& value) const;
  const char* word(uint8_t value) const;
  // "'a', 'b' or 'c'" (quote = true) or "a, b or c".
  std::string list(bool quote) const;

  template <typename Enum>
  bool parse(const std::string& w, Enum& value) const {
    uint8_t v = 0;
    if (!parse(w, v)) return false;
    value = static_cast<Enum>(v);
    return true;
  }
  template <typename Enum>
  const char* word(Enum value) const {
    return word(static_cast<uint8_t>(value));
  }
};

extern const OptionWords kModeWords;      // Mode
extern const OptionWords kSchemeWords;    // Scheme
extern const OptionWords kFormWords;      // Form
extern const OptionWords kSmallWords;     // SmallTensors
extern const OptionWords kExternalWords;  // ExternalData

// "auto, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12 or 16".
std::string bits_words();
// The bits `word` names; false for a word that names none.
bool parse_bits(const std::string& word, uint32_t& bits);

}  // namespace onnx_shrink
