// A program that looks like an interpreter python_frames.cpp cannot read (docs/call-sites.md,
// "Reading Python frames"): it exports Py_IsInitialized and Py_GetVersion (built with
// ENABLE_EXPORTS), no libpython anywhere. Built without FAKE_PYTHON it exports nothing: not a
// Python process. Checks that nothing crashes, the state and description say so, and the stderr
// line comes once. Usage: fake_interpreter MODE; exit 0 when every check held.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "log.h"
#include "python_frames.h"

namespace fi = flopspy::interpose;

#ifdef FAKE_PYTHON
namespace {
int g_initialized = 0;
int g_version_calls = 0;
const char* g_version = "3.9.18 (main, Jan 1 2024, 00:00:00) [GCC 12.2.0]";
void* g_tstate = nullptr;
// Storage laid out as 3.12's thread state, _PyCFrame and _PyInterpreterFrame.
alignas(16) unsigned char g_thread[256];
alignas(16) unsigned char g_cframe[64];
alignas(16) unsigned char g_frame[128];
alignas(16) unsigned char g_not_code[64];
}  // namespace

extern "C" {
__attribute__((visibility("default"))) alignas(16) unsigned char PyCode_Type[512];
__attribute__((visibility("default"))) int Py_IsInitialized() {
  return g_initialized;
}
__attribute__((visibility("default"))) const char* Py_GetVersion() {
  ++g_version_calls;
  return g_version;
}
__attribute__((visibility("default"))) void* PyGILState_GetThisThreadState() {
  return g_tstate;
}
}
#endif

namespace {

int g_failures = 0;

void Check(bool ok, const char* what) {
  if (!ok) {
    std::printf("FAILED: %s\n", what);
    ++g_failures;
  }
}

std::string ReadAll(int fd) {
  std::string text;
  char buf[4096];
  lseek(fd, 0, SEEK_SET);
  for (ssize_t n; (n = read(fd, buf, sizeof(buf))) > 0;) text.append(buf, static_cast<size_t>(n));
  return text;
}

[[maybe_unused]] size_t Count(const std::string& text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

int CaptureSeveralTimes() {
  fi::PythonFrame frames[16];
  bool truncated = true;
  int total = 0;
  for (int i = 0; i < 3; ++i) total += fi::CapturePythonFrames(frames, 16, &truncated);
  Check(!truncated, "truncated is false");
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  // stderr into a file, so the test can count flopspy's lines.
  char path[] = "/tmp/flopspy_fake_python_XXXXXX";
  const int log = mkstemp(path);
  if (log < 0) return 2;
  unlink(path);
  const int saved_stderr = dup(2);
  dup2(log, 2);
  fi::CaptureStderr();

#ifdef FAKE_PYTHON
  if (mode == "3.9") {
    // Not initialised yet: nothing of Python but Py_IsInitialized is called.
    Check(fi::PythonFramesStatus() == fi::PythonFramesState::kNotYet, "kNotYet before init");
    Check(CaptureSeveralTimes() == 0, "no frames before init");
    Check(g_version_calls == 0, "Py_GetVersion not called before Py_IsInitialized");
    Check(fi::PythonFramesDescription().empty(), "no description before init");
    g_initialized = 1;
  } else if (mode == "3.99") {
    g_version = "3.99.0a1 (main) [GCC]";
    g_initialized = 1;
  } else if (mode == "pypy") {
    g_version = "3.10.14 (75b3de9d9a1f, Apr 2024)\n[PyPy 7.3.16 with GCC 10.2.1]";
    g_initialized = 1;
  } else if (mode == "bad-frames" || mode == "unmapped") {
    // A 3.12 the table would read, whose frame does not hold a code object, or whose thread
    // state is not mapped at all: the check on the first capture must refuse both.
    g_version = "3.12.1 (main) [GCC]";
    g_initialized = 1;
    void* cframe = g_cframe;
    void* frame = g_frame;
    void* not_code = g_not_code;
    void* not_type = g_not_code + 32;
    std::memcpy(g_thread + 56, &cframe, sizeof(cframe));       // tstate->cframe
    std::memcpy(g_cframe, &frame, sizeof(frame));              // cframe->current_frame
    std::memcpy(g_frame, &not_code, sizeof(not_code));         // frame->f_code
    std::memcpy(g_not_code + 8, &not_type, sizeof(not_type));  // ob_type: not PyCode_Type
    g_tstate = g_thread;
    if (mode == "unmapped") {
      void* page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      munmap(page, 4096);
      g_tstate = page;
    }
  } else {
    std::printf("unknown mode %s\n", mode.c_str());
    return 2;
  }
  Check(CaptureSeveralTimes() == 0, "no frames");
  Check(fi::PythonFramesStatus() == fi::PythonFramesState::kUnsupported, "kUnsupported");
  Check(CaptureSeveralTimes() == 0, "still no frames");
  const std::string description(fi::PythonFramesDescription());
  Check(description.find("no Python call sites") != std::string::npos,
        "the description says no Python call sites");
  const char* expected = mode == "3.9"    ? "CPython 3.9.18: version not supported"
                         : mode == "3.99" ? "CPython 3.99.0a1: version not supported"
                         : mode == "pypy" ? "PyPy 3.10.14: not CPython"
                                          : "CPython 3.12.1: frames do not read as expected";
  Check(description.rfind(expected, 0) == 0, "the description names version and reason");
  const std::string err = ReadAll(log);
  Check(Count(err, "flopspy: ") == 1, "one line on stderr");
  Check(Count(err, "flopspy: " + description + "\n") == 1, "the line is the description");
#else
  (void)mode;
  Check(fi::PythonFramesStatus() == fi::PythonFramesState::kNoPython, "kNoPython");
  Check(CaptureSeveralTimes() == 0, "no frames");
  Check(fi::PythonFramesDescription().empty(), "no description");
  Check(ReadAll(log).empty(), "nothing on stderr");
#endif
  dup2(saved_stderr, 2);
  if (g_failures != 0) std::fprintf(stderr, "stderr was:\n%s", ReadAll(log).c_str());
  std::printf("%s: %s\n", mode.c_str(), g_failures == 0 ? "ok" : "FAILED");
  return g_failures == 0 ? 0 : 1;
}
