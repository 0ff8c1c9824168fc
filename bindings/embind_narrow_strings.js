// A JS library for the wasm link (CMakeLists.txt) that leaves out of the glue what the package never
// uses: embind's wide strings (the engine passes no std::wstring, std::u16string or std::u32string:
// their registration does nothing here, so the UTF-16 and UTF-32 converters go; a call with such a
// string would fail as an unbound type), and emval's two debugging counters on the module.
mergeInto(LibraryManager.library, {
  _embind_register_std_wstring: function () {},
  $init_emval__deps: [],
  $init_emval: function () {},
});
