#include "python_layout.h"

#include <cstring>
#include <initializer_list>

namespace flopspy::interpose {
namespace {

// PyUnicodeObject pieces of 3.10 and 3.11, which still carried the wstr pointer.
void SetWstrUnicode(PythonLayout* l) {
  l->unicode_ascii_size = 48;
  l->unicode_utf8 = 56;
  l->unicode_compact_size = 72;
}

// How many uint64 fields the sections of _Py_DebugOffsets before the ones read here hold: the
// struct grew between 3.13 and 3.14 and during 3.14's pre-releases, so 3.14 is matched against
// every shape near the known ones, and a shape is taken only if what it reads hangs together.
struct DebugShape {
  int interpreter_state;
  int thread_state;
  int interpreter_frame;
  int code_object;
  bool set_object;
};

constexpr DebugShape kShape313 = {13, 9, 6, 10, false};

struct DebugReader {
  const uint8_t* data;
  size_t size;
  bool ok = true;
  uint64_t At(int index) {
    const size_t at = static_cast<size_t>(index) * 8;
    if (at + 8 > size) {
      ok = false;
      return 0;
    }
    uint64_t v;
    std::memcpy(&v, data + at, 8);
    return v;
  }
};

bool Fits32(uint64_t v) {
  return v < (uint64_t{1} << 31);
}

// Fills `l` from the offsets at the positions `shape` gives; false when they do not hang
// together (a wrong shape reads neighbouring fields, which fail these checks).
bool TryShape(DebugReader& r, const DebugShape& shape, int minor, PythonLayout* l) {
  const int thread_state = 3 + 3 + shape.interpreter_state;
  const int frame = thread_state + shape.thread_state;
  const int code = frame + shape.interpreter_frame;
  const int pyobject = code + shape.code_object;
  const int tuple = pyobject + 2 + 4;
  const int list = tuple + 3;
  const int dict = list + 3 + (shape.set_object ? 4 : 0);
  const int bytes = dict + 3 + 2 + 3;
  const int unicode = bytes + 3;

  const bool free_threaded = r.At(2) != 0;
  const uint64_t ts_size = r.At(thread_state), ts_frame = r.At(thread_state + 4);
  // PyThreadState starts with prev, next, interp: pins where the section starts.
  const bool ts_head =
      r.At(thread_state + 1) == 0 && r.At(thread_state + 2) == 8 && r.At(thread_state + 3) == 16;
  const uint64_t fr_size = r.At(frame), fr_prev = r.At(frame + 1), fr_exec = r.At(frame + 2),
                 fr_instr = r.At(frame + 3), fr_owner = r.At(frame + 5);
  const uint64_t co_size = r.At(code), co_file = r.At(code + 1), co_qual = r.At(code + 3),
                 co_lines = r.At(code + 4), co_first = r.At(code + 5), co_adaptive = r.At(code + 9);
  const uint64_t ob_size = r.At(pyobject), ob_type = r.At(pyobject + 1);
  const uint64_t by_size = r.At(bytes + 1), by_sval = r.At(bytes + 2);
  const uint64_t un_state = r.At(unicode + 1), un_length = r.At(unicode + 2),
                 un_ascii = r.At(unicode + 3);
  if (!r.ok) return false;

  if (ob_type != (free_threaded ? 24u : 8u) || ob_size != ob_type + 8) return false;
  if (by_size != ob_size || by_sval != by_size + 16) return false;
  if (un_length != ob_size || un_state != un_length + 16 || un_ascii < un_state + 4 ||
      un_ascii > 128) {
    return false;
  }
  if (!ts_head || ts_size < 64 || ts_size > (1u << 16) || ts_frame >= ts_size) return false;
  if (fr_size < 40 || fr_size > 1024 || fr_prev >= fr_size || fr_exec >= fr_size ||
      fr_instr >= fr_size || fr_owner >= fr_size) {
    return false;
  }
  if (co_size < 64 || co_size > 4096 || co_file >= co_size || co_qual >= co_size ||
      co_lines >= co_size || co_first >= co_size || co_adaptive >= co_size ||
      co_adaptive + 8 < co_size) {
    return false;
  }

  l->free_threaded = free_threaded;
  l->tstate_frame = static_cast<uint32_t>(ts_frame);
  l->frame_previous = static_cast<uint32_t>(fr_prev);
  l->frame_code = static_cast<uint32_t>(fr_exec);
  l->frame_instr = static_cast<uint32_t>(fr_instr);
  l->frame_owner = static_cast<int32_t>(fr_owner);
  l->first_foreign_owner = 3;  // 3.13: CSTACK; 3.14: INTERPRETER, then CSTACK
  l->code_is_stackref = minor >= 14;
  l->code_filename = static_cast<uint32_t>(co_file);
  l->code_name = static_cast<uint32_t>(co_qual);
  l->code_linetable = static_cast<uint32_t>(co_lines);
  l->code_firstlineno = static_cast<uint32_t>(co_first);
  l->code_adaptive = static_cast<int32_t>(co_adaptive);
  l->ob_type = static_cast<uint32_t>(ob_type);
  l->ob_size = static_cast<uint32_t>(ob_size);
  l->bytes_sval = static_cast<uint32_t>(by_sval);
  l->unicode_length = static_cast<uint32_t>(un_length);
  l->unicode_state = static_cast<uint32_t>(un_state);
  l->unicode_ascii_size = static_cast<uint32_t>(un_ascii);
  // PyCompactUnicodeObject: PyASCIIObject, utf8_length, utf8.
  l->unicode_utf8 = static_cast<uint32_t>(un_ascii + 8);
  l->unicode_compact_size = static_cast<uint32_t>(un_ascii + 16);
  // 3.14t made `interned` a byte of its own: the bit fields start in the next byte.
  l->unicode_kind_shift = (minor >= 14 && free_threaded) ? 8 : 2;
  if (free_threaded && shape.interpreter_frame >= 8 && shape.code_object >= 11) {
    const uint64_t tlbc_index = r.At(frame + 7), co_tlbc = r.At(code + 10);
    if (tlbc_index != 0 && co_tlbc != 0 && tlbc_index < fr_size && co_tlbc < co_size) {
      l->frame_tlbc_index = static_cast<int32_t>(tlbc_index);
      l->code_tlbc = static_cast<int32_t>(co_tlbc);
    }
  }
  return Fits32(ts_frame) && r.ok;
}

// 3.14: the released shape first (interpreter_state 16, thread_state 9, frame 8, code 11, a set
// section), then its neighbours.
bool FindShape314(DebugReader& r, int minor, PythonLayout* l) {
  for (int threads : {9, 11, 10, 12}) {
    for (int interp : {16, 14, 15, 13, 17, 18}) {
      for (int frames : {8, 7, 6}) {
        for (int codes : {11, 10}) {
          for (bool set : {true, false}) {
            PythonLayout candidate = *l;
            r.ok = true;
            if (TryShape(r, DebugShape{interp, threads, frames, codes, set}, minor, &candidate)) {
              *l = candidate;
              return true;
            }
          }
        }
      }
    }
  }
  return false;
}

}  // namespace

bool LayoutFromTable(int major, int minor, PythonLayout* l) {
  if (major != 3) return false;
  *l = PythonLayout{};
  l->major = major;
  l->minor = minor;
  switch (minor) {
    case 10:  // PyThreadState.frame -> PyFrameObject chain
      l->tstate_frame = 24;
      l->frame_previous = 24;
      l->frame_code = 32;
      l->frame_instr = 96;
      l->instr_is_lasti = true;
      l->code_firstlineno = 40;
      l->code_bytes = 48;
      l->code_filename = 104;
      l->code_name = 112;  // co_name: 3.10 has no co_qualname
      l->code_linetable = 120;
      SetWstrUnicode(l);
      return true;
    case 11:  // PyThreadState.cframe -> _PyCFrame.current_frame -> _PyInterpreterFrame
      l->tstate_frame = 56;
      l->cframe_current = 8;
      l->frame_code = 32;
      l->frame_previous = 48;
      l->frame_instr = 56;  // prev_instr
      l->frame_owner = 69;
      l->first_foreign_owner = 3;  // 3.11 owners are 0..2: anything else is not a frame
      l->code_firstlineno = 72;
      l->code_filename = 112;
      l->code_name = 128;
      l->code_linetable = 136;
      l->code_firsttraceable = 168;
      l->code_adaptive = 184;
      SetWstrUnicode(l);
      return true;
    case 12:
      l->tstate_frame = 56;
      l->cframe_current = 0;
      l->frame_code = 0;
      l->frame_previous = 8;
      l->frame_instr = 56;  // prev_instr
      l->frame_owner = 70;
      l->first_foreign_owner = 3;  // FRAME_OWNED_BY_CSTACK: the shim frames
      l->code_firstlineno = 68;
      l->code_filename = 112;
      l->code_name = 128;
      l->code_linetable = 136;
      l->code_firsttraceable = 176;
      l->code_adaptive = 192;
      return true;
    default:
      return false;
  }
}

bool LayoutFromDebugOffsets(const uint8_t* debug_offsets, size_t size, int major, int minor,
                            PythonLayout* layout, const char** why) {
  *why = "";
  if (major != 3 || (minor != 13 && minor != 14)) {
    *why = "no known _Py_DebugOffsets layout for this version";
    return false;
  }
  if (size < 16 || std::memcmp(debug_offsets, "xdebugpy", 8) != 0) {
    *why = "_PyRuntime does not start with the debug offsets cookie";
    return false;
  }
  DebugReader r{debug_offsets, size};
  const uint64_t version = r.At(1);  // PY_VERSION_HEX
  if (((version >> 24) & 0xff) != static_cast<uint64_t>(major) ||
      ((version >> 16) & 0xff) != static_cast<uint64_t>(minor)) {
    *why = "the debug offsets are of another version";
    return false;
  }
  PythonLayout l;
  l.major = major;
  l.minor = minor;
  l.from_debug_offsets = true;
  bool found = false;
  if (minor == 13) {
    found = TryShape(r, kShape313, minor, &l);
  } else {
    found = FindShape314(r, minor, &l);
  }
  if (!found) {
    *why = "the debug offsets do not read as expected";
    return false;
  }
  *layout = l;
  return true;
}

}  // namespace flopspy::interpose
