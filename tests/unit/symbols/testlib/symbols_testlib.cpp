// Known functions for the symbolizer's tests (tests/unit/symbols): each returns the return address
// of its call to flopspy_symbols_return_address, which lies on the line marked MARKER_<name>; the
// test finds those lines in this file. Built with -g -O1; noinline keeps every frame its own.
#include <cstdint>

#define FLOPSPY_TEST_EXPORT extern "C" __attribute__((noinline, visibility("default")))

FLOPSPY_TEST_EXPORT uintptr_t flopspy_symbols_return_address() {
  return reinterpret_cast<uintptr_t>(__builtin_return_address(0));
}

// The empty asm after each call keeps the call from becoming a jump (no frame of its own).
#define FLOPSPY_KEEP(value) asm volatile("" : "+r"(value))

namespace flopspy_test {
namespace inner {

template <typename T>
struct Box {
  __attribute__((noinline)) static uintptr_t Where(T value) {
    uintptr_t where = flopspy_symbols_return_address();  // MARKER_TEMPLATE
    FLOPSPY_KEEP(where);
    return where + static_cast<uintptr_t>(value) * 0;
  }
};
template struct Box<int>;

}  // namespace inner

// Local to this file: named in .symtab only, never in .dynsym.
static __attribute__((noinline)) uintptr_t LocalOnly() {
  uintptr_t where = flopspy_symbols_return_address();  // MARKER_LOCAL
  FLOPSPY_KEEP(where);
  return where;
}

// Always inlined into its caller: the symbol table knows only the caller; DWARF knows both.
inline __attribute__((always_inline)) uintptr_t Inlined() {
  uintptr_t where = flopspy_symbols_return_address();  // MARKER_INLINED
  FLOPSPY_KEEP(where);
  return where;
}

}  // namespace flopspy_test

FLOPSPY_TEST_EXPORT uintptr_t flopspy_symbols_inlined_function() {
  uintptr_t where = flopspy_test::Inlined();
  FLOPSPY_KEEP(where);
  return where;
}

FLOPSPY_TEST_EXPORT uintptr_t flopspy_symbols_c_function() {
  uintptr_t where = flopspy_symbols_return_address();  // MARKER_C
  FLOPSPY_KEEP(where);
  return where;
}

FLOPSPY_TEST_EXPORT uintptr_t flopspy_symbols_template_function() {
  uintptr_t where = flopspy_test::inner::Box<int>::Where(7);
  FLOPSPY_KEEP(where);
  return where;
}

FLOPSPY_TEST_EXPORT uintptr_t flopspy_symbols_local_function() {
  uintptr_t where = flopspy_test::LocalOnly();
  FLOPSPY_KEEP(where);
  return where;
}
