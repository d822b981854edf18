// CUDA graphs in the trace analysis (docs/cuda-graphs.md): launches recorded into a graph keep
// their figures as the graph's nodes; an executable graph takes its graph's nodes when it is
// instantiated (or updated); each kernel record of a replay, which carries the graph launch's
// correlation and CUPTI's id of the node, joins one of the executable graph's nodes and counts as
// an execution of that node's kernel, with the node's figures and their source.
//
// The join: a node id seen before names its node; otherwise the first node in recorded order not
// yet named by an id whose kernel (name, grid, block) is the record's. Within one executable graph
// CUPTI's node ids are stable across replays, so after the first replay every record is joined by
// its id.
#include <algorithm>

#include "trace_analysis_state.h"

namespace flopspy::analyzers {

using trace::FigureSource;

namespace {

// Graph kernel records waiting for their graph launch's record, at most this many.
constexpr size_t kMaxEarlyReplays = size_t{1} << 18;
// Captured launches kept (a graph is captured once and replayed often: real traces hold few);
// beyond this many, a damaged or hostile trace's further ones are counted, not kept.
constexpr size_t kMaxCapturedLaunches = size_t{1} << 22;
// Nodes held by every executable graph together (each holds its own copy of its nodes).
constexpr size_t kMaxExecNodes = size_t{1} << 22;

// The same kernel run the same way: its name (a launch's from its function, a replay's from
// CUPTI), grid and block.
bool SameKernel(const TraceIndex& index, uint32_t a, uint32_t b) {
  const trace::KernelSignatureDef* sa = index.Signature(a);
  const trace::KernelSignatureDef* sb = index.Signature(b);
  const FunctionInfo* fa = index.FunctionOf(a);
  const FunctionInfo* fb = index.FunctionOf(b);
  if (sa == nullptr || sb == nullptr || fa == nullptr || fb == nullptr) return false;
  return fa->name == fb->name &&
         std::equal(std::begin(sa->grid), std::end(sa->grid), std::begin(sb->grid)) &&
         std::equal(std::begin(sa->block), std::end(sa->block), std::begin(sb->block));
}

}  // namespace

TraceAnalyzer::State::Join::Found TraceAnalyzer::State::FindAnyLaunch(uint64_t correlation) {
  if (const Join::Found found = join_.FindLaunch(correlation); found.launch != nullptr) {
    return found;
  }
  if (const auto it = captured_.find(correlation); it != captured_.end()) {
    return {&it->second, false};
  }
  return {};
}

void TraceAnalyzer::State::AddCapturedLaunch(Pending pending, uint32_t thread,
                                             bool inside_library) {
  ++run_.captured_launches;
  if (captured_.size() >= kMaxCapturedLaunches) return;
  const uint64_t correlation = pending.correlation;
  captured_[correlation] = pending;
  if (inside_library) join_.OnCallLaunchElsewhere(thread, correlation);
}

void TraceAnalyzer::State::AddGraphNode(const trace::GraphNodeRecord& node) {
  if (!captured_.contains(node.correlation)) return;  // its launch failed or was lost
  if ((node.h.flags & trace::kGraphNodeInExec) != 0) {
    // A node of an executable graph changed in place: its later replays take the new figures.
    const auto exec = execs_.find(node.exec);
    if (exec == execs_.end()) return;
    ExecGraph& x = exec->second;
    for (size_t i = 0; i < x.handles.size(); ++i) {
      if (node.node != 0 && x.handles[i] == node.node) x.nodes[i] = captured_[node.correlation];
    }
    return;
  }
  if (node.graph == 0) {
    // A node changed in its graph (the graph is not named): whichever graph holds its handle.
    for (auto& [graph, nodes] : graph_nodes_) {
      for (auto& [correlation, handle] : nodes) {
        if (node.node != 0 && handle == node.node) correlation = node.correlation;
      }
    }
    return;
  }
  graph_nodes_[node.graph].emplace_back(node.correlation, node.node);
  if ((node.h.flags & trace::kGraphNodeCaptured) != 0) captured_graphs_.insert(node.graph);
}

void TraceAnalyzer::State::AddGraphEvent(const trace::GraphEventRecord& event) {
  if (event.result != 0) return;
  switch (static_cast<trace::GraphEvent>(event.event)) {
    case trace::GraphEvent::kInstantiated:
    case trace::GraphEvent::kUpdated: {
      const auto recorded = graph_nodes_.find(event.graph);
      const size_t count = recorded != graph_nodes_.end() ? recorded->second.size() : 0;
      if (event.exec == 0 || exec_nodes_ + count > kMaxExecNodes) return;
      exec_nodes_ += count;
      ExecGraph& x = execs_[event.exec];
      const bool updated =
          static_cast<trace::GraphEvent>(event.event) == trace::GraphEvent::kUpdated;
      std::vector<Pending> nodes;
      std::vector<uint64_t> handles;
      for (size_t i = 0; i < count; ++i) {
        const auto& [correlation, handle] = recorded->second[i];
        if (const auto it = captured_.find(correlation); it != captured_.end()) {
          nodes.push_back(it->second);
          handles.push_back(handle);
        }
      }
      // An update keeps the topology: the node ids CUPTI gave still name the same positions.
      if (!updated || nodes.size() != x.nodes.size()) {
        x.by_gpu_node.clear();
        x.claimed.assign(nodes.size(), false);
      }
      x.nodes = std::move(nodes);
      x.handles = std::move(handles);
      x.unit.exec = event.exec;
      x.unit.graph = event.graph;
      x.unit.captured = captured_graphs_.contains(event.graph);
      x.unit.kernel_nodes = static_cast<uint32_t>(x.nodes.size());
      break;
    }
    case trace::GraphEvent::kGraphDestroyed:
      graph_nodes_.erase(event.graph);
      break;
    case trace::GraphEvent::kCaptured:
    case trace::GraphEvent::kExecDestroyed:
      break;
  }
}

void TraceAnalyzer::State::AddGraphLaunch(const trace::ApiCallRecord& a) {
  const uint32_t exec = a.detail;
  const auto it = execs_.find(exec);
  if (exec == 0 || it == execs_.end()) return;
  GraphUnit& unit = it->second.unit;
  if (a.result != 0) {
    ++unit.failed_replays;
    return;
  }
  ++unit.replays;
  unit.launch_ns += a.exit_ns > a.enter_ns ? static_cast<double>(a.exit_ns - a.enter_ns) : 0;
  if (a.correlation == 0) return;
  replay_execs_.Insert(a.correlation, exec);
  const auto [first, last] = early_replays_.equal_range(a.correlation);
  std::vector<trace::GpuActivityRecord> early;
  for (auto e = first; e != last; ++e) early.push_back(e->second);
  early_replays_.erase(a.correlation);
  std::sort(early.begin(), early.end(),
            [](const auto& x, const auto& y) { return x.start_ns < y.start_ns; });
  for (const trace::GpuActivityRecord& gpu : early) {
    if (!JoinGraphKernel(gpu)) {
      JoinHooks hooks{*this};
      hooks.Alone(gpu, nullptr);
    }
  }
}

bool TraceAnalyzer::State::JoinGraphKernel(const trace::GpuActivityRecord& gpu) {
  if (gpu.correlation == 0) return false;
  const uint32_t* exec_id = replay_execs_.Find(gpu.correlation);
  if (exec_id == nullptr) {
    if (execs_.empty() || early_replays_.size() >= kMaxEarlyReplays) return false;
    early_replays_.emplace(gpu.correlation, gpu);  // its graph launch's record comes later
    return true;
  }
  ExecGraph& x = execs_[*exec_id];
  size_t node = x.nodes.size();
  if (const auto known = x.by_gpu_node.find(gpu.graph_node_id);
      gpu.graph_node_id != 0 && known != x.by_gpu_node.end()) {
    node = known->second;
  } else {
    for (size_t i = 0; i < x.nodes.size(); ++i) {
      if (x.claimed[i]) continue;
      if (SameKernel(index_, kernels_[x.nodes[i].group].signature, gpu.signature)) {
        node = i;
        break;
      }
    }
    if (node < x.nodes.size() && gpu.graph_node_id != 0) {
      x.claimed[node] = true;
      x.by_gpu_node.emplace(gpu.graph_node_id, node);
    }
  }
  GraphUnit& unit = x.unit;
  if (node >= x.nodes.size()) {
    ++unit.unjoined_executions;
    return false;
  }
  Pending p = x.nodes[node];
  p.launch_ns = 0;  // a replay has no launch call of its own: its graph launch stands for it
  p.thread = 0;
  p.correlation = gpu.correlation;
  ApplyGpu(p, gpu);
  const double ns = gpu.end_ns > gpu.start_ns ? static_cast<double>(gpu.end_ns - gpu.start_ns) : 0;
  ++unit.kernel_executions;
  unit.gpu_ns += ns;
  if (unit.device < 0) unit.device = gpu.device;
  if (unit.cupti_graph == 0) unit.cupti_graph = gpu.graph_id;
  if (Known(p.flops_source)) {
    unit.flops += p.flops;
    ++unit.executions_with_flops;
    unit.flops_source = Weakest(unit.flops_source, p.flops_source);
  }
  if (Known(p.bytes_source)) {
    unit.bytes += p.bytes;
    ++unit.executions_with_bytes;
    unit.bytes_source = Weakest(unit.bytes_source, p.bytes_source);
  }
  if (std::find(unit.kernel_groups.begin(), unit.kernel_groups.end(), p.group) ==
      unit.kernel_groups.end()) {
    unit.kernel_groups.push_back(p.group);
  }
  return true;
}

void TraceAnalyzer::State::FinishGraphs() {
  JoinHooks hooks{*this};
  for (const auto& [correlation, gpu] : early_replays_) {
    hooks.Alone(gpu, nullptr);
    ++run_.unmatched_gpu_records;
  }
  early_replays_.clear();
  for (auto& [id, x] : execs_) {
    GraphUnit unit = x.unit;
    for (const Pending& p : x.nodes) {
      if (!Known(p.flops_source)) continue;
      unit.node_flops += p.flops;
      ++unit.nodes_with_flops;
      unit.node_flops_source = Weakest(unit.node_flops_source, p.flops_source);
    }
    if (eager_launches_ > 0) {
      unit.one_by_one_launch_ns = eager_launch_ns_ / static_cast<double>(eager_launches_);
      unit.one_by_one_from_eager = true;
    } else if (!x.nodes.empty()) {
      double captured_ns = 0;
      for (const Pending& p : x.nodes) captured_ns += static_cast<double>(p.launch_cost_ns);
      unit.one_by_one_launch_ns = captured_ns / static_cast<double>(x.nodes.size());
    }
    run_.graphs.push_back(std::move(unit));
  }
  std::stable_sort(run_.graphs.begin(), run_.graphs.end(),
                   [](const GraphUnit& a, const GraphUnit& b) { return a.gpu_ns > b.gpu_ns; });
}

}  // namespace flopspy::analyzers
