// Inductor's generated modules read for their kernels' metadata (tools/report/inductor_cache.cpp),
// from a fake cache folder written here in the layout and text inductor writes.
#include "report/inductor_cache.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace flopspy::tools {
namespace {

namespace fs = std::filesystem;

// One kernel module as inductor writes it with TORCHINDUCTOR_BENCHMARK_KERNEL=1.
std::string InductorModuleText(const std::string& name, const std::string& num_gb,
                               const std::string& flop, const std::string& body) {
  return "\nimport triton\nimport triton.language as tl\n\n"
         "from torch._inductor.runtime import triton_helpers, triton_heuristics\n"
         "triton_helpers.set_driver_to_gpu()\n\n"
         "@triton_heuristics.pointwise(\n"
         "    size_hints={'x': 1048576}, \n"
         "    filename=__file__,\n"
         "    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': "
         "'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, "
         "multi_processor_count=132, cc=90, major=9), 'constants': {}, 'configs': "
         "[{(0,): [['tt.divisibility', 16]]}]},\n"
         "    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': '" +
         name +
         "', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'num_load': 1, "
         "'num_store': 1, 'num_reduction': 0, 'tiling_scores': {'x': 8388608}, "
         "'kernel_num_gb': " +
         num_gb + ", 'kernel_flop': " + flop +
         ", 'backend_hash': 'A7039D76A7EBE2D08A464FA07E305C18F99407C3C0F9BC9F8E8BC888C188E274'},\n"
         "    min_elem_per_thread=0\n)\n@triton.jit\ndef " +
         name + "(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):\n" + body +
         "    xoffset = tl.program_id(0) * XBLOCK\n"
         "    xindex = xoffset + tl.arange(0, XBLOCK)[:]\n"
         "    tmp0 = tl.load(in_ptr0 + (xindex), None)\n"
         "    tl.store(out_ptr0 + (xindex), tmp0, None)\n\n\n"
         "def get_args():\n    xnumel = 99\n    return []\n";
}

class InductorCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("flopspy_inductor_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_, fs::perms::owner_all, ec);
    fs::remove_all(dir_, ec);
  }
  void Write(const std::string& relative, const std::string& text) {
    const fs::path path = dir_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  fs::path dir_;
};

TEST_F(InductorCacheTest, ReadsBytesFlopsAndElementCountsOfTheKernelsAsked) {
  Write("ab/cabcdef.py", InductorModuleText("triton_poi_fused_add_mul_sin_0", "0.008388608", "0",
                                            "    xnumel = 1048576\n"));
  Write("cd/ccdef01.py",
        InductorModuleText("triton_tem_fused_mm_3", "0.012582912", "2147483648.0", ""));
  Write("ef/cef0123.py",
        InductorModuleText("triton_poi_fused_relu_9", "0.5", "0", "    xnumel = 7\n"));
  const InductorCache cache = ScanInductorCache(
      dir_.string(), {"triton_poi_fused_add_mul_sin_0", "triton_tem_fused_mm_3", "other"});
  EXPECT_EQ(cache.files_read, 3u);
  ASSERT_EQ(cache.kernels.size(), 2u);  // relu was not asked for
  const InductorKernelMeta& poi = cache.kernels.at("triton_poi_fused_add_mul_sin_0");
  EXPECT_DOUBLE_EQ(poi.bytes.value_or(0), 8388608);  // 0.008388608 GB
  EXPECT_FALSE(poi.flops.has_value());               // inductor's 0: FLOPs it did not count
  EXPECT_EQ(poi.xnumel.value_or(0), 1048576);        // the body's, not get_args' 99
  EXPECT_FALSE(poi.rnumel.has_value());
  const InductorKernelMeta& tem = cache.kernels.at("triton_tem_fused_mm_3");
  EXPECT_DOUBLE_EQ(tem.flops.value_or(0), 2147483648.0);
  EXPECT_FALSE(tem.xnumel.has_value());  // not a constant in the body
  EXPECT_TRUE(cache.conflicts.empty());
  EXPECT_TRUE(cache.warnings.empty());
}

TEST_F(InductorCacheTest, SameMetadataInTwoFilesAgreesDifferentMetadataIsAConflict) {
  const std::string same =
      InductorModuleText("triton_red_fused__softmax_1", "0.25", "0", "    xnumel = 64\n");
  Write("a/one.py", same);
  Write("b/two.py", same);  // the wrapper and the kernel file hold the same text
  Write("c/one.py", InductorModuleText("triton_poi_fused_add_0", "0.5", "0", "    xnumel = 100\n"));
  Write("d/two.py",
        InductorModuleText("triton_poi_fused_add_0", "0.75", "0", "    xnumel = 150\n"));
  const InductorCache cache = ScanInductorCache(dir_.string(), {});
  EXPECT_TRUE(cache.kernels.contains("triton_red_fused__softmax_1"));
  EXPECT_FALSE(cache.kernels.contains("triton_poi_fused_add_0"));
  ASSERT_TRUE(cache.conflicts.contains("triton_poi_fused_add_0"));
  EXPECT_NE(cache.conflicts.at("triton_poi_fused_add_0").find("different metadata"),
            std::string::npos);
}

TEST_F(InductorCacheTest, ReadsOnlyPythonFilesUnderTheSizeCap) {
  Write("a/k.py", InductorModuleText("triton_poi_fused_add_0", "0.5", "0", ""));
  Write("a/k.txt", InductorModuleText("triton_poi_fused_mul_1", "0.5", "0", ""));
  Write("b/big.py",
        InductorModuleText("triton_poi_fused_sub_2", "0.5", "0", "") + std::string(5000, '#'));
  InductorCacheLimits limits;
  limits.max_file_bytes = 4000;
  const InductorCache cache = ScanInductorCache(dir_.string(), {}, limits);
  EXPECT_TRUE(cache.kernels.contains("triton_poi_fused_add_0"));
  EXPECT_FALSE(cache.kernels.contains("triton_poi_fused_mul_1"));
  EXPECT_FALSE(cache.kernels.contains("triton_poi_fused_sub_2"));
  EXPECT_EQ(cache.files_too_large, 1u);
}

TEST_F(InductorCacheTest, AnUnreadableFileIsSkippedWithOneWarning) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads any file";
  Write("a/k.py", InductorModuleText("triton_poi_fused_add_0", "0.5", "0", ""));
  Write("b/locked.py", InductorModuleText("triton_poi_fused_mul_1", "0.5", "0", ""));
  fs::permissions(dir_ / "b/locked.py", fs::perms::none);
  const InductorCache cache = ScanInductorCache(dir_.string(), {});
  EXPECT_TRUE(cache.kernels.contains("triton_poi_fused_add_0"));
  ASSERT_EQ(cache.warnings.size(), 1u);
  EXPECT_TRUE(cache.warnings[0].starts_with("flopspy: ")) << cache.warnings[0];
  EXPECT_NE(cache.warnings[0].find("locked.py"), std::string::npos);
}

TEST_F(InductorCacheTest, AMissingFolderIsAnEmptyCache) {
  const InductorCache cache = ScanInductorCache((dir_ / "absent").string(), {});
  EXPECT_TRUE(cache.kernels.empty());
  EXPECT_EQ(cache.files_read, 0u);
}

TEST(InductorModule, KernelsOfAWrapperModuleAreReadFromTheirSourceStrings) {
  const std::string wrapper =
      "triton_per_fused_native_layer_norm_2 = async_compile.triton("
      "'triton_per_fused_native_layer_norm_2', '''\n"
      "@triton_heuristics.persistent_reduction(\n"
      "    inductor_meta={'kernel_name': 'triton_per_fused_native_layer_norm_2', "
      "'kernel_num_gb': 0.01261056, 'kernel_flop': 0},\n)\n"
      "@triton.jit\ndef triton_per_fused_native_layer_norm_2(in_ptr0, out_ptr0, xnumel, "
      "r0_numel, XBLOCK : tl.constexpr):\n"
      "    xnumel = 4096\n    r0_numel = 768\n    R0_BLOCK: tl.constexpr = 1024\n"
      "''', device_str='cuda')\n\n"
      "triton_ = async_compile.triton('triton_', '''\n"
      "@triton.jit\ndef triton_(in_ptr0, xnumel, XBLOCK : tl.constexpr):\n"
      "    xnumel = 10\n''', device_str='cuda')\n";
  const auto kernels = ParseInductorModule(wrapper);
  ASSERT_EQ(kernels.size(), 1u);  // "triton_" names every kernel when names are not unique
  EXPECT_EQ(kernels[0].first, "triton_per_fused_native_layer_norm_2");
  EXPECT_EQ(kernels[0].second.xnumel.value_or(0), 4096);
  EXPECT_EQ(kernels[0].second.rnumel.value_or(0), 768);
  EXPECT_DOUBLE_EQ(kernels[0].second.bytes.value_or(0), 12610560);
}

TEST(InductorModule, DefaultFolderFollowsInductorsVariable) {
  const char* old = std::getenv("TORCHINDUCTOR_CACHE_DIR");
  const std::string saved = old ? old : "";
  setenv("TORCHINDUCTOR_CACHE_DIR", "/some/cache", 1);
  EXPECT_EQ(DefaultInductorCacheDir(), "/some/cache");
  unsetenv("TORCHINDUCTOR_CACHE_DIR");
  EXPECT_TRUE(DefaultInductorCacheDir().starts_with("/tmp/torchinductor_"));
  if (old) setenv("TORCHINDUCTOR_CACHE_DIR", saved.c_str(), 1);
}

}  // namespace
}  // namespace flopspy::tools
