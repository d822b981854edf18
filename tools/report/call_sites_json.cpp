#include "report/call_sites_json.h"

#include <string>

#include "flopspy/analyzers/roofline.h"
#include "report/call_sites_view.h"
#include "report/labels.h"

namespace flopspy::tools {
namespace {

using analyzers::CallSite;
using nlohmann::json;

json FrameJson(const analyzers::SourceFrame& f) {
  return {{"label", analyzers::FrameLabel(f)},
          {"python", f.python},
          {"file", f.file},
          {"function", f.function},
          {"line", f.line},
          {"module", f.module},
          {"user", f.user}};
}

json RegimeSharesJson(const std::array<double, 4>& regime_ns, double gpu_ns) {
  json shares = json::object();
  for (size_t i = 0; i < regime_ns.size(); ++i) {
    shares[std::string(analyzers::RegimeName(static_cast<analyzers::Regime>(i)))] =
        gpu_ns > 0 ? regime_ns[i] / gpu_ns : 0.0;
  }
  return shares;
}

json KernelRef(const TraceReport& t, const analyzers::CallSiteKernel& k) {
  json row = {{"gpu_ns", k.gpu_ns}, {"launches", k.launches}};
  if (k.group < t.run.kernels.size()) {
    const analyzers::KernelGroup& g = t.run.kernels[k.group];
    row["name"] = g.name;
    row["short_name"] = g.op.empty() ? KernelShortName(g.name) : g.op;
    row["signature"] = g.signature;
    row["shape"] = g.shape_key;
  }
  return row;
}

json SiteJson(const TraceReport& t, const CallSite& s) {
  json stack = json::array();
  for (const analyzers::SourceFrame& f : s.stack) stack.push_back(FrameJson(f));
  json kernels = json::array();
  for (const analyzers::CallSiteKernel& k : s.kernels) kernels.push_back(KernelRef(t, k));
  return {{"label", s.label},
          {"kind", std::string(analyzers::CallSiteKindName(s.kind))},
          {"frame", FrameJson(s.frame)},
          {"gpu_ns", s.gpu_ns},
          {"share", s.share},
          {"launches", s.launches},
          {"counted_flops", s.flops},
          {"flops_gpu_ns", s.flops_ns},
          {"flops_coverage", s.gpu_ns > 0 ? s.flops_ns / s.gpu_ns : 0.0},
          {"achieved_flops_per_s", s.flops_ns > 0 ? json(s.AchievedFlopRate()) : json(nullptr)},
          {"launch_bound_ns", s.launch_bound_ns},
          {"launch_bound_share", s.gpu_ns > 0 ? s.launch_bound_ns / s.gpu_ns : 0.0},
          {"regime_shares", RegimeSharesJson(s.regime_ns, s.gpu_ns)},
          {"sampled_ns", s.sampled_ns},
          {"stack", stack},
          {"kernels", kernels}};
}

}  // namespace

void AddCallSitesJson(const TraceReport& t, json& trace) {
  const analyzers::CallSiteReport& r = t.call_sites;
  if (r.empty()) return;
  json sites = json::array();
  for (const CallSite& s : r.sites) sites.push_back(SiteJson(t, s));
  json stacks = json::array();
  for (const analyzers::StackTime& st : r.stacks) {
    stacks.push_back({{"frames", st.frames}, {"gpu_ns", st.gpu_ns}, {"site", st.site}});
  }
  const CallSiteCoverage c = CoverageOf(r);
  const std::optional<uint32_t> every = StackSampleEvery(t);
  trace["call_sites"] = {{"kernel_ns", r.kernel_ns},
                         {"coverage",
                          {{"sampled_ns", r.sampled_ns},
                           {"estimated_ns", r.estimated_ns},
                           {"sampled_share", c.sampled},
                           {"estimated_share", c.estimated},
                           {"no_site_share", c.none},
                           {"samples", r.samples},
                           {"distinct_stacks", r.stacks_seen},
                           {"sample_every", every ? json(*every) : json(nullptr)},
                           {"damaged_records", r.damaged}}},
                         {"modules_without_symbols", r.modules_without_symbols},
                         {"sites", sites},
                         {"stacks", stacks}};
}

json ByCallSiteJson(const TraceReport& t) {
  json rows = json::array();
  const analyzers::CallSiteReport& r = t.call_sites;
  for (const CallSite& s : r.sites) {
    for (const analyzers::CallSiteKernel& k : s.kernels) {
      json row = {{"call_site", s.label},
                  {"call_site_kind", std::string(analyzers::CallSiteKindName(s.kind))},
                  {"call_site_gpu_ns", s.gpu_ns}};
      row.update(KernelRef(t, k));
      row["gpu_share"] = r.kernel_ns > 0 ? k.gpu_ns / r.kernel_ns : 0.0;
      if (k.group < t.run.kernels.size()) {
        const auto& p = t.run.kernels[k.group].placement;
        row["regime"] = p ? json(std::string(analyzers::RegimeName(p->regime))) : json(nullptr);
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace flopspy::tools
