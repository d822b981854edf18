#include "stack_capture.h"

#include <pthread.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <new>
#include <string>

#include "clock.h"
#include "module_map.h"
#include "native_frames.h"
#include "python_frames.h"
#include "recorder.h"
#include "stack_id.h"

namespace flopspy::interpose {

std::atomic<uint8_t> g_stacks_state{kStacksUnset};

namespace {

using trace::kMaxStackFrames;

// What the configuration asked for, read once by the first launch.
std::atomic<uint8_t> g_policy{static_cast<uint8_t>(StackPolicy::kOff)};
bool g_policy_explicit = false;
uint32_t g_sample_every = 32;
// Python was asked for but cannot be read here: native instead (the policy was not explicit).
std::atomic<bool> g_python_gone{false};
std::atomic<bool> g_python_described{false};
// Bumped in a fork child: every thread state made before describes the parent's trace.
std::atomic<uint32_t> g_generation{0};
uint64_t g_own_start = 0, g_own_end = 0;  // flopspy's own code: frames left out
pthread_key_t g_exit_key;

// A set of 64-bit keys (never 0) by open addressing; Insert fails once its probe finds no room.
template <int kSlots>
struct KeySet {
  static_assert((kSlots & (kSlots - 1)) == 0);
  static constexpr int kProbes = 32;
  uint64_t slot[kSlots];

  bool Contains(uint64_t key) const {
    for (int i = 0; i < kProbes; ++i) {
      const uint64_t k = slot[(key + static_cast<uint64_t>(i)) & (kSlots - 1)];
      if (k == key) return true;
      if (k == 0) return false;
    }
    return false;
  }
  bool Insert(uint64_t key) {
    for (int i = 0; i < kProbes; ++i) {
      uint64_t& k = slot[(key + static_cast<uint64_t>(i)) & (kSlots - 1)];
      if (k == key) return true;
      if (k == 0) {
        k = key;
        return true;
      }
    }
    return false;
  }
};

// A kernel signature seen on this thread: launches left until its next sample.
struct Signature {
  uint64_t key;  // 0: empty
  uint64_t until_sample;
};

constexpr int kSignatureSlots = 1024;
constexpr int kSignatureProbes = 16;
constexpr int kQuickModules = 64;
constexpr int kModuleBits = 4096;
constexpr size_t kCodeScratch = sizeof(trace::PyCodeRecord) + 2 * trace::kMaxPyText +
                                trace::kMaxPyLinetable + trace::kRecordAlign;
constexpr size_t kStackScratch =
    sizeof(trace::StackRecord) + kMaxStackFrames * sizeof(trace::PyFrame);

struct ModuleRange {
  uint64_t start, end;
};

// One thread's capture state, mapped on its first sampled launch (zero-filled by mmap).
struct ThreadStacks {
  uint32_t generation;
  uint64_t fallback_until;  // the signature table is full: one in N launches of the thread
  uint64_t random;          // xorshift state for the sampling intervals, never 0
  Signature signatures[kSignatureSlots];
  KeySet<8192> stacks;  // stack ids this thread has written
  KeySet<8192> codes;   // code keys this thread has written
  uint64_t modules_written[kModuleBits / 64];
  ModuleRange quick[kQuickModules];  // ranges of written modules, checked without a lock
  int quick_count;
  PythonFrame python[kMaxStackFrames];
  alignas(8) uint8_t stack_record[kStackScratch];
  alignas(8) uint8_t code_record[kCodeScratch];
  alignas(8) uint8_t module_record[sizeof(trace::ModuleRecord) + 4096 + 64 + 8];
  NativeFrameWalker walker;
};

thread_local ThreadStacks* tls_stacks __attribute__((tls_model("initial-exec"))) = nullptr;

void ForgetThread(void* state) {
  tls_stacks = nullptr;
  munmap(state, sizeof(ThreadStacks));
}

void StartThread(ThreadStacks& s) {
  uint64_t low = 0, high = 0;
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* base = nullptr;
    size_t size = 0;
    if (pthread_attr_getstack(&attr, &base, &size) == 0) {
      low = reinterpret_cast<uint64_t>(base);
      high = low + size;
    }
    pthread_attr_destroy(&attr);
  }
  s.walker.Init(g_own_start, g_own_end, low, high);
  s.generation = g_generation.load(std::memory_order_relaxed);
  s.random = MixWord(reinterpret_cast<uint64_t>(&s), NowNs()) | 1;
}

// The launches until the next sample: drawn from N - N/2 to N + N/2, one in N on average. A
// fixed interval would alias with a loop that alternates call sites of one signature (two
// projections of one shape, N even: every sample on the same line, which would get all the
// time); never less than N/2 keeps a signature's first few launches after a sample unsampled.
uint64_t NextInterval(ThreadStacks& s) {
  const uint64_t n = g_sample_every;
  if (n <= 1) return 1;
  s.random ^= s.random << 13;
  s.random ^= s.random >> 7;
  s.random ^= s.random << 17;
  const uint64_t low = n - n / 2;
  return low + s.random % (n + n / 2 - low + 1);
}

ThreadStacks* ThisThread() {
  ThreadStacks* s = tls_stacks;
  if (__builtin_expect(s != nullptr, 1)) return s;
  void* memory = mmap(nullptr, sizeof(ThreadStacks), PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return nullptr;
  s = static_cast<ThreadStacks*>(memory);
  StartThread(*s);
  tls_stacks = s;
  pthread_setspecific(g_exit_key, s);
  return s;
}

void AfterForkInChild() {
  ResetModuleMapInChild();
  g_generation.fetch_add(1, std::memory_order_relaxed);
}

// The first launch of the process: the configuration, once.
void ReadPolicy() {
  // A mutex, not std::call_once: libstdc++'s call_once keeps its callable in thread-locals of
  // the general-dynamic model, which would make libflopspy.so need ld.so's __tls_get_addr.
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  if (g_stacks_state.load(std::memory_order_relaxed) != kStacksUnset) return;
  const Recorder* recorder = Recorder::Get();
  if (recorder == nullptr) return;
  const Config& c = recorder->config();
  g_policy_explicit = c.stacks_explicit;
  g_sample_every = c.stack_sample;
  g_policy.store(static_cast<uint8_t>(c.stacks), std::memory_order_relaxed);
  if (c.stacks == StackPolicy::kOff) {
    g_stacks_state.store(kStacksOff, std::memory_order_relaxed);
    return;
  }
  const AddressRange own = ObjectRangeOf(reinterpret_cast<const void*>(&NoteLaunchStacksSlow));
  g_own_start = own.start, g_own_end = own.end;
  pthread_key_create(&g_exit_key, ForgetThread);
  pthread_atfork(nullptr, nullptr, AfterForkInChild);
  g_stacks_state.store(kStacksOn, std::memory_order_release);
}

// Every launch hashes its signature: six independent multiplies and one final mix, not a chain
// of six mixes (about 12 ns less per launch, docs/performance.md).
uint64_t SignatureKey(const FunctionInfo* function, const LaunchShape& s) {
  const uint64_t h = (reinterpret_cast<uint64_t>(function) * 0x9E3779B97F4A7C15ull) ^
                     ((uint64_t{s.grid[0]} << 32 | s.grid[1]) * 0xBF58476D1CE4E5B9ull) ^
                     ((uint64_t{s.grid[2]} << 32 | s.block[0]) * 0x94D049BB133111EBull) ^
                     ((uint64_t{s.block[1]} << 32 | s.block[2]) * 0xD6E8FEB86659FD93ull) ^
                     ((uint64_t{s.cluster[0]} << 32 | s.cluster[1]) * 0xC2B2AE3D27D4EB4Full) ^
                     ((uint64_t{s.cluster[2]} << 32 | s.dynamic_smem) * 0x165667B19E3779F9ull);
  const uint64_t key = FinishHash(h);
  return key != 0 ? key : 1;
}

// 0: no stacks for this launch; else the reason.
trace::StackSampleReason Decide(ThreadStacks& s, uint64_t key) {
  for (int i = 0; i < kSignatureProbes; ++i) {
    Signature& sig = s.signatures[(key + static_cast<uint64_t>(i)) & (kSignatureSlots - 1)];
    if (sig.key == key) {
      if (--sig.until_sample != 0) return trace::StackSampleReason{};
      sig.until_sample = NextInterval(s);
      return trace::StackSampleReason::kSampled;
    }
    if (sig.key == 0) {
      sig.key = key;
      sig.until_sample = NextInterval(s);
      return trace::StackSampleReason::kNewSignature;
    }
  }
  // No room: one in N of the thread's launches of signatures the table could not hold.
  if (s.fallback_until > 1) {
    --s.fallback_until;
    return trace::StackSampleReason{};
  }
  s.fallback_until = NextInterval(s);
  return trace::StackSampleReason::kSampled;
}

// The python stack of this launch (its code objects and frames written if new), or 0.
uint64_t TakePython(ThreadStacks& s) {
  bool truncated = false;
  const int depth = CapturePythonFrames(s.python, kMaxStackFrames, &truncated);
  if (depth <= 0) return 0;
  static_assert(sizeof(PythonFrame) == 16);
  uint64_t words[2 * kMaxStackFrames];
  for (int i = 0; i < depth; ++i) {
    words[2 * i] = reinterpret_cast<uint64_t>(s.python[i].code);
    words[2 * i + 1] = s.python[i].instr_offset;
  }
  const uint64_t id = StackIdOf(trace::StackKind::kPython, words, static_cast<size_t>(2 * depth));
  if (s.stacks.Contains(id)) return id;
  auto* frames = reinterpret_cast<trace::PyFrame*>(s.stack_record + sizeof(trace::StackRecord));
  for (int i = 0; i < depth; ++i) {
    const uint64_t key = PythonCodeKey(s.python[i].code);
    if (!s.codes.Contains(key)) {
      const size_t size =
          DescribePythonCode(s.python[i].code, key, s.code_record, sizeof(s.code_record));
      if (size > 0 && EmitBytes(s.code_record, size)) s.codes.Insert(key);
    }
    frames[i] = trace::PyFrame{key, s.python[i].instr_offset, 0};
  }
  trace::StackRecord record{};
  const size_t size = sizeof(record) + static_cast<size_t>(depth) * sizeof(trace::PyFrame);
  record.h = trace::MakeHeader<trace::StackRecord>(truncated ? trace::kStackTruncated : 0);
  record.h.size8 = static_cast<uint16_t>(size / trace::kRecordAlign);
  record.kind = static_cast<uint8_t>(trace::StackKind::kPython);
  record.depth = static_cast<uint16_t>(depth);
  record.stack_id = id;
  std::memcpy(s.stack_record, &record, sizeof(record));
  if (EmitBytes(s.stack_record, size)) s.stacks.Insert(id);
  return id;
}

// Writes the ModuleRecord of every module of `frames` this thread has not written yet.
void WriteModules(ThreadStacks& s, const uint64_t* frames, int depth) {
  for (int i = 0; i < depth; ++i) {
    const uint64_t address = frames[i];
    bool quick = false;
    for (int q = 0; q < s.quick_count && !quick; ++q) {
      quick = address >= s.quick[q].start && address < s.quick[q].end;
    }
    if (quick) continue;
    const int index = ModuleIndexOf(address);
    if (index == kNoModule) continue;
    const bool counted = index < kModuleBits;
    const uint64_t bit = counted ? uint64_t{1} << (index % 64) : 0;
    if (counted && (s.modules_written[index / 64] & bit) != 0) continue;
    const size_t size = DescribeModule(index, s.module_record, sizeof(s.module_record));
    if (size == 0 || !EmitBytes(s.module_record, size)) continue;
    if (!counted) continue;
    s.modules_written[index / 64] |= bit;
    if (s.quick_count < kQuickModules) {
      trace::ModuleRecord m;
      std::memcpy(&m, s.module_record, sizeof(m));
      s.quick[s.quick_count++] = {m.start, m.end};
    }
  }
}

uint64_t TakeNative(ThreadStacks& s) {
  const NativeStack stack = s.walker.Capture();
  if (stack.depth <= 0) return 0;
  if (s.stacks.Contains(stack.id)) return stack.id;
  WriteModules(s, stack.frames, stack.depth);
  trace::StackRecord record{};
  const size_t size = sizeof(record) + static_cast<size_t>(stack.depth) * sizeof(uint64_t);
  record.h = trace::MakeHeader<trace::StackRecord>(stack.truncated ? trace::kStackTruncated : 0);
  record.h.size8 = static_cast<uint16_t>(size / trace::kRecordAlign);
  record.kind = static_cast<uint8_t>(trace::StackKind::kNative);
  record.depth = static_cast<uint16_t>(stack.depth);
  record.stack_id = stack.id;
  std::memcpy(s.stack_record, &record, sizeof(record));
  std::memcpy(s.stack_record + sizeof(record), stack.frames,
              static_cast<size_t>(stack.depth) * sizeof(uint64_t));
  if (EmitBytes(s.stack_record, size)) s.stacks.Insert(stack.id);
  return stack.id;
}

// The Python layout is decided: say which in the trace's metadata, once.
void DescribePythonOnce() {
  if (g_python_described.load(std::memory_order_relaxed) || g_python_described.exchange(true)) {
    return;
  }
  try {
    Recorder* recorder = Recorder::Get();
    const std::string_view description = PythonFramesDescription();
    if (recorder == nullptr || description.empty()) return;
    std::string json = R"({"call_sites":{"python":")";
    for (const char c : description) {
      if (c == '"' || c == '\\') json += '\\';
      if (static_cast<unsigned char>(c) >= 0x20) json += c;
    }
    json += "\"}}";
    recorder->AddMetadata(std::move(json));
  } catch (...) {
  }
}

// The program may read errno after its launch: a sampled launch's system calls (a thread's first
// mmap, pthread_getattr_np's read of /proc/self/maps) must not change it.
class KeepErrno {
 public:
  KeepErrno() : saved_(errno) {}
  ~KeepErrno() { errno = saved_; }
  KeepErrno(const KeepErrno&) = delete;
  KeepErrno& operator=(const KeepErrno&) = delete;

 private:
  int saved_;
};

}  // namespace

void NoteLaunchStacksSlow(const FunctionInfo* function, const LaunchShape& shape,
                          uint64_t correlation) noexcept {
  const KeepErrno keep_errno;
  if (g_stacks_state.load(std::memory_order_acquire) == kStacksUnset) {
    ReadPolicy();
    if (g_stacks_state.load(std::memory_order_acquire) != kStacksOn) return;
  }
  if (!g_recording.load(std::memory_order_relaxed)) return;
  ThreadStacks* s = ThisThread();
  if (s == nullptr) return;
  const trace::StackSampleReason reason = Decide(*s, SignatureKey(function, shape));
  if (reason == trace::StackSampleReason{}) return;

  if (s->generation != g_generation.load(std::memory_order_relaxed)) {
    // A fork child: what this thread wrote went to the parent's trace.
    std::memset(&s->stacks, 0, sizeof(s->stacks));
    std::memset(&s->codes, 0, sizeof(s->codes));
    std::memset(s->modules_written, 0, sizeof(s->modules_written));
    s->quick_count = 0;
    s->generation = g_generation.load(std::memory_order_relaxed);
  }

  const auto policy = static_cast<StackPolicy>(g_policy.load(std::memory_order_relaxed));
  bool python = policy == StackPolicy::kPython || policy == StackPolicy::kBoth;
  bool native = policy == StackPolicy::kNative || policy == StackPolicy::kBoth;
  if (python && !g_python_gone.load(std::memory_order_relaxed)) {
    switch (PythonFramesStatus()) {
      case PythonFramesState::kReadable:
        DescribePythonOnce();
        break;
      case PythonFramesState::kNotYet:
        if (!native) return;  // asked again at the next sample
        python = false;
        break;
      case PythonFramesState::kNoPython:
      case PythonFramesState::kUnsupported:
        DescribePythonOnce();
        g_python_gone.store(true, std::memory_order_relaxed);
        break;
    }
  }
  if (python && g_python_gone.load(std::memory_order_relaxed)) {
    python = false;
    if (policy == StackPolicy::kPython) {
      if (g_policy_explicit) {
        // Python asked for, none to read: nothing will ever be taken.
        g_stacks_state.store(kStacksOff, std::memory_order_relaxed);
        return;
      }
      native = true;
      g_policy.store(static_cast<uint8_t>(StackPolicy::kNative), std::memory_order_relaxed);
    }
  }

  trace::StackSampleRecord sample{};
  sample.h = trace::MakeHeader<trace::StackSampleRecord>();
  sample.reason = static_cast<uint8_t>(reason);
  sample.correlation = correlation;
  sample.sample_every = g_sample_every;
  if (python) sample.python_stack = TakePython(*s);
  if (native) sample.native_stack = TakeNative(*s);
  Emit(sample);
}

}  // namespace flopspy::interpose
