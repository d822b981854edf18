// CUDA graphs in the trace analysis (docs/cuda-graphs.md): launches recorded into a graph keep
// their figures as the graph's nodes; an executable graph takes its graph's nodes (when it is
// instantiated or updated, and again at a later launch if more of the graph's nodes came since:
// threads' records reach the file in any order); each kernel record of a replay, which carries
// the graph launch's correlation and CUPTI's id of the node, joins one of the executable graph's
// nodes and counts as an execution of that node's kernel, with the node's figures and source.
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
// Captured launches kept, and nodes held by every executable graph together (each holds its own
// copy). A graph's entries go when it is destroyed, a destroyed executable graph's nodes when
// room is needed: only a damaged or hostile trace fills these, and its further nodes are counted
// (TraceAnalysis::graph_nodes_dropped), not kept.
constexpr size_t kMaxCapturedLaunches = size_t{1} << 22;
constexpr size_t kMaxExecNodes = size_t{1} << 22;
constexpr size_t kMaxExecs = size_t{1} << 20;

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
  // The library call whose record follows ran nothing, kept or not.
  if (inside_library) ++captured_in_call_[thread];
  if (captured_.size() >= kMaxCapturedLaunches) {
    ++run_.graph_nodes_dropped;
    return;
  }
  const uint64_t correlation = pending.correlation;
  captured_[correlation] = pending;
  if (inside_library) join_.OnCallLaunchElsewhere(thread, correlation);
}

size_t TraceAnalyzer::State::NodeIndexOf(uint64_t handle, uint32_t* graph) const {
  const auto it = node_handles_.find(handle);
  if (handle == 0 || it == node_handles_.end()) return SIZE_MAX;
  *graph = it->second.first;
  return it->second.second;
}

void TraceAnalyzer::State::AddGraphNode(const trace::GraphNodeRecord& node) {
  const auto captured = captured_.find(node.correlation);
  if (captured == captured_.end()) return;  // its launch failed, was lost or not kept
  if ((node.h.flags & trace::kGraphNodeInExec) != 0) {
    // A node of an executable graph changed in place: its later replays take the new figures.
    if (const auto exec = execs_.find(node.exec); exec != execs_.end()) {
      ExecGraph& x = exec->second;
      for (size_t i = 0; i < x.handles.size(); ++i) {
        if (node.node != 0 && x.handles[i] == node.node) x.nodes[i] = captured->second;
      }
    }
    captured_.erase(captured);  // the executable graph holds its copy
    return;
  }
  if (node.graph == 0) {
    // A node changed in its graph (the graph is not named): the graph that holds its handle.
    uint32_t graph = 0;
    const size_t at = NodeIndexOf(node.node, &graph);
    if (const auto nodes = graph_nodes_.find(graph);
        at != SIZE_MAX && nodes != graph_nodes_.end()) {
      nodes->second[at].first = node.correlation;
    }
    return;
  }
  std::vector<std::pair<uint64_t, uint64_t>>& nodes = graph_nodes_[node.graph];
  if (node.node != 0) node_handles_[node.node] = {node.graph, nodes.size()};
  nodes.emplace_back(node.correlation, node.node);
  if ((node.h.flags & trace::kGraphNodeCaptured) != 0) captured_graphs_.insert(node.graph);
}

void TraceAnalyzer::State::ForgetGraphNodes(uint32_t graph) {
  const auto nodes = graph_nodes_.find(graph);
  if (nodes == graph_nodes_.end()) return;
  for (const auto& [correlation, handle] : nodes->second) {
    captured_.erase(correlation);
    if (const auto h = node_handles_.find(handle);
        h != node_handles_.end() && h->second.first == graph) {
      node_handles_.erase(h);
    }
  }
  graph_nodes_.erase(nodes);
}

void TraceAnalyzer::State::ReleaseGraph(uint32_t graph) {
  const auto users = graph_users_.find(graph);
  if (users == graph_users_.end() || users->second == 0 || --users->second > 0) return;
  graph_users_.erase(users);
  if (destroyed_graphs_.erase(graph) > 0) ForgetGraphNodes(graph);
}

// The graph's recorded nodes into the executable graph (a new instantiation, an update, or more
// of the graph's nodes read since). CUPTI's node ids keep naming the same positions when the
// topology stays.
void TraceAnalyzer::State::BindNodes(ExecGraph& x, uint32_t graph, bool same_topology) {
  const auto recorded = graph_nodes_.find(graph);
  const size_t count = recorded != graph_nodes_.end() ? recorded->second.size() : 0;
  exec_nodes_ -= std::min(exec_nodes_, x.nodes.size());
  while (exec_nodes_ + count > kMaxExecNodes && !destroyed_execs_.empty()) {
    // Room from the executable graphs destroyed longest ago (their replays have run).
    const auto old = execs_.find(destroyed_execs_.front());
    destroyed_execs_.pop_front();
    if (old == execs_.end() || &old->second == &x) continue;
    exec_nodes_ -= std::min(exec_nodes_, old->second.nodes.size());
    old->second.nodes = {};
    old->second.handles = {};
    old->second.claimed = {};
  }
  std::vector<Pending> nodes;
  std::vector<uint64_t> handles;
  if (exec_nodes_ + count <= kMaxExecNodes) {
    for (size_t i = 0; i < count; ++i) {
      const auto& [correlation, handle] = recorded->second[i];
      if (const auto it = captured_.find(correlation); it != captured_.end()) {
        nodes.push_back(it->second);
        handles.push_back(handle);
      }
    }
  } else {
    run_.graph_nodes_dropped += count;
  }
  if (!same_topology || nodes.size() != x.nodes.size()) {
    x.by_gpu_node.clear();
    x.claimed.assign(nodes.size(), false);
  }
  exec_nodes_ += nodes.size();
  x.nodes = std::move(nodes);
  x.handles = std::move(handles);
  x.recorded = count;
  if (!x.destroyed && (!x.uses_graph || x.unit.graph != graph)) {
    if (x.uses_graph) ReleaseGraph(x.unit.graph);
    ++graph_users_[graph];
    x.uses_graph = true;
  }
  x.unit.graph = graph;
  x.unit.captured = captured_graphs_.contains(graph);
  x.unit.kernel_nodes = static_cast<uint32_t>(x.nodes.size());
}

void TraceAnalyzer::State::AddGraphEvent(const trace::GraphEventRecord& event) {
  if (event.result != 0) return;
  switch (static_cast<trace::GraphEvent>(event.event)) {
    case trace::GraphEvent::kInstantiated:
    case trace::GraphEvent::kUpdated: {
      if (event.exec == 0) return;
      auto it = execs_.find(event.exec);
      if (it == execs_.end()) {
        if (execs_.size() >= kMaxExecs) return;
        it = execs_.emplace(event.exec, ExecGraph{}).first;
        it->second.unit.exec = event.exec;
      }
      const bool updated =
          static_cast<trace::GraphEvent>(event.event) == trace::GraphEvent::kUpdated;
      BindNodes(it->second, event.graph, updated);
      break;
    }
    case trace::GraphEvent::kExecDestroyed:
      if (const auto x = execs_.find(event.exec); x != execs_.end() && !x->second.destroyed) {
        x->second.destroyed = true;
        destroyed_execs_.push_back(event.exec);
        if (x->second.uses_graph) ReleaseGraph(x->second.unit.graph);
        x->second.uses_graph = false;
      }
      break;
    case trace::GraphEvent::kGraphDestroyed:
      // Its executable graphs hold copies of its nodes, but may still take nodes another
      // thread recorded into it (read later): its own go when no live executable graph uses it.
      if (graph_users_.contains(event.graph)) {
        destroyed_graphs_.insert(event.graph);
      } else {
        ForgetGraphNodes(event.graph);
      }
      break;
    case trace::GraphEvent::kCaptured:
      break;
  }
}

void TraceAnalyzer::State::AddGraphLaunch(const trace::ApiCallRecord& a) {
  const uint32_t exec = a.detail;
  const auto it = execs_.find(exec);
  JoinHooks hooks{*this};
  const auto take_early = [&]() {
    const auto [first, last] = early_replays_.equal_range(a.correlation);
    std::vector<trace::GpuActivityRecord> early;
    for (auto e = first; e != last; ++e) early.push_back(e->second);
    early_replays_.erase(a.correlation);
    std::sort(early.begin(), early.end(),
              [](const auto& x, const auto& y) { return x.start_ns < y.start_ns; });
    return early;
  };
  if (exec == 0 || it == execs_.end()) {
    // A graph whose nodes were not recorded: its kernels count alone, as they came.
    if (a.correlation != 0) {
      for (const trace::GpuActivityRecord& gpu : take_early()) hooks.Alone(gpu, nullptr);
    }
    return;
  }
  ExecGraph& x = it->second;
  GraphUnit& unit = x.unit;
  if (a.result != 0) {
    ++unit.failed_replays;
    return;
  }
  ++unit.replays;
  unit.launch_ns += a.exit_ns > a.enter_ns ? static_cast<double>(a.exit_ns - a.enter_ns) : 0;
  // More of its graph's nodes came (another thread's records) since it took them.
  if (const auto recorded = graph_nodes_.find(unit.graph);
      recorded != graph_nodes_.end() && recorded->second.size() > x.recorded) {
    BindNodes(x, unit.graph, false);
  }
  if (a.correlation == 0) return;
  replay_execs_.Insert(a.correlation, exec);
  for (const trace::GpuActivityRecord& gpu : take_early()) {
    if (!JoinGraphKernel(gpu)) hooks.Alone(gpu, nullptr);
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
      gpu.graph_node_id != 0 && known != x.by_gpu_node.end() && known->second < x.nodes.size()) {
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
    if (unit.kernel_nodes == 0 && unit.kernel_executions == 0) continue;  // nothing recorded
    for (const Pending& p : x.nodes) {
      if (!Known(p.flops_source)) continue;
      unit.node_flops += p.flops;
      ++unit.nodes_with_flops;
      unit.node_flops_source = Weakest(unit.node_flops_source, p.flops_source);
    }
    if (eager_launches_ > 0) {
      unit.one_by_one_launch_ns = eager_launch_ns_ / static_cast<double>(eager_launches_);
      unit.one_by_one_from_eager = true;
    } else if (unit.captured && !x.nodes.empty()) {
      // Captured launches walk the launch path (a graph-API call does not: no estimate then).
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
