// InstrumentedLaunch, the one protocol of every launch hook, run without a recorder (as in a
// process where flopspy is off): the real call is made once, its result comes back, a runtime
// launch marks the thread for the call's duration only, and nothing thrown on the first-sight
// path (naming a kernel: allocation) reaches the caller.
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>

#include "function_naming.h"
#include "instrumented_launch.h"

namespace {

// Fault injection: while set, every allocation on this thread fails.
thread_local bool tls_fail_allocations = false;

}  // namespace

void* operator new(std::size_t size) {
  if (tls_fail_allocations) throw std::bad_alloc();
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

namespace flopspy::interpose {
namespace {

struct FailAllocations {
  FailAllocations() { tls_fail_allocations = true; }
  ~FailAllocations() { tls_fail_allocations = false; }
};

LaunchSite Site(uint64_t handle) {
  return {trace::Api::kCuLaunchKernel, handle, FunctionKind::kDriverFunction};
}

TEST(InstrumentedLaunch, CallsTheRealLaunchOnceAndReturnsItsResult) {
  int calls = 0;
  const LaunchShape shape;
  const int result = InstrumentedLaunch(Site(0xA000), shape, {}, [&]() noexcept {
    ++calls;
    return 719;
  });
  EXPECT_EQ(result, 719);
  EXPECT_EQ(calls, 1);
}

TEST(InstrumentedLaunch, ARuntimeLaunchMarksTheThreadForTheRealCallOnly) {
  LaunchShape shape;
  bool inside = false;
  InstrumentedLaunch(Site(0xA001), shape, {}, [&]() noexcept {
    inside = tls_in_runtime_call;
    return 0;
  });
  EXPECT_FALSE(inside);  // a driver launch: the driver call is not another runtime call's
  shape.from_runtime = true;
  InstrumentedLaunch(Site(0xA001), shape, {}, [&]() noexcept {
    inside = tls_in_runtime_call;
    return 0;
  });
  EXPECT_TRUE(inside);  // the driver launch the runtime makes underneath is not recorded again
  EXPECT_FALSE(tls_in_runtime_call);
}

TEST(InstrumentedLaunch, EveryLaunchGetsItsOwnCorrelation) {
  const uint64_t first = NextCorrelation();
  const uint64_t second = NextCorrelation();
  EXPECT_NE(first, 0u);
  EXPECT_EQ(second, first + 1);
}

TEST(InstrumentedLaunch, AFailedAllocationOnAKernelsFirstLaunchNeverReachesTheProgram) {
  int calls = 0;
  int result = 0;
  {
    FailAllocations fail;
    EXPECT_EQ(FunctionFor(0xB000, FunctionKind::kDriverFunction), nullptr);
    result = InstrumentedLaunch(Site(0xB001), LaunchShape{}, {}, [&]() noexcept {
      ++calls;
      return 3;
    });
  }
  EXPECT_EQ(result, 3);
  EXPECT_EQ(calls, 1);
  // Once memory is there again, the kernel gets its entry.
  const FunctionInfo* info = FunctionFor(0xB001, FunctionKind::kDriverFunction);
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->handle, 0xB001u);
  EXPECT_EQ(FunctionFor(0xB001, FunctionKind::kDriverFunction), info);
}

TEST(InstrumentedLaunch, NoteClusterTakesTheClusterAttributeOnly) {
  struct Dim {
    unsigned x, y, z;
  };
  struct Value {
    Dim clusterDim;
  };
  struct Attribute {
    int id;
    Value value;
  };
  const Attribute attributes[] = {{1, {{9, 9, 9}}}, {4, {{2, 1, 1}}}, {7, {{5, 5, 5}}}};
  LaunchShape shape;
  NoteCluster(shape, attributes, 3, 4, &Attribute::value);
  EXPECT_EQ(shape.cluster[0], 2u);
  EXPECT_EQ(shape.cluster[1], 1u);
  EXPECT_EQ(shape.cluster[2], 1u);
  LaunchShape none;
  NoteCluster(none, static_cast<const Attribute*>(nullptr), 3, 4, &Attribute::value);
  EXPECT_EQ(none.cluster[0], 0u);
}

}  // namespace
}  // namespace flopspy::interpose
