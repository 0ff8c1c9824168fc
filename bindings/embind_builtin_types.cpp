// The C++ types embind knows by default, cut to those bindings/embind.cpp passes (wasm build only).
//
// embind's own registration (system/lib/embind/bind.cpp in libembind) names 16 integer and
// float types, five string types and 20 memory views; each leaves its name and its type's
// name in the module, and a handler for its kind in the glue. The bindings pass void, bool,
// unsigned and unsigned long (uintptr_t) integers, double, std::string and val, so these two
// functions, defined here, take the place of that file: the linker then leaves it out. A type
// used later but not registered here fails at its first call with embind's UnboundTypeError
// naming it (the JS tests call every binding).
#include <emscripten/bind.h>
#include <emscripten/em_macros.h>
#include <emscripten/wire.h>

#include <cstring>
#include <limits>
#include <string>
#include <typeinfo>

using namespace emscripten::internal;

namespace {

template <typename T> void integer(const char* name) {
  _embind_register_integer(TypeID<T>::get(), name, sizeof(T), std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
}

}  // namespace

extern "C" {

// The name embind shows for a type it was not told about.
const char* EMSCRIPTEN_KEEPALIVE __getTypeName(const std::type_info* type) { return strdup(type->name()); }

EMSCRIPTEN_KEEPALIVE __attribute__((constructor)) void __embind_register_native_and_builtin_types() {
  _embind_register_void(TypeID<void>::get(), "void");
  _embind_register_bool(TypeID<bool>::get(), "bool", sizeof(bool), true, false);
  integer<unsigned int>("unsigned int");
  integer<unsigned long>("unsigned long");
  _embind_register_float(TypeID<double>::get(), "double", sizeof(double));
  _embind_register_std_string(TypeID<std::string>::get(), "std::string");
  _embind_register_emval(TypeID<emscripten::val>::get(), "emscripten::val");
}

}  // extern "C"
