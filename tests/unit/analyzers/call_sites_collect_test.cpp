// CallSiteCollector on hand-made records: well-formed ones kept once (the first of a code key or
// stack id, modules without duplicates), hostile ones (lengths past the record's end, too deep,
// unknown kinds, cut short) counted as damaged and skipped without reading out of bounds.
#include <gtest/gtest.h>

#include "call_site_records.h"
#include "flopspy/analyzers/call_sites.h"

namespace flopspy::analyzers {
namespace {

trace::RecordView View(const std::vector<uint8_t>& bytes, uint32_t thread = 7) {
  trace::RecordView v{};
  v.type = static_cast<trace::RecordType>(bytes.at(0));
  v.flags = bytes.at(1);
  v.bytes = bytes;
  v.thread_id = thread;
  v.source = trace::ChunkSource::kThread;
  return v;
}

template <class T>
std::vector<uint8_t> Bytes(const T& record) {
  std::vector<uint8_t> bytes(sizeof(T));
  std::memcpy(bytes.data(), &record, sizeof(T));
  return bytes;
}

const StringLookup kNoStrings = [](uint32_t) { return std::string_view(); };

TEST(CallSiteCollector, KeepsTheFirstOfEachCodeAndStackAndEachModuleOnce) {
  CallSiteCollector c;
  c.Add(View(testing::PyCode(1, "model.py", "f", 10, "\x01\x02", 0x030A)), kNoStrings);
  c.Add(View(testing::PyCode(1, "other.py", "g", 20, "")), kNoStrings);  // another thread's
  c.Add(View(testing::PythonStack(100, {{1, 6}}, /*truncated=*/true)), kNoStrings);
  c.Add(View(testing::PythonStack(100, {{1, 8}, {1, 2}})), kNoStrings);
  c.Add(View(testing::NativeStack(200, {0x1000, 0x2000})), kNoStrings);
  for (int thread = 0; thread < 3; ++thread) {
    c.Add(View(testing::Module("/usr/lib/libcuda.so.1", "\xde\xad", 5, 10, 20)), kNoStrings);
  }
  c.Add(View(testing::Module("/usr/lib/libcuda.so.1", "\xde\xad", 5, 30, 40)), kNoStrings);
  c.Add(View(Bytes(testing::StackSample(42, 100, 200)), 9), kNoStrings);
  const CallSiteLog log = c.Finish();
  EXPECT_EQ(log.damaged, 0u);
  ASSERT_EQ(log.codes.size(), 1u);
  const PyCode& code = log.codes.at(1);
  EXPECT_EQ(code.filename, "model.py");
  EXPECT_EQ(code.name, "f");
  EXPECT_EQ(code.first_line, 10);
  EXPECT_EQ(code.format, trace::PyLinetableFormat::kPy310);
  EXPECT_EQ(code.linetable, "\x01\x02");
  ASSERT_EQ(log.stacks.size(), 2u);
  EXPECT_TRUE(log.stacks.at(100).truncated);
  ASSERT_EQ(log.stacks.at(100).python.size(), 1u);
  EXPECT_EQ(log.stacks.at(100).python[0].instr_offset, 6u);
  EXPECT_EQ(log.stacks.at(200).native, (std::vector<uint64_t>{0x1000, 0x2000}));
  ASSERT_EQ(log.modules.size(), 2u);  // one mapping listed by three threads, and a second one
  EXPECT_EQ(log.modules[0].build_id, "dead");
  EXPECT_EQ(log.modules[0].bias, 5u);
  ASSERT_EQ(log.samples.size(), 1u);
  EXPECT_EQ(log.samples[0].thread, 9u);
  EXPECT_EQ(log.samples[0].correlation, 42u);
  EXPECT_EQ(log.samples[0].python_stack, 100u);
  EXPECT_EQ(log.samples[0].native_stack, 200u);
}

TEST(CallSiteCollector, ThreadNamesComeFromThreadDefs) {
  CallSiteCollector c;
  trace::ThreadDef def{};
  def.h = trace::MakeHeader<trace::ThreadDef>();
  def.thread_id = 12;
  def.name = 3;
  c.Add(View(Bytes(def), 0), [](uint32_t id) {
    return id == 3 ? std::string_view("pt_autograd_0") : std::string_view();
  });
  EXPECT_EQ(c.Finish().thread_names.at(12), "pt_autograd_0");
}

TEST(CallSiteCollector, HostileRecordsAreCountedAndSkipped) {
  CallSiteCollector c;
  // A code whose text lengths run past the record's end.
  auto code = testing::PyCode(1, "model.py", "f", 10, "");
  reinterpret_cast<trace::PyCodeRecord*>(code.data())->name_length = 60000;
  c.Add(View(code), kNoStrings);
  auto big_table = testing::PyCode(2, "a.py", "f", 1, "xy");
  reinterpret_cast<trace::PyCodeRecord*>(big_table.data())->linetable_length = 0xFFFFFFFF;
  c.Add(View(big_table), kNoStrings);
  // A stack deeper than any writer writes, one whose frames run past its end, an unknown kind,
  // and id 0.
  auto deep = testing::NativeStack(5, {1, 2});
  reinterpret_cast<trace::StackRecord*>(deep.data())->depth = trace::kMaxStackFrames + 1;
  c.Add(View(deep), kNoStrings);
  auto cut = testing::PythonStack(6, {{1, 0}});
  reinterpret_cast<trace::StackRecord*>(cut.data())->depth = 3;
  c.Add(View(cut), kNoStrings);
  auto alien = testing::NativeStack(7, {1});
  reinterpret_cast<trace::StackRecord*>(alien.data())->kind = 9;
  c.Add(View(alien), kNoStrings);
  c.Add(View(testing::NativeStack(0, {1})), kNoStrings);
  // A module whose build id runs past the end, and one that ends before it starts.
  auto module = testing::Module("/lib/x.so", "ab", 0, 0, 10);
  reinterpret_cast<trace::ModuleRecord*>(module.data())->build_id_length = 4000;
  c.Add(View(module), kNoStrings);
  c.Add(View(testing::Module("/lib/y.so", "", 0, 20, 10)), kNoStrings);
  // Records cut short of their fixed part, and a sample with an unknown reason.
  auto sample = Bytes(testing::StackSample(1, 2, 3));
  c.Add(View(std::vector<uint8_t>(sample.begin(), sample.begin() + 16)), kNoStrings);
  c.Add(View(std::vector<uint8_t>(code.begin(), code.begin() + 8)), kNoStrings);
  sample[4] = 77;
  c.Add(View(sample), kNoStrings);
  const CallSiteLog log = c.Finish();
  EXPECT_EQ(log.damaged, 11u);
  EXPECT_TRUE(log.codes.empty());
  EXPECT_TRUE(log.stacks.empty());
  EXPECT_TRUE(log.modules.empty());
  EXPECT_TRUE(log.samples.empty());
}

TEST(CallSiteCollector, AnUnknownLineTableFormatKeepsTheCodeWithoutLines) {
  auto code = testing::PyCode(1, "model.py", "f", 10, "\x80\x00");
  reinterpret_cast<trace::PyCodeRecord*>(code.data())->linetable_format = 9;
  CallSiteCollector c;
  c.Add(View(code), kNoStrings);
  const CallSiteLog log = c.Finish();
  EXPECT_EQ(log.damaged, 0u);
  EXPECT_EQ(log.codes.at(1).format, trace::PyLinetableFormat::kUnknown);
  PyCode unknown = log.codes.at(1);
  unknown.python_version = 0;
  EXPECT_EQ(PythonLineOf(unknown, 0), 0);
}

}  // namespace
}  // namespace flopspy::analyzers
