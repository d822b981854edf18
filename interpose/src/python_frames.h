// Python frames of the launching thread, read without the GIL (docs/call-sites.md).
//
// PyTorch's bindings release the GIL before they launch, so a hook can neither take it (it would
// deadlock or stall the program) nor rely on it. The thread's own frame chain is stable while the
// thread is inside the C call that led to the hook, so it is read directly: thread state from
// PyGILState_GetThisThreadState(), then the frame chain through the layout of the running
// interpreter (CPython's published _Py_DebugOffsets from 3.13, a table per minor version before).
// The interpreter's symbols are looked up in the process; libpython is never linked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace flopspy::interpose {

enum class PythonFramesState : uint8_t {
  kNotYet,       // no interpreter initialised yet: asked again at the next capture
  kNoPython,     // not a Python process
  kReadable,     // frames can be read
  kUnsupported,  // a Python whose frames flopspy cannot read: said once on stderr and in the trace
};

// Decided on the first call that finds an initialised interpreter (cold, once); cheap after.
PythonFramesState PythonFramesStatus() noexcept;
// One line for the trace's metadata: "CPython 3.11.2 (layout table 3.11)", "CPython 3.9.18:
// version not supported, no Python call sites", "" while kNotYet or kNoPython.
std::string_view PythonFramesDescription() noexcept;

struct PythonFrame {
  const void* code;       // the code object (PyCodeObject*)
  uint32_t instr_offset;  // byte offset of the executing instruction in the code's bytecode
};

// This thread's Python frames, innermost first, at most `max`; sets *truncated when there were
// more. 0 when the thread runs no Python or the state is not kReadable. No lock, no allocation,
// no GIL, no system call.
int CapturePythonFrames(PythonFrame* out, int max, bool* truncated) noexcept;

// trace::PyCodeRecord::code_key of a code object seen in a frame: its address mixed with fields
// that tell a new object at a reused address apart. Never 0.
uint64_t PythonCodeKey(const void* code) noexcept;

// Writes the trace::PyCodeRecord of `code` (fixed part, file name, qualified name, line table,
// zero padding) into `out`, at most `capacity` bytes. Returns its size, or 0 when the code object
// cannot be described (its fields do not read as a code object's).
size_t DescribePythonCode(const void* code, uint64_t key, uint8_t* out, size_t capacity) noexcept;

}  // namespace flopspy::interpose
