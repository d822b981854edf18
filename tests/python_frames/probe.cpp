// A library the Python test (frames_test.py) loads with ctypes: it captures the calling thread's
// Python frames as a launch hook would, with the GIL released around the call, and describes
// each code object as the trace would record it, as JSON for the script to compare with the
// real code objects.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "flopspy/trace/schema.h"
#include "log.h"
#include "python_frames.h"

namespace {

namespace fi = flopspy::interpose;
namespace ft = flopspy::trace;

const char* StatusName(fi::PythonFramesState s) {
  switch (s) {
    case fi::PythonFramesState::kNotYet:
      return "not_yet";
    case fi::PythonFramesState::kNoPython:
      return "no_python";
    case fi::PythonFramesState::kReadable:
      return "readable";
    case fi::PythonFramesState::kUnsupported:
      return "unsupported";
  }
  return "?";
}

std::string Hex(const uint8_t* p, size_t n) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += kDigits[p[i] >> 4];
    s += kDigits[p[i] & 15];
  }
  return s;
}

nlohmann::json Describe(const fi::PythonFrame& f) {
  nlohmann::json j;
  const uint64_t key = fi::PythonCodeKey(f.code);
  char key_text[24];
  std::snprintf(key_text, sizeof(key_text), "%016llx", static_cast<unsigned long long>(key));
  j["key"] = key_text;
  j["offset"] = f.instr_offset;
  std::vector<uint8_t> record(64 * 1024, 0xAB);
  const size_t size = fi::DescribePythonCode(f.code, key, record.data(), record.size());
  j["record_size"] = size;
  if (size == 0) return j;
  ft::PyCodeRecord rec;
  std::memcpy(&rec, record.data(), sizeof(rec));
  const auto* text = reinterpret_cast<const char*>(record.data() + sizeof(rec));
  j["type_ok"] = rec.h.type == static_cast<uint8_t>(ft::RecordType::kPyCode);
  j["size_ok"] = rec.h.size() == size && size % 8 == 0;
  j["key_ok"] = rec.code_key == key;
  j["file"] = std::string(text, rec.filename_length);
  j["name"] = std::string(text + rec.filename_length, rec.name_length);
  j["first_line"] = rec.first_line;
  j["version"] = rec.python_version;
  j["format"] = rec.linetable_format;
  j["flags"] = rec.flags;
  const size_t used = sizeof(rec) + rec.filename_length + rec.name_length;
  j["linetable"] = Hex(record.data() + used, rec.linetable_length);
  bool zero_padded = true;
  for (size_t i = used + rec.linetable_length; i < size; ++i) zero_padded &= record[i] == 0;
  j["zero_padded"] = zero_padded;
  return j;
}

nlohmann::json CaptureHere(int max) {
  nlohmann::json j;
  std::vector<fi::PythonFrame> frames(static_cast<size_t>(max));
  bool truncated = false;
  const int n = fi::CapturePythonFrames(frames.data(), max, &truncated);
  j["status"] = StatusName(fi::PythonFramesStatus());
  j["description"] = std::string(fi::PythonFramesDescription());
  j["truncated"] = truncated;
  j["frames"] = nlohmann::json::array();
  for (int i = 0; i < n; ++i) j["frames"].push_back(Describe(frames[static_cast<size_t>(i)]));
  return j;
}

int Write(const nlohmann::json& j, char* out, size_t capacity) {
  const std::string text = j.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
  if (text.size() + 1 > capacity) return -1;
  std::memcpy(out, text.c_str(), text.size() + 1);
  return static_cast<int>(text.size());
}

// As the recorder does at start: flopspy's stderr lines go to the stderr of this moment.
__attribute__((constructor)) void CaptureStderrAtLoad() {
  fi::CaptureStderr();
}

}  // namespace

// The calling thread's frames (at most `max`), as JSON in `out`; its length, -1 if too long.
extern "C" __attribute__((visibility("default"))) int flopspy_probe_capture(char* out,
                                                                            size_t capacity,
                                                                            int max) {
  return Write(CaptureHere(max), out, capacity);
}

// Mean nanoseconds of one CapturePythonFrames(max) on this thread over `iterations`; the depth
// it found in *frames. Printed by the test, never asserted (speed goals live in tests/bench/).
extern "C" __attribute__((visibility("default"))) double flopspy_probe_capture_ns(int iterations,
                                                                                  int max,
                                                                                  int* frames) {
  std::vector<fi::PythonFrame> out(static_cast<size_t>(max));
  bool truncated = false;
  *frames = fi::CapturePythonFrames(out.data(), max, &truncated);
  // CPU time of this thread: the machine running the tests is often busy with other work.
  timespec start{}, end{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
  for (int i = 0; i < iterations; ++i) fi::CapturePythonFrames(out.data(), max, &truncated);
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end);
  const double took = static_cast<double>(end.tv_sec - start.tv_sec) * 1e9 +
                      static_cast<double>(end.tv_nsec - start.tv_nsec);
  return took / iterations;
}

// The same from a new thread that never ran Python.
extern "C" __attribute__((visibility("default"))) int flopspy_probe_capture_in_c_thread(
    char* out, size_t capacity, int max) {
  nlohmann::json j;
  std::thread t([&] { j = CaptureHere(max); });
  t.join();
  return Write(j, out, capacity);
}
