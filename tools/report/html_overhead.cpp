// The HTML launch-overhead section: the text report's section as a page shows it (verdict
// first, then the figures behind it as sentences and tables), read from the model's
// "launch_overhead" object (docs/launch-overhead.md, "JSON").
#include <fmt/format.h>

#include "report/format.h"
#include "report/html_sections.h"
#include "report/html_tables.h"
#include "report/html_util.h"

namespace flopspy::tools::html {
namespace {

using nlohmann::json;

// "mean 5 us, p50 5 us, p95 5 us" of a {count, mean_ns, p50_ns, p95_ns, ...} object.
std::string StatsText(const json& stats) {
  if (!stats.is_object() || NumOr(stats, "count", 0) <= 0) return "";
  return fmt::format("mean {}, p50 {}, p95 {}, max {}", Ns(Num(stats, "mean_ns")),
                     Ns(Num(stats, "p50_ns")), Ns(Num(stats, "p95_ns")), Ns(Num(stats, "max_ns")));
}

std::string FractionPct(const json& object, std::string_view key) {
  const std::optional<double> f = Num(object, key);
  return f ? Pct(100 * *f, 1) : "-";
}

std::string DevicesTable(const json& devices, const std::string& id) {
  HtmlTable t(id, {{"GPU", false, "device index"},
                   {"window", true, "first GPU work start to last end"},
                   {"busy", true, "share of the window with a kernel or copy running"},
                   {"starved", true, "idle, waiting for a launch (share of the window)"},
                   {"starved gaps", true, ""},
                   {"synchronised", true, "idle while the CPU sat in a synchronising call"},
                   {"other idle", true, "idle for another reason (dependencies, events)"},
                   {"work items", true, "kernels, copies and sets"}});
  for (const json& d : devices) {
    const json& gaps = Obj(d, "gaps");
    const double window = NumOr(d, "window_ns", 0);
    const auto gap_pct = [&](const char* kind) {
      const std::optional<double> ns = Num(Obj(gaps, kind), "ns");
      const std::optional<double> pct =
          ns && window > 0 ? std::optional<double>(100 * *ns / window) : std::nullopt;
      return Number(pct, Pct(pct, 1));
    };
    t.AddRow("",
             {Text("GPU " + Str(d, "device", "?")), Number(window, Ns(window)),
              Number(Num(d, "busy_fraction"), FractionPct(d, "busy_fraction")), gap_pct("starved"),
              Number(Num(Obj(gaps, "starved"), "count"),
                     GroupedCount(NumOr(Obj(gaps, "starved"), "count", 0))),
              gap_pct("synchronised"), gap_pct("other"),
              Number(Num(d, "intervals"), GroupedCount(NumOr(d, "intervals", 0)))});
  }
  return t.Render();
}

std::string StreamsTable(const json& streams, const std::string& id) {
  HtmlTable t(id, {{"stream", false, "GPU and CUDA stream"},
                   {"busy", true, "share of the device's window this stream ran work"},
                   {"busy time", true, ""},
                   {"kernels", true, ""},
                   {"copies and sets", true, ""}});
  for (const json& s : streams) {
    std::string name = "GPU " + Str(s, "device", "?") + " · stream " +
                       Str(s, "cupti_stream", Str(s, "stream", "?"));
    if (NumOr(s, "handle", 1) == 0 && NumOr(s, "stream_def", 0) != 0) name += " (default)";
    const double copies = NumOr(s, "copies", 0) + NumOr(s, "sets", 0);
    t.AddRow("", {Text(name), Number(Num(s, "busy_fraction"), FractionPct(s, "busy_fraction")),
                  Number(Num(s, "busy_ns"), Ns(Num(s, "busy_ns"))),
                  Number(Num(s, "kernels"), GroupedCount(NumOr(s, "kernels", 0))),
                  Number(copies, GroupedCount(copies))});
  }
  return t.Render();
}

std::string SignaturesTable(const json& signatures, const std::string& id) {
  HtmlTable t(id, {{"kernel", false, "hover for the full name"},
                   {"grid / block", false, ""},
                   {"launches", true, ""},
                   {"GPU time", true, "summed GPU time"},
                   {"mean", true, "GPU time per execution"},
                   {"launch", true, "CPU time of one launch call"},
                   {"queue delay", true, "mean time from the launch call to the GPU start"},
                   {"launch-bound", false, "runs shorter than it takes to launch"}});
  for (const json& s : signatures) {
    const json& gpu = Obj(s, "gpu");
    Cell name;
    name.cls = "name";
    name.html = ShortName(Str(s, "name", "?"), Str(s, "mangled_name"), 56);
    name.sort_text = Str(s, "name");
    const bool bound = Bool(s, "launch_bound");
    Cell bound_cell = Text(bound ? "yes: " + RegimeText(Str(s, "overhead_reason")) : "no");
    if (bound) bound_cell.cls = "warn";
    t.AddRow(
        "", {name, Text(DimsText(Arr(s, "grid")) + " / " + DimsText(Arr(s, "block"))),
             Number(Num(s, "launches"), GroupedCount(NumOr(s, "launches", 0))),
             Number(Num(gpu, "total_ns"), Ns(Num(gpu, "total_ns"))),
             Number(Num(gpu, "mean_ns"), Ns(Num(gpu, "mean_ns"))),
             Number(Num(s, "mean_launch_ns"), Ns(Num(s, "mean_launch_ns"))),
             Number(Num(s, "mean_queue_delay_ns"), Ns(Num(s, "mean_queue_delay_ns"))), bound_cell});
  }
  return t.Render();
}

}  // namespace

std::string LaunchOverheadSection(const json& o, const std::string& id) {
  if (!o.is_object()) return GenericSection(o, id);
  std::string s;
  // The verdict's sentence; a bare verdict name in words.
  const json& verdict = Obj(o, "verdict");
  const std::string sentence =
      verdict.is_object() ? Str(verdict, "sentence") : RegimeText(Str(o, "verdict"));
  if (!sentence.empty() && sentence != "-") {
    s += "<p class=\"verdict\"><strong>" + Escape(sentence) + "</strong></p>";
  }
  std::vector<std::pair<std::string, std::string>> facts;
  const json& launches = Obj(o, "launches");
  if (launches.is_object()) {
    std::string text =
        fmt::format("{} kernel launches", GroupedCount(NumOr(launches, "kernel_launches", 0)));
    if (const auto rate = Num(launches, "launches_per_second")) {
      text += fmt::format(", {}/s", GroupedCount(*rate + 0.5));
    }
    if (const std::string cost = StatsText(Obj(launches, "launch_cost")); !cost.empty()) {
      text += "; cost per launch " + cost;
    }
    if (NumOr(launches, "graph_launches", 0) > 0) {
      text +=
          fmt::format("; {} graph launches", GroupedCount(NumOr(launches, "graph_launches", 0)));
    }
    if (NumOr(launches, "failed_launches", 0) > 0) {
      text += fmt::format("; {} failed", Str(launches, "failed_launches"));
    }
    facts.push_back({"launches", Escape(text)});
    if (const std::string q = StatsText(Obj(launches, "queue_delay")); !q.empty()) {
      facts.push_back({"queue delay", Escape("launch call to GPU start: " + q)});
    }
    if (NumOr(launches, "sync_calls", 0) > 0) {
      facts.push_back(
          {"synchronising calls",
           Escape(fmt::format("{} calls, {} in all", GroupedCount(NumOr(launches, "sync_calls", 0)),
                              Ns(Num(launches, "sync_ns"))))});
    }
  }
  const json& graphs = Obj(o, "graphs_estimate");
  if (graphs.is_object() && Bool(graphs, "estimate")) {
    facts.push_back(
        {"CUDA graphs",
         Escape(fmt::format("estimate: at {} per kernel node instead of {} per launch, graphs "
                            "would remove {} of starved idle time ({} of the GPU window)",
                            Ns(Num(graphs, "node_cost_ns")), Ns(Num(graphs, "mean_launch_ns")),
                            Ns(Num(graphs, "saved_ns")), FractionPct(graphs, "saved_fraction")))});
  }
  s += Facts(facts);
  for (const auto& n : Arr(o, "notes")) {
    if (n.is_string()) s += "<p class=\"note\">" + Escape(n.get<std::string>()) + "</p>";
  }
  if (const json& devices = Arr(o, "devices"); !devices.empty()) {
    s += "<h4>Devices</h4>" + DevicesTable(devices, id + "-devices");
  }
  if (const json& streams = Arr(o, "streams"); !streams.empty()) {
    s += "<h4>Streams</h4>" + StreamsTable(streams, id + "-streams");
  }
  if (const json& signatures = Arr(o, "signatures"); !signatures.empty()) {
    size_t bound = 0;
    for (const json& g : signatures) bound += Bool(g, "launch_bound");
    s +=
        fmt::format(R"(<details class="sub"><summary>Kernel signatures by launch excess: {} of {} )"
                    R"(launch-bound</summary>)",
                    bound, Str(o, "signatures_total", std::to_string(signatures.size())));
    s += SignaturesTable(signatures, id + "-signatures") + "</details>\n";
  }
  return s;
}

}  // namespace flopspy::tools::html
