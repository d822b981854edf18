// Where CPython keeps what python_frames.cpp reads: thread state -> innermost frame -> previous
// frames, and each frame's code object and instruction pointer (docs/call-sites.md, "Reading
// Python frames"). 3.10 to 3.12 come from a table per minor version, checked against each
// version's headers; 3.13 and 3.14 come from the _Py_DebugOffsets the interpreter publishes at
// the start of _PyRuntime.
#pragma once

#include <cstddef>
#include <cstdint>

namespace flopspy::interpose {

struct PythonLayout {
  int major = 0;
  int minor = 0;
  bool free_threaded = false;
  bool from_debug_offsets = false;

  // Thread state to innermost frame: *(tstate + tstate_frame), then, when cframe_current >= 0,
  // that pointer is a _PyCFrame and the frame is *(cframe + cframe_current) (3.11, 3.12).
  uint32_t tstate_frame = 0;
  int32_t cframe_current = -1;

  // Frames. 3.10: PyFrameObject (f_back, f_code, int f_lasti counted in code units).
  // 3.11+: _PyInterpreterFrame (previous, code or _PyStackRef, pointer to the instruction).
  uint32_t frame_previous = 0;
  uint32_t frame_code = 0;
  uint32_t frame_instr = 0;
  int32_t frame_owner = -1;            // char owner; -1: none (3.10)
  uint8_t first_foreign_owner = 0xff;  // owners from this value on are not Python frames
  bool instr_is_lasti = false;         // 3.10: frame_instr is an int index, not a pointer
  bool code_is_stackref = false;       // 3.14: f_executable carries tag bits
  int32_t frame_tlbc_index = -1;       // 3.14 free-threaded: int32 index of the bytecode copy
  int32_t code_tlbc = -1;              // 3.14 free-threaded: _PyCodeArray* of the copies

  // Code objects.
  uint32_t code_filename = 0;
  uint32_t code_name = 0;  // co_qualname (3.11+), co_name (3.10)
  uint32_t code_linetable = 0;
  uint32_t code_firstlineno = 0;
  int32_t code_bytes = -1;           // 3.10: co_code, a bytes object
  int32_t code_adaptive = -1;        // 3.11+: first code unit; Py_SIZE(code) code units
  int32_t code_firsttraceable = -1;  // 3.11, 3.12: code units before it are the prologue

  // Objects.
  uint32_t ob_type = 8;
  uint32_t ob_size = 16;  // PyVarObject
  uint32_t bytes_sval = 32;
  uint32_t unicode_length = 16;
  uint32_t unicode_state = 32;
  uint32_t unicode_ascii_size = 40;    // sizeof(PyASCIIObject): compact ASCII data follows
  uint32_t unicode_utf8 = 48;          // PyCompactUnicodeObject::utf8 (utf8_length just before)
  uint32_t unicode_compact_size = 56;  // sizeof(PyCompactUnicodeObject): other compact data
  uint8_t unicode_kind_shift = 2;      // state: kind:3, compact:1, ascii:1 from this bit
};

// The table of 3.10, 3.11 or 3.12; false for any other version.
bool LayoutFromTable(int major, int minor, PythonLayout* layout);

// Reads what a 3.13 or 3.14 interpreter publishes, `debug_offsets` being the first bytes of
// _PyRuntime (`size` of them read). Checks the cookie, the version against major.minor and that
// the offsets are self-consistent; false with `why` (a static string) otherwise.
bool LayoutFromDebugOffsets(const uint8_t* debug_offsets, size_t size, int major, int minor,
                            PythonLayout* layout, const char** why);

// Bytes of _PyRuntime LayoutFromDebugOffsets may look at.
inline constexpr size_t kDebugOffsetsReadSize = 1024;

}  // namespace flopspy::interpose
