#include "flopspy/analyzers/trace_index.h"

#include "flopspy/analyzers/demangle.h"

namespace flopspy::analyzers {

void TraceIndex::Add(const trace::RecordView& r, const trace::StringLookup& strings) {
  switch (r.type) {
    case trace::RecordType::kFunction: {
      const auto def = r.As<trace::FunctionDef>();
      FunctionInfo info;
      info.mangled = std::string(strings(def.mangled_name));
      // A demangled id equal to the mangled one says the driver could not demangle it.
      if (def.demangled_name != 0 && def.demangled_name != def.mangled_name) {
        info.demangled = std::string(strings(def.demangled_name));
      }
      info.name = !info.demangled.empty() ? info.demangled : info.mangled;
      info.layout = ParamLayout::FromFunctionDef(def);
      info.kernel_class = ClassifyKernel(info.name);
      functions_[def.id] = std::move(info);
      break;
    }
    case trace::RecordType::kKernelSignature: {
      const auto def = r.As<trace::KernelSignatureDef>();
      SignatureEntry entry;
      entry.def = def;
      if (def.name != 0) entry.own_name = std::string(strings(def.name));
      const FunctionInfo* function = Function(def.function);
      if (function != nullptr && !function->demangled.empty()) {
        entry.kernel_name = function->demangled;
      } else if (!entry.own_name.empty() || function == nullptr) {
        entry.kernel_name = Demangle(entry.own_name);
      } else {
        entry.kernel_name = Demangle(function->mangled);
      }
      signatures_[def.id] = std::move(entry);
      if (def.function == 0 && def.name != 0) {
        FunctionInfo info;
        info.demangled = Demangle(strings(def.name));
        info.name = info.demangled;
        info.kernel_class = ClassifyKernel(info.name);
        named_signatures_[def.id] = std::move(info);
      }
      break;
    }
    case trace::RecordType::kStream: {
      const auto def = r.As<trace::StreamDef>();
      streams_[def.id] = def;
      break;
    }
    case trace::RecordType::kMetadata: {
      const auto block = r.As<trace::MetadataBlock>();
      sampling_.AddMetadata(r.Text(sizeof(trace::MetadataBlock), block.length));
      break;
    }
    default:
      break;
  }
}

const trace::KernelSignatureDef* TraceIndex::Signature(uint32_t id) const {
  const auto it = signatures_.find(id);
  return it == signatures_.end() ? nullptr : &it->second.def;
}

const FunctionInfo* TraceIndex::Function(uint32_t id) const {
  const auto it = functions_.find(id);
  return it == functions_.end() ? nullptr : &it->second;
}

const trace::StreamDef* TraceIndex::Stream(uint32_t id) const {
  const auto it = streams_.find(id);
  return it == streams_.end() ? nullptr : &it->second;
}

const FunctionInfo* TraceIndex::FunctionOf(uint32_t signature) const {
  const auto sig = signatures_.find(signature);
  if (sig == signatures_.end()) return nullptr;
  if (const FunctionInfo* f = Function(sig->second.def.function)) return f;
  const auto named = named_signatures_.find(signature);
  return named == named_signatures_.end() ? nullptr : &named->second;
}

std::string_view TraceIndex::SignatureName(uint32_t signature) const {
  const auto it = signatures_.find(signature);
  return it == signatures_.end() ? std::string_view() : it->second.own_name;
}

std::string_view TraceIndex::KernelName(uint32_t signature) const {
  const auto it = signatures_.find(signature);
  return it == signatures_.end() ? std::string_view("kernel") : it->second.kernel_name;
}

}  // namespace flopspy::analyzers
