// Python call sites end to end: a Python program launches on the fake driver from known lines
// through ctypes (the GIL released around the call, as PyTorch does) under LD_PRELOAD; the
// trace's stack samples must name those lines once decoded as the report decodes them
// (docs/call-sites.md). Run once per interpreter found (FLOPSPY_TEST_PYTHON).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "flopspy/analyzers/call_sites.h"
#include "flopspy/trace/reader.h"
#include "subprocess.h"

namespace flopspy::testing {
namespace {

const std::string kLibrary = FLOPSPY_LIBRARY_PATH;
const std::string kDriverDir = FAKECUDA_DRIVER_DIR;
const std::string kProgram = CALLSITE_PROGRAM;

std::string Python() {
  const char* python = std::getenv("FLOPSPY_TEST_PYTHON");
  return python != nullptr ? python : "/usr/bin/python3";
}

struct Frame {
  std::string file, name;
  int line = 0;
};

struct Sample {
  uint32_t thread = 0;
  trace::StackSampleReason reason{};
  std::vector<Frame> python;  // innermost first
  size_t native_depth = 0;
  bool native_in_modules = true;  // every native frame lies in a listed module
};

struct ProgramRun {
  ChildResult child;
  std::map<std::string, int> sites;  // "site NAME LINE" lines the program printed
  std::vector<Sample> samples;
  size_t modules = 0;
  uint64_t damaged = 0;
};

ProgramRun RunProgram(std::map<std::string, std::string> env) {
  TempDir dir;
  ChildOptions options;
  options.env = std::move(env);
  options.env.emplace("LD_PRELOAD", kLibrary);
  options.env.emplace("LD_LIBRARY_PATH", kDriverDir);
  options.env.emplace("FLOPSPY_OUT", dir.path());
  options.env.emplace("PYTHONDONTWRITEBYTECODE", "1");
  ProgramRun run;
  run.child = RunChild({Python(), kProgram}, options);
  std::istringstream lines(run.child.out);
  std::string word, name;
  int line = 0;
  while (lines >> word >> name >> line) {
    if (word == "site") run.sites[name] = line;
  }
  const auto traces = dir.Files(".fspy");
  if (traces.size() != 1) return run;
  trace::TraceReader reader = trace::TraceReader::OpenFile(traces.front());
  analyzers::CallSiteCollector collector;
  const analyzers::StringLookup strings = [&reader](uint32_t id) { return reader.String(id); };
  reader.ForEachRecord([&](const trace::RecordView& r) { collector.Add(r, strings); });
  const analyzers::CallSiteLog log = collector.Finish();
  run.modules = log.modules.size();
  run.damaged = log.damaged;
  for (const analyzers::StackSample& s : log.samples) {
    Sample sample;
    sample.thread = s.thread;
    sample.reason = s.reason;
    if (const auto stack = log.stacks.find(s.python_stack); stack != log.stacks.end()) {
      for (const trace::PyFrame& f : stack->second.python) {
        const auto code = log.codes.find(f.code_key);
        if (code == log.codes.end()) {
          sample.python.push_back({"?", "?", 0});
          continue;
        }
        sample.python.push_back({code->second.filename, code->second.name,
                                 analyzers::PythonLineOf(code->second, f.instr_offset)});
      }
    }
    if (const auto stack = log.stacks.find(s.native_stack); stack != log.stacks.end()) {
      sample.native_depth = stack->second.native.size();
      for (uint64_t address : stack->second.native) {
        bool inside = false;
        for (const analyzers::NativeModule& m : log.modules) {
          inside = inside || (address >= m.start && address < m.end);
        }
        sample.native_in_modules = sample.native_in_modules && inside;
      }
    }
    run.samples.push_back(std::move(sample));
  }
  return run;
}

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

class CallSites : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(Python().c_str(), X_OK) != 0) GTEST_SKIP() << Python() << " is not here";
  }
};

TEST_F(CallSites, EveryPythonSampleNamesTheLinesThatLaunched) {
  const ProgramRun run = RunProgram({{"FLOPSPY_STACK_SAMPLE", "8"}});
  ASSERT_TRUE(run.child.exited && run.child.exit_code == 0) << run.child.err;
  ASSERT_EQ(run.sites.size(), 4u) << run.child.out;
  EXPECT_EQ(run.damaged, 0u);
  std::map<std::string, int> by_caller;  // the launch helper's caller -> samples
  std::set<uint32_t> threads;
  for (const Sample& s : run.samples) {
    ASSERT_GE(s.python.size(), 3u) << "a sample without its Python stack";
    const Frame& inner = s.python[0];
    EXPECT_TRUE(EndsWith(inner.file, "callsite_program.py")) << inner.file;
    EXPECT_EQ(inner.name, "launch");
    EXPECT_EQ(inner.line, run.sites.at("launch"));
    const Frame& caller = s.python[1];
    std::string site = caller.name == "on_a_thread" ? "thread" : caller.name;
    if (EndsWith(caller.name, "forward")) site = "Block.forward";  // co_name before 3.11
    ASSERT_TRUE(run.sites.count(site)) << "unexpected caller " << caller.name;
    EXPECT_EQ(caller.line, run.sites.at(site)) << site;
    ++by_caller[site];
    threads.insert(s.thread);
    EXPECT_EQ(s.native_depth, 0u) << "native stacks are not taken by default in Python";
  }
  // 40 launches of a signature: the first, then one in 8 of the next 39 on average (intervals
  // drawn from 4 to 12).
  EXPECT_GE(by_caller["attention"], 2);
  EXPECT_LE(by_caller["attention"], 15);
  EXPECT_GE(by_caller["Block.forward"], 2);
  EXPECT_LE(by_caller["Block.forward"], 15);
  EXPECT_EQ(by_caller["thread"], 1);  // its own thread: a new signature there
  EXPECT_EQ(threads.size(), 2u);
}

TEST_F(CallSites, BothKindsOfStackWhenAskedAndNoneWhenOff) {
  const ProgramRun both = RunProgram({{"FLOPSPY_STACKS", "both"}});
  ASSERT_TRUE(both.child.exited && both.child.exit_code == 0) << both.child.err;
  ASSERT_FALSE(both.samples.empty());
  EXPECT_GT(both.modules, 0u);
  for (const Sample& s : both.samples) {
    EXPECT_FALSE(s.python.empty());
    EXPECT_GT(s.native_depth, 0u);
    EXPECT_TRUE(s.native_in_modules) << "a native frame outside every listed module";
  }
  const ProgramRun off = RunProgram({{"FLOPSPY_STACKS", "off"}});
  ASSERT_TRUE(off.child.exited && off.child.exit_code == 0) << off.child.err;
  EXPECT_TRUE(off.samples.empty());
}

}  // namespace
}  // namespace flopspy::testing
