// The shadow of cuDNN backend descriptors: a plan learns what its graph computes through the
// links the program sets and the descriptors heuristics fill (docs/cudnn-hooks.md §3).
#include "cudnn_shadow.h"

#include <cudnn_graph.h>
#include <gtest/gtest.h>

#include <initializer_list>
#include <vector>

#include "dnn_tensors.h"
#include "flopspy/analyzers/blas_types.h"

namespace flopspy::interpose::cudnn {
namespace {

namespace ct = analyzers::cuda_type;

analyzers::DnnTensor Tensor(std::initializer_list<int64_t> dims, int64_t uid, bool is_virtual) {
  analyzers::DnnTensor t = testing::PackedDnnTensor(ct::kR16F, dims);
  t.uid = uid;
  t.is_virtual = is_virtual;
  return t;
}

// Distinct fake descriptor addresses.
struct Objects {
  int op, pointwise, graph, heuristics, config, engine, plan, other_plan;
};

OperationModel MatmulModel() {
  OperationModel m;
  m.kind = OperationModel::Kind::kMatmul;
  m.a = Tensor({4, 256, 128}, 1, false);
  m.b = Tensor({4, 128, 512}, 2, false);
  m.c = Tensor({4, 256, 512}, 3, false);
  m.compute_type = analyzers::DnnComputeType(ct::kR16F, ct::kR32F, -1);
  return m;
}

TEST(CudnnShadow, PlanFromHeuristicsKnowsItsGraph) {
  BackendShadow& shadow = BackendShadow::Get();
  Objects o{};
  shadow.Created(&o.op, CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
  shadow.Created(&o.graph, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  shadow.Created(&o.heuristics, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  shadow.Created(&o.config, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
  shadow.Created(&o.plan, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  shadow.SetOperation(&o.op, MatmulModel());
  const void* ops[] = {&o.op};
  shadow.Linked(&o.graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, ops, 1);
  shadow.GraphFinalized(&o.graph);
  const void* graph[] = {&o.graph};
  shadow.Linked(&o.heuristics, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph, 1);
  const void* configs[] = {&o.config};
  shadow.Derived(&o.heuristics, configs, 1);  // GetAttribute(ENGINEHEUR_RESULTS)
  shadow.Linked(&o.plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, configs, 1);
  shadow.PlanFinalized(&o.plan);

  trace::LibraryCallRecord r{};
  ASSERT_TRUE(shadow.PlanRecord(&o.plan, r));
  EXPECT_EQ(r.routine, static_cast<uint16_t>(analyzers::BlasRoutine::kDnnGraph));
  EXPECT_DOUBLE_EQ(r.flops, 2.0 * 4 * 256 * 512 * 128);
  EXPECT_DOUBLE_EQ(r.bytes, 2.0 * 4 * (256 * 128 + 128 * 512 + 256 * 512));
  EXPECT_EQ(r.m, 256);
  EXPECT_EQ(r.batch, 4);

  // A destroyed plan is forgotten; its address may come back as another descriptor.
  shadow.Destroyed(&o.plan);
  EXPECT_FALSE(shadow.PlanRecord(&o.plan, r));
  EXPECT_EQ(shadow.TypeOf(&o.plan), -1);
}

TEST(CudnnShadow, HandBuiltEngineAndUnknownOperations) {
  BackendShadow& shadow = BackendShadow::Get();
  Objects o{};
  shadow.Created(&o.op, CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
  shadow.Created(&o.pointwise, CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR);
  shadow.SetOperation(&o.op, MatmulModel());
  // The norm operation gets no model: the graph counts it as unknown.
  const void* ops[] = {&o.op, &o.pointwise};
  shadow.Linked(&o.graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, ops, 2);
  shadow.GraphFinalized(&o.graph);
  const void* graph[] = {&o.graph};
  shadow.Linked(&o.engine, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, graph, 1);
  const void* engine[] = {&o.engine};
  shadow.Linked(&o.config, CUDNN_ATTR_ENGINECFG_ENGINE, engine, 1);
  const void* configs[] = {&o.config};
  shadow.Linked(&o.plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, configs, 1);
  shadow.PlanFinalized(&o.plan);
  trace::LibraryCallRecord r{};
  ASSERT_TRUE(shadow.PlanRecord(&o.plan, r));
  EXPECT_DOUBLE_EQ(r.flops, 2.0 * 4 * 256 * 512 * 128);
  EXPECT_TRUE(r.flags & trace::kLibDescriptorIncomplete);
  EXPECT_EQ(analyzers::DnnShapeText(r), "graph of 2 ops, matmul 256x512x128 b4, 1 without a model");

  // A plan whose configuration came from nowhere flopspy saw is not in the table.
  shadow.PlanFinalized(&o.other_plan);
  EXPECT_FALSE(shadow.PlanRecord(&o.other_plan, r));
  EXPECT_EQ(shadow.LinkOf(&o.plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG), &o.config);
  for (const void* d : {&o.op, &o.pointwise, &o.graph, &o.engine, &o.config, &o.plan}) {
    shadow.Destroyed(d);
  }
}

TEST(CudnnShadow, BetaIsKeptPerOperation) {
  BackendShadow& shadow = BackendShadow::Get();
  int op = 0;
  bool known = true;
  EXPECT_FALSE(shadow.BetaNonZero(&op, known));
  EXPECT_FALSE(known);
  shadow.NoteBeta(&op, true);
  EXPECT_TRUE(shadow.BetaNonZero(&op, known));
  EXPECT_TRUE(known);
  shadow.Destroyed(&op);
}

TEST(CudnnShadow, ManyPlansAreKeptUpToTheTableAndCountedBeyond) {
  BackendShadow& shadow = BackendShadow::Get();
  int op = 0, graph = 0;
  shadow.SetOperation(&op, MatmulModel());
  const void* ops[] = {&op};
  shadow.Linked(&graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, ops, 1);
  shadow.GraphFinalized(&graph);
  const void* graphs[] = {&graph};
  std::vector<char> plans(BackendShadow::kPlanSlots + 10);
  const uint64_t before = shadow.plans_not_kept();
  for (char& plan : plans) {
    shadow.Linked(&plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, graphs, 1);
    shadow.PlanFinalized(&plan);
  }
  EXPECT_EQ(shadow.plans_not_kept() - before, 10u);
  trace::LibraryCallRecord r{};
  EXPECT_TRUE(shadow.PlanRecord(&plans.front(), r));
  // Destroying plans frees their slots for new ones.
  for (char& plan : plans) shadow.Destroyed(&plan);
  shadow.Linked(&plans.back(), CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, graphs, 1);
  shadow.PlanFinalized(&plans.back());
  EXPECT_TRUE(shadow.PlanRecord(&plans.back(), r));
  shadow.Destroyed(&plans.back());
  shadow.Destroyed(&op);
  shadow.Destroyed(&graph);
}

}  // namespace
}  // namespace flopspy::interpose::cudnn
