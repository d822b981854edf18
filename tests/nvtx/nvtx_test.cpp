// The NVTX receiver end to end: a client of two NVTX modules (two loaders) under plain
// LD_PRELOAD and under `flopspy run`; every mark, range edge and name comes back from the trace
// with its name, domain, nesting and range id (docs/nvtx.md).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "flopspy/trace/reader.h"
#include "subprocess.h"
#include "test_programs.h"

namespace flopspy::testing {
namespace {

using trace::NamedResource;
using trace::RangeEdge;

const std::string kLibrary = FLOPSPY_LIBRARY_PATH;
const std::string kClient = FLOPSPY_NVTX_CLIENT_PATH;
const std::string kNcclClient = FLOPSPY_NVTX_NCCL_CLIENT_PATH;

struct Range {
  RangeEdge edge;
  std::string name;
  std::string domain;
  uint64_t id;
  uint32_t thread;
  uint32_t category;
  uint32_t color;
  // From the RangePayloadRecord right after it, if any.
  uint32_t payload_flags = 0;
  uint64_t bytes = 0;
  uint64_t comm = 0;
  std::string op;
};

struct Named {
  NamedResource resource;
  uint64_t handle;
  std::string name;
  std::string domain;
};

struct NvtxTrace {
  std::vector<Range> ranges;  // in file order (per thread, in call order)
  std::vector<Named> names;
  std::vector<std::string> warnings;
  bool ok = false;
};

NvtxTrace Read(const std::string& path) {
  NvtxTrace t;
  trace::TraceReader reader = trace::TraceReader::OpenFile(path);
  if (!reader.header_ok()) return t;
  const auto text = [&reader](uint32_t id) {
    return id == 0 ? std::string() : std::string(reader.String(id));
  };
  std::map<uint32_t, size_t> last_range;  // per thread: the payload's range
  bool payload_follows_range = true;
  const trace::ReadSummary summary = reader.ForEachRecord([&](const trace::RecordView& r) {
    if (r.type == trace::RecordType::kRangePayload) {
      const auto x = r.As<trace::RangePayloadRecord>();
      const auto at = last_range.find(r.thread_id);
      if (at == last_range.end() || t.ranges[at->second].payload_flags != 0) {
        payload_follows_range = false;
        return;
      }
      Range& range = t.ranges[at->second];
      range.payload_flags = x.flags;
      range.bytes = x.bytes;
      range.comm = x.comm;
      range.op = text(x.op);
      return;
    }
    if (r.type == trace::RecordType::kRange) {
      last_range[r.thread_id] = t.ranges.size();
      const auto x = r.As<trace::RangeRecord>();
      t.ranges.push_back({static_cast<RangeEdge>(x.edge), text(x.name), text(x.domain), x.range_id,
                          r.thread_id, x.category, x.color, 0, 0, 0, ""});
    } else if (r.type == trace::RecordType::kResourceName) {
      const auto x = r.As<trace::ResourceNameRecord>();
      t.names.push_back(
          {static_cast<NamedResource>(x.resource), x.handle, text(x.name), text(x.domain)});
    } else if (r.type == trace::RecordType::kWarning) {
      t.warnings.push_back(text(r.As<trace::WarningRecord>().message));
    }
  });
  t.ok = summary.status == trace::ReadStatus::kOk && summary.ended_cleanly && payload_follows_range;
  return t;
}

size_t Count(const NvtxTrace& t, RangeEdge edge) {
  size_t n = 0;
  for (const Range& r : t.ranges) n += r.edge == edge ? 1 : 0;
  return n;
}

class NvtxTest : public ::testing::Test {
 protected:
  ChildResult RunClient(ChildOptions options, bool launcher) {
    options.env.emplace("FLOPSPY_FLUSH_MS", "10");
    if (!launcher) {
      options.env.emplace("LD_PRELOAD", kLibrary);
      options.env.emplace("FLOPSPY_OUT", dir_.path());
      return RunChild({kClient}, options);
    }
    options.env.emplace("FLOPSPY_LIBRARY", kLibrary);
    options.unset.push_back("LD_PRELOAD");
    return RunChild({kLauncher, "run", "-o", dir_.path(), "--", kClient}, options);
  }

  NvtxTrace OnlyTrace() {
    const auto traces = dir_.Files(".fspy");
    EXPECT_EQ(traces.size(), 1u);
    return traces.empty() ? NvtxTrace{} : Read(traces.front());
  }

  // Everything nvtx_module.cpp makes, once per module.
  void ExpectBothModules(const NvtxTrace& t) {
    ASSERT_TRUE(t.ok);
    EXPECT_EQ(t.ranges.size(), 24u);
    EXPECT_EQ(Count(t, RangeEdge::kPush), 6u);
    EXPECT_EQ(Count(t, RangeEdge::kPop), 6u);  // the pop with nothing open is not recorded
    EXPECT_EQ(Count(t, RangeEdge::kMark), 4u);
    EXPECT_EQ(Count(t, RangeEdge::kStart), 4u);
    EXPECT_EQ(Count(t, RangeEdge::kEnd), 4u);
    // The main thread's events in order (ends aside): module a's, then module b's, nested as
    // the program made them.
    uint32_t main_thread = 0;
    for (const Range& r : t.ranges) {
      if (r.name == "outer-a") main_thread = r.thread;
    }
    std::vector<std::string> sequence;
    for (const Range& r : t.ranges) {
      if (r.thread != main_thread || r.edge == RangeEdge::kEnd) continue;
      sequence.push_back(std::string(trace::RangeEdgeName(r.edge)) + ":" + r.name + "@" + r.domain);
    }
    std::vector<std::string> expected;
    for (const std::string m : {"a", "b"}) {
      const std::vector<std::string> module = {
          "push:outer-" + m + "@",
          "push:inner-" + m + "-\u00e9@",
          "mark:mark-" + m + "@",
          "pop:@",
          "pop:@",
          "push:registered-" + m + "@dom-" + m,
          "mark:dmark-" + m + "@dom-" + m,
          "pop:@dom-" + m,
          "start:start-" + m + "@",
          "start:dstart-" + m + "@dom-" + m,
      };
      expected.insert(expected.end(), module.begin(), module.end());
    }
    EXPECT_EQ(sequence, expected);
    for (const std::string m : {"a", "b"}) {
      SCOPED_TRACE(m);
      // Category and colour of the registered push.
      for (const Range& r : t.ranges) {
        if (r.name == "registered-" + m) {
          EXPECT_EQ(r.category, 3u);
          EXPECT_EQ(r.color, 0xFF00FF00u);
        }
      }
      // Each start is ended once with its id; the domain range on another thread.
      std::map<std::string, Range> starts;
      for (const Range& r : t.ranges) {
        if (r.edge == RangeEdge::kStart && r.name.ends_with(m)) starts.emplace(r.name, r);
      }
      ASSERT_EQ(starts.size(), 2u);
      for (const auto& [name, start] : starts) {
        int ends = 0;
        for (const Range& r : t.ranges) {
          if (r.edge != RangeEdge::kEnd || r.id != start.id) continue;
          ++ends;
          EXPECT_EQ(r.domain, start.domain) << name;
          if (name == "dstart-" + m) {
            EXPECT_NE(r.thread, start.thread) << "ended by another thread";
            EXPECT_EQ(start.domain, "dom-" + m);
          } else {
            EXPECT_EQ(r.thread, start.thread);
          }
        }
        EXPECT_EQ(ends, 1) << name;
      }
      // Names: the thread, a category in each domain, a stream and a device.
      std::set<std::string> named;
      for (const Named& n : t.names) {
        if (!n.name.ends_with(m)) continue;
        named.insert(std::string(trace::NamedResourceName(n.resource)) + ":" +
                     std::to_string(n.handle) + ":" + n.name + "@" + n.domain);
      }
      const std::set<std::string> expected_names = {
          "category:7:cat-" + m + "@",
          "category:3:dcat-" + m + "@dom-" + m,
          "stream:" + std::to_string(0x1234) + ":stream-" + m + "@",
          "device:0:gpu-" + m + "@",
          "thread:" + std::to_string(main_thread) + ":main-" + m + "@",
      };
      EXPECT_EQ(named, expected_names);
    }
    EXPECT_EQ(t.names.size(), 10u);
    // Range ids are unique across modules.
    std::set<uint64_t> ids;
    for (const Range& r : t.ranges) {
      if (r.edge == RangeEdge::kStart) ids.insert(r.id);
    }
    EXPECT_EQ(ids.size(), 4u);
  }

  TempDir dir_;
};

// What NVTX returned: push levels, pop levels (-1: nothing open), unique ids.
const std::string kReturned = "0 1 1 0 -1 0 0 ids-unique";

TEST_F(NvtxTest, PlainPreloadSetsTheVariableAndRecordsBothModules) {
  ChildOptions options;
  options.unset.push_back("NVTX_INJECTION64_PATH");
  const ChildResult r = RunClient(options, /*launcher=*/false);
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.err;
  EXPECT_NE(r.out.find("a: " + kReturned + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("b: " + kReturned + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("injection: /"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("libflopspy.so"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("NVTX"), std::string::npos) << r.err;
  ExpectBothModules(OnlyTrace());
}

TEST_F(NvtxTest, FlopspyRunSetsTheVariableForTheChild) {
  ChildOptions options;
  options.unset.push_back("NVTX_INJECTION64_PATH");
  const ChildResult r = RunClient(options, /*launcher=*/true);
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.err;
  EXPECT_NE(r.out.find("a: " + kReturned + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("injection: " + kLibrary + "\n"), std::string::npos) << r.out;
  ExpectBothModules(OnlyTrace());
}

TEST_F(NvtxTest, AnotherToolsVariableIsLeftAndSaidOnce) {
  ChildOptions options;
  options.env.emplace("NVTX_INJECTION64_PATH", "/nonexistent/libother-tool.so");
  const ChildResult r = RunClient(options, /*launcher=*/false);
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.err;
  EXPECT_NE(r.out.find("injection: /nonexistent/libother-tool.so\n"), std::string::npos);
  // NVTX itself found no tool: pushes return its no-op value.
  const std::string needle = "NVTX_INJECTION64_PATH names another tool";
  const size_t at = r.err.find(needle);
  ASSERT_NE(at, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(needle, at + 1), std::string::npos) << "said once";
  const NvtxTrace t = OnlyTrace();
  EXPECT_TRUE(t.ranges.empty());
  int said = 0;  // other warnings (no CUPTI on this machine) may be there too
  for (const std::string& w : t.warnings) said += w.find(needle) != std::string::npos ? 1 : 0;
  EXPECT_EQ(said, 1);
}

TEST_F(NvtxTest, SwitchedOffRecordsNothingAndLeavesTheVariable) {
  ChildOptions options;
  options.unset.push_back("NVTX_INJECTION64_PATH");
  options.env.emplace("FLOPSPY_NVTX", "0");
  const ChildResult r = RunClient(options, /*launcher=*/true);
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.err;
  EXPECT_NE(r.out.find("injection: (unset)\n"), std::string::npos) << r.out;
  // With no NVTX record the process may leave no trace at all.
  for (const std::string& path : dir_.Files(".fspy")) EXPECT_TRUE(Read(path).ranges.empty());
}

// --capture-range nvtx:NAME: recording opens at the push of that range and closes at its pop,
// so only what the program did inside it is in the trace.
TEST_F(NvtxTest, CaptureRangeKeepsOnlyWhatHappenedInsideThatRange) {
  ChildOptions options;
  options.unset.push_back("NVTX_INJECTION64_PATH");
  options.env.emplace("FLOPSPY_CAPTURE_RANGE", "nvtx:outer-a");
  const ChildResult r = RunClient(options, /*launcher=*/false);
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.err;
  const NvtxTrace t = OnlyTrace();
  ASSERT_TRUE(t.ok);
  std::vector<std::string> sequence;
  for (const Range& x : t.ranges) {
    sequence.push_back(std::string(trace::RangeEdgeName(x.edge)) + ":" + x.name);
  }
  const std::vector<std::string> expected = {"push:outer-a", "push:inner-a-\u00e9", "mark:mark-a",
                                             "pop:", "pop:"};
  EXPECT_EQ(sequence, expected);
}

// NCCL's payloads: the message size, reduction and communicator of each collective become
// figures on its range; an unregistered schema and a payload too short are skipped, not read.
TEST_F(NvtxTest, NcclPayloadsBecomeFiguresOnTheirRanges) {
  ChildOptions options;
  options.unset.push_back("NVTX_INJECTION64_PATH");
  options.env.emplace("FLOPSPY_FLUSH_MS", "10");
  options.env.emplace("LD_PRELOAD", kLibrary);
  options.env.emplace("FLOPSPY_OUT", dir_.path());
  const ChildResult r = RunChild({kNcclClient}, options);
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.err;
  EXPECT_NE(r.out.find("enum: ok\nschema: ok\npushes: 0 0 0 0\n"), std::string::npos) << r.out;
  const NvtxTrace t = OnlyTrace();
  ASSERT_TRUE(t.ok);
  std::vector<std::string> pushes;
  for (const Range& x : t.ranges) {
    if (x.edge != RangeEdge::kPush) continue;
    EXPECT_EQ(x.domain, "NCCL");
    pushes.push_back(x.name + " " + std::to_string(x.payload_flags) + " " +
                     std::to_string(x.bytes) + " " + x.op + " " + std::to_string(x.comm));
  }
  const uint32_t all = trace::kPayloadBytes | trace::kPayloadOp | trace::kPayloadComm;
  const std::vector<std::string> expected = {
      "ncclAllReduce " + std::to_string(all) + " 4096 Sum " + std::to_string(0xC0FFEE),
      "ncclAllReduce " + std::to_string(all) + " 1048576 Max " + std::to_string(0xC0FFEE),
      "unknownSchema 0 0  0",
      "tooShort " + std::to_string(trace::kPayloadComm) + " 0  " + std::to_string(0xC0FFEE),
      "ncclBroadcast 0 0  0",
  };
  EXPECT_EQ(pushes, expected);
}

}  // namespace
}  // namespace flopspy::testing
