// Native call stacks of sampled launches, end to end: stacks_app (programs/) launches through the
// fake libcuda.so.1 under LD_PRELOAD=libflopspy.so, from functions the test finds in the
// program's own symbol table (nm), and the trace must name them (docs/call-sites.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "flopspy/trace/reader.h"
#include "flopspy/trace/schema.h"
#include "subprocess.h"

namespace flopspy::testing {
namespace {

const std::string kLibrary = FLOPSPY_LIBRARY_PATH;
const std::string kApp = STACKS_APP;

struct Sample {
  trace::StackSampleRecord record;
  uint32_t thread;
};
struct Stack {
  trace::StackKind kind;
  bool truncated;
  std::vector<uint64_t> frames;
  uint32_t thread;
};
struct Module {
  std::string path;
  std::string build_id;
  trace::ModuleRecord record;
  uint32_t thread;
};

struct StackTrace {
  bool read_ok = false;
  std::vector<Sample> samples;
  std::multimap<uint64_t, Stack> stacks;  // every StackRecord, by id
  std::vector<Module> modules;
  std::map<uint64_t, uint32_t> launches;  // correlation: thread
  nlohmann::json metadata = nlohmann::json::object();

  const Stack* StackOf(uint64_t id, uint32_t thread) const {
    const auto [begin, end] = stacks.equal_range(id);
    for (auto it = begin; it != end; ++it) {
      if (it->second.thread == thread) return &it->second;
    }
    return nullptr;
  }
  // The module holding `address` among those this thread wrote.
  const Module* ModuleOf(uint64_t address, uint32_t thread) const {
    for (const Module& m : modules) {
      if (m.thread == thread && address >= m.record.start && address < m.record.end) return &m;
    }
    return nullptr;
  }
};

StackTrace ReadStacks(const std::string& path) {
  StackTrace t;
  trace::TraceReader reader = trace::TraceReader::OpenFile(path);
  if (!reader.header_ok()) return t;
  const trace::ReadSummary read = reader.ForEachRecord([&](const trace::RecordView& r) {
    switch (r.type) {
      case trace::RecordType::kStackSample:
        t.samples.push_back({r.As<trace::StackSampleRecord>(), r.thread_id});
        break;
      case trace::RecordType::kStack: {
        const auto s = r.As<trace::StackRecord>();
        Stack stack{static_cast<trace::StackKind>(s.kind),
                    (s.h.flags & trace::kStackTruncated) != 0,
                    {},
                    r.thread_id};
        if (stack.kind == trace::StackKind::kNative &&
            sizeof(s) + s.depth * sizeof(uint64_t) <= r.bytes.size()) {
          stack.frames.resize(s.depth);
          std::memcpy(stack.frames.data(), r.bytes.data() + sizeof(s), s.depth * sizeof(uint64_t));
        }
        t.stacks.emplace(s.stack_id, std::move(stack));
        break;
      }
      case trace::RecordType::kModule: {
        const auto m = r.As<trace::ModuleRecord>();
        t.modules.push_back({std::string(r.Text(sizeof(m), m.path_length)),
                             std::string(r.Text(sizeof(m) + m.path_length, m.build_id_length)), m,
                             r.thread_id});
        break;
      }
      case trace::RecordType::kKernelLaunch:
        t.launches[r.As<trace::KernelLaunchRecord>().correlation] = r.thread_id;
        break;
      case trace::RecordType::kMetadata: {
        const auto block = r.As<trace::MetadataBlock>();
        const auto json =
            nlohmann::json::parse(r.Text(sizeof(block), block.length), nullptr, false);
        if (json.is_object()) t.metadata.merge_patch(json);
        break;
      }
      default:
        break;
    }
  });
  t.read_ok = read.status == trace::ReadStatus::kOk;
  return t;
}

struct AppRun {
  ChildResult child;
  StackTrace trace;
};

// The app under libflopspy.so on the fake driver, writing its traces into `out`.
ChildOptions AppOptions(const TempDir& out) {
  ChildOptions options;
  options.env = {{"LD_PRELOAD", kLibrary},
                 {"LD_LIBRARY_PATH", FAKECUDA_DRIVER_DIR},
                 {"FLOPSPY_OUT", out.path()},
                 {"FLOPSPY_GPU_TIMING", "off"},
                 {"FLOPSPY_CPU_ROOFLINE", "off"}};
  options.unset = {"FLOPSPY_STACKS", "FLOPSPY_STACK_SAMPLE"};
  return options;
}

AppRun RunApp(const std::string& app, const std::vector<std::string>& args,
              const std::map<std::string, std::string>& env = {}) {
  TempDir out;
  ChildOptions options = AppOptions(out);
  for (const auto& [k, v] : env) options.env[k] = v;
  std::vector<std::string> argv = {app};
  argv.insert(argv.end(), args.begin(), args.end());
  AppRun run{RunChild(argv, options), {}};
  const auto files = out.Files(".fspy");
  if (files.size() == 1) run.trace = ReadStacks(files[0]);
  return run;
}

// Link-time [start, end) of the program's functions, from its symbol table.
std::map<std::string, std::pair<uint64_t, uint64_t>> FunctionsOf(const std::string& program) {
  std::map<std::string, std::pair<uint64_t, uint64_t>> out;
  FILE* nm = popen(("nm -S --defined-only '" + program + "' 2>/dev/null").c_str(), "r");
  if (nm == nullptr) return out;
  char line[1024];
  while (std::fgets(line, sizeof(line), nm) != nullptr) {
    std::istringstream words(line);
    std::string address, size, type, name;
    if (!(words >> address >> size >> type >> name)) continue;
    if (type != "T" && type != "t") continue;
    const uint64_t start = std::stoull(address, nullptr, 16);
    out[name] = {start, start + std::stoull(size, nullptr, 16)};
  }
  pclose(nm);
  return out;
}

// The functions of `program` the frames of a stack return into, innermost first ("?" if none).
std::vector<std::string> FunctionsOnStack(const StackTrace& t, const Stack& stack,
                                          const std::string& program) {
  const auto functions = FunctionsOf(program);
  std::vector<std::string> names;
  for (const uint64_t address : stack.frames) {
    const Module* m = t.ModuleOf(address, stack.thread);
    std::string found = "?";
    if (m != nullptr && m->path == program) {
      // A return address follows its call: the call is in the function holding address - 1.
      const uint64_t at = address - 1 - m->record.bias;
      for (const auto& [name, range] : functions) {
        if (at >= range.first && at < range.second) found = name;
      }
    }
    names.push_back(found);
  }
  return names;
}

bool Has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string Joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : " ") + n;
  return out;
}

// Every frame of every stack lies in a module its thread wrote.
void ExpectModulesCoverFrames(const StackTrace& t) {
  for (const auto& [id, stack] : t.stacks) {
    for (const uint64_t address : stack.frames) {
      EXPECT_NE(t.ModuleOf(address, stack.thread), nullptr)
          << "frame 0x" << std::hex << address << " of stack " << id << " in no module";
    }
  }
}

TEST(NativeStacks, FirstLaunchOfEachSignatureHasItsStack) {
  const AppRun run = RunApp(kApp, {"basic"});
  ASSERT_EQ(run.child.exit_code, 0) << run.child.err;
  const StackTrace& t = run.trace;
  ASSERT_TRUE(t.read_ok);
  EXPECT_EQ(t.launches.size(), 5u);
  ASSERT_EQ(t.samples.size(), 2u) << "one per signature: the repeats are not sampled (N=32)";
  const std::vector<std::string> outer = {"stacks_outer_a", "stacks_outer_b"};
  for (size_t i = 0; i < 2; ++i) {
    const auto& s = t.samples[i].record;
    EXPECT_EQ(s.reason, static_cast<uint8_t>(trace::StackSampleReason::kNewSignature));
    EXPECT_EQ(s.python_stack, 0u) << "not a Python process";
    EXPECT_EQ(s.sample_every, 32u);
    EXPECT_TRUE(t.launches.contains(s.correlation));
    ASSERT_NE(s.native_stack, 0u);
    const Stack* stack = t.StackOf(s.native_stack, t.samples[i].thread);
    ASSERT_NE(stack, nullptr) << "the stack is written on the sample's thread";
    EXPECT_EQ(stack->kind, trace::StackKind::kNative);
    const auto names = FunctionsOnStack(t, *stack, kApp);
    ASSERT_FALSE(names.empty());
    // flopspy's own frames are left out: the innermost is the program's call of cuLaunchKernel.
    EXPECT_EQ(names[0], "stacks_launch") << Joined(names);
    EXPECT_TRUE(Has(names, outer[i])) << Joined(names);
    EXPECT_FALSE(Has(names, outer[1 - i])) << Joined(names);
    EXPECT_TRUE(Has(names, "main")) << Joined(names);
  }
  EXPECT_NE(t.samples[0].record.native_stack, t.samples[1].record.native_stack);
  ExpectModulesCoverFrames(t);
  bool program_listed = false;
  for (const Module& m : t.modules) {
    if (m.path != kApp) continue;
    program_listed = true;
    EXPECT_EQ(m.build_id.size(), 20u) << "the GNU build id of the program";
    EXPECT_LE(m.record.start, m.record.end);
  }
  EXPECT_TRUE(program_listed);
  EXPECT_EQ(t.metadata["call_sites"]["stacks"], "auto");
  EXPECT_EQ(t.metadata["call_sites"]["stack_sample"], 32);
}

TEST(NativeStacks, OneInNOfASignaturesLaunches) {
  const AppRun run = RunApp(kApp, {"repeat", "1000"}, {{"FLOPSPY_STACK_SAMPLE", "4"}});
  ASSERT_EQ(run.child.exit_code, 0) << run.child.err;
  const StackTrace& t = run.trace;
  EXPECT_EQ(t.launches.size(), 1000u);
  // The first, then one in 4 of the 999 others on average (intervals drawn from 2 to 6): about
  // 250, with a standard deviation near 6.
  ASSERT_GE(t.samples.size(), 200u);
  ASSERT_LE(t.samples.size(), 300u);
  EXPECT_EQ(t.samples[0].record.reason,
            static_cast<uint8_t>(trace::StackSampleReason::kNewSignature));
  std::set<uint64_t> ids;
  for (size_t i = 1; i < t.samples.size(); ++i) {
    EXPECT_EQ(t.samples[i].record.reason, static_cast<uint8_t>(trace::StackSampleReason::kSampled));
    EXPECT_EQ(t.samples[i].record.sample_every, 4u);
  }
  for (const Sample& s : t.samples) ids.insert(s.record.native_stack);
  EXPECT_EQ(ids.size(), 1u) << "one call path, one stack";
  EXPECT_EQ(t.stacks.count(*ids.begin()), 1u) << "its frames are written once";
  EXPECT_EQ(t.metadata["call_sites"]["stack_sample"], 4);
}

// Two call paths of one signature in turn: a fixed interval of 4 would put every sample on the
// same path; drawn intervals give each path about half.
TEST(NativeStacks, SamplesDoNotAliasWithAlternatingCallPaths) {
  const AppRun run = RunApp(kApp, {"alternate", "2000"}, {{"FLOPSPY_STACK_SAMPLE", "4"}});
  ASSERT_EQ(run.child.exit_code, 0) << run.child.err;
  std::map<uint64_t, size_t> per_stack;
  for (const Sample& s : run.trace.samples) ++per_stack[s.record.native_stack];
  ASSERT_EQ(per_stack.size(), 2u);
  for (const auto& [id, count] : per_stack) {
    EXPECT_GE(count, run.trace.samples.size() * 35 / 100) << "stack " << id;
  }
}

// A fork child starts its module list over (another thread of the parent may have held its lock)
// and still describes the modules of its own new stacks, in its own trace.
TEST(NativeStacks, AForkChildTakesItsOwnStacks) {
  TempDir out;
  const ChildOptions options = AppOptions(out);
  const ChildResult child = RunChild({kApp, "fork"}, options);
  ASSERT_TRUE(child.exited && child.exit_code == 0) << child.err;
  const auto files = out.Files(".fspy");
  ASSERT_EQ(files.size(), 2u);
  for (const std::string& file : files) {
    const StackTrace t = ReadStacks(file);
    ASSERT_EQ(t.samples.size(), 1u) << file;
    EXPECT_NE(t.StackOf(t.samples[0].record.native_stack, t.samples[0].thread), nullptr) << file;
    ExpectModulesCoverFrames(t);
  }
}

TEST(NativeStacks, OffTakesNone) {
  const AppRun run = RunApp(kApp, {"basic"}, {{"FLOPSPY_STACKS", "off"}});
  ASSERT_EQ(run.child.exit_code, 0) << run.child.err;
  EXPECT_EQ(run.trace.launches.size(), 5u);
  EXPECT_TRUE(run.trace.samples.empty());
  EXPECT_TRUE(run.trace.stacks.empty());
  EXPECT_TRUE(run.trace.modules.empty());
  EXPECT_EQ(run.trace.metadata["call_sites"]["stacks"], "off");
}

TEST(NativeStacks, ABadPolicyWarnsOnceAndKeepsTheDefault) {
  const AppRun run = RunApp(kApp, {"basic"}, {{"FLOPSPY_STACKS", "sometimes"}});
  ASSERT_EQ(run.child.exit_code, 0) << run.child.err;
  std::istringstream err(run.child.err);
  std::string line;
  int warnings = 0;
  while (std::getline(err, line)) {
    if (line.find("FLOPSPY_STACKS") == std::string::npos) continue;
    ++warnings;
    EXPECT_EQ(line.rfind("flopspy: ", 0), 0u) << line;
  }
  EXPECT_EQ(warnings, 1) << run.child.err;
  ASSERT_EQ(run.trace.samples.size(), 2u);
  EXPECT_NE(run.trace.samples[0].record.native_stack, 0u);
  EXPECT_EQ(run.trace.metadata["call_sites"]["stacks"], "auto");
}

TEST(NativeStacks, AStrippedProgramStillHasStacksAndModules) {
  TempDir dir;
  const std::string stripped = dir.path() + "/stacks_app_stripped";
  ASSERT_EQ(std::system(("objcopy --strip-all '" + kApp + "' '" + stripped + "'").c_str()), 0);
  EXPECT_TRUE(FunctionsOf(stripped).empty()) << "no symbol table left";
  const AppRun run = RunApp(stripped, {"basic"});
  ASSERT_EQ(run.child.exit_code, 0) << run.child.err;
  const StackTrace& t = run.trace;
  ASSERT_EQ(t.samples.size(), 2u);
  for (const Sample& s : t.samples) {
    const Stack* stack = t.StackOf(s.record.native_stack, s.thread);
    ASSERT_NE(stack, nullptr);
    ASSERT_FALSE(stack->frames.empty());
    const Module* innermost = t.ModuleOf(stack->frames[0], s.thread);
    ASSERT_NE(innermost, nullptr);
    EXPECT_EQ(innermost->path, stripped);
    EXPECT_EQ(innermost->build_id.size(), 20u) << "strip keeps the build id note";
  }
  ExpectModulesCoverFrames(t);
}

TEST(NativeStacks, ASecondThreadsStacksAreItsOwn) {
  const AppRun run = RunApp(kApp, {"threads"});
  ASSERT_EQ(run.child.exit_code, 0) << run.child.err;
  const StackTrace& t = run.trace;
  ASSERT_EQ(t.samples.size(), 2u) << "the signature is new on each thread";
  ASSERT_NE(t.samples[0].thread, t.samples[1].thread);
  std::map<uint32_t, std::vector<std::string>> names;
  for (const Sample& s : t.samples) {
    EXPECT_EQ(s.record.reason, static_cast<uint8_t>(trace::StackSampleReason::kNewSignature));
    EXPECT_EQ(t.launches.at(s.record.correlation), s.thread);
    const Stack* stack = t.StackOf(s.record.native_stack, s.thread);
    ASSERT_NE(stack, nullptr) << "each thread writes the stacks it uses";
    names[s.thread] = FunctionsOnStack(t, *stack, kApp);
  }
  // The second thread's stack is the one through stacks_thread_body (chunks of the two threads
  // may come in either order).
  const bool second_first = Has(names[t.samples[0].thread], "stacks_thread_body");
  const auto& second = names[t.samples[second_first ? 0 : 1].thread];
  const auto& main_thread = names[t.samples[second_first ? 1 : 0].thread];
  EXPECT_TRUE(Has(second, "stacks_thread_body")) << Joined(second);
  EXPECT_FALSE(Has(second, "stacks_outer_a")) << Joined(second);
  EXPECT_FALSE(Has(second, "main")) << Joined(second);
  EXPECT_TRUE(Has(main_thread, "stacks_outer_a")) << Joined(main_thread);
  EXPECT_TRUE(Has(main_thread, "main")) << Joined(main_thread);
  EXPECT_FALSE(Has(main_thread, "stacks_thread_body")) << Joined(main_thread);
  ExpectModulesCoverFrames(t);
}

}  // namespace
}  // namespace flopspy::testing
