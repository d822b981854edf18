// The definitions of one trace, read once: functions (named, demangled and classified once),
// kernel signatures and streams, and sampled GPU timing's windows. Every analysis and the timeline
// export look kernels up here instead of keeping definition tables of their own
// (docs/architecture.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "flopspy/analyzers/gpu_sampling.h"
#include "flopspy/analyzers/kernel_catalog.h"
#include "flopspy/trace/reader.h"
#include "flopspy/trace/schema.h"

namespace flopspy::analyzers {

struct FunctionInfo {
  std::string mangled;    // as the driver named it
  std::string demangled;  // the trace's demangled name; "" when it gave none of its own
  std::string name;       // what reports show: demangled, else mangled
  ParamLayout layout;
  KernelClass kernel_class;  // the catalog's reading of `name`
};

class TraceIndex {
 public:
  // Takes the definition records (functions, kernel signatures, streams) and ignores the rest.
  void Add(const trace::RecordView& record, const trace::StringLookup& strings);

  const trace::KernelSignatureDef* Signature(uint32_t id) const;
  const FunctionInfo* Function(uint32_t id) const;
  const trace::StreamDef* Stream(uint32_t id) const;
  // The name, layout and class behind a signature: its function's, or, for a signature known
  // only by its name (a graph kernel seen by CUPTI), from that name. nullptr when neither.
  const FunctionInfo* FunctionOf(uint32_t signature) const;
  // The signature's own name as written (mangled), "" when it has none.
  std::string_view SignatureName(uint32_t signature) const;
  // The timeline's name of a kernel: its function's demangled name, else its own name (or its
  // function's mangled one) demangled; "kernel" for an unknown signature.
  std::string_view KernelName(uint32_t signature) const;
  // Sampled GPU timing's windows, as far as the trace has been read.
  const GpuSamplingWindows& Sampling() const { return sampling_; }

 private:
  struct SignatureEntry {
    trace::KernelSignatureDef def{};
    std::string own_name;
    std::string kernel_name;
  };

  std::unordered_map<uint32_t, FunctionInfo> functions_;         // by FunctionDef id
  std::unordered_map<uint32_t, FunctionInfo> named_signatures_;  // by signature id, no function
  std::unordered_map<uint32_t, SignatureEntry> signatures_;      // by KernelSignatureDef id
  std::unordered_map<uint32_t, trace::StreamDef> streams_;       // by StreamDef id
  GpuSamplingWindows sampling_;
};

}  // namespace flopspy::analyzers
