#include "python_frames.h"

#include <atomic>
#include <cstdio>
#include <cstring>

#include "flopspy/trace/schema.h"
#include "log.h"
#include "python_layout.h"
#include "python_objects.h"
#include "python_safe_read.h"
#include "real_symbols.h"

namespace flopspy::interpose {
namespace {

// kPending: a layout is chosen but not yet checked on a real frame chain (a thread with Python
// frames has not captured yet). Reported as kNotYet.
enum Internal : uint8_t { kUndecided, kPending, kReadable, kUnsupported, kNoPython };

std::atomic<uint8_t> g_state{kUndecided};
std::atomic<bool> g_busy{false};  // one thread at a time on the cold path; others do not wait

// Written before g_state leaves kUndecided/kPending (release), read after (acquire).
PythonLayout g_layout;
using ThreadStateFn = void* (*)();
ThreadStateFn g_thread_state = nullptr;
uintptr_t g_code_type = 0;
uintptr_t g_unicode_type = 0;
uintptr_t g_bytes_type = 0;
char g_version[32];
char g_description[256];

using IsInitializedFn = int (*)();
IsInitializedFn g_is_initialized = nullptr;

constexpr uint8_t kOwnedByGenerator = 1;

// The outcome of a walk over one thread's frames.
struct Walk {
  int frames = 0;
  bool truncated = false;
  const char* odd = nullptr;  // why the walk stopped early: something did not read as expected
};

// The frame pointer the thread state holds (0: no Python frames); false when unreadable.
template <class R>
bool InnermostFrame(R& r, const PythonLayout& l, uintptr_t tstate, uintptr_t* frame) {
  *frame = 0;
  if (!ReadWord(r, tstate + l.tstate_frame, frame)) return false;
  if (l.cframe_current >= 0 && *frame != 0) {
    const uintptr_t cframe = *frame;
    return ReadWord(r, cframe + static_cast<uint32_t>(l.cframe_current), frame);
  }
  return true;
}

// Where the code object's bytecode starts for this frame (3.14t: the thread's own copy).
template <class R>
bool BytecodeStart(R& r, const PythonLayout& l, uintptr_t frame, uintptr_t code, uintptr_t* start) {
  *start = code + static_cast<uint32_t>(l.code_adaptive);
  if (l.code_tlbc < 0) return true;
  uintptr_t array = 0;
  int32_t index = 0;
  int64_t size = 0;
  if (!ReadWord(r, code + static_cast<uint32_t>(l.code_tlbc), &array) || array == 0 ||
      !r.Read(frame + static_cast<uint32_t>(l.frame_tlbc_index), &index, sizeof(index)) ||
      !r.Read(array, &size, sizeof(size)) || index < 0 || index >= size) {
    return false;
  }
  return ReadWord(r, array + 8 + 8 * static_cast<uintptr_t>(index), start) && *start != 0;
}

// Bytes of bytecode the code object holds, or -1.
template <class R>
int64_t BytecodeSize(R& r, const PythonLayout& l, uintptr_t code) {
  int64_t n = -1;
  if (l.code_bytes >= 0) {  // 3.10: co_code is a bytes object
    uintptr_t bytes = 0;
    if (!ReadWord(r, code + static_cast<uint32_t>(l.code_bytes), &bytes) ||
        !r.Read(bytes + l.ob_size, &n, sizeof(n))) {
      return -1;
    }
    return n;
  }
  if (!r.Read(code + l.ob_size, &n, sizeof(n))) return -1;  // Py_SIZE: code units
  return n * 2;
}

// The walk itself, shared by the checked first capture (SafeReader) and every later one (plain
// loads): innermost first, frames not run by Python skipped, stopped at anything odd.
template <class R>
Walk WalkFrames(R& r, const PythonLayout& l, uintptr_t tstate, PythonFrame* out, int max) {
  Walk w;
  uintptr_t frame = 0;
  if (!InnermostFrame(r, l, tstate, &frame)) {
    w.odd = "the thread state could not be read";
    return w;
  }
  // Skipped frames (3.12+ shims) count too, so a cycle cannot keep the walk going.
  int steps_left = 2 * max + 16;
  while (frame != 0) {
    if (steps_left-- == 0) {
      w.truncated = true;
      break;
    }
    uintptr_t previous = 0;
    if (!ReadWord(r, frame + l.frame_previous, &previous)) {
      w.odd = "a frame could not be read";
      break;
    }
    if (previous == frame) {
      w.odd = "a frame is its own caller";
      break;
    }
    uint8_t owner = 0;
    if (l.frame_owner >= 0) {
      if (!r.Read(frame + static_cast<uint32_t>(l.frame_owner), &owner, 1)) {
        w.odd = "a frame could not be read";
        break;
      }
      if (owner >= l.first_foreign_owner) {  // an entry frame of C code: no Python there
        frame = previous;
        continue;
      }
    }
    uintptr_t code = 0;
    if (!ReadWord(r, frame + l.frame_code, &code)) {
      w.odd = "a frame could not be read";
      break;
    }
    if (l.code_is_stackref) code &= ~uintptr_t{7};  // _PyStackRef tag bits
    uintptr_t type = 0;
    if (code == 0 || !ReadWord(r, code + l.ob_type, &type) || type != g_code_type) {
      w.odd = "a frame's code is not a code object";
      break;
    }
    int64_t offset = 0;
    if (l.instr_is_lasti) {
      int32_t lasti = 0;
      if (!r.Read(frame + l.frame_instr, &lasti, sizeof(lasti))) {
        w.odd = "a frame could not be read";
        break;
      }
      offset = int64_t{lasti} * 2;  // f_lasti counts 2-byte code units in 3.10
    } else {
      uintptr_t instr = 0, start = 0;
      if (!ReadWord(r, frame + l.frame_instr, &instr) ||
          !BytecodeStart(r, l, frame, code, &start)) {
        w.odd = "a frame could not be read";
        break;
      }
      offset = static_cast<int64_t>(instr - start);
    }
    bool incomplete = offset < 0;  // not started yet: prev_instr is one before the first unit
    if (!incomplete && l.code_firsttraceable >= 0 && owner != kOwnedByGenerator) {
      int32_t first_traceable = 0;
      if (!r.Read(code + static_cast<uint32_t>(l.code_firsttraceable), &first_traceable,
                  sizeof(first_traceable))) {
        w.odd = "a code object could not be read";
        break;
      }
      incomplete = offset / 2 < first_traceable;  // still in the prologue (CPython skips it)
    }
    if (!incomplete) {
      const int64_t size = BytecodeSize(r, l, code);
      if (size < 0 || offset >= size) {
        w.odd = "a frame's instruction is outside its code";
        break;
      }
      if (w.frames == max) {
        w.truncated = true;
        break;
      }
      out[w.frames++] =
          PythonFrame{reinterpret_cast<const void*>(code), static_cast<uint32_t>(offset)};
    }
    frame = previous;
  }
  return w;
}

uint64_t Mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <class R>
size_t DescribeWith(R& r, const PythonLayout& l, uintptr_t code, uint64_t key, uint8_t* out,
                    size_t capacity) {
  uintptr_t type = 0, filename = 0, name = 0, linetable = 0;
  int32_t first_line = 0;
  if (code == 0 || !ReadWord(r, code + l.ob_type, &type) || type != g_code_type ||
      !ReadWord(r, code + l.code_filename, &filename) || !ReadWord(r, code + l.code_name, &name) ||
      !ReadWord(r, code + l.code_linetable, &linetable) ||
      !r.Read(code + l.code_firstlineno, &first_line, sizeof(first_line))) {
    return 0;
  }
  char file_text[trace::kMaxPyText];
  char name_text[trace::kMaxPyText];
  size_t file_length = 0, name_length = 0;
  // A legacy (non-compact) str reads as empty text; anything that is no str, as no code object.
  if (ReadStr(r, l, filename, g_unicode_type, file_text, sizeof(file_text), &file_length) ==
          TextRead::kNotStr ||
      ReadStr(r, l, name, g_unicode_type, name_text, sizeof(name_text), &name_length) ==
          TextRead::kNotStr) {
    return 0;
  }
  uintptr_t table = 0;
  size_t table_length = 0;
  if (!ReadBytesObject(r, l, linetable, g_bytes_type, &table, &table_length)) return 0;

  trace::PyCodeRecord rec{};
  const size_t fixed = sizeof(rec) + file_length + name_length;
  if (fixed + 8 > capacity) return 0;
  size_t keep = table_length < trace::kMaxPyLinetable ? table_length : trace::kMaxPyLinetable;
  const size_t room = (capacity - fixed) / 8 * 8;  // the padding must fit too
  if (keep > room) keep = room;
  if (keep < table_length) rec.flags |= trace::kPyCodeLinetableCut;
  const size_t size = trace::AlignRecordSize(fixed + keep);
  if (size > capacity || size / trace::kRecordAlign > UINT16_MAX) return 0;

  uint8_t* lines_at = out + fixed;
  if (keep > 0 && !r.Read(table, lines_at, keep)) return 0;
  rec.h = trace::RecordHeader{static_cast<uint8_t>(trace::RecordType::kPyCode), 0,
                              static_cast<uint16_t>(size / trace::kRecordAlign)};
  rec.code_key = key;
  rec.first_line = first_line;
  rec.python_version = static_cast<uint16_t>(l.major << 8 | l.minor);
  rec.linetable_format = static_cast<uint8_t>(l.minor >= 11 ? trace::PyLinetableFormat::kPy311
                                                            : trace::PyLinetableFormat::kPy310);
  rec.filename_length = static_cast<uint16_t>(file_length);
  rec.name_length = static_cast<uint16_t>(name_length);
  rec.linetable_length = static_cast<uint32_t>(keep);
  std::memcpy(out, &rec, sizeof(rec));
  std::memcpy(out + sizeof(rec), file_text, file_length);
  std::memcpy(out + sizeof(rec) + file_length, name_text, name_length);
  std::memset(out + fixed + keep, 0, size - fixed - keep);
  return size;
}

void* Symbol(const char* name) {
  return RealDlsym(RTLD_DEFAULT, name);
}

void SetUnsupported(const char* why, const char* implementation = "CPython") {
  std::snprintf(g_description, sizeof(g_description), "%s %s: %s, no Python call sites",
                implementation, g_version, why);
  g_state.store(kUnsupported, std::memory_order_release);
  ReportOnce("python-frames", trace::WarningCode::kGeneric, g_description);
}

// "3.11.2 (main, ...)" -> 3, 11 and "3.11.2" in g_version.
bool ParseVersion(const char* text, int* major, int* minor) {
  size_t n = 0;
  while (text[n] != '\0' && text[n] != ' ' && n + 1 < sizeof(g_version)) {
    g_version[n] = text[n];
    ++n;
  }
  g_version[n] = '\0';
  return std::sscanf(g_version, "%d.%d", major, minor) == 2;
}

// Once the interpreter is up: which layout to read it with.
void Decide() {
  if (g_is_initialized == nullptr) {
    g_is_initialized = reinterpret_cast<IsInitializedFn>(Symbol("Py_IsInitialized"));
    if (g_is_initialized == nullptr) {
      g_state.store(kNoPython, std::memory_order_release);
      return;
    }
  }
  if (g_is_initialized() == 0) return;  // asked again at the next capture

  using VersionFn = const char* (*)();
  auto version = reinterpret_cast<VersionFn>(Symbol("Py_GetVersion"));
  const char* text = version != nullptr ? version() : nullptr;
  int major = 0, minor = 0;
  if (text == nullptr || !ParseVersion(text, &major, &minor)) {
    std::snprintf(g_version, sizeof(g_version), "?");
    SetUnsupported("version unknown");
    return;
  }
  if (std::strstr(text, "PyPy") != nullptr) {  // cpyext emulates the C API: no CPython frames
    SetUnsupported("not CPython", "PyPy");
    return;
  }
  g_thread_state = reinterpret_cast<ThreadStateFn>(Symbol("PyGILState_GetThisThreadState"));
  g_code_type = reinterpret_cast<uintptr_t>(Symbol("PyCode_Type"));
  g_unicode_type = reinterpret_cast<uintptr_t>(Symbol("PyUnicode_Type"));
  g_bytes_type = reinterpret_cast<uintptr_t>(Symbol("PyBytes_Type"));

  PythonLayout layout;
  const char* how = "";
  char how_text[48];
  if (major == 3 && minor >= 10 && minor <= 12) {
    LayoutFromTable(major, minor, &layout);
    std::snprintf(how_text, sizeof(how_text), "layout table %d.%d", major, minor);
    how = how_text;
  } else if (major == 3 && (minor == 13 || minor == 14)) {
    const auto runtime = reinterpret_cast<uintptr_t>(Symbol("_PyRuntime"));
    uint8_t offsets[kDebugOffsetsReadSize];
    SafeReader reader;
    size_t got = sizeof(offsets);
    while (got >= 256 && !reader.Read(runtime, offsets, got)) got /= 2;  // near a mapping's end
    const char* why = "_PyRuntime not found";
    if (runtime == 0 || got < 256 ||
        !LayoutFromDebugOffsets(offsets, got, major, minor, &layout, &why)) {
      SetUnsupported(why);
      return;
    }
    how = layout.free_threaded ? "free-threaded, debug offsets" : "debug offsets";
  } else {
    SetUnsupported("version not supported");
    return;
  }
  if (g_thread_state == nullptr || g_code_type == 0) {
    SetUnsupported("PyGILState_GetThisThreadState or PyCode_Type not found");
    return;
  }
  g_layout = layout;
  std::snprintf(g_description, sizeof(g_description), "CPython %s (%s)", g_version, how);
  g_state.store(kPending, std::memory_order_release);
}

// Checks the layout on this thread's frames with reads that cannot fault: every code object's
// type, file name, name and line table, and where each frame's instruction lies. A thread
// without Python frames cannot tell: the next capture tries again.
void Validate() {
  auto* tstate = g_thread_state();
  if (tstate == nullptr) return;
  SafeReader reader;
  PythonFrame frames[trace::kMaxStackFrames];
  const Walk walk = WalkFrames(reader, g_layout, reinterpret_cast<uintptr_t>(tstate), frames,
                               trace::kMaxStackFrames);
  const char* bad = walk.odd;
  if (bad == nullptr && walk.frames == 0) return;
  uint8_t record[sizeof(trace::PyCodeRecord) + 2 * trace::kMaxPyText + 64];
  for (int i = 0; bad == nullptr && i < walk.frames; ++i) {
    if (DescribeWith(reader, g_layout, reinterpret_cast<uintptr_t>(frames[i].code), 1, record,
                     sizeof(record)) == 0) {
      bad = "a code object's file name, name or line table does not read as expected";
    }
  }
  if (bad != nullptr) {
    char why[160];
    std::snprintf(why, sizeof(why), "frames do not read as expected (%s)", bad);
    SetUnsupported(why);
    return;
  }
  g_state.store(kReadable, std::memory_order_release);
}

// The cold path: decides and checks, at most one thread at a time; the others go on.
void Advance() {
  if (g_busy.exchange(true, std::memory_order_acquire)) return;
  uint8_t state = g_state.load(std::memory_order_acquire);
  if (state == kUndecided) {
    Decide();
    state = g_state.load(std::memory_order_acquire);
  }
  if (state == kPending) Validate();
  g_busy.store(false, std::memory_order_release);
}

}  // namespace

PythonFramesState PythonFramesStatus() noexcept {
  uint8_t state = g_state.load(std::memory_order_acquire);
  if (state == kUndecided || state == kPending) {
    Advance();
    state = g_state.load(std::memory_order_acquire);
  }
  switch (state) {
    case kReadable:
      return PythonFramesState::kReadable;
    case kUnsupported:
      return PythonFramesState::kUnsupported;
    case kNoPython:
      return PythonFramesState::kNoPython;
    default:
      return PythonFramesState::kNotYet;
  }
}

std::string_view PythonFramesDescription() noexcept {
  const uint8_t state = g_state.load(std::memory_order_acquire);
  if (state == kReadable || state == kUnsupported) return g_description;
  return {};
}

int CapturePythonFrames(PythonFrame* out, int max, bool* truncated) noexcept {
  if (truncated != nullptr) *truncated = false;
  if (out == nullptr || max <= 0) return 0;
  uint8_t state = g_state.load(std::memory_order_acquire);
  if (state != kReadable) {
    if (state == kUnsupported || state == kNoPython) return 0;
    Advance();
    if (g_state.load(std::memory_order_acquire) != kReadable) return 0;
  }
  void* tstate = g_thread_state();
  if (tstate == nullptr) return 0;  // a thread that never ran Python
  PlainReader reader;
  const Walk walk = WalkFrames(reader, g_layout, reinterpret_cast<uintptr_t>(tstate), out, max);
  if (truncated != nullptr) *truncated = walk.truncated;
  return walk.frames;
}

uint64_t PythonCodeKey(const void* code) noexcept {
  const auto address = reinterpret_cast<uintptr_t>(code);
  uint64_t key = Mix(address);
  if (g_state.load(std::memory_order_acquire) == kReadable && address != 0) {
    const PythonLayout& l = g_layout;
    PlainReader r;
    uintptr_t type = 0, filename = 0, linetable = 0;
    int32_t first_line = 0;
    if (ReadWord(r, address + l.ob_type, &type) && type == g_code_type &&
        ReadWord(r, address + l.code_filename, &filename) &&
        ReadWord(r, address + l.code_linetable, &linetable) &&
        r.Read(address + l.code_firstlineno, &first_line, sizeof(first_line))) {
      // A new code object at a freed one's address has other strings and, mostly, other lines.
      key = Mix(key ^ Mix(filename ^ (linetable << 17 | linetable >> 47)) ^
                static_cast<uint32_t>(first_line));
    }
  }
  return key != 0 ? key : 1;
}

size_t DescribePythonCode(const void* code, uint64_t key, uint8_t* out, size_t capacity) noexcept {
  if (out == nullptr || g_state.load(std::memory_order_acquire) != kReadable) return 0;
  PlainReader reader;
  return DescribeWith(reader, g_layout, reinterpret_cast<uintptr_t>(code), key, out, capacity);
}

}  // namespace flopspy::interpose
