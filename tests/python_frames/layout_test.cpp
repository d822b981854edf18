// The pieces of python_frames.cpp that need no interpreter: reads that cannot fault, and the
// checks on _Py_DebugOffsets (a 3.13 or 3.14 layout is accepted only when it hangs together).
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "python_layout.h"
#include "python_objects.h"
#include "python_safe_read.h"

namespace flopspy::interpose {
namespace {

uintptr_t UnmappedAddress() {
  void* page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  munmap(page, 4096);
  return reinterpret_cast<uintptr_t>(page);
}

class SafeReaderTest : public testing::TestWithParam<bool> {};

TEST_P(SafeReaderTest, ReadsMappedMemoryAndRefusesUnmapped) {
  SafeReader reader(GetParam());
  const char text[] = "frames without the GIL";
  char copy[sizeof(text)] = {};
  errno = 1234;
  EXPECT_TRUE(reader.Read(reinterpret_cast<uintptr_t>(text), copy, sizeof(text)));
  EXPECT_STREQ(copy, text);
  const uintptr_t gone = UnmappedAddress();
  EXPECT_FALSE(reader.Read(gone, copy, 8));
  EXPECT_FALSE(reader.Read(0, copy, 8));
  // A read that starts mapped and runs into the unmapped page fails as a whole.
  void* two = mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  munmap(static_cast<char*>(two) + 4096, 4096);
  EXPECT_FALSE(reader.Read(reinterpret_cast<uintptr_t>(two) + 4090, copy, 16));
  EXPECT_TRUE(reader.Read(reinterpret_cast<uintptr_t>(two) + 4080, copy, 16));
  munmap(two, 4096);
  // After a failure the reader still works (the pipe holds nothing stale).
  EXPECT_TRUE(reader.Read(reinterpret_cast<uintptr_t>(text), copy, sizeof(text)));
  EXPECT_STREQ(copy, text);
  EXPECT_EQ(errno, 1234);
}

INSTANTIATE_TEST_SUITE_P(BothWays, SafeReaderTest, testing::Values(false, true));

// A _Py_DebugOffsets of the given shape (uint64 fields per section before the code object),
// holding the offsets of a 3.13-like build.
struct Shape {
  int interpreter_state, thread_state, interpreter_frame, code_object;
  bool set_object;
};

std::vector<uint64_t> DebugOffsets(const Shape& s, uint64_t version, bool free_threaded) {
  std::vector<uint64_t> v(160, 0);
  std::memcpy(v.data(), "xdebugpy", 8);
  v[1] = version;
  v[2] = free_threaded ? 1 : 0;
  const size_t ts = 6 + static_cast<size_t>(s.interpreter_state);
  const size_t fr = ts + static_cast<size_t>(s.thread_state);
  const size_t co = fr + static_cast<size_t>(s.interpreter_frame);
  const size_t po = co + static_cast<size_t>(s.code_object);
  const size_t dict = po + 6 + 3 + 3 + (s.set_object ? 4 : 0);
  const size_t bytes = dict + 3 + 2 + 3;
  const size_t unicode = bytes + 3;
  const uint64_t head = free_threaded ? 32 : 16;
  v[ts] = 300, v[ts + 1] = 0, v[ts + 2] = 8, v[ts + 3] = 16, v[ts + 4] = 72;
  v[fr] = 80, v[fr + 1] = 8, v[fr + 2] = 0, v[fr + 3] = 56, v[fr + 5] = 70;
  v[co] = 208, v[co + 1] = 112, v[co + 3] = 128, v[co + 4] = 136, v[co + 5] = 68;
  v[co + 9] = 200;
  v[po] = head, v[po + 1] = head - 8;
  v[bytes + 1] = head, v[bytes + 2] = head + 16;
  v[unicode + 1] = head + 16, v[unicode + 2] = head, v[unicode + 3] = head + 24;
  v.resize(unicode + 4 + 8);
  return v;
}

constexpr Shape k313 = {13, 9, 6, 10, false};
constexpr Shape k314 = {16, 9, 8, 11, true};
constexpr uint64_t kV313 = 0x030D00F0, kV314 = 0x030E00F0;

bool Parse(const std::vector<uint64_t>& v, int minor, PythonLayout* l, const char** why) {
  return LayoutFromDebugOffsets(reinterpret_cast<const uint8_t*>(v.data()), v.size() * 8, 3, minor,
                                l, why);
}

TEST(DebugOffsets, The313LayoutIsRead) {
  PythonLayout l;
  const char* why = nullptr;
  const std::vector<uint64_t> v = DebugOffsets(k313, kV313, false);
  EXPECT_EQ(v[23], 72u);  // thread_state.current_frame where CPython 3.13 puts it
  ASSERT_TRUE(Parse(v, 13, &l, &why)) << why;
  EXPECT_TRUE(l.from_debug_offsets);
  EXPECT_FALSE(l.free_threaded);
  EXPECT_EQ(l.tstate_frame, 72u);
  EXPECT_EQ(l.cframe_current, -1);
  EXPECT_EQ(l.frame_previous, 8u);
  EXPECT_EQ(l.frame_instr, 56u);
  EXPECT_EQ(l.frame_owner, 70);
  EXPECT_EQ(l.code_name, 128u);
  EXPECT_EQ(l.code_firstlineno, 68u);
  EXPECT_EQ(l.code_adaptive, 200);
  EXPECT_EQ(l.unicode_ascii_size, 40u);
  EXPECT_EQ(l.unicode_utf8, 48u);
  EXPECT_EQ(l.unicode_compact_size, 56u);
  EXPECT_EQ(l.unicode_kind_shift, 2);
  EXPECT_FALSE(l.code_is_stackref);
}

TEST(DebugOffsets, FreeThreadedHeaderIsFollowed) {
  PythonLayout l;
  const char* why = nullptr;
  ASSERT_TRUE(Parse(DebugOffsets(k313, kV313, true), 13, &l, &why)) << why;
  EXPECT_TRUE(l.free_threaded);
  EXPECT_EQ(l.ob_type, 24u);
  EXPECT_EQ(l.ob_size, 32u);
  ASSERT_TRUE(Parse(DebugOffsets(k314, kV314, true), 14, &l, &why)) << why;
  EXPECT_EQ(l.unicode_kind_shift, 8);  // 3.14t: `interned` is a byte of its own
}

TEST(DebugOffsets, The314ShapesAreFoundAndTagsAreMasked) {
  for (const Shape& shape :
       {k314, Shape{16, 11, 8, 11, true}, Shape{14, 9, 7, 10, false}, Shape{13, 9, 6, 10, true}}) {
    PythonLayout l;
    const char* why = nullptr;
    const std::vector<uint64_t> v = DebugOffsets(shape, kV314, false);
    ASSERT_TRUE(Parse(v, 14, &l, &why)) << why << " " << shape.interpreter_state;
    EXPECT_TRUE(l.code_is_stackref);
    EXPECT_EQ(l.tstate_frame, 72u);
    EXPECT_EQ(l.frame_instr, 56u);
    EXPECT_EQ(l.code_adaptive, 200);
    EXPECT_EQ(l.bytes_sval, 32u);
  }
  // The 3.14 shape's bytes are no 3.13 layout.
  PythonLayout l;
  const char* why = nullptr;
  EXPECT_FALSE(Parse(DebugOffsets(k314, kV313, false), 13, &l, &why));
}

TEST(DebugOffsets, RefusesWhatDoesNotMatch) {
  PythonLayout l;
  const char* why = nullptr;
  const std::vector<uint64_t> v = DebugOffsets(k313, kV313, false);
  EXPECT_FALSE(Parse(v, 14, &l, &why));  // the version field says 3.13
  EXPECT_STRNE(why, "");
  EXPECT_FALSE(Parse(v, 12, &l, &why));  // no debug offsets before 3.13
  EXPECT_FALSE(Parse(v, 15, &l, &why));  // nor a known shape after 3.14
  std::vector<uint64_t> bad = v;
  std::memcpy(bad.data(), "ydebugpx", 8);
  EXPECT_FALSE(Parse(bad, 13, &l, &why));
  bad = v;
  bad[45] = 16;  // ob_type where the object header would not put it
  EXPECT_FALSE(Parse(bad, 13, &l, &why));
  bad = v;
  bad[31] = 4000;  // instr_ptr outside the frame
  EXPECT_FALSE(Parse(bad, 13, &l, &why));
  bad = v;
  bad[21] = 0;  // thread_state.next: not the start of a PyThreadState
  EXPECT_FALSE(Parse(bad, 13, &l, &why));
  EXPECT_FALSE(LayoutFromDebugOffsets(reinterpret_cast<const uint8_t*>(v.data()), 100, 3, 13, &l,
                                      &why));  // cut short
}

TEST(Tables, KnownVersionsOnly) {
  PythonLayout l;
  EXPECT_TRUE(LayoutFromTable(3, 10, &l));
  EXPECT_TRUE(l.instr_is_lasti);
  EXPECT_TRUE(LayoutFromTable(3, 11, &l));
  EXPECT_EQ(l.cframe_current, 8);
  EXPECT_TRUE(LayoutFromTable(3, 12, &l));
  EXPECT_EQ(l.cframe_current, 0);
  EXPECT_FALSE(LayoutFromTable(3, 9, &l));
  EXPECT_FALSE(LayoutFromTable(3, 13, &l));
  EXPECT_FALSE(LayoutFromTable(2, 7, &l));
}

TEST(Utf8, CutsAtACharacter) {
  const char text[] = "ab\xE2\x82\xAC";  // "ab€"
  EXPECT_EQ(TrimPartialUtf8(text, 5), 5u);
  EXPECT_EQ(TrimPartialUtf8(text, 4), 2u);
  EXPECT_EQ(TrimPartialUtf8(text, 3), 2u);
  EXPECT_EQ(TrimPartialUtf8(text, 2), 2u);
  char out[8];
  size_t n = 0;
  EXPECT_TRUE(AppendUtf8(0x1F600, out, sizeof(out), &n));
  EXPECT_EQ(std::string(out, n), "\xF0\x9F\x98\x80");
  EXPECT_TRUE(AppendUtf8(0xD800, out, sizeof(out), &n));  // a lone surrogate: U+FFFD
  EXPECT_EQ(std::string(out + 4, n - 4), "\xEF\xBF\xBD");
  EXPECT_FALSE(AppendUtf8(0x20AC, out, sizeof(out), &n));  // 3 bytes do not fit in 1
  n = 0;
  EXPECT_TRUE(AppendUtf8(0, out, sizeof(out), &n));  // no NULs in the trace's texts
  EXPECT_EQ(out[0], '?');
}

}  // namespace
}  // namespace flopspy::interpose
