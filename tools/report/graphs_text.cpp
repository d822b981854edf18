#include "report/graphs_text.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <string>
#include <vector>

#include "report/format.h"
#include "report/labels.h"
#include "report/text_table.h"

namespace flopspy::tools {

void PrintGraphs(const TraceReport& t, std::ostream& out, size_t limit) {
  const std::vector<analyzers::GraphUnit>& graphs = t.run.graphs;
  if (graphs.empty()) return;
  uint64_t replays = 0, executions = 0;
  double gpu_ns = 0;
  for (const analyzers::GraphUnit& g : graphs) {
    replays += g.replays;
    executions += g.kernel_executions;
    gpu_ns += g.gpu_ns;
  }
  // Without GPU times a replay is what its recorded nodes say.
  const bool timed = t.run.gpu_timing;
  fmt::print(out, "\n  CUDA graphs\n");
  const std::string summary =
      timed ? fmt::format("{}: {} ran {} of their recorded nodes, {} on the GPU.",
                          Counted(graphs.size(), "executable graph", "executable graphs"),
                          Counted(replays, "replay", "replays"),
                          Counted(executions, "kernel", "kernels"), Duration(gpu_ns))
            : fmt::format(
                  "{}, {}; no GPU times: kernels and FLOPs per replay are those of "
                  "their recorded nodes.",
                  Counted(graphs.size(), "executable graph", "executable graphs"),
                  Counted(replays, "replay", "replays"));
  fmt::print(out, "{}", Paragraph(summary, "  ", "  "));
  if (t.run.graph_nodes_dropped > 0) {
    fmt::print(
        out, "{}",
        Paragraph(fmt::format("{} beyond the analysis's bounds were not kept: their "
                              "replays count without figures (docs/cuda-graphs.md).",
                              Counted(t.run.graph_nodes_dropped, "graph node", "graph nodes")),
                  "  ", "  "));
  }
  TextTable table({{"graph", TextTable::Align::kLeft},
                   {"made by", TextTable::Align::kLeft},
                   {"nodes"},
                   {"replays"},
                   {"kernels/rep"},
                   {"GPU/rep"},
                   {"FLOPs/rep"},
                   {"src", TextTable::Align::kLeft},
                   {"launch/rep"},
                   {"CPU saved"}});
  size_t shown = 0;
  std::vector<uint32_t> partial;  // graphs whose FLOPs cover only some of their kernels
  for (const analyzers::GraphUnit& g : graphs) {
    if (shown++ == limit) break;
    const auto per_replay = [&](double value) {
      return g.replays > 0 ? value / static_cast<double>(g.replays) : 0.0;
    };
    std::string flops = "-", kernels = "-";
    trace::FigureSource source = trace::FigureSource::kUnknown;
    if (timed && g.replays > 0) {
      kernels = fmt::format("{:.1f}", g.KernelsPerReplay());
      if (g.executions_with_flops > 0) {
        flops = SiValue(per_replay(g.flops));
        source = g.flops_source;
        if (g.executions_with_flops < g.kernel_executions) partial.push_back(g.exec);
      }
    } else if (!timed) {
      kernels = Grouped(g.kernel_nodes);
      if (g.nodes_with_flops > 0) {
        flops = SiValue(g.node_flops);
        source = g.node_flops_source;
      }
    }
    const double saved = g.LaunchNsSaved();
    table.AddRow({fmt::format("#{}", g.exec), g.captured ? "capture" : "graph API",
                  Grouped(g.kernel_nodes), Grouped(g.replays), kernels,
                  g.replays > 0 && g.gpu_ns > 0 ? Duration(per_replay(g.gpu_ns)) : "-", flops,
                  SourceTag(source), g.replays > 0 ? Duration(per_replay(g.launch_ns)) : "-",
                  g.one_by_one_launch_ns > 0 && g.kernel_executions > 0 ? Duration(saved) : "-"});
    if (g.unjoined_executions > 0) {
      table.AddDetailText(
          fmt::format("{} of its replays' kernels matched no recorded node: counted "
                      "without figures",
                      Grouped(g.unjoined_executions)));
    }
    if (std::find(partial.begin(), partial.end(), g.exec) != partial.end()) {
      table.AddDetailText(fmt::format("FLOPs known for {} of its {} replayed kernels",
                                      Grouped(g.executions_with_flops),
                                      Grouped(g.kernel_executions)));
    }
  }
  table.Print(out);
  if (graphs.size() > limit) {
    fmt::print(out, "{}", MoreLine(graphs.size() - limit, "graph", "graphs"));
  }
  const bool eager = graphs.front().one_by_one_from_eager;
  fmt::print(
      out, "{}",
      Paragraph(fmt::format("rep: per replay. A replay's kernels are joined to the nodes "
                            "recorded when the graph was captured or built and take their "
                            "figures (src: the weakest source among them); they are also counted "
                            "in the kernel table. CPU saved: launching the replays' kernels one "
                            "by one, at the mean CPU cost of {}, less the graph launches' own "
                            "cost.",
                            eager ? "this trace's eager launches"
                                  : "the graph's launches when they were captured"),
                "  ", "  "));
}

}  // namespace flopspy::tools
