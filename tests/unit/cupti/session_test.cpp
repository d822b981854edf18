// The CUPTI session driven by a mock function table: starting, every way it can fail, the
// buffers CUPTI asks for and returns, the flusher's drain, correlation push/pop, fork.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "clock.h"
#include "cupti_session.h"
#include "encoder.h"
#include "flopspy/trace/reader.h"
#include "flopspy/trace/writer.h"
#include "mock_cupti.h"

namespace flopspy::testing {
namespace {

using interpose::CuptiSession;
using interpose::CuptiSessionOptions;
using interpose::CuptiState;
using ::testing::HasSubstr;

// The flusher's side of a pass, writing into a trace in memory.
class Flusher {
 public:
  Flusher()
      : writer_([this](std::span<const uint8_t> b) {
          bytes_.insert(bytes_.end(), b.begin(), b.end());
          return true;
        }),
        encoder_([this](trace::ChunkBuilder& chunk) { Write(chunk); }) {
    trace::FileIdentity id;
    id.pid = 1;
    id.host = "test";
    writer_.WriteHeader(trace::MakeFileHeader(id));
  }

  uint64_t Pass(CuptiSession& session, bool final = false,
                trace::EndReason reason = trace::EndReason::kExit) {
    gpu_.Reset(trace::ChunkSource::kGpuActivity, 0);
    process_.Reset(trace::ChunkSource::kProcess, 0);
    interpose::ActivityDrain drain{encoder_, gpu_, process_, final, reason};
    session.Drain(drain);
    Write(gpu_);
    Write(process_);
    return drain.lost;
  }

  struct Seen {
    std::vector<trace::GpuActivityRecord> gpu;
    std::vector<trace::LostRecordsRecord> lost;
    std::vector<trace::KernelSignatureDef> signatures;
    std::vector<std::string> metadata;
    std::vector<trace::ChunkSource> gpu_sources;
    std::map<uint32_t, std::string> strings;
  };
  Seen Read() {
    Seen seen;
    trace::TraceReader reader(trace::MemorySource(bytes_));
    reader.ForEachRecord([&](const trace::RecordView& r) {
      switch (r.type) {
        case trace::RecordType::kGpuActivity:
          seen.gpu.push_back(r.As<trace::GpuActivityRecord>());
          seen.gpu_sources.push_back(r.source);
          break;
        case trace::RecordType::kLostRecords:
          seen.lost.push_back(r.As<trace::LostRecordsRecord>());
          break;
        case trace::RecordType::kKernelSignature:
          seen.signatures.push_back(r.As<trace::KernelSignatureDef>());
          break;
        case trace::RecordType::kMetadata: {
          const auto block = r.As<trace::MetadataBlock>();
          seen.metadata.emplace_back(r.Text(sizeof(trace::MetadataBlock), block.length));
          break;
        }
        default:
          break;
      }
    });
    for (const auto& [id, text] : reader.strings()) seen.strings[id] = text;
    return seen;
  }

 private:
  void Write(trace::ChunkBuilder& chunk) {
    if (chunk.empty()) return;
    writer_.WriteChunk(chunk);
    chunk.Reset(chunk.source(), chunk.thread_id());
  }

  std::vector<uint8_t> bytes_;
  trace::TraceWriter writer_;
  interpose::Encoder encoder_;
  trace::ChunkBuilder gpu_;
  trace::ChunkBuilder process_;
};

// What CUPTI does with a buffer: ask for one, fill it, hand it back.
bool Deliver(ActivityBuffer& records) {
  uint8_t* buffer = nullptr;
  size_t size = 0;
  size_t max_records = 99;
  Mock().request(&buffer, &size, &max_records);
  if (buffer == nullptr) return false;
  EXPECT_EQ(max_records, 0u);
  EXPECT_GE(size, records.size());
  std::memcpy(buffer, records.data(), records.size());
  Mock().complete(nullptr, 0, buffer, size, records.size());
  return true;
}

nlohmann::json Json(const std::string& text) {
  return nlohmann::json::parse(text);
}

class Session : public ::testing::Test {
 protected:
  void SetUp() override { ResetMock(); }

  std::unique_ptr<CuptiSession> Make(interpose::CuptiEnvironment env) {
    CuptiSessionOptions options;
    options.buffer_bytes = 4096;
    options.buffer_count = 4;
    options.max_driver_waits = 2;
    options_hook(options);
    return std::make_unique<CuptiSession>(options, std::move(env));
  }
  std::unique_ptr<CuptiSession> Make() { return Make(MockEnvironment(&said_)); }

  bool Called(const std::string& name) const {
    return std::find(Mock().calls.begin(), Mock().calls.end(), name) != Mock().calls.end();
  }
  bool CalledCupti() const {
    return std::any_of(Mock().calls.begin(), Mock().calls.end(),
                       [](const std::string& c) { return c.rfind("cupti", 0) == 0; });
  }
  void ExpectUnavailable(CuptiSession& s, const std::string& reason_part) {
    EXPECT_EQ(s.state(), CuptiState::kUnavailable);
    EXPECT_THAT(s.reason(), HasSubstr(reason_part));
    ASSERT_EQ(said_.reports.size(), 1u);
    EXPECT_THAT(said_.reports[0], HasSubstr("no GPU times: "));
    EXPECT_THAT(said_.reports[0], HasSubstr(reason_part));
    EXPECT_THAT(said_.reports[0], HasSubstr("kernel launches are still recorded"));
    ASSERT_EQ(said_.metadata.size(), 1u);
    const auto j = Json(said_.metadata[0]);
    EXPECT_EQ(j["gpu_timing"]["available"], false);
    EXPECT_THAT(j["gpu_timing"]["reason"].get<std::string>(), HasSubstr(reason_part));
    EXPECT_EQ(said_.attached, nullptr);
    EXPECT_EQ(Mock().subscribers, 0);
    EXPECT_TRUE(Mock().enabled_kinds.empty());
    // The hooks' calls do nothing.
    CuptiSession::PushCorrelationIfCollecting(1);
    CuptiSession::PopCorrelation();
    EXPECT_TRUE(Mock().pushes.empty());
    EXPECT_EQ(Mock().pops, 0);
  }

  std::function<void(CuptiSessionOptions&)> options_hook = [](CuptiSessionOptions&) {};
  Said said_;
};

TEST_F(Session, StartsAndReleasesTheSubscriber) {
  auto s = Make();
  EXPECT_EQ(s->Start(CuptiSession::Trigger::kFirstCudaCall), CuptiState::kActive);
  EXPECT_TRUE(said_.reports.empty());
  EXPECT_EQ(said_.attached, s.get());
  EXPECT_EQ(Mock().subscriber_name, "flopspy");
  EXPECT_EQ(Mock().subscribers, 0) << "the subscriber must be released for torch.profiler";
  EXPECT_EQ(s->cupti_version(), 130001u);

  // The driver is checked before any CUPTI call, and the clock is given before any kind.
  const auto& calls = Mock().calls;
  ASSERT_GE(calls.size(), 4u);
  EXPECT_EQ(calls[0], "cuInit");
  EXPECT_EQ(calls[1], "cuDeviceGetCount");
  const auto at = [&](const std::string& c) {
    return std::find(calls.begin(), calls.end(), c) - calls.begin();
  };
  EXPECT_LT(at("cuptiSubscribe_v2"), at("cuptiActivityRegisterTimestampCallback"));
  EXPECT_LT(at("cuptiActivityRegisterTimestampCallback"), at("cuptiActivityRegisterCallbacks"));
  EXPECT_LT(at("cuptiActivityRegisterCallbacks"), at("cuptiActivityEnable(10)"));
  EXPECT_LT(at("cuptiActivityEnable(39)"), at("cuptiUnsubscribe"));

  // CUPTI's clock is flopspy's.
  ASSERT_NE(Mock().timestamp, nullptr);
  const uint64_t before = interpose::NowNs();
  const uint64_t t = Mock().timestamp();
  EXPECT_GE(t, before);
  EXPECT_LE(t, interpose::NowNs());

  // API records of every call: the external correlations come with them (a per-call switch on
  // a kind left off gave none on an H200).
  EXPECT_EQ(Mock().enabled_kinds,
            (std::set<int>{CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                           CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET,
                           CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, CUPTI_ACTIVITY_KIND_DRIVER,
                           CUPTI_ACTIVITY_KIND_RUNTIME}));
  EXPECT_TRUE(Mock().driver_cbids_off.empty());
  EXPECT_TRUE(Mock().runtime_cbids_off.empty());

  ASSERT_EQ(said_.metadata.size(), 1u);
  const auto j = Json(said_.metadata[0])["gpu_timing"];
  EXPECT_EQ(j["available"], true);
  EXPECT_EQ(j["cupti_version"], 130001);
  EXPECT_EQ(j["cupti_path"], "/mock/libcupti.so.13");
  EXPECT_EQ(j["started_by"], "first CUDA call");
  EXPECT_EQ(j["external_correlation_kind"], "CUSTOM2");
  EXPECT_EQ(j["api_records"], "all driver and runtime calls");
  EXPECT_EQ(j["devices"], 1);

  // The hooks' correlation calls reach CUPTI with kind CUSTOM2.
  CuptiSession::PushCorrelationIfCollecting(42);
  CuptiSession::PopCorrelation();
  ASSERT_EQ(Mock().pushes.size(), 1u);
  EXPECT_EQ(Mock().pushes[0].first, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2);
  EXPECT_EQ(Mock().pushes[0].second, 42u);
  EXPECT_EQ(Mock().pops, 1);

  // Started once: later calls change nothing.
  EXPECT_EQ(s->Start(CuptiSession::Trigger::kFirstCudaCall), CuptiState::kActive);
  EXPECT_EQ(said_.metadata.size(), 1u);
}

TEST_F(Session, SelectedApiRecordsSwitchOffTheCallsThatPutNothingOnTheGpu) {
  options_hook = [](CuptiSessionOptions& o) {
    o.api_records = interpose::CuptiApiRecords::kSelected;
  };
  auto s = Make();
  ASSERT_EQ(s->Start(CuptiSession::Trigger::kFirstCudaCall), CuptiState::kActive);
  // The kinds first, then the switches (enabling a kind afterwards would reset them).
  EXPECT_TRUE(Mock().enabled_kinds.contains(CUPTI_ACTIVITY_KIND_DRIVER));
  EXPECT_TRUE(Mock().enabled_kinds.contains(CUPTI_ACTIVITY_KIND_RUNTIME));
  EXPECT_EQ(Mock().driver_cbids_off, (std::set<uint32_t>{CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc,
                                                         CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,
                                                         CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2}));
  EXPECT_EQ(Mock().runtime_cbids_off,
            (std::set<uint32_t>{CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_v10000,
                                CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020}));
  EXPECT_EQ(Json(said_.metadata[0])["gpu_timing"]["api_records"],
            "selected: 8 launch, copy and set calls kept, 5 others switched off");
}

// FLOPSPY_GPU_JOIN=stream: launches push nothing and keep no API record (their kernels are
// joined by stream order); graph launches, copies and sets keep both. Even when every API record
// was asked for, the launches' are switched off.
TEST_F(Session, StreamJoinKeepsNoCorrelationOrApiRecordPerLaunch) {
  options_hook = [](CuptiSessionOptions& o) {
    o.join = interpose::GpuJoin::kStream;
    o.api_records = interpose::CuptiApiRecords::kAll;
    o.timing = interpose::GpuTiming::kSampled;
    o.window_ns = 2'000'000'000;
    o.period_ns = 30'000'000'000;
  };
  auto s = Make();
  ASSERT_EQ(s->Start(CuptiSession::Trigger::kFirstCudaCall), CuptiState::kActive);
  EXPECT_EQ(Mock().driver_cbids_off,
            (std::set<uint32_t>{
                CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
                CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,
                CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2}));
  EXPECT_TRUE(Mock().runtime_cbids_off.contains(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000));
  EXPECT_FALSE(Mock().runtime_cbids_off.contains(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020));
  const auto j = Json(said_.metadata[0])["gpu_timing"];
  EXPECT_THAT(j["join"].get<std::string>(), HasSubstr("stream order"));
  EXPECT_THAT(j["api_records"].get<std::string>(), HasSubstr("graph launch, copy and set"));

  EXPECT_FALSE(CuptiSession::PushLaunchCorrelationIfCollecting(1));
  EXPECT_TRUE(CuptiSession::PushCorrelationIfCollecting(2));
  CuptiSession::PopCorrelation();
  ASSERT_EQ(Mock().pushes.size(), 1u);
  EXPECT_EQ(Mock().pushes[0].second, 2u);

  // The flusher queues launches on the session's join while it collects; a window that closes
  // and opens again keeps launches out of it in between, and the launch pushes stay off.
  ASSERT_NE(s->stream_join(), nullptr);
  const uint64_t t0 = Json(said_.metadata[0])["gpu_timing"]["sampled"]["first_window_open_ns"];
  s->WindowTick(t0 + 2'000'000'000);
  s->stream_join()->AddLaunch({.handle = 0x10}, {}, 7, interpose::NowNs() + 1);
  EXPECT_EQ(s->stream_join()->queued_launches(), 0u);
  s->WindowTick(t0 + 30'000'000'000);
  EXPECT_FALSE(CuptiSession::PushLaunchCorrelationIfCollecting(3));
  EXPECT_TRUE(CuptiSession::PushCorrelationIfCollecting(4));
  CuptiSession::PopCorrelation();
  s->stream_join()->AddLaunch({.handle = 0x10}, {}, 8, interpose::NowNs() + 1);
  EXPECT_EQ(s->stream_join()->queued_launches(), 1u);
  EXPECT_EQ(s->stream_join()->stats().launches_dropped, 1u);
}

TEST_F(Session, CorrelationJoinPushesEveryLaunchAndHasNoStreamJoin) {
  auto s = Make();
  ASSERT_EQ(s->Start(CuptiSession::Trigger::kFirstCudaCall), CuptiState::kActive);
  EXPECT_EQ(s->stream_join(), nullptr);
  EXPECT_TRUE(CuptiSession::PushLaunchCorrelationIfCollecting(1));
  CuptiSession::PopCorrelation();
  EXPECT_EQ(Json(said_.metadata[0])["gpu_timing"]["join"], "external correlation");
}

// Sampled GPU timing: CUPTI starts once; the flusher's ticks then disable and enable the same
// kinds (and the same selection of API records), and the hooks push only inside windows.
TEST_F(Session, SampledTimingCollectsOnlyInWindowsAndStartsCuptiOnce) {
  options_hook = [](CuptiSessionOptions& o) {
    o.timing = interpose::GpuTiming::kSampled;
    o.window_ns = 2'000'000'000;
    o.period_ns = 30'000'000'000;
    o.api_records = interpose::CuptiApiRecords::kSelected;
  };
  auto s = Make();
  ASSERT_EQ(s->Start(CuptiSession::Trigger::kFirstCudaCall), CuptiState::kActive);
  const auto sampled = Json(said_.metadata[0])["gpu_timing"]["sampled"];
  EXPECT_EQ(sampled["window_ns"], 2'000'000'000u);
  EXPECT_EQ(sampled["period_ns"], 30'000'000'000u);
  const uint64_t t0 = sampled["first_window_open_ns"];
  const std::set<int> kinds = Mock().enabled_kinds;
  const std::set<uint32_t> driver_off = Mock().driver_cbids_off;
  ASSERT_FALSE(driver_off.empty());
  const auto count = [](const std::string& call) {
    return std::count(Mock().calls.begin(), Mock().calls.end(), call);
  };

  // Window 0 is open from the start.
  EXPECT_EQ(s->WindowTick(t0 + 1'000'000'000), "");
  EXPECT_TRUE(CuptiSession::PushCorrelationIfCollecting(1));
  CuptiSession::PopCorrelation();
  // An outer call (a cuBLAS call) pushes inside the window; the window closes under it.
  EXPECT_TRUE(CuptiSession::PushCorrelationIfCollecting(2));
  const auto close = Json(s->WindowTick(t0 + 2'000'000'000));
  EXPECT_EQ(close["gpu_window"]["event"], "close");
  EXPECT_EQ(close["gpu_window"]["index"], 0);
  EXPECT_GE(close["gpu_window"]["time_ns"].get<uint64_t>(), t0);
  EXPECT_TRUE(Mock().enabled_kinds.empty());
  EXPECT_EQ(count("cuptiActivityFlushAll(0)"), 1);
  // Between windows nothing is pushed; the outer call's pop still reaches CUPTI.
  EXPECT_FALSE(CuptiSession::PushCorrelationIfCollecting(3));
  CuptiSession::PopCorrelation();
  EXPECT_EQ(Mock().pushes.size(), 2u);
  EXPECT_EQ(Mock().pops, 2);

  EXPECT_EQ(s->WindowTick(t0 + 29'000'000'000), "");
  const auto open = Json(s->WindowTick(t0 + 30'000'000'000));
  EXPECT_EQ(open["gpu_window"]["event"], "open");
  EXPECT_EQ(open["gpu_window"]["index"], 1);
  EXPECT_EQ(Mock().enabled_kinds, kinds);
  EXPECT_EQ(Mock().driver_cbids_off, driver_off) << "the selection is made again";
  // CUPTI's start-up is not paid again.
  EXPECT_EQ(count("cuptiSubscribe_v2"), 1);
  EXPECT_EQ(count("cuptiActivityRegisterCallbacks"), 1);
  EXPECT_TRUE(CuptiSession::PushCorrelationIfCollecting(4));
  CuptiSession::PopCorrelation();

  // A flusher held up for several periods skips the windows it missed.
  EXPECT_EQ(Json(s->WindowTick(t0 + 32'000'000'000))["gpu_window"]["event"], "close");
  const auto late = Json(s->WindowTick(t0 + 95'000'000'000));
  EXPECT_EQ(late["gpu_window"]["index"], 3);
  EXPECT_EQ(s->WindowTick(t0 + 96'000'000'000), "");
}

TEST_F(Session, WithoutSamplingTheWindowTickChangesNothing) {
  auto s = Make();
  ASSERT_EQ(s->Start(CuptiSession::Trigger::kFirstCudaCall), CuptiState::kActive);
  const std::set<int> kinds = Mock().enabled_kinds;
  EXPECT_FALSE(Json(said_.metadata[0])["gpu_timing"].contains("sampled"));
  for (uint64_t t : {uint64_t{1} << 40, uint64_t{1} << 50}) EXPECT_EQ(s->WindowTick(t), "");
  EXPECT_EQ(Mock().enabled_kinds, kinds);
  EXPECT_TRUE(CuptiSession::PushCorrelationIfCollecting(5));
  CuptiSession::PopCorrelation();
}

TEST_F(Session, WithoutCallbackNamesEnablesAllApiRecords) {
  options_hook = [](CuptiSessionOptions& o) {
    o.api_records = interpose::CuptiApiRecords::kSelected;
  };
  auto s = Make(MockEnvironment(&said_, true, MockApi(/*with_names=*/false)));
  ASSERT_EQ(s->Start(CuptiSession::Trigger::kFirstCudaCall), CuptiState::kActive);
  EXPECT_TRUE(Mock().enabled_kinds.contains(CUPTI_ACTIVITY_KIND_DRIVER));
  EXPECT_TRUE(Mock().enabled_kinds.contains(CUPTI_ACTIVITY_KIND_RUNTIME));
  EXPECT_EQ(Json(said_.metadata[0])["gpu_timing"]["api_records"], "all driver and runtime calls");
}

TEST_F(Session, AnotherSubscriberIsNamedAndLeftAlone) {
  Mock().subscribe_result = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  Mock().holder = "Nsight Systems";
  auto s = Make();
  s->Start(CuptiSession::Trigger::kFirstCudaCall);
  ExpectUnavailable(*s, "CUPTI is in use by Nsight Systems");
  EXPECT_FALSE(Called("cuptiActivityRegisterCallbacks"));
  EXPECT_FALSE(Called("cuptiActivityRegisterTimestampCallback"));
  EXPECT_FALSE(Called("cuptiUnsubscribe"));
}

TEST_F(Session, AnotherSubscriberWithoutAName) {
  Mock().subscribe_result = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  auto s = Make(MockEnvironment(&said_, true, MockApi(true, /*with_v2=*/false)));
  s->Start(CuptiSession::Trigger::kFirstCudaCall);
  ExpectUnavailable(*s, "CUPTI is in use by another tool");
  EXPECT_TRUE(Called("cuptiSubscribe"));
}

TEST_F(Session, NoDriverLoadedWaitsAFewCallsThenGivesUp) {
  auto s = Make(MockEnvironment(&said_, /*driver_loaded=*/false));
  EXPECT_EQ(s->Start(CuptiSession::Trigger::kFirstCudaCall), CuptiState::kNotStarted);
  EXPECT_EQ(s->Start(CuptiSession::Trigger::kFirstCudaCall), CuptiState::kNotStarted);
  EXPECT_TRUE(said_.reports.empty());
  EXPECT_EQ(s->Start(CuptiSession::Trigger::kFirstCudaCall), CuptiState::kUnavailable);
  ExpectUnavailable(*s, "no CUDA driver is loaded");
  EXPECT_TRUE(Mock().calls.empty()) << "nothing of CUPTI may be touched without a driver";
}

TEST_F(Session, DriverThatDoesNotInitialiseStopsBeforeCupti) {
  Mock().init_result = CUDA_ERROR_NO_DEVICE;
  auto s = Make();
  s->Start(CuptiSession::Trigger::kFirstCudaCall);
  ExpectUnavailable(*s, "the CUDA driver does not initialise (cuInit returned 100)");
  EXPECT_FALSE(CalledCupti());
}

TEST_F(Session, NoDevice) {
  Mock().device_count = 0;
  auto s = Make();
  s->Start(CuptiSession::Trigger::kFirstCudaCall);
  ExpectUnavailable(*s, "no CUDA device");
  EXPECT_FALSE(CalledCupti());
}

TEST_F(Session, CuptiUnknownErrorOnSubscribe) {
  // What CUPTI 13 answers without a working driver (docs/cuda-notes.md, "CUPTI without a driver").
  Mock().subscribe_result = CUPTI_ERROR_UNKNOWN;
  auto s = Make();
  s->Start(CuptiSession::Trigger::kFirstCudaCall);
  ExpectUnavailable(*s, "cuptiSubscribe_v2 failed: CUPTI_ERROR_UNKNOWN (999)");
}

TEST_F(Session, GpuTimingOffNeverTouchesCupti) {
  options_hook = [](CuptiSessionOptions& o) { o.timing = interpose::GpuTiming::kOff; };
  bool located = false;
  auto env = MockEnvironment(&said_);
  auto locate = env.locate;
  env.locate = [&](std::string_view p) {
    located = true;
    return locate(p);
  };
  auto s = Make(std::move(env));
  s->Start(CuptiSession::Trigger::kFirstCudaCall);
  // As configured: a notice (FLOPSPY_QUIET silences it), not a failure; the trace says why.
  EXPECT_EQ(s->state(), CuptiState::kUnavailable);
  EXPECT_TRUE(said_.reports.empty());
  ASSERT_EQ(said_.notices.size(), 1u);
  EXPECT_EQ(said_.notices[0],
            "no GPU times: FLOPSPY_GPU_TIMING=off; kernel launches are still recorded");
  ASSERT_EQ(said_.metadata.size(), 1u);
  EXPECT_EQ(Json(said_.metadata[0])["gpu_timing"]["reason"], "FLOPSPY_GPU_TIMING=off");
  EXPECT_FALSE(located);
  EXPECT_TRUE(Mock().calls.empty());
}

TEST_F(Session, NotRecordingIsSilent) {
  auto env = MockEnvironment(&said_);
  env.recording = [] { return false; };
  auto s = Make(std::move(env));
  EXPECT_EQ(s->Start(CuptiSession::Trigger::kFirstCudaCall), CuptiState::kUnavailable);
  EXPECT_TRUE(said_.reports.empty());
  EXPECT_TRUE(Mock().calls.empty());
}

TEST_F(Session, NoLibrary) {
  auto env = MockEnvironment(&said_);
  env.locate = [](std::string_view) {
    interpose::CuptiLibrary none;
    none.error = "no libcupti is loaded and none could be found (FLOPSPY_CUPTI_PATH is not set)";
    return none;
  };
  auto s = Make(std::move(env));
  s->Start(CuptiSession::Trigger::kFirstCudaCall);
  ExpectUnavailable(*s, "FLOPSPY_CUPTI_PATH is not set");
}

TEST_F(Session, LibraryWithoutARequiredFunction) {
  auto api = MockApi();
  api.cuptiActivityFlushAll = nullptr;
  auto s = Make(MockEnvironment(&said_, true, api));
  s->Start(CuptiSession::Trigger::kFirstCudaCall);
  ExpectUnavailable(*s, "/mock/libcupti.so.13 lacks cuptiActivityFlushAll");
}

TEST_F(Session, KernelTracingRefusedUndoesEverything) {
  Mock().failing_kinds = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL};
  auto s = Make();
  s->Start(CuptiSession::Trigger::kFirstCudaCall);
  ExpectUnavailable(*s, "CUPTI cannot trace kernels");
  EXPECT_TRUE(Called("cuptiUnsubscribe"));
}

TEST_F(Session, OptionalKindsMayFail) {
  Mock().failing_kinds = {CUPTI_ACTIVITY_KIND_MEMCPY2};
  auto s = Make();
  ASSERT_EQ(s->Start(CuptiSession::Trigger::kFirstCudaCall), CuptiState::kActive);
  const auto j = Json(said_.metadata[0])["gpu_timing"];
  ASSERT_EQ(j["kinds_failed"].size(), 1u);
  EXPECT_THAT(j["kinds_failed"][0].get<std::string>(), HasSubstr("MEMCPY2"));
}

TEST_F(Session, InjectionSkipsTheDriverCheck) {
  auto s = Make();
  ASSERT_EQ(s->Start(CuptiSession::Trigger::kInjection), CuptiState::kActive);
  EXPECT_FALSE(Called("cuInit")) << "cuInit would re-enter the initialising driver";
  EXPECT_EQ(Json(said_.metadata[0])["gpu_timing"]["started_by"], "CUDA_INJECTION64_PATH");
}

TEST_F(Session, InjectionWithoutALoadedDriverDoesNotWait) {
  auto s = Make(MockEnvironment(&said_, /*driver_loaded=*/false));
  s->Start(CuptiSession::Trigger::kInjection);
  ExpectUnavailable(*s, "no CUDA driver is loaded");
  EXPECT_TRUE(Mock().calls.empty());
}

TEST_F(Session, DrainDecodesCompletedBuffersIntoTheGpuChunk) {
  auto s = Make();
  ASSERT_EQ(s->Start(CuptiSession::Trigger::kFirstCudaCall), CuptiState::kActive);
  const uint64_t t = interpose::NowNs();
  ActivityBuffer api;
  api.Add(External(1, 501)).Add(ApiRecord(1)).Add(External(2, 502)).Add(ApiRecord(2));
  ActivityBuffer gpu;
  gpu.Add(Kernel(1, t + 10, t + 20, "_Z3fooPf"))
      .Add(Memcpy(2, t + 30, t + 40, 64, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH,
                  CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, CUPTI_ACTIVITY_MEMORY_KIND_PINNED));
  ASSERT_TRUE(Deliver(gpu));  // out of order: the GPU buffer completes first
  ASSERT_TRUE(Deliver(api));
  Mock().dropped = 5;

  Flusher flusher;
  EXPECT_EQ(flusher.Pass(*s), 5u);
  const auto seen = flusher.Read();
  ASSERT_EQ(seen.gpu.size(), 2u);
  EXPECT_EQ(seen.gpu_sources[0], trace::ChunkSource::kGpuActivity);
  EXPECT_EQ(seen.gpu[0].correlation, 501u);
  EXPECT_EQ(seen.gpu[0].start_ns, t + 10);
  EXPECT_EQ(seen.gpu[1].correlation, 502u);
  EXPECT_EQ(seen.gpu[1].copy_kind, static_cast<uint8_t>(trace::CopyKind::kDeviceToHost));
  ASSERT_EQ(seen.signatures.size(), 1u);
  EXPECT_EQ(seen.signatures[0].id, seen.gpu[0].signature);
  EXPECT_EQ(seen.signatures[0].function, 0u);  // no launch hook saw a function of that name
  EXPECT_EQ(seen.strings.at(seen.signatures[0].name), "_Z3fooPf");
  EXPECT_EQ(seen.signatures[0].grid[0], 128u);
  ASSERT_EQ(seen.lost.size(), 1u);
  EXPECT_EQ(seen.lost[0].source, static_cast<uint16_t>(trace::LossSource::kCuptiBuffer));
  EXPECT_EQ(seen.lost[0].count, 5u);
  EXPECT_EQ(s->dropped_by_cupti(), 5u);
  // Buffers went back to the pool.
  EXPECT_EQ(s->pool().with_cupti(), 0u);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(Deliver(gpu));
}

TEST_F(Session, FlushesFinishedBuffersNowAndThenAndEverythingAtTheEnd) {
  uint64_t now = interpose::NowNs();
  auto env = MockEnvironment(&said_);
  env.now = [&] { return now; };
  options_hook = [](CuptiSessionOptions& o) { o.periodic_flush_ns = 1000; };
  auto s = Make(std::move(env));
  ASSERT_EQ(s->Start(CuptiSession::Trigger::kFirstCudaCall), CuptiState::kActive);
  Flusher flusher;
  flusher.Pass(*s);
  EXPECT_EQ(Mock().flush_default, 0);
  now += 1000;
  flusher.Pass(*s);
  EXPECT_EQ(Mock().flush_default, 1);
  flusher.Pass(*s);
  EXPECT_EQ(Mock().flush_default, 1);
  EXPECT_EQ(Mock().flush_forced, 0);

  ActivityBuffer gpu;
  gpu.Add(Kernel(77, now - 5, now - 1, "k"));  // waits for an API record that never comes
  ASSERT_TRUE(Deliver(gpu));
  flusher.Pass(*s);
  EXPECT_TRUE(flusher.Read().gpu.empty());

  flusher.Pass(*s, /*final=*/true);
  EXPECT_EQ(Mock().flush_forced, 1);
  const auto seen = flusher.Read();
  ASSERT_EQ(seen.gpu.size(), 1u);  // the final pass does not wait
  EXPECT_EQ(s->state(), CuptiState::kStopped);
  const auto stats = std::find_if(seen.metadata.begin(), seen.metadata.end(), [](auto& m) {
    return m.find("gpu_timing_stats") != std::string::npos;
  });
  ASSERT_NE(stats, seen.metadata.end());
  EXPECT_EQ(Json(*stats)["gpu_timing_stats"]["kernels"], 1);
  EXPECT_EQ(Json(*stats)["gpu_timing_stats"]["unjoined"], 1);

  // After the end: no buffers for CUPTI, correlation calls are no-ops.
  CuptiSession::PushCorrelationIfCollecting(3);
  EXPECT_TRUE(Mock().pushes.empty());
  uint8_t* buffer = reinterpret_cast<uint8_t*>(1);
  size_t size = 1, max = 1;
  Mock().request(&buffer, &size, &max);
  EXPECT_EQ(buffer, nullptr);
  EXPECT_EQ(size, 0u);
}

TEST_F(Session, ARunDryPoolGetsItsPartFilledBuffersBackWithAForcedFlush) {
  uint64_t now = interpose::NowNs();
  auto env = MockEnvironment(&said_);
  env.now = [&] { return now; };
  options_hook = [](CuptiSessionOptions& o) {
    o.buffer_count = 2;
    o.periodic_flush_ns = 1'000'000;
  };
  auto s = Make(std::move(env));
  ASSERT_EQ(s->Start(CuptiSession::Trigger::kFirstCudaCall), CuptiState::kActive);
  Flusher flusher;
  flusher.Pass(*s);
  EXPECT_EQ(Mock().flush_forced, 0);  // nothing refused yet
  // CUPTI holds both buffers, part filled (one per thread that makes records), and asks for
  // a third.
  uint8_t* held[3] = {};
  for (uint8_t*& buffer : held) {
    size_t size = 0, max_records = 0;
    Mock().request(&buffer, &size, &max_records);
  }
  ASSERT_NE(held[0], nullptr);
  ASSERT_NE(held[1], nullptr);
  EXPECT_EQ(held[2], nullptr);
  EXPECT_EQ(s->pool().refused(), 1u);
  flusher.Pass(*s);
  EXPECT_EQ(Mock().flush_forced, 1);
  EXPECT_EQ(Mock().flush_default, 0);
  // The next pass, with no new refusal, does not force again.
  flusher.Pass(*s);
  EXPECT_EQ(Mock().flush_forced, 1);
  // Still dry: refused again, but forced at most once per flush interval.
  uint8_t* none = nullptr;
  size_t size = 0, max_records = 0;
  Mock().request(&none, &size, &max_records);
  EXPECT_EQ(none, nullptr);
  flusher.Pass(*s);
  EXPECT_EQ(Mock().flush_forced, 1);
  now += 1'000'000;
  flusher.Pass(*s);
  EXPECT_EQ(Mock().flush_forced, 2);
  // What the forced flush handed back goes back to the pool.
  Mock().complete(nullptr, 0, held[0], s->pool().buffer_bytes(), 0);
  Mock().complete(nullptr, 0, held[1], s->pool().buffer_bytes(), 0);
  flusher.Pass(*s);
  EXPECT_EQ(s->pool().with_cupti(), 0u);
  ActivityBuffer empty;
  EXPECT_TRUE(Deliver(empty));
  flusher.Pass(*s, /*final=*/true);
  const auto seen = flusher.Read();
  const auto stats = std::find_if(seen.metadata.begin(), seen.metadata.end(), [](auto& m) {
    return m.find("gpu_timing_stats") != std::string::npos;
  });
  ASSERT_NE(stats, seen.metadata.end());
  EXPECT_EQ(Json(*stats)["gpu_timing_stats"]["forced_flushes"], 2);
  EXPECT_EQ(Json(*stats)["gpu_timing_stats"]["buffer_requests_refused"], 2);
}

TEST_F(Session, NoFlushAllWhileAFatalSignalIsHandled) {
  auto s = Make();
  ASSERT_EQ(s->Start(CuptiSession::Trigger::kFirstCudaCall), CuptiState::kActive);
  Flusher flusher;
  flusher.Pass(*s, /*final=*/true, trace::EndReason::kSignal);
  EXPECT_EQ(Mock().flush_forced, 0);
  EXPECT_EQ(s->state(), CuptiState::kStopped);
}

TEST_F(Session, FailedFinalFlushIsSaidOnce) {
  auto s = Make();
  ASSERT_EQ(s->Start(CuptiSession::Trigger::kFirstCudaCall), CuptiState::kActive);
  Mock().forced_flush_result = CUPTI_ERROR_UNKNOWN;
  Flusher flusher;
  flusher.Pass(*s);  // a periodic pass does not force
  EXPECT_TRUE(said_.reports.empty());
  flusher.Pass(*s, /*final=*/true);
  ASSERT_EQ(said_.reports.size(), 1u);
  EXPECT_THAT(said_.reports[0], HasSubstr("cuptiActivityFlushAll: CUPTI_ERROR_UNKNOWN (999)"));
  EXPECT_EQ(s->state(), CuptiState::kStopped);
}

TEST_F(Session, ExhaustedPoolGivesCuptiNothingAndSaysSoOnce) {
  auto s = Make();
  ASSERT_EQ(s->Start(CuptiSession::Trigger::kFirstCudaCall), CuptiState::kActive);
  std::vector<uint8_t*> held;
  for (int i = 0; i < 6; ++i) {
    uint8_t* buffer = nullptr;
    size_t size = 0, max = 0;
    Mock().request(&buffer, &size, &max);
    if (buffer != nullptr) held.push_back(buffer);
  }
  EXPECT_EQ(held.size(), 4u);
  EXPECT_EQ(s->pool().refused(), 2u);
  Flusher flusher;
  flusher.Pass(*s);
  flusher.Pass(*s);
  ASSERT_EQ(said_.reports.size(), 1u);
  EXPECT_THAT(said_.reports[0], HasSubstr("activity buffers ran out"));
}

TEST_F(Session, RecordsOnAnotherClockAreLeftOutWithOneWarning) {
  auto s = Make();
  ASSERT_EQ(s->Start(CuptiSession::Trigger::kFirstCudaCall), CuptiState::kActive);
  ActivityBuffer gpu;
  // What TSC ticks look like next to CLOCK_MONOTONIC nanoseconds: far in the future.
  const uint64_t tsc = interpose::NowNs() * 3;
  gpu.Add(Kernel(0, tsc, tsc + 100, "k")).Add(Kernel(0, tsc + 200, tsc + 300, "k"));
  ASSERT_TRUE(Deliver(gpu));
  Flusher flusher;
  flusher.Pass(*s);
  EXPECT_TRUE(flusher.Read().gpu.empty());
  ASSERT_EQ(said_.reports.size(), 1u);
  EXPECT_THAT(said_.reports[0], HasSubstr("another clock"));
}

TEST_F(Session, DiscardReturnsBuffers) {
  auto s = Make();
  ASSERT_EQ(s->Start(CuptiSession::Trigger::kFirstCudaCall), CuptiState::kActive);
  ActivityBuffer gpu;
  gpu.Add(Kernel(0, 1, 2, "k"));
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(Deliver(gpu));
  EXPECT_FALSE(Deliver(gpu));
  s->Discard();
  EXPECT_TRUE(Deliver(gpu));
}

TEST_F(Session, WantsApiRecordsOfWorkOnly) {
  const auto d = CUPTI_CB_DOMAIN_DRIVER_API;
  const auto r = CUPTI_CB_DOMAIN_RUNTIME_API;
  EXPECT_TRUE(CuptiSession::WantApiRecord(d, "cuLaunchKernel_ptsz"));
  EXPECT_TRUE(CuptiSession::WantApiRecord(d, "cuLaunchCooperativeKernel"));
  EXPECT_TRUE(CuptiSession::WantApiRecord(d, "cuGraphLaunch_ptsz"));
  EXPECT_TRUE(CuptiSession::WantApiRecord(d, "cuMemcpy3DPeerAsync_ptsz"));
  EXPECT_TRUE(CuptiSession::WantApiRecord(d, "cuMemsetD2D8Async"));
  EXPECT_FALSE(CuptiSession::WantApiRecord(d, "cuLaunchHostFunc"));
  EXPECT_FALSE(CuptiSession::WantApiRecord(d, "cuCtxSynchronize"));
  EXPECT_FALSE(CuptiSession::WantApiRecord(d, "cuMemAlloc_v2"));
  EXPECT_TRUE(CuptiSession::WantApiRecord(r, "__cudaLaunchKernel_ptsz_v13000"));
  EXPECT_TRUE(CuptiSession::WantApiRecord(r, "cudaLaunchKernelExC_v11060"));
  EXPECT_TRUE(CuptiSession::WantApiRecord(r, "cudaGraphLaunch_v10000"));
  EXPECT_TRUE(CuptiSession::WantApiRecord(r, "cudaMemcpyBatchAsync_v13000"));
  EXPECT_TRUE(CuptiSession::WantApiRecord(r, "cudaMemset2DAsync_v3020"));
  EXPECT_FALSE(CuptiSession::WantApiRecord(r, "cudaLaunchHostFunc_v10000"));
  EXPECT_FALSE(CuptiSession::WantApiRecord(r, "cudaStreamSynchronize_v3020"));
  EXPECT_FALSE(CuptiSession::WantApiRecord(CUPTI_CB_DOMAIN_NVTX, "cuLaunchKernel"));
  // Kernels joined by stream order: no launch's record, a graph launch's and a copy's still.
  EXPECT_FALSE(CuptiSession::WantApiRecord(d, "cuLaunchKernel_ptsz", /*launches=*/false));
  EXPECT_FALSE(CuptiSession::WantApiRecord(r, "cudaLaunchKernel_v7000", false));
  EXPECT_FALSE(CuptiSession::WantApiRecord(r, "__cudaLaunchKernel_ptsz_v13000", false));
  EXPECT_TRUE(CuptiSession::WantApiRecord(d, "cuGraphLaunch_ptsz", false));
  EXPECT_TRUE(CuptiSession::WantApiRecord(r, "cudaGraphLaunch_v10000", false));
  EXPECT_TRUE(CuptiSession::WantApiRecord(r, "cudaMemcpyAsync_v3020", false));
}

// Runs `child` in a fork() child and returns its exit status.
int InChild(const std::function<int()>& child) {
  const pid_t pid = fork();
  if (pid == 0) _exit(child());
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST_F(Session, ForkChildOfACollectingProcessStaysOff) {
  auto s = Make();
  ASSERT_EQ(s->Start(CuptiSession::Trigger::kFirstCudaCall), CuptiState::kActive);
  ActivityBuffer gpu;
  gpu.Add(Kernel(0, 1, 2, "k"));
  ASSERT_TRUE(Deliver(gpu));
  const int status = InChild([&] {
    int bad = 0;
    if (s->state() != CuptiState::kNotStarted) bad |= 1;
    CuptiSession::PushCorrelationIfCollecting(9);
    if (!Mock().pushes.empty()) bad |= 2;
    if (s->pool().with_cupti() != 0) bad |= 4;
    Mock().calls.clear();
    said_.reports.clear();
    if (s->Start(CuptiSession::Trigger::kFirstCudaCall) != CuptiState::kUnavailable) bad |= 8;
    if (s->reason().find("forked") == std::string::npos) bad |= 16;
    if (!Mock().calls.empty()) bad |= 32;  // no CUPTI or driver call in the child
    if (said_.reports.size() != 1) bad |= 64;
    return bad;
  });
  EXPECT_EQ(status, 0);
  // The parent is unaffected.
  EXPECT_EQ(s->state(), CuptiState::kActive);
  CuptiSession::PushCorrelationIfCollecting(9);
  EXPECT_EQ(Mock().pushes.size(), 1u);
}

TEST_F(Session, ForkChildOfAProcessThatNeverUsedCuptiMayStartIt) {
  auto s = Make(MockEnvironment(&said_, /*driver_loaded=*/false));
  EXPECT_EQ(s->Start(CuptiSession::Trigger::kFirstCudaCall), CuptiState::kNotStarted);
  const int status = InChild([&] {
    // The child's driver is loaded by now (its own CUDA use).
    auto child = std::make_unique<CuptiSession>(CuptiSessionOptions{}, MockEnvironment(&said_));
    return child->Start(CuptiSession::Trigger::kFirstCudaCall) == CuptiState::kActive ? 0 : 1;
  });
  EXPECT_EQ(status, 0);
}

TEST_F(Session, ProcessSessionWithoutRecorderDecidesOnceAndSilently) {
  // No Recorder in this test program: EnsureStarted decides at once that there is nothing to
  // time, and from then on costs one load.
  ::testing::internal::CaptureStderr();
  CuptiSession::EnsureStarted();
  CuptiSession::EnsureStarted();
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(CuptiSession::Process(), nullptr);
}

}  // namespace
}  // namespace flopspy::testing
