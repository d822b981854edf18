#include "report/html_run.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "report/format.h"
#include "report/html_rollup.h"
#include "report/html_sections.h"
#include "report/html_tables.h"
#include "report/html_util.h"

namespace flopspy::tools::html {
namespace {

using nlohmann::json;

std::optional<double> Fraction100(const json& object, std::string_view key) {
  const std::optional<double> v = Num(object, key);
  return v ? std::optional<double>(100 * *v) : std::nullopt;
}

Cell PctCell(const json& object, std::string_view key, int decimals = 0) {
  const std::optional<double> v = Fraction100(object, key);
  return Number(v, Pct(v, decimals));
}

Cell NsCell(const json& object, std::string_view key) {
  return Number(Num(object, key), Ns(Num(object, key)));
}

Cell SignedNsCell(std::optional<double> ns) {
  if (!ns) return Number(std::nullopt, "-");
  std::string shown = *ns == 0 ? "0" : (*ns < 0 ? "-" : "+") + Ns(std::abs(*ns));
  return Number(ns, shown);
}

std::string RankName(const json& r) {
  const int64_t rank = Int(r, "rank", -1);
  if (rank >= 0) return "rank " + std::to_string(rank);
  return "pid " + Str(r, "pid", "?") + " on " + Str(r, "host", "?");
}

}  // namespace

std::string AggregateSection(const json& a, size_t index) {
  std::string models;
  for (const auto& d : Arr(a, "devices")) {
    models += fmt::format("{}{} x {}", models.empty() ? "" : ", ", Str(d, "gpus", "?"),
                          Str(Obj(d, "properties"), "name", "?"));
  }
  std::vector<std::pair<std::string, std::string>> facts = {
      {"processes",
       Escape(fmt::format("{} of {} traces", Str(a, "processes", "0"), Str(a, "traces", "0")))},
      {"ranks", Escape(NumOr(a, "ranks", 0) > 0 ? Str(a, "ranks") : "none")},
      {"hosts", Escape(Str(a, "hosts", "0"))},
      {"GPUs", Escape(Str(a, "gpus", "0") + (models.empty() ? "" : " (" + models + ")"))}};
  if (NumOr(a, "wall_ns", 0) > 0) {
    facts.push_back({"wall time", Escape(Ns(Num(a, "wall_ns")) + " from the first event to the "
                                                                 "last, on the wall clock")});
  }
  if (Num(a, "busy_fraction")) {
    facts.push_back(
        {"GPU busy", Escape(fmt::format("{} of the GPUs' active windows ({} of {})",
                                        Pct(Fraction100(a, "busy_fraction")),
                                        Ns(Num(a, "gpu_busy_ns")), Ns(Num(a, "gpu_window_ns"))))});
  }
  facts.push_back(
      {"kernels",
       Escape(fmt::format("{} of GPU time in {} launches; {} with a known figure",
                          Ns(Num(a, "kernel_gpu_ns")), GroupedCount(NumOr(a, "launches", 0)),
                          Si(Num(a, "kernel_flops"), "FLOP")))});
  if (Num(a, "counted_flops_of_peak")) {
    facts.push_back(
        {"counted FLOPs", Escape("achieved " + Pct(Fraction100(a, "counted_flops_of_peak"), 1) +
                                 " of every GPU's peak over its active span (analytic FLOPs)")});
  }
  if (!Str(a, "step_region").empty()) facts.push_back({"step", Escape(Str(a, "step_region"))});
  std::string s = Facts(facts);
  for (const auto& n : Arr(a, "notes")) {
    if (n.is_string()) s += "<p class=\"note\">" + Escape(n.get<std::string>()) + "</p>";
  }
  // The GPU sections, charts and tables read the aggregate as they read a trace: its devices
  // are the GPU models, and each merged group's `device` is its model.
  if (std::string r = KernelRollupSection(a, "run-rollup"); !r.empty()) {
    s += Fold({"run-s-where", "Where the GPU time goes", std::move(r), true});
  }
  for (const auto& d : Arr(a, "devices")) s += Fold(DeviceSection(a, d, index));
  if (const std::string k = KernelTable(a, index); !k.empty()) {
    s += "<h3>Kernels, merged across traces</h3><p class=\"note\">One row per kernel signature "
         "(name, grid, block) and shape on one GPU model, over every trace; placed on that "
         "model's roofs.</p>" +
         k;
  }
  if (const std::string l = LibraryTable(a, index); !l.empty()) {
    s += "<h3>cuBLAS, cuBLASLt and cuDNN shapes, merged across traces</h3>" + l;
  }
  return s;
}

std::string RanksSection(const json& ranks, const json& stragglers) {
  if (!ranks.is_array() || ranks.empty() || !Num(ranks[0], "start_offset_ns")) {
    return GenericSection(ranks, "run-ranks");
  }
  std::set<std::pair<int64_t, int64_t>> slow;  // (rank, pid)
  if (stragglers.is_array()) {
    for (const auto& s : stragglers) slow.insert({Int(s, "rank", -1), Int(s, "pid", -1)});
  }
  HtmlTable t("run-ranks", {{"rank", true, "rank, or - when the job set none"},
                            {"host", false, ""},
                            {"pid", true, "the process that was not forked"},
                            {"local", true, "local rank"},
                            {"start", true, "after the earliest trace start (wall clock)"},
                            {"span", true, "first to last event"},
                            {"GPU busy", true, "GPU work over the GPUs' active windows"},
                            {"kernel time", true, "summed kernel GPU time"},
                            {"FLOPs", true, "of the timed kernels with a known figure"},
                            {"%peak", true, "counted (analytic) FLOPs over active span x peak"},
                            {"launches", true, ""},
                            {"steps", true, "completed step regions"},
                            {"step mean", true, ""},
                            {"step p50", true, ""},
                            {"lost", true, "records lost"},
                            {"traces", true, "the process and the children it forked"},
                            {"end", false, "how the process ended"}});
  for (const auto& r : ranks) {
    const int64_t rank = Int(r, "rank", -1);
    const bool straggler = slow.contains({rank, Int(r, "pid", -1)});
    Cell name = Number(rank >= 0 ? std::optional<double>(rank) : std::nullopt,
                       rank >= 0 ? std::to_string(rank) : "-");
    if (straggler) {
      name.cls += " warn";
      name.title = "a straggler: see below";
    }
    const json& step = Obj(r, "step");
    const std::optional<double> offset = Num(r, "start_offset_ns");
    t.AddRow(
        "",
        {name, Text(Str(r, "host")), Number(Num(r, "pid"), Str(r, "pid")),
         Number(Num(r, "local_rank"), Int(r, "local_rank", -1) >= 0 ? Str(r, "local_rank") : "-"),
         Number(offset, offset ? "+" + Ns(offset) : "-"), NsCell(r, "span_ns"),
         PctCell(r, "busy_fraction"), NsCell(r, "kernel_gpu_ns"),
         Number(Num(r, "flops"), Si(Num(r, "flops"), "")), PctCell(r, "counted_flops_of_peak", 1),
         Number(Num(r, "launches"), GroupedCount(NumOr(r, "launches", 0))),
         Number(Num(step, "count"), Str(step, "count", "-")), NsCell(step, "mean_ns"),
         NsCell(step, "p50_ns"), Number(Num(r, "lost"), Str(r, "lost", "0")),
         Number(Num(r, "traces"), Str(r, "traces", "1")), Text(Str(r, "end"))},
        straggler ? "straggler" : "");
  }
  return t.Render();
}

std::string StragglersSection(const json& stragglers, const json& aggregate) {
  std::string s;
  if (!stragglers.is_array() || stragglers.empty()) {
    s += "<p>No rank stands out.</p>";
  } else {
    s += "<ul class=\"stragglers\">";
    for (const auto& st : stragglers) {
      s += fmt::format(R"(<li class="warn"><span class="badge">{}</span> {}</li>)",
                       Escape(Str(st, "metric")), Escape(Str(st, "sentence", RankName(st))));
    }
    s += "</ul>";
  }
  for (const auto& c : Arr(aggregate, "straggler_checks")) {
    if (c.is_string()) s += "<p class=\"note\">" + Escape(c.get<std::string>()) + "</p>";
  }
  return s + "<p class=\"note\">The rule: docs/flopspy-report.md, \"Stragglers\".</p>\n";
}

std::string DiffHeader(const json& report) {
  const json& d = Obj(report, "diff");
  std::string s = "<header><h1>flopspy report: two runs compared</h1>";
  s += fmt::format(R"(<p class="muted">flopspy {} · report schema {}</p>)",
                   Escape(Str(report, "flopspy_version", "?")),
                   Escape(Str(report, "schema_version", "?")));
  std::vector<std::pair<std::string, std::string>> facts;
  for (const char* side : {"a", "b"}) {
    const json& r = Obj(d, side);
    std::string models;
    for (const auto& m : Arr(r, "gpu_models")) models += (models.empty() ? "" : ", ") + Dump(m);
    std::erase(models, '"');
    facts.push_back({side == std::string("a") ? "A" : "B",
                     "<code>" + Escape(Str(r, "path")) + "</code> " +
                         Escape(fmt::format(
                             "({} of {} traces readable{}{}; kernel time {})",
                             Str(r, "readable", "0"), Str(r, "traces", "0"),
                             NumOr(r, "ranks", 0) > 0 ? ", " + Str(r, "ranks") + " ranks" : "",
                             models.empty() ? "" : ", " + models, Ns(Num(r, "kernel_gpu_ns"))))});
  }
  return s + Facts(facts) + "</header>\n";
}

std::string DiffSection(const json& d) {
  std::string s = "<p>" + Escape(Str(d, "summary")) + "</p>";
  for (const auto& n : Arr(d, "notes")) {
    if (n.is_string()) s += "<p class=\"note\">" + Escape(n.get<std::string>()) + "</p>";
  }
  const auto table = [&](const char* key, const std::string& title) {
    const json& rows = Arr(d, key);
    if (rows.empty()) return;
    HtmlTable t(std::string("diff-") + key,
                {{"item", false, "kernel signature and shape, or library routine and shape"},
                 {"in", false, "both runs, or only one"},
                 {"change", true, "GPU time B - A"},
                 {"change %", true, "of A's GPU time"},
                 {"time A", true, ""},
                 {"time B", true, ""},
                 {"count A", true, "GPU executions or calls (launches without GPU records)"},
                 {"count B", true, ""},
                 {"mean A", true, "GPU time per execution or call"},
                 {"mean B", true, ""},
                 {"FLOP/s A", true, "achieved"},
                 {"FLOP/s B", true, ""},
                 {"% roof A", true, "of the attainable FLOP/s (one GPU model only)"},
                 {"% roof B", true, ""}});
    for (const auto& r : rows) {
      const json& a = Obj(r, "a");
      const json& b = Obj(r, "b");
      const std::string presence = Str(r, "presence");
      Cell item;
      item.html = fmt::format("<details><summary>{}</summary><code>{}</code></details>",
                              Escape(Str(r, "label")), Escape(Str(r, "name")));
      item.sort_text = Str(r, "label");
      item.cls = "name";
      Cell in = Text(presence == "only_a" ? "A only" : presence == "only_b" ? "B only" : "both");
      if (presence != "both") in.cls = "warn";
      const std::optional<double> pct = Num(r, "change_pct");
      const auto count = [](const json& f) {
        return Number(Num(f, "count"), f.is_null() ? "-" : GroupedCount(NumOr(f, "count", 0)));
      };
      const auto rate = [](const json& f) {
        return Number(Num(f, "flops_per_s"), Si(Num(f, "flops_per_s"), ""));
      };
      const auto roof = [](const json& f) {
        const std::optional<double> v = Num(f, "pct_of_roof");
        return Number(v, Pct(v, v && *v < 1 ? 2 : v && *v < 10 ? 1 : 0));
      };
      // A side present without GPU records: its times are unknown, not missing.
      const auto time = [](const json& f, std::string_view field) {
        if (f.is_object() && f.contains("gpu_time_known") && !Bool(f, "gpu_time_known")) {
          Cell c = Number(std::nullopt, "unknown");
          c.title = "no GPU records: the count is of launches";
          return c;
        }
        return NsCell(f, field);
      };
      const std::optional<double> change_ns = Num(r, "change_ns");
      const Cell change = change_ns ? SignedNsCell(change_ns) : Number(std::nullopt, "unknown");
      t.AddRow("", {item, in, change, Number(pct, pct ? fmt::format("{:+.1f}%", *pct) : "-"),
                    time(a, "gpu_ns"), time(b, "gpu_ns"), count(a), count(b), time(a, "mean_ns"),
                    time(b, "mean_ns"), rate(a), rate(b), roof(a), roof(b)});
    }
    s += "<h3>" + Escape(title) + "</h3>" + t.Render();
  };
  table("kernels", "Kernels, largest change in GPU time first");
  table("library_calls", "cuBLAS, cuBLASLt and cuDNN shapes, largest change in GPU time first");
  return s;
}

}  // namespace flopspy::tools::html
