// The record every cuBLAS, cuBLASLt and cuDNN hook starts from: every field "not applicable"
// (types and options 0xFF, dimensions 0, batch 1, device -1, the default epilogue, figures
// unknown); each hook's decoder then fills what its call says.
#pragma once

#include "flopspy/analyzers/blas_types.h"
#include "raw_events.h"

namespace flopspy::interpose {

inline void ResetLibraryCall(RawLibraryCall& raw) {
  namespace a = flopspy::analyzers;
  raw = RawLibraryCall{};
  trace::LibraryCallRecord& r = raw.record;
  r.device = -1;
  r.batch = 1;
  r.type_a = r.type_b = r.type_c = r.type_d = a::kNotApplicable;
  r.compute_type = r.scale_type = a::kNotApplicable;
  r.trans_a = r.trans_b = a::kNotApplicable;
  r.side = r.uplo = r.diag = a::kNotApplicable;
  r.epilogue = a::lt_epilogue::kDefault;
  r.source = static_cast<uint8_t>(trace::FigureSource::kUnknown);
}

}  // namespace flopspy::interpose
