// libflopspy.so's cuBLAS and cuBLASLt hooks, from outside: programs that call every hooked entry
// point (through fake libcublas/libcublasLt of majors 12 and 13, linked or dlopened RTLD_LOCAL,
// and through NVIDIA's real libcublasLt) run with and without the preload. Their output and exit
// status must not change, and the trace must hold one library-call record per call, equal field
// by field to what the program says it passed (FLOPSPY_CUBLAS_EXPECT), with the flusher's figures.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "flopspy/analyzers/blas_formulas.h"
#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/blas_types.h"
#include "flopspy/trace/library_groups.h"
#include "flopspy/trace/reader.h"
#include "library_resolver.h"
#include "subprocess.h"

namespace flopspy::testing {
namespace {

using analyzers::BlasEntryPoints;
using trace::LibraryCallRecord;

const std::string kLibrary = FLOPSPY_LIBRARY_PATH;
const std::string kFakes12 = FLOPSPY_FAKES_DIR "/cuda12";
const std::string kFakes13 = FLOPSPY_FAKES_DIR "/cuda13";

// --- Reading what the program expects and what the trace holds --------------------------------

using Expectation = std::map<std::string, std::string>;

std::vector<Expectation> ReadExpectations(const std::string& path) {
  std::vector<Expectation> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    Expectation e;
    std::istringstream fields(line);
    for (std::string field; std::getline(fields, field, '\t');) {
      const auto eq = field.find('=');
      if (eq != std::string::npos) e[field.substr(0, eq)] = field.substr(eq + 1);
    }
    out.push_back(std::move(e));
  }
  return out;
}

struct TracedCall {
  LibraryCallRecord record;
  std::string name;
  uint64_t stream_handle = 0;
  // A grouped GEMM's LibraryGroups records, in order.
  std::vector<trace::LibraryGroupShape> groups;
  trace::LibraryGroupsCut cut{};
  int group_records = 0;
};

struct Trace {
  trace::ReadStatus status = trace::ReadStatus::kOk;
  std::vector<TracedCall> calls;
};

Trace ReadLibraryCalls(const std::string& path) {
  Trace t;
  trace::TraceReader reader = trace::TraceReader::OpenFile(path);
  if (!reader.header_ok()) {
    t.status = reader.header_status().status;
    return t;
  }
  std::map<uint32_t, uint64_t> streams;
  trace::LibraryGroupsCollector groups;
  using Step = trace::LibraryGroupsCollector::Step;
  t.status = reader
                 .ForEachRecord([&](const trace::RecordView& r) {
                   if (r.type == trace::RecordType::kStream) {
                     const auto s = r.As<trace::StreamDef>();
                     streams[s.id] = s.handle;
                   } else if (r.type == trace::RecordType::kLibraryCall) {
                     TracedCall c;
                     c.record = r.As<LibraryCallRecord>();
                     c.name = std::string(reader.String(c.record.name));
                     c.stream_handle = streams[c.record.stream];
                     t.calls.push_back(c);
                   } else if (r.type == trace::RecordType::kLibraryGroups && !t.calls.empty()) {
                     ++t.calls.back().group_records;
                   }
                   // The groups as a reader takes them: checked and paired with their call.
                   const auto step = groups.Add(r);
                   EXPECT_NE(step, Step::kDamaged) << groups.error();
                   if (step == Step::kComplete && !t.calls.empty()) {
                     TracedCall& c = t.calls.back();
                     c.groups.assign(groups.groups().begin(), groups.groups().end());
                     c.cut = groups.cut();
                   }
                 })
                 .status;
  EXPECT_EQ(groups.Finish(), "");
  return t;
}

// The record flopspy must write for one expectation line: the defaults of
// docs/cublas-hooks.md §2, the entry point's fixed types, then what the program passed.
LibraryCallRecord ExpectedRecord(const Expectation& e) {
  LibraryCallRecord r{};
  r.device = -1;
  r.batch = 1;
  r.type_a = r.type_b = r.type_c = r.type_d = analyzers::kNotApplicable;
  r.compute_type = r.scale_type = analyzers::kNotApplicable;
  r.trans_a = r.trans_b = r.side = r.uplo = r.diag = analyzers::kNotApplicable;
  r.epilogue = analyzers::lt_epilogue::kDefault;
  const analyzers::BlasEntryPoint* entry = analyzers::FindBlasEntryPoint(e.at("name"));
  if (entry != nullptr) analyzers::ApplyEntryPointDefaults(*entry, r);
  const auto get = [&](const char* key, auto& field) {
    const auto it = e.find(key);
    if (it != e.end()) {
      field = static_cast<std::remove_reference_t<decltype(field)>>(std::stoll(it->second));
    }
  };
  get("status", r.status);
  get("m", r.m);
  get("n", r.n);
  get("k", r.k);
  get("batch", r.batch);
  get("lda", r.lda);
  get("ldb", r.ldb);
  get("ldc", r.ldc);
  get("ldd", r.ldd);
  get("stride_a", r.stride_a);
  get("stride_b", r.stride_b);
  get("stride_c", r.stride_c);
  get("stride_d", r.stride_d);
  get("type_a", r.type_a);
  get("type_b", r.type_b);
  get("type_c", r.type_c);
  get("type_d", r.type_d);
  get("compute_type", r.compute_type);
  get("scale_type", r.scale_type);
  get("trans_a", r.trans_a);
  get("trans_b", r.trans_b);
  get("side", r.side);
  get("uplo", r.uplo);
  get("diag", r.diag);
  get("epilogue", r.epilogue);
  get("flags", r.flags);
  get("ptr_align", r.ptr_align);
  // TF32 math mode (docs/blas-formulas.md §2): level 3, plain 32F on FP32 or complex FP32 data.
  const auto fp32 = [](uint8_t t) {
    return t == analyzers::cuda_type::kR32F || t == analyzers::cuda_type::kC32F;
  };
  if (e.count("tf32") && e.at("tf32") == "1" &&
      analyzers::LevelOf(analyzers::BlasRoutineFromId(r.routine)) ==
          analyzers::BlasLevel::kLevel3 &&
      r.compute_type == analyzers::compute_type::k32F && fp32(r.type_a) &&
      (fp32(r.type_b) || r.type_b == analyzers::kNotApplicable)) {
    r.compute_type = analyzers::compute_type::k32FFastTF32;
  }
  return r;
}

// Compares every argument field; returns a description of the differences.
std::string Differences(const LibraryCallRecord& want, const LibraryCallRecord& got) {
  std::ostringstream out;
  const auto cmp = [&](const char* field, long long w, long long g) {
    if (w != g) out << " " << field << ": want " << w << " got " << g << ";";
  };
  cmp("routine", want.routine, got.routine);
  cmp("device", want.device, got.device);
  cmp("status", want.status, got.status);
  cmp("m", want.m, got.m);
  cmp("n", want.n, got.n);
  cmp("k", want.k, got.k);
  cmp("batch", want.batch, got.batch);
  cmp("lda", want.lda, got.lda);
  cmp("ldb", want.ldb, got.ldb);
  cmp("ldc", want.ldc, got.ldc);
  cmp("ldd", want.ldd, got.ldd);
  cmp("stride_a", want.stride_a, got.stride_a);
  cmp("stride_b", want.stride_b, got.stride_b);
  cmp("stride_c", want.stride_c, got.stride_c);
  cmp("stride_d", want.stride_d, got.stride_d);
  cmp("type_a", want.type_a, got.type_a);
  cmp("type_b", want.type_b, got.type_b);
  cmp("type_c", want.type_c, got.type_c);
  cmp("type_d", want.type_d, got.type_d);
  cmp("compute_type", want.compute_type, got.compute_type);
  cmp("scale_type", want.scale_type, got.scale_type);
  cmp("trans_a", want.trans_a, got.trans_a);
  cmp("trans_b", want.trans_b, got.trans_b);
  cmp("side", want.side, got.side);
  cmp("uplo", want.uplo, got.uplo);
  cmp("diag", want.diag, got.diag);
  cmp("epilogue", want.epilogue, got.epilogue);
  cmp("flags", want.flags, got.flags);
  cmp("ptr_align", want.ptr_align, got.ptr_align);
  return out.str();
}

// --- Running programs ---------------------------------------------------------------------------

struct Outcome {
  ChildResult plain;   // without flopspy
  ChildResult traced;  // with flopspy preloaded
  std::vector<Expectation> expected;
  Trace trace;
  std::string trace_error;
};

Outcome RunBothWays(const std::vector<std::string>& argv, const std::string& fakes_dir) {
  Outcome run;
  TempDir dir;
  ChildOptions plain;
  plain.unset.push_back("LD_PRELOAD");
  if (!fakes_dir.empty()) plain.env["LD_LIBRARY_PATH"] = fakes_dir;
  run.plain = RunChild(argv, plain);

  ChildOptions traced = plain;
  traced.unset.clear();
  traced.env["LD_PRELOAD"] = kLibrary;
  traced.env["FLOPSPY_OUT"] = dir.path();
  traced.env["FLOPSPY_FLUSH_MS"] = "10";
  traced.env["FLOPSPY_CUBLAS_EXPECT"] = dir.path() + "/expect.tsv";
  run.traced = RunChild(argv, traced);
  run.expected = ReadExpectations(dir.path() + "/expect.tsv");
  const auto traces = dir.Files(".fspy");
  if (traces.size() != 1) {
    run.trace_error = "traces written: " + std::to_string(traces.size());
  } else {
    run.trace = ReadLibraryCalls(traces.front());
  }
  return run;
}

// Every record equals its expectation; returns how many records were checked.
size_t CheckRecords(const Outcome& run) {
  EXPECT_TRUE(run.trace_error.empty()) << run.trace_error;
  EXPECT_EQ(run.trace.status, trace::ReadStatus::kOk);
  EXPECT_FALSE(run.expected.empty());
  EXPECT_EQ(run.trace.calls.size(), run.expected.size())
      << "one record per call: the program made " << run.expected.size() << " calls";
  const size_t n = std::min(run.trace.calls.size(), run.expected.size());
  std::set<uint64_t> correlations;
  for (size_t i = 0; i < n; ++i) {
    const Expectation& e = run.expected[i];
    const TracedCall& c = run.trace.calls[i];
    const LibraryCallRecord want = ExpectedRecord(e);
    SCOPED_TRACE("call " + std::to_string(i) + " " + e.at("name"));
    EXPECT_EQ(c.name, e.at("name"));
    EXPECT_EQ(Differences(want, c.record), "");
    EXPECT_EQ(c.stream_handle, std::stoull(e.at("stream")));
    // A stream flopspy cannot know is no stream at all (StreamDef id 0), never the default one.
    const bool stream_unknown = e.count("stream_unknown") != 0 && e.at("stream_unknown") == "1";
    EXPECT_EQ(c.record.stream == 0, stream_unknown);
    EXPECT_GT(c.record.enter_ns, 0u);
    EXPECT_LE(c.record.enter_ns, c.record.exit_ns);
    // Each call has a correlation of its own (CUPTI gives it to kernels launched through the
    // runtime linked into cuBLAS).
    EXPECT_NE(c.record.correlation, 0u);
    EXPECT_TRUE(correlations.insert(c.record.correlation).second) << c.record.correlation;
    // The flusher filled the figures from the record (and a grouped call's groups).
    const analyzers::BlasFigures f = analyzers::ComputeBlasFigures(c.record, c.groups, c.cut);
    if (e.count("groups")) {
      EXPECT_EQ(c.groups.size(), std::stoull(e.at("groups")));
      for (size_t g = 0; g < c.groups.size(); ++g) {
        EXPECT_EQ(c.groups[g].m, std::stoll(e.at("group_m0")) +
                                     std::stoll(e.at("group_m_step")) * static_cast<long long>(g));
        EXPECT_EQ(c.groups[g].count, 2 + static_cast<long long>(g));
      }
    } else {
      EXPECT_TRUE(c.groups.empty());
    }
    EXPECT_EQ(c.record.flops, f.flops);
    EXPECT_EQ(c.record.bytes, f.bytes);
    EXPECT_EQ(c.record.epilogue_flops, f.epilogue_flops);
    EXPECT_EQ(c.record.source, static_cast<uint8_t>(f.source));
    const bool groups_known = !(c.record.flags & trace::kLibGrouped) || !c.groups.empty();
    const bool shape_known = c.record.m >= 0 && c.record.n >= 0 && c.record.k >= 0 &&
                             c.record.batch >= 0 && groups_known && c.record.routine != 0;
    if (shape_known && analyzers::DataTypeBytes(c.record.type_a) > 0) {
      EXPECT_EQ(c.record.source, static_cast<uint8_t>(trace::FigureSource::kAnalytic));
      if (c.record.status == 0) {
        EXPECT_GT(c.record.flops, 0);
      }
    }
  }
  return n;
}

void CheckUnchanged(const Outcome& run, int exit_code) {
  ASSERT_TRUE(run.plain.exited) << run.plain.err;
  ASSERT_TRUE(run.traced.exited) << run.traced.err;
  EXPECT_EQ(run.plain.exit_code, exit_code) << run.plain.err;
  EXPECT_EQ(run.traced.exit_code, run.plain.exit_code);
  EXPECT_EQ(run.traced.out, run.plain.out);
  EXPECT_FALSE(run.plain.out.empty());
}

const TracedCall* FirstSuccessful(const Outcome& run, const std::string& name) {
  for (const auto& c : run.trace.calls) {
    if (c.name == name && c.record.status == 0) return &c;
  }
  return nullptr;
}

// --- Tests --------------------------------------------------------------------------------------

class FakeCublasTest : public ::testing::TestWithParam<std::tuple<int, bool>> {};

TEST_P(FakeCublasTest, EveryEntryPointRecordedExactlyAsCalled) {
  const auto [major, dlopened] = GetParam();
  const std::string fakes = major == 12 ? kFakes12 : kFakes13;
  const std::string client = major == 12 ? FLOPSPY_CLIENT12 : FLOPSPY_CLIENT13;
  const std::vector<std::string> argv =
      dlopened ? std::vector<std::string>{FLOPSPY_DRIVER_DLOPEN, client}
               : std::vector<std::string>{major == 12 ? FLOPSPY_DRIVER12 : FLOPSPY_DRIVER13};
  const Outcome run = RunBothWays(argv, fakes);
  CheckUnchanged(run, 5);
  EXPECT_EQ(run.traced.err, run.plain.err);  // nothing to report: every real function was found
  const size_t checked = CheckRecords(run);
  EXPECT_GT(checked, BlasEntryPoints().size());

  // Every hooked entry point was called and recorded.
  std::set<std::string> recorded;
  for (const auto& c : run.trace.calls) recorded.insert(c.name);
  for (const auto& entry : BlasEntryPoints()) {
    EXPECT_TRUE(recorded.contains(std::string(entry.name))) << entry.name << " not recorded";
  }

  // A few figures by hand (LAWN 41): real GEMM 2mnk, complex GEMM 8mnk, real dot 2n - 1.
  if (const TracedCall* c = FirstSuccessful(run, "cublasSgemm_v2")) {
    EXPECT_DOUBLE_EQ(c->record.flops, 2.0 * c->record.m * c->record.n * c->record.k);
  } else {
    ADD_FAILURE() << "no successful cublasSgemm_v2";
  }
  if (const TracedCall* c = FirstSuccessful(run, "cublasZgemm_v2_64")) {
    EXPECT_GT(c->record.m, int64_t{1} << 32);  // the _64 form's sizes survived
    EXPECT_DOUBLE_EQ(c->record.flops, 8.0 * c->record.m * c->record.n * c->record.k);
  } else {
    ADD_FAILURE() << "no successful cublasZgemm_v2_64";
  }
  if (const TracedCall* c = FirstSuccessful(run, "cublasDdot_v2")) {
    EXPECT_DOUBLE_EQ(c->record.flops, 2.0 * c->record.n - 1);
  } else {
    ADD_FAILURE() << "no successful cublasDdot_v2";
  }
}

INSTANTIATE_TEST_SUITE_P(MajorsAndLoading, FakeCublasTest,
                         ::testing::Combine(::testing::Values(12, 13), ::testing::Bool()),
                         [](const auto& param_info) {
                           return "cuda" + std::to_string(std::get<0>(param_info.param)) +
                                  (std::get<1>(param_info.param) ? "_dlopen_local" : "_linked");
                         });

// --- Grouped GEMMs whose groups differ ----------------------------------------------------------

const TracedCall* CallNamed(const Outcome& run, const std::string& name) {
  for (const auto& c : run.trace.calls) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// grouped_gemm.cpp: FLOPs and bytes summed over every group, by hand (LAWN 41: real GEMM 2mnk;
// bytes: A m*k, B k*n, C m*n when beta is not zero or not known, D m*n, three 8-byte pointers per
// problem).
TEST(GroupedGemm, FiguresOverEveryGroupByHand) {
  const Outcome run = RunBothWays({FLOPSPY_GROUPED_GEMM}, kFakes13);
  CheckUnchanged(run, 0);
  ASSERT_TRUE(run.trace_error.empty()) << run.trace_error;
  ASSERT_EQ(run.trace.calls.size(), 3u);

  // 1. FP16 (2 bytes), groups (m, n, k, size, beta) = (64, 128, 32, 2, 0), (16, 8, 256, 1, 1.5),
  //    (100, 10, 10, 3, 0):
  //    FLOPs  2 * (2*64*128*32 + 16*8*256 + 3*100*10*10) = 2 * (524288 + 32768 + 30000) = 1174112
  //    A      2 * (2*64*32 + 16*256 + 3*100*10)          = 2 * 11192                    = 22384
  //    B      2 * (2*32*128 + 256*8 + 3*10*10)           = 2 * 10540                    = 21080
  //    C read 2 * (16*8)  (the one group with beta 1.5)                                 = 256
  //    D      2 * (2*64*128 + 16*8 + 3*100*10)           = 2 * 19512                    = 39024
  //    arrays 24 * 6 problems                                                           = 144
  //    bytes  22384 + 21080 + 256 + 39024 + 144                                         = 82888
  const TracedCall* fp16 = CallNamed(run, "cublasGemmGroupedBatchedEx");
  ASSERT_NE(fp16, nullptr);
  EXPECT_EQ(fp16->record.flags & (trace::kLibGrouped | trace::kLibGroupsFollow),
            trace::kLibGrouped | trace::kLibGroupsFollow);
  EXPECT_EQ(fp16->record.batch, 3);
  EXPECT_EQ(fp16->record.m, 64);  // the first group's shape
  EXPECT_EQ(fp16->group_records, 1);
  ASSERT_EQ(fp16->groups.size(), 3u);
  EXPECT_EQ(fp16->groups[1].m, 16);
  EXPECT_EQ(fp16->groups[1].k, 256);
  EXPECT_EQ(fp16->groups[1].count, 1);
  EXPECT_EQ(fp16->groups[1].lda, 16);
  EXPECT_EQ(fp16->groups[1].trans_b, 1);  // CUBLAS_OP_T
  EXPECT_EQ(fp16->groups[0].beta, 0);
  EXPECT_EQ(fp16->groups[1].beta, 1);
  EXPECT_EQ(fp16->groups[2].count, 3);
  EXPECT_EQ(fp16->cut.groups, 0);
  EXPECT_EQ(fp16->record.source, static_cast<uint8_t>(trace::FigureSource::kAnalytic));
  EXPECT_EQ(fp16->record.flops, 1174112.0);
  EXPECT_EQ(fp16->record.bytes, 82888.0);

  // 2. FP32 (4 bytes), 70 groups g of (g + 1, 2, 3, 1, beta 0): 64 listed, 6 cut.
  //    sum of m over the groups: 1 + ... + 70 = 2485
  //    FLOPs  2 * 2 * 3 * 2485 = 29820
  //    A      4 * 3 * 2485     = 29820;  B 4 * 3 * 2 * 70 = 1680;  C not read
  //    D      4 * 2 * 2485     = 19880;  arrays 24 * 70  = 1680
  //    bytes  29820 + 1680 + 19880 + 1680 = 53060
  //    the cut groups 65..70: m*n*k = 6 * (65 + ... + 70) = 6 * 405 = 2430
  const TracedCall* many = CallNamed(run, "cublasGemmGroupedBatchedEx_64");
  ASSERT_NE(many, nullptr);
  EXPECT_EQ(many->record.batch, 70);
  EXPECT_EQ(many->group_records, 8);
  ASSERT_EQ(many->groups.size(), 64u);
  EXPECT_EQ(many->groups[63].m, 64);
  EXPECT_EQ(many->cut.groups, 6);
  EXPECT_EQ(many->cut.problems, 6);
  EXPECT_EQ(many->cut.mnk, 2430.0);
  EXPECT_EQ(many->cut.mn_reads_c, 0.0);
  EXPECT_EQ(many->record.source, static_cast<uint8_t>(trace::FigureSource::kAnalytic));
  EXPECT_EQ(many->record.flops, 29820.0);
  EXPECT_EQ(many->record.bytes, 53060.0);

  // 3. FP32, device pointer mode: beta not readable, so C counts as read in both groups
  //    (4, 5, 6, 1) and (7, 8, 9, 2):
  //    FLOPs  2 * (4*5*6 + 2*7*8*9) = 2 * (120 + 1008) = 2256
  //    A      4 * (4*6 + 2*7*9) = 600;  B 4 * (6*5 + 2*9*8) = 696
  //    C      4 * (4*5 + 2*7*8) = 528;  D 528;  arrays 24 * 3 = 72
  //    bytes  600 + 696 + 528 + 528 + 72 = 2424
  const TracedCall* device = CallNamed(run, "cublasSgemmGroupedBatched");
  ASSERT_NE(device, nullptr);
  ASSERT_EQ(device->groups.size(), 2u);
  EXPECT_EQ(device->groups[0].beta, trace::kGroupBetaUnknown);
  EXPECT_EQ(device->record.flags & trace::kLibBetaKnown, 0u);
  EXPECT_EQ(device->record.flops, 2256.0);
  EXPECT_EQ(device->record.bytes, 2424.0);
  const analyzers::BlasFigures f =
      analyzers::ComputeBlasFigures(device->record, device->groups, device->cut);
  EXPECT_NE(f.notes & analyzers::kBlasNoteBetaUnknown, 0u);
  EXPECT_EQ(f.notes & analyzers::kBlasNoteGroupedFirstOnly, 0u);
}

// --- Two copies in one process ------------------------------------------------------------------
//
// Python opens extension modules RTLD_LOCAL, so one process can hold libcublas.so.12 (a CUDA 12
// PyTorch) and libcublas.so.13 (a CUDA 13 extension), or two copies of one major (a wheel's own,
// renamed by auditwheel), each with its libcublasLt. Both modules' calls bind to flopspy's hooks,
// which must forward each to the copy its caller is linked against, and read the handle and the
// descriptors with that copy's getters: the fakes refuse another copy's handles
// (CUBLAS_STATUS_NOT_INITIALIZED) and descriptors. Both load orders: whichever copy flopspy meets
// first must not matter.

const std::string kAllFakes = kFakes12 + ":" + kFakes13 + ":" + FLOPSPY_FAKES_WHEEL13;

// The lines of `out` that start with `prefix`.
std::vector<std::string> LinesStartingWith(const std::string& out, const std::string& prefix) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) lines.push_back(line);
  }
  return lines;
}

// Every entry point, from the full client of each major in one process.
TEST(TwoCopies, EveryEntryPointReachesTheCallersCopy) {
  for (const auto& [first, second] : {std::pair{FLOPSPY_CLIENT12, FLOPSPY_CLIENT13},
                                      std::pair{FLOPSPY_CLIENT13, FLOPSPY_CLIENT12}}) {
    SCOPED_TRACE(std::string(first) + " first");
    const Outcome run = RunBothWays({FLOPSPY_DRIVER_DLOPEN, first, second}, kAllFakes);
    CheckUnchanged(run, 5);
    EXPECT_EQ(run.traced.err, run.plain.err);
    // Each copy counted exactly its own client's calls ("calls N cublas X cublasLt Y": the
    // client made N recorded calls, its copies counted X + Y), the same for both clients.
    const auto counts = LinesStartingWith(run.traced.out, "calls ");
    ASSERT_EQ(counts.size(), 2u) << run.traced.out;
    EXPECT_EQ(counts[0], counts[1]);
    for (const std::string& line : counts) {
      long long calls = 0, cublas = 0, lt = 0;
      ASSERT_EQ(
          std::sscanf(line.c_str(), "calls %lld cublas %lld cublasLt %lld", &calls, &cublas, &lt),
          3)
          << line;
      EXPECT_EQ(cublas + lt, calls) << line;
    }
    // One record per call of both clients, each exactly as its client passed it (stream, pointer
    // mode and math mode read from the right copy's handle).
    EXPECT_GT(CheckRecords(run), 2 * BlasEntryPoints().size());
  }
}

// Which loaded files count as copies of a library: the stem, or auditwheel's renamed form.
TEST(TwoCopies, LibraryFilesByName) {
  using interpose::CudaLibrary;
  using interpose::IsLibraryFile;
  EXPECT_TRUE(IsLibraryFile("/usr/local/cuda/lib64/libcublas.so.13", CudaLibrary::kBlas));
  EXPECT_TRUE(IsLibraryFile("libcublas.so", CudaLibrary::kBlas));
  EXPECT_TRUE(IsLibraryFile("/site-packages/x.libs/libcublas-0c0ffee1.so.12", CudaLibrary::kBlas));
  EXPECT_FALSE(IsLibraryFile("libcublasLt.so.13", CudaLibrary::kBlas));
  EXPECT_FALSE(IsLibraryFile("libcublasLt-0c0ffee1.so.13", CudaLibrary::kBlas));
  EXPECT_TRUE(IsLibraryFile("libcublasLt-0c0ffee1.so.13", CudaLibrary::kBlasLt));
  EXPECT_FALSE(IsLibraryFile("libcublas-.so.13", CudaLibrary::kBlas));
  EXPECT_FALSE(IsLibraryFile("libcublas-0c0ffee1", CudaLibrary::kBlas));
  EXPECT_FALSE(IsLibraryFile("libcublas-0c0f_fee1.so.13", CudaLibrary::kBlas));
  EXPECT_FALSE(IsLibraryFile("/lib/libflopspy.so", CudaLibrary::kBlas));
  EXPECT_FALSE(IsLibraryFile("/opt/libcublas.so.13/libother.so", CudaLibrary::kBlas));
  EXPECT_TRUE(IsLibraryFile("libcudart-d0da41ae.so.11.0", CudaLibrary::kRuntime));
  EXPECT_FALSE(IsLibraryFile("libcuda.so.1", CudaLibrary::kRuntime));
  EXPECT_FALSE(IsLibraryFile("libcudart.so.13", CudaLibrary::kDriver));
  EXPECT_FALSE(IsLibraryFile(nullptr, CudaLibrary::kBlas));
}

class TwoCopiesTest : public ::testing::TestWithParam<std::tuple<const char*, const char*>> {};

// An extension module per copy: every call succeeds, reaches its own copy, and is recorded once
// with its own shapes, stream, pointer mode, math mode (TF32), legacy stream state and cuBLASLt
// descriptors.
TEST_P(TwoCopiesTest, EachModuleReachesItsOwnCopy) {
  const auto [first, second] = GetParam();
  const std::map<std::string, std::string> copy_line = {
      {FLOPSPY_EXT12, "copy libcublas.so.12 calls 6 cublas 5 cublasLt libcublasLt.so.12 1"},
      {FLOPSPY_EXT13, "copy libcublas.so.13 calls 6 cublas 5 cublasLt libcublasLt.so.13 1"},
      {FLOPSPY_EXT13_WHEEL,
       "copy libcublas-0c0ffee1.so.13 calls 6 cublas 5 cublasLt libcublasLt-0c0ffee1.so.13 1"}};
  const Outcome run = RunBothWays({FLOPSPY_DRIVER_DLOPEN, first, second}, kAllFakes);
  CheckUnchanged(run, 5);
  EXPECT_EQ(run.traced.err, run.plain.err);
  // Every status the modules saw is success.
  std::istringstream out(run.traced.out);
  size_t statuses = 0;
  for (std::string line; std::getline(out, line);) {
    const auto at = line.find("status=");
    if (at == std::string::npos) continue;
    ++statuses;
    EXPECT_EQ(line.substr(at), "status=0") << line;
  }
  EXPECT_EQ(statuses, 2u * 25);  // 25 calls per module, recorded or not
  // Each module's calls reached its own copy, and only its calls.
  EXPECT_EQ(LinesStartingWith(run.traced.out, "copy "),
            (std::vector<std::string>{copy_line.at(first), copy_line.at(second)}));
  // Each call recorded once, in order, every field as its module passed it.
  EXPECT_EQ(CheckRecords(run), 12u);
  for (const auto& c : run.trace.calls) EXPECT_EQ(c.record.status, 0) << c.name;
}

INSTANTIATE_TEST_SUITE_P(Copies, TwoCopiesTest,
                         ::testing::Values(std::tuple{FLOPSPY_EXT12, FLOPSPY_EXT13},
                                           std::tuple{FLOPSPY_EXT13, FLOPSPY_EXT12},
                                           std::tuple{FLOPSPY_EXT13, FLOPSPY_EXT13_WHEEL},
                                           std::tuple{FLOPSPY_EXT13_WHEEL, FLOPSPY_EXT13}),
                         [](const auto& param_info) {
                           const auto name = [](const std::string& path) {
                             return path == FLOPSPY_EXT12   ? std::string("cuda12")
                                    : path == FLOPSPY_EXT13 ? std::string("cuda13")
                                                            : std::string("wheel13");
                           };
                           return name(std::get<0>(param_info.param)) + "_then_" +
                                  name(std::get<1>(param_info.param));
                         });

TEST(RealCublasLt, DescriptorsDecodedAndErrorPassedThrough) {
  if (std::string(FLOPSPY_LT_REAL).empty()) GTEST_SKIP() << "no libcublasLt in the CUDA toolkit";
  const Outcome run = RunBothWays({FLOPSPY_LT_REAL}, "");
  CheckUnchanged(run, 6);
  const size_t checked = CheckRecords(run);
  EXPECT_EQ(checked, 9u);
  // Without a GPU every matmul fails; the program saw the library's own status.
  for (const auto& c : run.trace.calls) {
    EXPECT_NE(c.record.status, 0) << "a matmul succeeded without a GPU?";
    EXPECT_EQ(c.record.flops, 0);
  }
  // The FP8 case (third): E4M3 operands, BF16 C, E4M3 D with scale and amax pointers.
  ASSERT_GE(run.trace.calls.size(), 3u);
  const LibraryCallRecord& fp8 = run.trace.calls[2].record;
  EXPECT_EQ(fp8.type_a, analyzers::cuda_type::kR8FE4M3);
  EXPECT_EQ(fp8.type_c, analyzers::cuda_type::kR16BF);
  EXPECT_EQ(fp8.type_d, analyzers::cuda_type::kR8FE4M3);
  EXPECT_TRUE(fp8.flags & trace::kLibScalePointers);
  EXPECT_TRUE(fp8.flags & trace::kLibAmaxPointer);
  EXPECT_TRUE(fp8.flags & trace::kLibFastAccum);
  EXPECT_FALSE(fp8.flags & trace::kLibDescriptorIncomplete);
  // Figures as if it had run: FP8 GEMM 2mnk plus one bias add per output.
  LibraryCallRecord ran = fp8;
  ran.status = 0;
  const analyzers::BlasFigures f = analyzers::ComputeBlasFigures(ran);
  EXPECT_DOUBLE_EQ(f.flops, 2.0 * fp8.m * fp8.n * fp8.k);
  EXPECT_DOUBLE_EQ(f.epilogue_flops, 1.0 * fp8.m * fp8.n);
}

TEST(MissingCublas, HooksFailCleanlyAndSayOnce) {
  TempDir dir;
  ChildOptions options;
  options.env["LD_PRELOAD"] = kLibrary;
  options.env["FLOPSPY_OUT"] = dir.path();
  const ChildResult r = RunChild({FLOPSPY_MISSING}, options);
  ASSERT_TRUE(r.exited) << r.err;
  EXPECT_EQ(r.exit_code, 0);
  // CUBLAS_STATUS_NOT_INITIALIZED = 1 from the handle API, 0 from the legacy dot.
  EXPECT_EQ(r.out, "sgemm 1\nsdot 0\nsgemm 1\nsdot 0\nsgemm 1\nsdot 0\n");
  for (const char* name : {"cublasSgemm_v2", "cublasSdot", "cublasSscal"}) {
    const std::string line = std::string("no loaded library defines ") + name + " ";
    size_t count = 0;
    for (size_t at = r.err.find(line); at != std::string::npos; at = r.err.find(line, at + 1)) {
      ++count;
    }
    EXPECT_EQ(count, 1u) << name << " in:\n" << r.err;
  }
}

TEST(Disabled, HooksPassStraightThrough) {
  TempDir dir;
  ChildOptions options;
  options.env["LD_LIBRARY_PATH"] = kFakes13;
  options.unset.push_back("LD_PRELOAD");
  const ChildResult plain = RunChild({FLOPSPY_DRIVER13}, options);
  options.unset.clear();
  options.env["LD_PRELOAD"] = kLibrary;
  options.env["FLOPSPY_OUT"] = dir.path();
  options.env["FLOPSPY_ENABLE"] = "0";
  const ChildResult off = RunChild({FLOPSPY_DRIVER13}, options);
  ASSERT_TRUE(off.exited) << off.err;
  EXPECT_EQ(off.exit_code, 5);
  EXPECT_EQ(off.out, plain.out);  // including the fakes' call counts
  EXPECT_TRUE(dir.Files(".fspy").empty());
}

TEST(Exports, LibflopspyAndTheFakesExportEveryEntryPoint) {
  const auto flopspy = ExportedSymbols(kLibrary);
  for (const std::string& dir : {kFakes12, kFakes13}) {
    auto fakes =
        ExportedSymbols(dir + "/" + (dir == kFakes12 ? "libcublas.so.12" : "libcublas.so.13"));
    const auto lt =
        ExportedSymbols(dir + "/" + (dir == kFakes12 ? "libcublasLt.so.12" : "libcublasLt.so.13"));
    fakes.insert(lt.begin(), lt.end());
    for (const auto& entry : BlasEntryPoints()) {
      const std::string name(entry.name);
      EXPECT_TRUE(flopspy.contains(name)) << name << " not hooked";
      EXPECT_TRUE(fakes.contains(name)) << name << " not in the fake of " << dir;
    }
  }
  // Besides the table, cublasSetKernelStream: hooked to learn that the legacy stream changed.
  EXPECT_TRUE(flopspy.contains("cublasSetKernelStream"));
  size_t hooks = 0;
  for (const auto& name : flopspy) hooks += name.rfind("cublas", 0) == 0;
  EXPECT_EQ(hooks, BlasEntryPoints().size() + 1)
      << "libflopspy.so hooks a cuBLAS name not in the table";
}

}  // namespace
}  // namespace flopspy::testing
