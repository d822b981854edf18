#include "report/graphs_json.h"

#include <string>

namespace flopspy::tools {

using nlohmann::json;

json GraphsJson(const analyzers::TraceAnalysis& run) {
  if (run.graphs.empty()) return json();
  json graphs = json::array();
  for (const analyzers::GraphUnit& g : run.graphs) {
    const bool timed_one_by_one = g.one_by_one_launch_ns > 0 && g.kernel_executions > 0;
    graphs.push_back({
        {"exec", g.exec},
        {"graph", g.graph},
        {"cupti_graph", g.cupti_graph},
        {"made_by", g.captured ? "capture" : "graph_api"},
        {"device", g.device},
        {"kernel_nodes", g.kernel_nodes},
        {"replays", g.replays},
        {"failed_replays", g.failed_replays},
        {"launch_ns", g.launch_ns},
        {"kernel_executions", g.kernel_executions},
        {"unjoined_kernel_executions", g.unjoined_executions},
        {"kernels_per_replay", g.KernelsPerReplay()},
        {"gpu_ns", g.gpu_ns},
        {"flops", g.executions_with_flops > 0 ? json(g.flops) : json()},
        {"executions_with_flops", g.executions_with_flops},
        {"flops_source", std::string(trace::FigureSourceName(g.flops_source))},
        {"bytes", g.executions_with_bytes > 0 ? json(g.bytes) : json()},
        {"executions_with_bytes", g.executions_with_bytes},
        {"bytes_source", std::string(trace::FigureSourceName(g.bytes_source))},
        {"node_flops", g.nodes_with_flops > 0 ? json(g.node_flops) : json()},
        {"nodes_with_flops", g.nodes_with_flops},
        {"node_flops_source", std::string(trace::FigureSourceName(g.node_flops_source))},
        {"one_by_one_launch_ns", timed_one_by_one ? json(g.one_by_one_launch_ns) : json()},
        {"one_by_one_basis", g.one_by_one_from_eager ? "eager_launches" : "captured_launches"},
        {"launch_ns_saved", timed_one_by_one ? json(g.LaunchNsSaved()) : json()},
        {"kernel_groups", g.kernel_groups},
    });
  }
  return graphs;
}

}  // namespace flopspy::tools
