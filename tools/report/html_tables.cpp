#include "report/html_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/format.h"
#include "report/html_util.h"

namespace flopspy::tools::html {

using nlohmann::json;

Cell Text(std::string_view text) {
  Cell c;
  c.html = Escape(text);
  return c;
}

Cell Number(std::optional<double> value, std::string shown) {
  Cell c;
  c.html = Escape(shown);
  c.sort = value;
  c.cls = "num";
  return c;
}

HtmlTable::HtmlTable(std::string id, std::vector<Column> columns)
    : id_(std::move(id)), columns_(std::move(columns)) {}

void HtmlTable::AddRow(std::string row_id, std::vector<Cell> cells, std::string row_class) {
  cells.resize(columns_.size());
  rows_.push_back({std::move(row_id), std::move(row_class), std::move(cells)});
}

std::string HtmlTable::Render(size_t limit) const {
  std::string s =
      fmt::format(R"(<div class="table-wrap"><table class="sortable" id="{}">)", Escape(id_));
  s += "<thead><tr>";
  for (const Column& c : columns_) {
    s += fmt::format(R"(<th{}{}>{}</th>)", c.numeric ? R"( class="num")" : "",
                     c.title.empty() ? "" : R"( title=")" + Escape(c.title) + "\"", Escape(c.name));
  }
  s += "</tr></thead>\n<tbody>\n";
  size_t shown = 0;
  for (const Row& r : rows_) {
    if (shown++ == limit) break;
    s += "<tr";
    if (!r.id.empty()) s += R"( id=")" + Escape(r.id) + "\"";
    if (!r.cls.empty()) s += R"( class=")" + Escape(r.cls) + "\"";
    s += ">";
    for (const Cell& c : r.cells) {
      s += "<td";
      if (!c.cls.empty()) s += R"( class=")" + c.cls + "\"";
      if (c.sort) s += R"( data-v=")" + Exact(*c.sort) + "\"";
      if (!c.sort_text.empty()) s += R"( data-s=")" + Escape(c.sort_text) + "\"";
      if (!c.title.empty()) s += R"( title=")" + Escape(c.title) + "\"";
      s += ">" + c.html + "</td>";
    }
    s += "</tr>\n";
  }
  s += "</tbody></table></div>\n";
  if (rows_.size() > limit) {
    s += fmt::format(R"(<p class="note">{} more rows are left out here; <code>--csv</code> and )"
                     R"(<code>--json</code> have all of them.</p>)",
                     rows_.size() - limit);
  }
  return s;
}

namespace {

std::optional<double> Positive(std::optional<double> v) {
  return v && *v > 0 ? v : std::nullopt;
}

Cell RegimeCell(const json& placement) {
  const std::string regime = Str(placement, "regime");
  Cell c;
  if (regime.empty()) {
    c.html = "-";
    return c;
  }
  const std::string proximity = Str(placement, "proximity");
  // Far below its roof, a row is bound by neither roof: it says so, as in the text report.
  const bool far = proximity == "far" && (regime == "compute_bound" || regime == "memory_bound");
  c.html = fmt::format(R"(<span class="regime {}">{}{}</span>)", Escape(regime),
                       Escape(RegimeText(regime)), far ? ", far" : "");
  c.sort_text = regime;
  const std::string overhead = Str(placement, "overhead_reason");
  std::string title = RegimeText(regime);
  if (!proximity.empty() && regime != "overhead_bound" && regime != "unknown") {
    title += proximity == "near"       ? ", near its roof"
             : proximity == "moderate" ? ", moderately below its roof"
             : proximity == "far"      ? ", far below its roof"
                                       : ", " + proximity;
  }
  if (regime == "overhead_bound" && !overhead.empty() && overhead != "none") {
    title += ": " + RegimeText(overhead);
  }
  if (const std::string why = UnplacedText(Str(placement, "reason")); !why.empty()) {
    title += ": " + why;
  }
  const auto count = [&](const char* key) {
    const auto it = placement.find(key);
    return it != placement.end() && it->is_number() ? it->get<uint64_t>() : uint64_t{0};
  };
  if (const std::string basis = FlopsBasisText(count("calls_with_flops"), count("calls"));
      !basis.empty()) {
    title += "; " + basis + " (FLOP/s and %roof over those)";
  }
  c.title = title;
  return c;
}

// Shares of a roof: whole percent, but a far-off kernel's 0.43% is not "0%".
std::string RoofPct(std::optional<double> pct) {
  if (!pct) return "-";
  return Pct(pct, *pct > 0 && *pct < 1 ? 2 : *pct < 10 ? 1 : 0);
}

// The roof a call runs against, and why when its kernel's name rather than its types said so.
Cell RoofCell(const json& call, const json& placement) {
  const std::string path = Str(placement, "roof_path");
  Cell c = Text(path.empty() ? "-" : RoofName(path));
  if (Str(call, "path_basis") == "kernel_name") {
    c.html += "*";
    c.title = "the call says " + Str(call, "compute_type", "?") +
              ", but the kernel it launched is a TF32 tensor-core kernel";
  }
  return c;
}

std::string SourceShort(const std::string& s) {
  if (s == "analytic") return "anl";
  if (s == "catalog") return "cat";
  if (s == "counters") return "ctr";
  return "?";
}

}  // namespace

std::string KernelTable(const json& trace, size_t trace_index) {
  const json& kernels = Arr(trace, "kernels");
  if (kernels.empty()) return "";
  // The columns that answer "which kernel, how long, how far from its roof"; the rest of a
  // row's figures open under its name, so that the table fits the page.
  HtmlTable t(fmt::format("t{}-kernels", trace_index),
              {{"kernel", false, "catalog reading · function [shape]; open for the full name"},
               {"GPU %", true, "share of the trace's kernel GPU time"},
               {"GPU time", true, "summed GPU time of the executions"},
               {"runs", true, "GPU executions (CPU launches when there are no GPU records)"},
               {"mean", true, "GPU time per execution"},
               {"FLOPs", true, "FLOPs of the timed executions"},
               {"FLOP/s", true, "achieved"},
               {"FLOP/B", true, "arithmetic intensity"},
               {"% roof", true, "percent of the attainable FLOP/s at this intensity"},
               {"regime", false, ""},
               {"src", false, "where the FLOPs come from: anl(ytic), cat(alog), c(oun)t(e)r(s)"}});
  for (size_t j = 0; j < kernels.size(); ++j) {
    const json& k = kernels[j];
    const json& p = Obj(k, "placement");
    const json& timed = Obj(k, "timed");
    const double executions = NumOr(k, "executions", 0);
    const double gpu_ns = NumOr(k, "gpu_ns", 0);
    const double runs = executions > 0 ? executions : NumOr(k, "launches", 0);
    std::string source = Str(timed, "flops_source", "unknown");
    if (source == "unknown") source = Str(Obj(k, "all"), "flops_source", "unknown");
    const std::string label = KernelLabel(k);
    const std::string name = Str(k, "name");
    const std::optional<double> flops =
        Str(timed, "flops_source", "unknown") == "unknown" ? std::nullopt : Num(timed, "flops");
    const std::optional<double> bytes =
        Str(timed, "bytes_source", "unknown") == "unknown" ? std::nullopt : Num(timed, "bytes");
    Cell kernel;
    kernel.sort_text = label;
    kernel.cls = "name";
    std::string detail = fmt::format("grid {} block {} · GPU {}", DimsText(Arr(k, "grid")),
                                     DimsText(Arr(k, "block")), Str(k, "device", "?"));
    if (executions > 0) detail += " · p95 " + Ns(Num(k, "p95_ns"));
    if (const auto launch = Positive(Num(k, "mean_launch_ns"))) detail += " · launch " + Ns(launch);
    if (bytes) detail += " · " + Si(bytes, "B") + " moved";
    if (const auto bw = Num(p, "achieved_bytes_per_s")) detail += " at " + Si(bw, "B/s");
    if (!Str(p, "roof_path").empty()) detail += " · roof " + RoofName(Str(p, "roof_path"));
    if (Bool(k, "inside_library")) detail += " · launched by a cuBLAS call";
    if (NumOr(k, "launch_errors", 0) > 0) {
      detail += fmt::format(" · {} launch errors", Str(k, "launch_errors"));
    }
    kernel.html = fmt::format(
        R"(<details><summary>{}</summary><span class="muted">{}</span><br><code>{}</code></details>)",
        ShortName(label, label, 64), Escape(detail), Escape(name.empty() ? "(unnamed)" : name));
    const std::optional<double> share = Num(k, "gpu_share");
    t.AddRow(
        fmt::format("t{}-k{}", trace_index, j),
        {kernel,
         Number(share ? std::optional<double>(100 * *share) : std::nullopt,
                share ? fmt::format("{:.1f}", 100 * *share) : "-"),
         Number(gpu_ns, executions > 0 ? Duration(gpu_ns) : "-"), Number(runs, GroupedCount(runs)),
         Number(executions > 0 ? Num(k, "mean_ns") : std::nullopt,
                executions > 0 ? Ns(Num(k, "mean_ns")) : "-"),
         Number(flops, Si(flops, "")),
         Number(Num(p, "achieved_flops_per_s"), Si(Num(p, "achieved_flops_per_s"), "")),
         Number(Num(p, "intensity"), Plain(Num(p, "intensity"))),
         Number(Num(p, "pct_of_attainable"), RoofPct(Num(p, "pct_of_attainable"))), RegimeCell(p),
         Text(SourceShort(source))});
  }
  return t.Render();
}

std::string LibraryTable(const json& trace, size_t trace_index) {
  const json& calls = Arr(trace, "library_calls");
  if (calls.empty()) return "";
  HtmlTable t(
      fmt::format("t{}-library", trace_index),
      {{"routine", false, ""},
       {"m x n x k", false, "shape (batch)"},
       {"types", false, "A, B, C, D data types; compute type"},
       {"calls", true, ""},
       {"GPU time", true, "GPU time of the kernels the calls launched"},
       {"FLOPs", true, "analytic FLOPs of all calls (main operation)"},
       {"epilogue FLOPs", true, "bias and activation FLOPs of all calls, counted apart"},
       {"bytes", true, "minimum DRAM bytes of all calls"},
       {"FLOP/s", true, "achieved, over the calls with GPU times"},
       {"FLOP/B", true, "arithmetic intensity"},
       {"% peak", true, "percent of the compute roof"},
       {"roof", false, "compute path whose roof holds the call"},
       {"regime", false, ""},
       {"diagnostics", false, "what the shape costs (docs/blas-formulas.md); open for all"}});
  for (size_t j = 0; j < calls.size(); ++j) {
    const json& c = calls[j];
    const json& p = Obj(c, "placement");
    std::string types;
    for (const auto& ty : Arr(c, "types")) {
      types += (types.empty() ? "" : ", ") + (ty.is_string() ? ty.get<std::string>() : "?");
    }
    // Four equal types read as one ("R_32F / 32F"); the cell's title has each.
    const json& all = Arr(c, "types");
    if (all.size() == 4 && all[0].is_string() &&
        std::all_of(all.begin(), all.end(), [&](const json& type) { return type == all[0]; })) {
      types = all[0].get<std::string>();
    }
    types += " / " + Str(c, "compute_type", "?");
    Cell types_cell = Text(types);
    std::string each;
    for (const auto& ty : all)
      each += (each.empty() ? "" : ", ") + (ty.is_string() ? ty.get<std::string>() : "?");
    types_cell.title = "A, B, C, D data types " + each + "; compute type " +
                       Str(c, "compute_type", "?") + "; scale type " + Str(c, "scale_type", "?");
    std::string shape =
        fmt::format("{}x{}x{}", Str(c, "m", "?"), Str(c, "n", "?"), Str(c, "k", "?"));
    if (NumOr(c, "batch", 1) > 1) shape += " b" + Str(c, "batch");
    // As the text report words it: a grouped GEMM's groups, a convolution's images and filter,
    // a cuDNN graph's main operation (docs/cudnn-hooks.md).
    shape = Str(c, "shape_text", shape);
    Cell shape_cell = Text(shape);
    shape_cell.sort_text = "";
    shape_cell.sort = NumOr(c, "m", 0) * NumOr(c, "n", 0) * NumOr(c, "k", 0) *
                      std::max(1.0, NumOr(c, "batch", 1));
    std::string transposes = Str(c, "trans_a") + Str(c, "trans_b");
    shape_cell.title =
        fmt::format("m={} n={} k={} batch={} trans {} epilogue {}", Str(c, "m"), Str(c, "n"),
                    Str(c, "k"), Str(c, "batch"), transposes, Str(c, "epilogue", "-"));
    const json& lt = Obj(c, "lt_attributes");
    if (lt.is_object()) {
      std::string set;
      for (const auto& [key, value] : lt.items()) {
        if (value.is_boolean() && value.get<bool>())
          set += (set.empty() ? "" : ", ") + RegimeText(key);
      }
      shape_cell.title +=
          "; cuBLASLt: " + (set.empty() ? std::string("no bias, aux or scale pointers") : set);
    }
    Cell diagnostics;
    diagnostics.cls = "diag";
    const json& findings = Arr(c, "diagnostics");
    if (!findings.empty()) {
      // Folded: the count and the worst finding's severity; the sentences open below.
      size_t warnings = 0;
      std::string items;
      for (const auto& f : findings) {
        const std::string severity = Str(f, "severity", "info");
        warnings += severity != "info";
        const std::optional<double> lost = Num(f, "lost_ns");
        items +=
            fmt::format(R"(<li class="{}" title="{}">{}{}</li>)", Escape(severity),
                        Escape(Str(f, "kind") + " (" + severity + ")"), Escape(Str(f, "sentence")),
                        lost && *lost > 0 ? Escape(" [about " + Duration(*lost) + " lost]") : "");
      }
      diagnostics.html = fmt::format(
          R"(<details><summary{}>{} finding{}{}</summary><ul>{}</ul></details>)",
          warnings ? R"( class="warn")" : "", findings.size(), findings.size() == 1 ? "" : "s",
          warnings ? fmt::format(", {} to act on", warnings) : "", items);
    }
    diagnostics.sort = static_cast<double>(findings.size());
    const double failed = NumOr(c, "failed_calls", 0);
    Cell calls_cell = Number(Num(c, "calls"), Str(c, "calls", "-"));
    calls_cell.title = fmt::format("CPU time in the calls {} · GPU {}", Ns(Num(c, "cpu_ns")),
                                   Str(c, "device", "-"));
    if (failed > 0) calls_cell.title += fmt::format(" · {} failed", Str(c, "failed_calls"));
    t.AddRow(fmt::format("t{}-l{}", trace_index, j),
             {Text(Str(c, "routine")), shape_cell, types_cell, calls_cell,
              Number(Num(c, "gpu_ns"), NumOr(c, "gpu_ns", 0) > 0 ? Ns(Num(c, "gpu_ns")) : "-"),
              Number(Num(c, "flops"), Si(Num(c, "flops"), "")),
              Number(Num(c, "epilogue_flops"),
                     NumOr(c, "epilogue_flops", 0) > 0 ? Si(Num(c, "epilogue_flops"), "") : "-"),
              Number(Num(c, "bytes"), Si(Num(c, "bytes"), "B")),
              Number(Num(p, "achieved_flops_per_s"), Si(Num(p, "achieved_flops_per_s"), "")),
              Number(Num(p, "intensity"), Plain(Num(p, "intensity"))),
              Number(Num(p, "pct_of_peak"), RoofPct(Num(p, "pct_of_peak"))), RoofCell(c, p),
              RegimeCell(p), diagnostics});
  }
  return t.Render();
}

std::string CopyTable(const json& trace, size_t trace_index) {
  const json& copies = Arr(trace, "copies");
  if (copies.empty()) return "";
  HtmlTable t(fmt::format("t{}-copies", trace_index),
              {{"op", false, "memcpy or memset"},
               {"direction", false, ""},
               {"memory", false, "source -> destination memory"},
               {"count", true, ""},
               {"bytes", true, ""},
               {"time", true, "GPU time (CPU time of the calls when timing says api)"},
               {"B/s", true, ""},
               {"timing", false, "gpu: GPU records; api: CPU time of the API calls"},
               {"GPU", true, "device index"}});
  for (size_t j = 0; j < copies.size(); ++j) {
    const json& c = copies[j];
    t.AddRow(
        fmt::format("t{}-c{}", trace_index, j),
        {Text(Str(c, "operation")), Text(Str(c, "direction")),
         Text(Str(c, "src_memory") + " -> " + Str(c, "dst_memory")),
         Number(Num(c, "count"), GroupedCount(NumOr(c, "count", 0))),
         Number(Num(c, "bytes"), Si(Num(c, "bytes"), "B")), Number(Num(c, "ns"), Ns(Num(c, "ns"))),
         Number(Num(c, "bytes_per_s"), Si(Positive(Num(c, "bytes_per_s")), "B/s")),
         Text(Str(c, "source")), Number(Num(c, "device"), Str(c, "device", "-"))});
  }
  return t.Render();
}

namespace {

void Flatten(const json& v, const std::string& prefix,
             std::vector<std::pair<std::string, json>>& out, int depth) {
  if (v.is_object() && depth < 3) {
    for (const auto& [key, member] : v.items()) {
      Flatten(member, prefix.empty() ? key : prefix + "." + key, out, depth + 1);
    }
    return;
  }
  out.emplace_back(prefix, v);
}

bool Contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

Cell GenericCell(std::string_view key, const json& v) {
  if (v.is_null()) return Text("-");
  if (v.is_boolean()) return Text(v.get<bool>() ? "yes" : "no");
  if (v.is_string()) return Text(v.get<std::string>());
  if (v.is_number()) {
    const double d = v.get<double>();
    if (key == "ns" || key.ends_with("_ns") || key.ends_with(".ns")) return Number(d, Duration(d));
    if (key.ends_with("_per_s")) return Number(d, Si(d, "/s"));
    if (Contains(key, "bytes")) return Number(d, Si(d, "B"));
    if (Contains(key, "flops")) return Number(d, Si(d, ""));
    if (Contains(key, "fraction") || Contains(key, "share")) {
      return Number(d, fmt::format("{:.1f}%", 100 * d));
    }
    if (Contains(key, "pct")) return Number(d, fmt::format("{:.1f}%", d));
    if (v.is_number_integer()) return Number(d, Dump(v));
    return Number(d, fmt::format("{:.4g}", d));
  }
  if (v.is_array()) {
    std::string s;
    size_t n = 0;
    for (const auto& e : v) {
      if (n++ == 20) {
        s += fmt::format(", ... ({} in all)", v.size());
        break;
      }
      s += (s.empty() ? "" : ", ") + (e.is_string() ? e.get<std::string>() : Dump(e));
    }
    return Text(s);
  }
  return Text(Dump(v));
}

}  // namespace

std::string GenericTable(const json& rows, const std::string& id) {
  std::vector<std::string> columns;
  std::vector<std::vector<std::pair<std::string, json>>> flat;
  for (const auto& row : rows) {
    std::vector<std::pair<std::string, json>> cells;
    Flatten(row, row.is_object() ? "" : "value", cells, 0);
    for (const auto& [key, value] : cells) {
      if (std::find(columns.begin(), columns.end(), key) == columns.end()) columns.push_back(key);
    }
    flat.push_back(std::move(cells));
  }
  // A field that is null in one row and an object in another shows only as the object's parts.
  std::erase_if(columns, [&](const std::string& c) {
    return std::any_of(columns.begin(), columns.end(),
                       [&](const std::string& o) { return o.starts_with(c + "."); });
  });
  std::vector<Column> header;
  for (const auto& c : columns) {
    bool numeric = true;
    for (const auto& cells : flat) {
      for (const auto& [key, value] : cells) {
        if (key == c && !value.is_number() && !value.is_null()) numeric = false;
      }
    }
    header.push_back({c, numeric, ""});
  }
  HtmlTable t(id, header);
  for (const auto& cells : flat) {
    std::vector<Cell> row;
    for (const auto& c : columns) {
      const auto it =
          std::find_if(cells.begin(), cells.end(), [&](const auto& kv) { return kv.first == c; });
      row.push_back(it == cells.end() ? Text("") : GenericCell(c, it->second));
    }
    t.AddRow("", std::move(row));
  }
  return t.Render();
}

}  // namespace flopspy::tools::html
