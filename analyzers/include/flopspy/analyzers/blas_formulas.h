// FLOPs, minimum DRAM bytes and the compute path (which roof applies) of one cuBLAS or cuBLASLt
// call, from the arguments its hook recorded. docs/blas-formulas.md gives every formula, the
// epilogue constants, the record conventions a hook follows and what is approximate.
//
// FLOPs follow LAWN 41 as blaspp's flops.hh applies it: flops = mul_ops * fmuls + add_ops * fadds,
// (1, 1) for real and (6, 2) for complex data, alpha = 1 and beta in {0, 1}, times the batch count.
#pragma once

#include <cstdint>
#include <span>

#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/compute_path.h"
#include "flopspy/trace/schema.h"

namespace flopspy::analyzers {

// Why a figure is what it is. Several can be set.
enum BlasNote : uint32_t {
  kBlasNoteUnknownRoutine = 1u << 0,    // routine not known: zero figures, source unknown
  kBlasNoteInvalidShape = 1u << 1,      // a needed dimension or batch count is negative
  kBlasNoteUnknownType = 1u << 2,       // a needed operand type is missing or not understood
  kBlasNoteCallFailed = 1u << 3,        // status != CUBLAS_STATUS_SUCCESS: nothing ran, zero work
  kBlasNoteGroupedFirstOnly = 1u << 4,  // grouped batched, groups missing: only the first known
  kBlasNoteBetaUnknown = 1u << 5,       // beta not read on the host: C counted as read
  kBlasNoteBroadcastOperand = 1u << 6,  // a strided-batched operand with stride 0 counted once
  kBlasNoteUnknownEpilogue = 1u << 7,   // epilogue value not understood: epilogue not counted
  kBlasNoteDescriptorIncomplete = 1u << 8,  // a cuBLASLt attribute could not be read
  kBlasNoteEmulatedCompute = 1u << 9,       // FP32/FP64 emulated on BF16/INT8 tensor cores
  kBlasNoteAssumedOperandType = 1u << 10,   // bias/aux element type assumed (not recorded)
  kBlasNoteProblemFlops = 1u << 11,  // 3M method or complex norm: LAWN 41 FLOPs of the problem,
                                     // not the (smaller) count the algorithm executes
};

struct BlasFigures {
  double flops = 0;           // the main operation, LAWN 41
  double epilogue_flops = 0;  // cuBLASLt epilogue (bias, activation, gradients), counted apart
  double bytes = 0;           // minimum DRAM bytes, epilogue operands included
  double epilogue_bytes = 0;  // the part of `bytes` due to bias and aux vectors/matrices
  ComputePath path = ComputePath::kUnknown;           // the roof the main operation runs under
  ComputePath epilogue_path = ComputePath::kUnknown;  // kFp32 (CUDA cores) when epilogue_flops > 0
  trace::FigureSource source = trace::FigureSource::kUnknown;
  uint32_t notes = 0;  // BlasNote bits
  // Grouped batched with kLibGrouped and its groups missing: FLOPs of one problem of the first
  // group (source stays unknown and flops 0); a lower bound whenever that group has a problem.
  double lower_bound_flops = 0;
};

// Epilogue FLOPs per output element (docs/blas-formulas.md, "Epilogues", says why).
inline constexpr double kEpilogueBiasFlops = 1;    // one add
inline constexpr double kEpilogueReluFlops = 1;    // one max
inline constexpr double kEpilogueGeluFlops = 9;    // tanh form: 8 mul/add + tanh as one op
inline constexpr double kEpilogueDreluFlops = 1;   // one select by the aux bit
inline constexpr double kEpilogueDgeluFlops = 18;  // recompute tanh (6) + derivative (11) + x grad
inline constexpr double kEpilogueBgradFlops = 1;   // one add per reduced element

// The whole formula table. Never fails: what cannot be known is zero with source kUnknown and a
// note saying why.
BlasFigures ComputeBlasFigures(const trace::LibraryCallRecord& record);

// A grouped batched GEMM whose groups differ (kLibGrouped with kLibGroupsFollow): the figures
// summed over every group, from the groups its LibraryGroups records list and the sums of the
// groups they cut; exact, source analytic (docs/blas-formulas.md, "Grouped GEMM"). `groups` in
// call order, all of them (record.batch - cut.groups). With groups missing, or for any other
// record: ComputeBlasFigures(record).
BlasFigures ComputeBlasFigures(const trace::LibraryCallRecord& record,
                               std::span<const trace::LibraryGroupShape> groups,
                               const trace::LibraryGroupsCut& cut);

// Writes flops, epilogue_flops, bytes and source into the record (what the flusher does).
void FillBlasFigures(trace::LibraryCallRecord& record);
// The same for a grouped call with its groups.
void FillBlasFigures(trace::LibraryCallRecord& record,
                     std::span<const trace::LibraryGroupShape> groups,
                     const trace::LibraryGroupsCut& cut);

// The roof of the main operation, from the routine, operand types and the stored compute type
// (cublasComputeType_t - 64, kNotApplicable if none). Level 1 and 2 run on CUDA cores; level 3
// on tensor cores where the types allow (FP64 level 3 is kFp64Tensor: placement falls back to the
// FP64 CUDA-core roof on GPUs without FP64 tensor cores).
ComputePath BlasComputePath(BlasRoutine routine, uint8_t type_a, uint8_t type_b,
                            uint8_t stored_compute_type, uint8_t type_d);
inline ComputePath BlasComputePath(const trace::LibraryCallRecord& r) {
  return BlasComputePath(BlasRoutineFromId(r.routine), r.type_a, r.type_b, r.compute_type,
                         r.type_d);
}

// True when the record says C (or y) may be read: beta not known on the host, or known non-zero.
bool BlasReadsC(const trace::LibraryCallRecord& record);

}  // namespace flopspy::analyzers
