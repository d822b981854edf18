#include "flopspy/analyzers/blas_routine.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "flopspy/analyzers/blas_types.h"

namespace flopspy::analyzers {
namespace {

namespace t = cuda_type;
namespace ct = compute_type;

// library -> exported names, from tests/data/blas/cublas13_exports.txt.
std::map<std::string, std::set<std::string>> LoadExports() {
  std::map<std::string, std::set<std::string>> out;
  std::ifstream in(std::string(FLOPSPY_TEST_DATA_DIR) + "/blas/cublas13_exports.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string lib, name;
    fields >> lib >> name;
    out[lib].insert(name);
  }
  return out;
}

TEST(BlasRoutine, NumbersAreStable) {
  // These numbers are stored in traces: changing one breaks every trace already written.
  EXPECT_EQ(static_cast<int>(BlasRoutine::kUnknown), 0);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kGemm), 1);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kGemm3m), 2);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kGemmBatched), 3);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kGemmStridedBatched), 4);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kGemmGroupedBatched), 5);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kGemm3mBatched), 6);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kGemm3mStridedBatched), 7);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kGemv), 16);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kGemvBatched), 17);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kGemvStridedBatched), 18);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kGer), 19);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kTrsm), 32);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kTrsmBatched), 33);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kTrmm), 34);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kSymm), 35);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kHemm), 36);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kSyrk), 37);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kHerk), 38);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kSyr2k), 39);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kHer2k), 40);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kSyrkx), 41);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kHerkx), 42);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kDot), 64);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kAxpy), 65);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kScal), 66);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kNrm2), 67);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kLtMatmul), 128);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kDnnConvForward), 192);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kDnnConvBackwardData), 193);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kDnnConvBackwardFilter), 194);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kDnnConvBiasActivation), 195);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kDnnBatchNormForwardTraining), 196);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kDnnBatchNormBackwardEx), 200);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kDnnGraph), 208);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kNcclAllReduce), 224);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kNcclRecv), 233);
  EXPECT_EQ(static_cast<int>(BlasRoutine::kNcclGroupEnd), 239);
}

TEST(BlasRoutine, NamesRoundTrip) {
  std::set<std::string_view> seen;
  for (int id = 0; id < 256; ++id) {
    const BlasRoutine r = BlasRoutineFromId(static_cast<uint16_t>(id));
    if (r == BlasRoutine::kUnknown) continue;
    EXPECT_EQ(static_cast<int>(r), id);
    const std::string_view name = BlasRoutineName(r);
    EXPECT_NE(name, "unknown") << id;
    EXPECT_TRUE(seen.insert(name).second) << name;
    EXPECT_EQ(BlasRoutineFromName(name), r) << name;
  }
  EXPECT_EQ(seen.size(), 48u);  // every family but kUnknown: 27 cuBLAS, 10 cuDNN, 11 NCCL
  EXPECT_EQ(BlasRoutineName(BlasRoutine::kGemmStridedBatched), "gemm_strided_batched");
  EXPECT_EQ(BlasRoutineName(BlasRoutine::kLtMatmul), "lt_matmul");
  EXPECT_EQ(BlasRoutineFromId(999), BlasRoutine::kUnknown);
  EXPECT_FALSE(BlasRoutineFromName("gemmm").has_value());
}

TEST(BlasEntryPoints, EveryNameIsExportedByCublas13) {
  const auto exports = LoadExports();
  ASSERT_EQ(exports.count("libcublas.so.13"), 1u) << "tests/data/blas/cublas13_exports.txt";
  ASSERT_EQ(exports.count("libcublasLt.so.13"), 1u);
  const auto& blas = exports.at("libcublas.so.13");
  const auto& lt = exports.at("libcublasLt.so.13");
  for (const BlasEntryPoint& e : BlasEntryPoints()) {
    const std::string name(e.name);
    const auto& lib = e.api == BlasApi::kLt ? lt : blas;
    EXPECT_TRUE(lib.count(name)) << name << " is not exported";
  }
}

TEST(BlasEntryPoints, EveryComputeRoutineOfCublas13IsHooked) {
  // Every libcublas export of the families flopspy knows must be in the table, unless listed
  // here with the reason it is left out.
  const std::set<std::string> left_out = {
      "cublasUint8gemmBias",  // calls cublasLtMatmul through the PLT: hooking both double counts
  };
  const std::regex family(
      "cublas[A-Z]*(gemm|gemv|ger|geru|gerc|trsm|trmm|symm|hemm|syrk|herk|syr2k|her2k|syrkx|herkx|"
      "dot|dotu|dotc|axpy|scal|sscal|dscal|nrm2|cnrm2|znrm2|Gemm|Dot|Dotc|Axpy|Scal|Nrm2)"
      "(3m)?(Ex|Batched|StridedBatched|GroupedBatched|BatchedEx|StridedBatchedEx|"
      "GroupedBatchedEx|3mEx|Bias)?(_v2)?(_64)?");
  const auto exports = LoadExports();
  int matched = 0;
  for (const std::string& name : exports.at("libcublas.so.13")) {
    if (name.starts_with("cublasXt")) continue;  // cuBLASXt runs on top of the cuBLAS API
    if (!std::regex_match(name, family)) continue;
    ++matched;
    if (left_out.count(name)) continue;
    EXPECT_NE(FindBlasEntryPoint(name), nullptr) << name << " is exported but not in the table";
  }
  EXPECT_GT(matched, 290);  // the regex must keep seeing the families
  EXPECT_NE(FindBlasEntryPoint("cublasLtMatmul"), nullptr);
}

TEST(BlasEntryPoints, SortedUniqueAndConsistent) {
  const auto all = BlasEntryPoints();
  ASSERT_GT(all.size(), 290u);
  for (size_t i = 0; i < all.size(); ++i) {
    const BlasEntryPoint& e = all[i];
    if (i > 0) {
      EXPECT_LT(all[i - 1].name, e.name);
    }
    EXPECT_EQ(FindBlasEntryPoint(e.name), &e);
    EXPECT_EQ(e.is_64, e.name.ends_with("_64")) << e.name;
    EXPECT_NE(e.routine, BlasRoutine::kUnknown) << e.name;
    // A legacy name is one whose _v2 form is also in the table.
    const bool has_v2 = FindBlasEntryPoint(std::string(e.name) + "_v2") != nullptr;
    EXPECT_EQ(e.api == BlasApi::kLegacy, has_v2) << e.name;
    // Complex-only conjugation forms carry a complex type or take it from the arguments.
    if (e.conj == BlasConj::kConjugated || e.conj == BlasConj::kUnconjugated) {
      EXPECT_TRUE(e.type_a == kFromArgs || IsComplexType(e.type_a)) << e.name;
    }
  }
}

TEST(BlasEntryPoints, TypedRoutinesFixTheirTypes) {
  const BlasEntryPoint* s = FindBlasEntryPoint("cublasSgemm_v2");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->routine, BlasRoutine::kGemm);
  EXPECT_EQ(s->api, BlasApi::kV2);
  EXPECT_FALSE(s->is_64);
  EXPECT_EQ(s->type_a, t::kR32F);
  EXPECT_EQ(s->type_b, t::kR32F);
  EXPECT_EQ(s->type_c, t::kR32F);
  EXPECT_EQ(s->type_d, kNotApplicable);
  EXPECT_EQ(s->compute_type, ct::k32F);

  const BlasEntryPoint* z = FindBlasEntryPoint("cublasZgemm_v2_64");
  ASSERT_NE(z, nullptr);
  EXPECT_TRUE(z->is_64);
  EXPECT_EQ(z->type_a, t::kC64F);
  EXPECT_EQ(z->compute_type, ct::k64F);

  const BlasEntryPoint* h = FindBlasEntryPoint("cublasHgemm");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->api, BlasApi::kV2);  // no _v2 form exists; this is the handle API
  EXPECT_EQ(h->type_a, t::kR16F);
  EXPECT_EQ(h->compute_type, ct::k16F);
  ASSERT_NE(FindBlasEntryPoint("cublasHgemm_64"), nullptr);
  EXPECT_EQ(FindBlasEntryPoint("cublasHgemm_v2"), nullptr);

  const BlasEntryPoint* legacy = FindBlasEntryPoint("cublasSgemm");
  ASSERT_NE(legacy, nullptr);
  EXPECT_EQ(legacy->api, BlasApi::kLegacy);
  EXPECT_EQ(legacy->routine, BlasRoutine::kGemm);

  const BlasEntryPoint* ex = FindBlasEntryPoint("cublasGemmEx_64");
  ASSERT_NE(ex, nullptr);
  EXPECT_TRUE(ex->is_64);
  EXPECT_EQ(ex->type_a, kFromArgs);
  EXPECT_EQ(ex->compute_type, kFromArgs);

  const BlasEntryPoint* sgemm_ex = FindBlasEntryPoint("cublasSgemmEx");
  ASSERT_NE(sgemm_ex, nullptr);
  EXPECT_EQ(sgemm_ex->type_a, kFromArgs);
  EXPECT_EQ(sgemm_ex->compute_type, ct::k32F);

  const BlasEntryPoint* hsh = FindBlasEntryPoint("cublasHSHgemvBatched_64");
  ASSERT_NE(hsh, nullptr);
  EXPECT_EQ(hsh->routine, BlasRoutine::kGemvBatched);
  EXPECT_EQ(hsh->type_a, t::kR16F);
  EXPECT_EQ(hsh->type_c, t::kR16F);
  EXPECT_EQ(hsh->compute_type, ct::k32F);
  const BlasEntryPoint* tss = FindBlasEntryPoint("cublasTSSgemvStridedBatched");
  ASSERT_NE(tss, nullptr);
  EXPECT_EQ(tss->type_a, t::kR16BF);
  EXPECT_EQ(tss->type_c, t::kR32F);

  EXPECT_EQ(FindBlasEntryPoint("cublasCgerc_v2")->conj, BlasConj::kConjugated);
  EXPECT_EQ(FindBlasEntryPoint("cublasZgeru")->conj, BlasConj::kUnconjugated);
  EXPECT_EQ(FindBlasEntryPoint("cublasZdotc_v2_64")->conj, BlasConj::kConjugated);
  EXPECT_EQ(FindBlasEntryPoint("cublasDotcEx")->conj, BlasConj::kConjugated);
  EXPECT_EQ(FindBlasEntryPoint("cublasChemm_v2")->conj, BlasConj::kHermitian);

  const BlasEntryPoint* csscal = FindBlasEntryPoint("cublasCsscal_v2");
  ASSERT_NE(csscal, nullptr);
  EXPECT_EQ(csscal->routine, BlasRoutine::kScal);
  EXPECT_EQ(csscal->type_a, t::kC32F);
  EXPECT_EQ(csscal->scale_type, t::kR32F);
  const BlasEntryPoint* dznrm2 = FindBlasEntryPoint("cublasDznrm2_v2_64");
  ASSERT_NE(dznrm2, nullptr);
  EXPECT_EQ(dznrm2->type_a, t::kC64F);
  EXPECT_EQ(dznrm2->type_c, t::kR64F);

  const BlasEntryPoint* lt = FindBlasEntryPoint("cublasLtMatmul");
  ASSERT_NE(lt, nullptr);
  EXPECT_EQ(lt->routine, BlasRoutine::kLtMatmul);
  EXPECT_EQ(lt->api, BlasApi::kLt);

  EXPECT_EQ(FindBlasEntryPoint("cublasXtSgemm"), nullptr);
  EXPECT_EQ(FindBlasEntryPoint("cublasLtSSSMatmul"), nullptr);
  EXPECT_EQ(FindBlasEntryPoint(""), nullptr);
  EXPECT_EQ(FindBlasEntryPoint("cublasZzzz"), nullptr);
}

TEST(BlasEntryPoints, FamiliesOfTheBriefAreComplete) {
  // Every form the brief names, by family, in int32 and _64 (and legacy/_v2 where both exist).
  const char* const required[] = {"cublasSgemm",
                                  "cublasSgemm_v2",
                                  "cublasSgemm_v2_64",
                                  "cublasDgemm_v2_64",
                                  "cublasCgemm_v2",
                                  "cublasZgemm",
                                  "cublasHgemm_64",
                                  "cublasSgemmEx_64",
                                  "cublasCgemm3m",
                                  "cublasCgemm3m_64",
                                  "cublasGemmEx",
                                  "cublasGemmBatchedEx_64",
                                  "cublasGemmStridedBatchedEx_64",
                                  "cublasGemmGroupedBatchedEx_64",
                                  "cublasHgemmBatched",
                                  "cublasZgemmStridedBatched_64",
                                  "cublasSgemv",
                                  "cublasZgemv_v2_64",
                                  "cublasDgemvStridedBatched_64",
                                  "cublasHSHgemvBatched",
                                  "cublasTSTgemvStridedBatched_64",
                                  "cublasSger_v2",
                                  "cublasDger_v2_64",
                                  "cublasCgeru_v2",
                                  "cublasCgerc_v2_64",
                                  "cublasZgeru_v2",
                                  "cublasZgerc",
                                  "cublasStrsm_v2",
                                  "cublasZtrsmBatched_64",
                                  "cublasCtrmm_v2_64",
                                  "cublasDsymm_v2",
                                  "cublasZhemm_v2_64",
                                  "cublasSsyrk_v2",
                                  "cublasCherk_v2_64",
                                  "cublasDsyr2k_v2",
                                  "cublasZher2k_v2_64",
                                  "cublasSdot_v2",
                                  "cublasCdotc_v2_64",
                                  "cublasZdotu_v2",
                                  "cublasDotEx_64",
                                  "cublasDotcEx",
                                  "cublasSaxpy_v2_64",
                                  "cublasAxpyEx",
                                  "cublasZscal_v2",
                                  "cublasCsscal_v2_64",
                                  "cublasZdscal_v2",
                                  "cublasScalEx_64",
                                  "cublasSnrm2_v2",
                                  "cublasScnrm2_v2_64",
                                  "cublasDznrm2_v2",
                                  "cublasNrm2Ex_64",
                                  "cublasLtMatmul"};
  for (const char* name : required) EXPECT_NE(FindBlasEntryPoint(name), nullptr) << name;
}

TEST(BlasEntryPoints, ApplyDefaultsFillsFixedFieldsOnly) {
  trace::LibraryCallRecord r{};
  r.type_a = r.type_b = r.type_c = r.type_d = 0xEE;
  r.compute_type = r.scale_type = 0xEE;
  r.m = 7;
  ApplyEntryPointDefaults(*FindBlasEntryPoint("cublasDgemm_v2_64"), r);
  EXPECT_EQ(r.routine, static_cast<uint16_t>(BlasRoutine::kGemm));
  EXPECT_EQ(r.type_a, t::kR64F);
  EXPECT_EQ(r.type_c, t::kR64F);
  EXPECT_EQ(r.type_d, kNotApplicable);
  EXPECT_EQ(r.compute_type, ct::k64F);
  EXPECT_EQ(r.scale_type, t::kR64F);
  EXPECT_EQ(r.m, 7);

  trace::LibraryCallRecord x{};
  x.type_a = t::kR16BF;
  x.compute_type = ct::k32F;
  ApplyEntryPointDefaults(*FindBlasEntryPoint("cublasGemmStridedBatchedEx"), x);
  EXPECT_EQ(x.routine, static_cast<uint16_t>(BlasRoutine::kGemmStridedBatched));
  EXPECT_EQ(x.type_a, t::kR16BF);  // from the call's arguments, left alone
  EXPECT_EQ(x.compute_type, ct::k32F);
  EXPECT_EQ(x.type_d, kNotApplicable);
}

TEST(BlasTypes, SizesAndNames) {
  EXPECT_EQ(DataTypeBytes(t::kR32F), 4);
  EXPECT_EQ(DataTypeBytes(t::kC64F), 16);
  EXPECT_EQ(DataTypeBytes(t::kR16BF), 2);
  EXPECT_EQ(DataTypeBytes(t::kR8FE4M3), 1);
  EXPECT_EQ(DataTypeBytes(t::kR4FE2M1), 0.5);
  EXPECT_EQ(DataTypeBytes(kNotApplicable), 0);
  EXPECT_EQ(DataTypeBytes(34), 0);
  EXPECT_TRUE(IsComplexType(t::kC16F));
  EXPECT_FALSE(IsComplexType(t::kR64F));
  EXPECT_EQ(DataTypeName(t::kR8FE5M2), "R_8F_E5M2");
  EXPECT_EQ(ComputeTypeName(ct::k32FFastTF32), "32F_FAST_TF32");
  EXPECT_EQ(ComputeTypeName(77 - ct::kOffset), "32F_FAST_TF32");
  EXPECT_EQ(EpilogueName(lt_epilogue::kGeluAuxBias), "GELU_AUX_BIAS");
  EXPECT_EQ(lt_epilogue::kGeluAuxBias, lt_epilogue::kGelu | 128u | lt_epilogue::kBias);
  EXPECT_EQ(lt_epilogue::kDgeluBgrad, lt_epilogue::kDgelu | 16u);
  EXPECT_EQ(EpilogueName(3), "unknown");
}

}  // namespace
}  // namespace flopspy::analyzers
