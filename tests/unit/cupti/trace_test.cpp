// The session inside a real recorder, in a child process each (the recorder is a process
// singleton): what reaches the trace file and stderr. Also the real libcupti without a driver.
//
// The children are this test program started again with FLOPSPY_CUPTI_TEST_SCENARIO set; a
// static initializer runs the scenario and exits before GoogleTest starts.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "clock.h"
#include "cupti_session.h"
#include "flopspy/trace/reader.h"
#include "function_table.h"
#include "log.h"
#include "mock_cupti.h"
#include "raw_events.h"
#include "recorder.h"
#include "subprocess.h"
#include "trace_file.h"

namespace flopspy::testing {
namespace {

using interpose::CuptiSession;
using interpose::CuptiState;
using ::testing::HasSubstr;

constexpr char kScenario[] = "FLOPSPY_CUPTI_TEST_SCENARIO";
constexpr uint64_t kLaunchCorrelation = 1234;
constexpr char kKernelName[] = "_Z6kernelPf";

// The production environment with the real libcupti, except for a driver that "works" (the
// only way to reach CUPTI's own answers on a machine without one).
interpose::CuptiEnvironment RealCuptiWithFakeDriver() {
  auto env = interpose::CuptiEnvironment::Production();
  env.loaded_driver = []() -> void* { return reinterpret_cast<void*>(0x1); };
  env.resolve = [](void* cupti, void*, interpose::CuptiApi* api) {
    interpose::ResolveCuptiApi(cupti, nullptr, api);
    api->cuInit = [](unsigned int) { return CUDA_SUCCESS; };
    api->cuDeviceGetCount = [](int* n) {
      *n = 1;
      return CUDA_SUCCESS;
    };
  };
  return env;
}

int FinishTrace() {
  interpose::Recorder::Get()->Finish(trace::EndReason::kExit, 0,
                                     {.stall_ms = 5000, .total_ms = 5000},
                                     /*from_signal=*/false);
  return 0;
}

// The process session, as the hooks start it, with the real libcupti and no driver.
int NoDriverScenario() {
  interpose::Recorder::Start();
  if (interpose::Recorder::Get() == nullptr) return 10;
  for (int i = 0; i < 20; ++i) CuptiSession::EnsureStarted();
  CuptiSession* session = CuptiSession::Process();
  if (session == nullptr || session->state() != CuptiState::kUnavailable) return 11;
  return FinishTrace();
}

// The real libcupti answering: with no driver behind it, cuptiSubscribe_v2 fails.
int RealCuptiScenario() {
  interpose::Recorder::Start();
  if (interpose::Recorder::Get() == nullptr) return 10;
  interpose::CuptiSessionOptions options;
  options.cupti_path = FLOPSPY_REAL_CUPTI;
  auto* session = new CuptiSession(options, RealCuptiWithFakeDriver());  // outlives the flusher
  if (session->Start(CuptiSession::Trigger::kFirstCudaCall) != CuptiState::kUnavailable) {
    return 11;
  }
  return FinishTrace();
}

// A kernel function the launch hooks would have named.
uint32_t DefineFunction(uint64_t handle, const char* mangled_name) {
  auto* info = new interpose::FunctionInfo;
  info->handle = handle;
  info->mangled_name = mangled_name;
  return interpose::Functions().Insert(info)->id;
}

// A launch record as a hook writes it: 128 blocks of 256 threads (the mock kernel's shape).
bool EmitLaunch(uint64_t correlation, uint32_t function, uint64_t enter_ns, uint64_t stream = 0,
                uint8_t flags = 0, int32_t result = 0) {
  interpose::RawLaunch raw{};
  raw.h.flags = flags;
  raw.api = static_cast<uint16_t>(trace::Api::kCuLaunchKernel);
  raw.enter_ns = enter_ns;
  raw.duration_ns = 1000;
  raw.result = result;
  raw.correlation = correlation;
  raw.function = function;
  raw.stream = stream;
  raw.grid[0] = 128;
  raw.grid[1] = raw.grid[2] = 1;
  raw.block[0] = 256;
  raw.block[1] = raw.block[2] = 1;
  raw.param_bytes = 0;
  raw.Seal();
  return interpose::EmitBytes(&raw, raw.h.size());
}

// A session on the mock CUPTI that reports, says and attaches as the process's does, so that
// its records and metadata reach the real recorder's trace. Never destroyed: it outlives the
// flusher.
CuptiSession* StartMockSession(interpose::CuptiSessionOptions options) {
  ResetMock();
  static Said said;
  auto env = MockEnvironment(&said);
  const auto production = interpose::CuptiEnvironment::Production();
  env.report = production.report;
  env.metadata = production.metadata;
  env.attach = production.attach;
  auto* session = new CuptiSession(std::move(options), std::move(env));
  return session->Start(CuptiSession::Trigger::kFirstCudaCall) == CuptiState::kActive ? session
                                                                                      : nullptr;
}

// CUPTI handing one completed buffer of `records` to the session.
bool CompleteBuffer(ActivityBuffer& records) {
  uint8_t* buffer = nullptr;
  size_t size = 0;
  size_t max_records = 0;
  Mock().request(&buffer, &size, &max_records);
  if (buffer == nullptr) return false;
  std::memcpy(buffer, records.data(), records.size());
  Mock().complete(nullptr, 0, buffer, size, records.size());
  return true;
}

// A mock CUPTI feeding a real recorder: one launch on the CPU, its kernel on the GPU.
int MockScenario() {
  interpose::Recorder::Start();
  if (interpose::Recorder::Get() == nullptr) return 10;
  const uint32_t function = DefineFunction(0xabc0, kKernelName);
  if (!EmitLaunch(kLaunchCorrelation, function, interpose::NowNs())) return 12;

  interpose::CuptiSessionOptions options;
  options.buffer_bytes = 1 << 16;
  options.buffer_count = 4;
  if (StartMockSession(options) == nullptr) return 13;

  const uint64_t t = interpose::NowNs();
  ActivityBuffer records;
  records.Add(External(1, kLaunchCorrelation))
      .Add(ApiRecord(1))
      .Add(Kernel(1, t + 100, t + 900, kKernelName))
      .Add(Memset(2, t + 950, t + 990, 256, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE));
  if (!CompleteBuffer(records)) return 14;
  Mock().dropped = 3;
  FinishTrace();
  return Mock().flush_forced == 1 ? 0 : 15;
}

// FLOPSPY_GPU_JOIN=stream: launches on two streams, kernel records with no external
// correlation at all, the second stream's handed back first. A captured launch and a failed one
// owe no kernel. Launches push nothing to CUPTI; other recorded calls still do.
int StreamJoinScenario() {
  interpose::Recorder::Start();
  if (interpose::Recorder::Get() == nullptr) return 10;
  const uint32_t kernel = DefineFunction(0xabc0, kKernelName);
  const uint32_t other = DefineFunction(0xabd0, "_Z5otherv");
  const uint64_t t = interpose::NowNs();
  bool emitted = EmitLaunch(501, kernel, t + 1000, 0xA0) &&
                 EmitLaunch(502, other, t + 1100, 0xB0) && EmitLaunch(503, other, t + 1200, 0xA0) &&
                 EmitLaunch(504, kernel, t + 1300, 0xA0, trace::kLaunchCaptured) &&
                 EmitLaunch(505, kernel, t + 1400, 0xA0, 0, /*result=*/1) &&
                 EmitLaunch(506, kernel, t + 1500, 0xA0) &&
                 // The legacy default stream, spelled 0 and then CU_STREAM_LEGACY: one stream.
                 EmitLaunch(507, kernel, t + 1600, 0x0) && EmitLaunch(508, other, t + 1700, 0x1);
  if (!emitted) return 12;

  interpose::CuptiSessionOptions options;
  options.buffer_bytes = 1 << 16;
  options.buffer_count = 4;
  options.join = interpose::GpuJoin::kStream;
  if (StartMockSession(options) == nullptr) return 13;
  if (CuptiSession::PushLaunchCorrelationIfCollecting(601)) return 16;
  if (!CuptiSession::PushCorrelationIfCollecting(602)) return 17;  // a copy's, say
  CuptiSession::PopCorrelation();

  const auto on_stream = [](CUpti_ActivityKernel10 k, uint32_t stream) {
    k.streamId = stream;
    return k;
  };
  ActivityBuffer records;
  records.Add(on_stream(Kernel(31, t + 3000, t + 3100, "_Z5otherv"), 9))
      .Add(on_stream(Kernel(30, t + 2000, t + 2100, kKernelName), 7))
      .Add(on_stream(Kernel(32, t + 4000, t + 4100, "_Z5otherv"), 7))
      .Add(on_stream(Kernel(35, t + 7000, t + 7100, kKernelName), 7))
      .Add(on_stream(Kernel(37, t + 8000, t + 8100, kKernelName), 11))
      .Add(on_stream(Kernel(38, t + 9000, t + 9100, "_Z5otherv"), 11));
  if (!CompleteBuffer(records)) return 14;
  FinishTrace();
  return Mock().pushes.size() == 1 && Mock().pushes[0].second == 602 ? 0 : 15;
}

// What CUPTI says only at the final flush: the buffers it asked for and did not get (noticed by
// that pass), and a forced flush that fails. Both must reach the trace, before its end record.
int FinalWordsScenario() {
  interpose::Recorder::Start();
  if (interpose::Recorder::Get() == nullptr) return 10;
  // Something recorded, so that the process writes a trace.
  if (!EmitLaunch(kLaunchCorrelation, 0, interpose::NowNs())) return 12;
  interpose::CuptiSessionOptions options;
  options.buffer_bytes = 1 << 16;
  options.buffer_count = 2;
  if (StartMockSession(options) == nullptr) return 13;
  Mock().forced_flush_result = CUPTI_ERROR_UNKNOWN;
  for (int i = 0; i < 3; ++i) {  // the third request finds the pool empty
    uint8_t* buffer = nullptr;
    size_t size = 0;
    size_t max_records = 0;
    Mock().request(&buffer, &size, &max_records);
    if ((buffer == nullptr) != (i == 2)) return 14;
  }
  FinishTrace();
  return Mock().flush_forced == 1 ? 0 : 15;
}

// What the driver does with CUDA_INJECTION64_PATH: load libflopspy.so and call
// InitializeInjection. Without a driver in this process the session says so and the program
// goes on.
int InjectionScenario() {
  void* flopspy = dlopen(FLOPSPY_LIBRARY_PATH, RTLD_NOW | RTLD_LOCAL);
  if (flopspy == nullptr) return 10;
  using Initialize = int (*)();
  auto initialize = reinterpret_cast<Initialize>(dlsym(flopspy, "InitializeInjection"));
  if (initialize == nullptr) return 11;
  if (initialize() != 1) return 12;
  if (initialize() != 1) return 13;  // a second call changes nothing
  std::exit(0);                      // libflopspy.so's exit handler writes the trace
}

struct ChildMain {
  ChildMain() {
    const char* scenario = std::getenv(kScenario);
    if (scenario == nullptr) return;
    const std::string name = scenario;
    int status = 99;
    if (name == "no-driver") status = NoDriverScenario();
    if (name == "real-cupti") status = RealCuptiScenario();
    if (name == "mock") status = MockScenario();
    if (name == "stream-join") status = StreamJoinScenario();
    if (name == "final-words") status = FinalWordsScenario();
    if (name == "injection") status = InjectionScenario();
    _exit(status);
  }
} g_child_main;

std::string SelfPath() {
  char path[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  return n > 0 ? std::string(path, static_cast<size_t>(n)) : std::string();
}

struct TraceSeen {
  std::vector<trace::WarningRecord> warnings;
  std::vector<size_t> warning_positions;  // record index in the file
  std::vector<std::string> warning_texts;
  nlohmann::json metadata = nlohmann::json::object();  // later blocks add to earlier ones
  std::vector<trace::GpuActivityRecord> gpu;
  std::vector<trace::ChunkSource> gpu_sources;
  std::vector<trace::KernelLaunchRecord> launches;
  std::vector<trace::KernelSignatureDef> signatures;
  std::vector<trace::LostRecordsRecord> lost;
  std::optional<trace::TraceEndRecord> end;
  size_t end_position = 0;
  bool ok = false;
};

TraceSeen ReadTrace(const std::string& path) {
  TraceSeen seen;
  trace::TraceReader reader = trace::TraceReader::OpenFile(path);
  std::vector<uint32_t> message_ids;
  size_t position = 0;
  const trace::ReadSummary summary = reader.ForEachRecord([&](const trace::RecordView& r) {
    ++position;
    switch (r.type) {
      case trace::RecordType::kWarning:
        seen.warnings.push_back(r.As<trace::WarningRecord>());
        seen.warning_positions.push_back(position);
        break;
      case trace::RecordType::kMetadata: {
        const auto block = r.As<trace::MetadataBlock>();
        seen.metadata.update(
            nlohmann::json::parse(r.Text(sizeof(trace::MetadataBlock), block.length)));
        break;
      }
      case trace::RecordType::kGpuActivity:
        seen.gpu.push_back(r.As<trace::GpuActivityRecord>());
        seen.gpu_sources.push_back(r.source);
        break;
      case trace::RecordType::kKernelLaunch:
        seen.launches.push_back(r.As<trace::KernelLaunchRecord>());
        break;
      case trace::RecordType::kKernelSignature:
        seen.signatures.push_back(r.As<trace::KernelSignatureDef>());
        break;
      case trace::RecordType::kLostRecords:
        seen.lost.push_back(r.As<trace::LostRecordsRecord>());
        break;
      case trace::RecordType::kTraceEnd:
        seen.end = r.As<trace::TraceEndRecord>();
        seen.end_position = position;
        break;
      default:
        break;
    }
  });
  for (const auto& w : seen.warnings) seen.warning_texts.emplace_back(reader.String(w.message));
  seen.ok = summary.status == trace::ReadStatus::kOk && summary.ended_cleanly;
  return seen;
}

int CountLines(const std::string& text, const std::string& needle) {
  int n = 0;
  size_t at = 0;
  while ((at = text.find(needle, at)) != std::string::npos) {
    ++n;
    at += needle.size();
  }
  return n;
}

class InRecorder : public ::testing::Test {
 protected:
  ChildResult Run(const std::string& scenario) {
    ChildOptions options;
    options.env = {{kScenario, scenario},
                   {"FLOPSPY_OUT", dir_.path()},
                   {"FLOPSPY_CUPTI_PATH", FLOPSPY_REAL_CUPTI},
                   {"FLOPSPY_SIGNALS", "0"},
                   // No periodic pass while a scenario plays CUPTI: only the final one.
                   {"FLOPSPY_FLUSH_MS", "10000"}};
    options.unset = {"FLOPSPY_GPU_TIMING", "FLOPSPY_ENABLE", "CUDA_INJECTION64_PATH"};
    return RunChild({SelfPath()}, options);
  }
  std::string TracePath() {
    const auto files = dir_.Files(std::string(interpose::kTraceExtension));
    return files.size() == 1 ? files[0] : std::string();
  }
  // One stderr line and the reason in the trace, twice over: a warning and the metadata.
  void ExpectCleanUnavailable(const ChildResult& child, const std::string& reason) {
    EXPECT_EQ(CountLines(child.err, "flopspy: no GPU times: "), 1) << child.err;
    EXPECT_THAT(child.err, HasSubstr(reason));
    const std::string path = TracePath();
    ASSERT_FALSE(path.empty()) << child.err;
    const TraceSeen seen = ReadTrace(path);
    EXPECT_TRUE(seen.ok);
    // The CPU sampler may add its own (no counters on test machines): look at CUPTI's alone.
    std::vector<std::string> cupti;
    for (size_t i = 0; i < seen.warnings.size(); ++i) {
      if (seen.warnings[i].code == static_cast<uint16_t>(trace::WarningCode::kCuptiUnavailable)) {
        cupti.push_back(seen.warning_texts[i]);
      }
    }
    ASSERT_EQ(cupti.size(), 1u);
    EXPECT_THAT(cupti[0], HasSubstr(reason));
    ASSERT_TRUE(seen.metadata.contains("gpu_timing")) << seen.metadata.dump();
    EXPECT_EQ(seen.metadata["gpu_timing"]["available"], false);
    EXPECT_THAT(seen.metadata["gpu_timing"]["reason"].get<std::string>(), HasSubstr(reason));
    EXPECT_TRUE(seen.gpu.empty());
  }

  TempDir dir_;
};

TEST_F(InRecorder, NoDriverFailsCleanlyWithOneLineAndTheReasonInTheTrace) {
  if (dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD) != nullptr) GTEST_SKIP();
  const ChildResult child = Run("no-driver");
  ASSERT_TRUE(child.exited) << child.err;
  ASSERT_EQ(child.exit_code, 0) << child.err;
  ExpectCleanUnavailable(child, "no CUDA driver is loaded (libcuda.so.1)");
}

TEST_F(InRecorder, RealLibcuptiWithoutADriverFailsCleanly) {
  if (std::string(FLOPSPY_REAL_CUPTI).empty()) GTEST_SKIP() << "no libcupti in the toolkit";
  if (access("/dev/nvidiactl", F_OK) == 0) GTEST_SKIP() << "a driver exists on this machine";
  const ChildResult child = Run("real-cupti");
  // Reaching the end at all means no crash: cuptiDeviceGetChipName, which segfaults without a
  // driver (docs/cuda-notes.md, "CUPTI without a driver"), is not even in the session's function
  // table.
  ASSERT_TRUE(child.exited) << child.err;
  ASSERT_EQ(child.exit_code, 0) << child.err;
  ExpectCleanUnavailable(child, "cuptiSubscribe_v2 failed: CUPTI_ERROR_UNKNOWN (999)");
  const TraceSeen seen = ReadTrace(TracePath());
  EXPECT_EQ(seen.metadata["gpu_timing"]["cupti_version"].get<uint32_t>() / 10000, 13u);
}

TEST_F(InRecorder, InitializeInjectionIsExportedAndNeverFailsTheDriver) {
  if (dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD) != nullptr) GTEST_SKIP();
  const ChildResult child = Run("injection");
  ASSERT_TRUE(child.exited) << child.err;
  ASSERT_EQ(child.exit_code, 0) << child.err;
  ExpectCleanUnavailable(child, "no CUDA driver is loaded (libcuda.so.1)");
}

TEST_F(InRecorder, GpuRecordsJoinTheirLaunchesInTheTrace) {
  const ChildResult child = Run("mock");
  ASSERT_TRUE(child.exited) << child.err;
  ASSERT_EQ(child.exit_code, 0) << child.err;
  EXPECT_EQ(child.err.find("no GPU times"), std::string::npos) << child.err;
  const TraceSeen seen = ReadTrace(TracePath());
  ASSERT_TRUE(seen.ok);
  ASSERT_EQ(seen.launches.size(), 1u);
  ASSERT_EQ(seen.gpu.size(), 2u);
  for (const auto source : seen.gpu_sources) EXPECT_EQ(source, trace::ChunkSource::kGpuActivity);
  const auto& kernel = seen.gpu[0];
  EXPECT_EQ(kernel.kind, static_cast<uint8_t>(trace::GpuActivityKind::kKernel));
  EXPECT_EQ(kernel.correlation, kLaunchCorrelation);
  EXPECT_EQ(kernel.correlation, seen.launches[0].correlation);
  // The GPU record names the same kernel signature as the launch.
  EXPECT_EQ(kernel.signature, seen.launches[0].signature);
  EXPECT_EQ(seen.signatures.size(), 1u);
  EXPECT_GT(kernel.start_ns, seen.launches[0].enter_ns);
  EXPECT_EQ(seen.gpu[1].kind, static_cast<uint8_t>(trace::GpuActivityKind::kMemset));
  EXPECT_EQ(seen.gpu[1].correlation, 0u);

  ASSERT_EQ(seen.lost.size(), 1u);
  EXPECT_EQ(seen.lost[0].source, static_cast<uint16_t>(trace::LossSource::kCuptiBuffer));
  EXPECT_EQ(seen.lost[0].count, 3u);
  ASSERT_TRUE(seen.end.has_value());
  EXPECT_EQ(seen.end->records_lost, 3u);

  EXPECT_EQ(seen.metadata["gpu_timing"]["available"], true);
  EXPECT_EQ(seen.metadata["gpu_timing"]["cupti_path"], "/mock/libcupti.so.13");
  EXPECT_EQ(seen.metadata["gpu_timing_stats"]["kernels"], 1);
  EXPECT_EQ(seen.metadata["gpu_timing_stats"]["joined"], 1);
  EXPECT_EQ(seen.metadata["gpu_timing_stats"]["dropped_by_cupti"], 3);
  EXPECT_TRUE(seen.warnings.empty());
}

TEST_F(InRecorder, KernelsJoinTheirLaunchesByStreamOrderWithoutExternalCorrelation) {
  const ChildResult child = Run("stream-join");
  ASSERT_TRUE(child.exited) << child.err;
  ASSERT_EQ(child.exit_code, 0) << child.err;
  const TraceSeen seen = ReadTrace(TracePath());
  ASSERT_TRUE(seen.ok);
  ASSERT_EQ(seen.launches.size(), 8u);
  std::map<uint32_t, uint64_t> joined;  // CUPTI correlation -> flopspy correlation
  std::map<uint32_t, uint32_t> signature;
  for (const auto& gpu : seen.gpu) {
    joined[gpu.cupti_correlation] = gpu.correlation;
    signature[gpu.cupti_correlation] = gpu.signature;
  }
  ASSERT_EQ(joined.size(), 6u);
  EXPECT_EQ(joined[30], 501u);
  EXPECT_EQ(joined[31], 502u);
  EXPECT_EQ(joined[32], 503u);
  EXPECT_EQ(joined[35], 506u) << "the captured and the failed launch ran nothing";
  EXPECT_EQ(joined[37], 507u);
  EXPECT_EQ(joined[38], 508u);
  EXPECT_EQ(signature[30], seen.launches[0].signature);
  EXPECT_EQ(signature[31], seen.launches[1].signature);
  const auto& stats = seen.metadata["gpu_timing_stats"];
  EXPECT_EQ(stats["joined"], 6);
  EXPECT_EQ(stats["stream_join"]["joined"], 6);
  EXPECT_EQ(stats["stream_join"]["launches"], 6);
  EXPECT_EQ(stats["stream_join"]["streams_mapped"], 3);
  EXPECT_EQ(stats["stream_join"]["launches_passed_over"], 0);
  EXPECT_THAT(seen.metadata["gpu_timing"]["join"].get<std::string>(), HasSubstr("stream order"));
}

TEST_F(InRecorder, WarningsOfTheFinalFlushAreInTheTraceBeforeItsEnd) {
  const ChildResult child = Run("final-words");
  ASSERT_TRUE(child.exited) << child.err;
  ASSERT_EQ(child.exit_code, 0) << child.err;
  // Said once on stderr each...
  EXPECT_EQ(CountLines(child.err, "flopspy: CUPTI's activity buffers ran out"), 1) << child.err;
  EXPECT_EQ(CountLines(child.err, "flopspy: CUPTI could not hand over its last GPU records"), 1)
      << child.err;
  // ...and in the trace, before the end record.
  const TraceSeen seen = ReadTrace(TracePath());
  ASSERT_TRUE(seen.ok);
  ASSERT_TRUE(seen.end.has_value());
  bool buffers = false, flush = false;
  for (size_t i = 0; i < seen.warnings.size(); ++i) {
    const std::string& text = seen.warning_texts[i];
    if (text.find("activity buffers ran out") != std::string::npos) buffers = true;
    if (text.find("cuptiActivityFlushAll: CUPTI_ERROR_UNKNOWN (999)") != std::string::npos) {
      flush = true;
    }
    EXPECT_LT(seen.warning_positions[i], seen.end_position) << text;
  }
  EXPECT_TRUE(buffers) << "the buffer warning is not in the trace";
  EXPECT_TRUE(flush) << "the final flush's failure is not in the trace";
}

TEST(RealLibcupti, LoadsWithoutADriverAndNamesItsCalls) {
  if (std::string(FLOPSPY_REAL_CUPTI).empty()) GTEST_SKIP() << "no libcupti in the toolkit";
  void* handle = dlopen(FLOPSPY_REAL_CUPTI, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  interpose::CuptiApi api;
  interpose::ResolveCuptiApi(handle, nullptr, &api);
  EXPECT_EQ(api.MissingRequired(), "");
  EXPECT_NE(api.cuptiSubscribe_v2, nullptr);
  EXPECT_EQ(api.cuInit, nullptr);
  // The names that select API records, from the library itself.
  const char* name = nullptr;
  ASSERT_EQ(api.cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API,
                                     CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, &name),
            CUPTI_SUCCESS);
  EXPECT_TRUE(CuptiSession::WantApiRecord(CUPTI_CB_DOMAIN_RUNTIME_API, name)) << name;
  ASSERT_EQ(api.cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API,
                                     CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz, &name),
            CUPTI_SUCCESS);
  EXPECT_TRUE(CuptiSession::WantApiRecord(CUPTI_CB_DOMAIN_DRIVER_API, name)) << name;
  EXPECT_EQ(interpose::CuptiErrorText(api, CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED),
            "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED (39)");
}

}  // namespace
}  // namespace flopspy::testing
