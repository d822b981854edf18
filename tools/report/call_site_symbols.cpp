// Adapts symbols::Symbolizer (libdw) to the analysis' NativeResolver.
#include "report/call_site_symbols.h"

#include <memory>

#include "flopspy/symbols/symbolizer.h"

namespace flopspy::tools {

analyzers::CallSiteReport AnalyzeCallSitesWithSymbols(const analyzers::CallSiteLog& log,
                                                      const analyzers::TraceAnalysis& run,
                                                      analyzers::CallSiteOptions options,
                                                      const analyzers::RangeLog* ranges) {
  // Only traces with native stacks open any object file.
  bool native = false;
  for (const auto& [id, stack] : log.stacks) native = native || !stack.native.empty();
  if (!native || options.resolve_native)
    return analyzers::AnalyzeCallSites(log, run, options, ranges);
  symbols::Symbolizer symbolizer;  // one per call: it is not shared between threads
  options.resolve_native = [&symbolizer](const analyzers::NativeModule& module, uint64_t address) {
    const symbols::Symbol s =
        symbolizer.Resolve({module.path, module.build_id, module.bias}, address);
    return analyzers::NativeSymbol{s.function, s.file, s.line};
  };
  analyzers::CallSiteReport report = analyzers::AnalyzeCallSites(log, run, options, ranges);
  report.modules_without_symbols = symbolizer.ModulesWithoutSymbols();
  return report;
}

}  // namespace flopspy::tools
