// Inductor's kernel names read into a kind and the fused operations
// (analyzers/src/inductor_kernel_name.cpp), and what the catalog and the report make of them.
#include "flopspy/analyzers/inductor_kernel_name.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "flopspy/analyzers/kernel_catalog.h"

namespace flopspy::analyzers {
namespace {

using InductorOps = std::vector<std::string>;

InductorKernelName ParsedInductorName(std::string_view name) {
  const std::optional<InductorKernelName> parsed = ParseInductorKernelName(name);
  EXPECT_TRUE(parsed.has_value()) << name;
  return parsed.value_or(InductorKernelName{});
}

TEST(InductorKernelName, ReadsTheKindFromTheThreeLetters) {
  EXPECT_EQ(ParsedInductorName("triton_poi_fused_add_mul_sin_0").kind, "pointwise");
  EXPECT_EQ(ParsedInductorName("triton_red_fused__softmax_1").kind, "reduction");
  EXPECT_EQ(ParsedInductorName("triton_per_fused_native_layer_norm_2").kind,
            "persistent_reduction");
  EXPECT_EQ(ParsedInductorName("triton_tem_fused_mm_3").kind, "template");
  EXPECT_EQ(ParsedInductorName("triton_for_fused_0").kind, "foreach");
  EXPECT_EQ(ParsedInductorName("triton_spl_fused_cumsum_0").kind, "split_scan");
}

TEST(InductorKernelName, SplitsTheFusedOperationsAndDropsTheCounter) {
  EXPECT_EQ(ParsedInductorName("triton_poi_fused_add_mul_sin_0").ops,
            (InductorOps{"add", "mul", "sin"}));
  EXPECT_EQ(ParsedInductorName("triton_tem_fused_addmm_relu_12").ops,
            (InductorOps{"addmm", "relu"}));
  EXPECT_EQ(ParsedInductorName("triton_red_fused_div_mm_21").ops, (InductorOps{"div", "mm"}));
}

TEST(InductorKernelName, KeepsAnOperationsOwnLeadingUnderscore) {
  EXPECT_EQ(ParsedInductorName("triton_red_fused__softmax_1").ops, (InductorOps{"_softmax"}));
  EXPECT_EQ(ParsedInductorName("triton_poi_fused__to_copy_abs_add_div_exp_mul_pow_sub_3").ops,
            (InductorOps{"_to_copy", "abs", "add", "div", "exp", "mul", "pow", "sub"}));
  EXPECT_EQ(
      ParsedInductorName("triton_per_fused__log_softmax__log_softmax_backward_data_nll_loss_7").ops,
      (InductorOps{"_log_softmax", "_log_softmax_backward_data", "nll_loss"}));
}

TEST(InductorKernelName, KeepsMultiWordOperationsWhole) {
  EXPECT_EQ(ParsedInductorName("triton_per_fused_native_layer_norm_2").ops,
            (InductorOps{"native_layer_norm"}));
  EXPECT_EQ(
      ParsedInductorName("triton_per_fused_add_native_layer_norm_native_layer_norm_backward_9").ops,
      (InductorOps{"add", "native_layer_norm", "native_layer_norm_backward"}));
  EXPECT_EQ(ParsedInductorName("triton_poi_fused_gelu_gelu_backward_4").ops,
            (InductorOps{"gelu", "gelu_backward"}));
  EXPECT_EQ(ParsedInductorName("triton_red_fused_var_mean_0").ops, (InductorOps{"var_mean"}));
}

TEST(InductorKernelName, NamesWithoutDescriptiveOpsHaveAKindOnly) {
  // descriptive_names off: an empty fused name between the kind and the counter.
  const InductorKernelName plain = ParsedInductorName("triton_poi__0");
  EXPECT_EQ(plain.kind, "pointwise");
  EXPECT_TRUE(plain.ops.empty());
  EXPECT_TRUE(ParsedInductorName("triton_red_fused_5").ops.empty());
  EXPECT_TRUE(ParsedInductorName("triton_poi").ops.empty());
}

TEST(InductorKernelName, InductorNodeNamesLoseTheirNumbers) {
  // descriptive_names="inductor_node": FX node names, numbered and not sorted.
  EXPECT_EQ(ParsedInductorName("triton_poi_fused_mul_2_add_1_mul_3_0").ops,
            (InductorOps{"mul", "add"}));
  EXPECT_EQ(ParsedInductorName("triton_poi_fused_convert_element_type_4_1").ops,
            (InductorOps{"convert_element_type"}));
}

TEST(InductorKernelName, AHashAfterTheCounterIsNoOperation) {
  EXPECT_EQ(ParsedInductorName("triton_poi_fused_add_relu_0_c4qbz3k5kvl7swpmnp2iwlx3t4").ops,
            (InductorOps{"add", "relu"}));
  // A short mixed token is an operation (upsample_bilinear2d's last word), not a hash.
  EXPECT_EQ(ParsedInductorName("triton_poi_fused_upsample_bilinear2d_0").ops,
            (InductorOps{"upsample_bilinear2d"}));
}

TEST(InductorKernelName, OtherTritonKernelsAreNotInductors) {
  EXPECT_FALSE(ParseInductorKernelName("triton_matmul_kernel").has_value());
  EXPECT_FALSE(ParseInductorKernelName("triton_xyz_fused_add_0").has_value());
  EXPECT_FALSE(ParseInductorKernelName("add_kernel").has_value());
  EXPECT_FALSE(ParseInductorKernelName("triton_").has_value());
  EXPECT_FALSE(ParseInductorKernelName("").has_value());
}

TEST(InductorKernelName, OpTextIsTheKindThenTheOperations) {
  EXPECT_EQ(InductorOpText(ParsedInductorName("triton_poi_fused_add_mul_sin_0")),
            "pointwise add+mul+sin");
  EXPECT_EQ(InductorOpText(ParsedInductorName("triton_poi__0")), "pointwise");
}

TEST(InductorKernelName, TheCatalogShowsKindAndOperationsAsTheOp) {
  const KernelClass kc = ClassifyKernel("triton_red_fused__softmax_1");
  EXPECT_EQ(kc.family, KernelFamily::kTriton);
  EXPECT_EQ(kc.functor, "reduction");
  EXPECT_EQ(kc.op, "reduction _softmax");
  EXPECT_EQ(kc.category, KernelCategory::kTriton);
  EXPECT_FALSE(kc.flops_known);
  // A Triton kernel inductor did not name keeps the family, with no op.
  const KernelClass other = ClassifyKernel("triton_matmul_kernel");
  EXPECT_EQ(other.family, KernelFamily::kTriton);
  EXPECT_EQ(other.op, "");
}

}  // namespace
}  // namespace flopspy::analyzers
