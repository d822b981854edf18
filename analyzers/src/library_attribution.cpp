// cuBLAS and cuBLASLt calls: one row per shape, the call's figures shared by the kernels it
// launched, and the roof they run against (the call's types, or TF32 when its kernel says so).
#include <algorithm>

#include "flopspy/analyzers/blas_formulas.h"
#include "flopspy/analyzers/blas_routine.h"
#include "trace_analysis_state.h"

namespace flopspy::analyzers {

using trace::FigureSource;

namespace {

// cuBLAS and CUTLASS name their TF32 tensor-core kernels so ("sm90_xmma_gemm_f32f32_tf32f32_...",
// "cutlass_80_tensorop_s1688tf32gemm_..."); their FP32 CUDA-core kernels never carry "tf32".
bool KernelNameSaysTf32(std::string_view name) {
  for (size_t i = 0; i + 4 <= name.size(); ++i) {
    if ((name[i] == 't' || name[i] == 'T') && (name[i + 1] == 'f' || name[i + 1] == 'F') &&
        name.substr(i + 2, 2) == "32") {
      return true;
    }
  }
  return false;
}

}  // namespace

LibraryShapeKey LibraryShapeKeyOf(const trace::LibraryCallRecord& c) {
  LibraryShapeKey key;
  key.routine = c.routine;
  key.name = c.name;
  key.m = c.m, key.n = c.n, key.k = c.k, key.batch = c.batch;
  key.types = {c.type_a, c.type_b, c.type_c, c.type_d, c.compute_type, c.scale_type};
  key.ops = {c.trans_a, c.trans_b, c.side, c.uplo, c.diag};
  if (IsDnnRoutine(BlasRoutineFromId(c.routine))) {
    key.dnn_dims = {c.lda, c.ldb, c.ldc, c.ldd, c.stride_a, c.stride_b, c.stride_c, c.stride_d};
  } else if (IsCommRoutine(BlasRoutineFromId(c.routine))) {
    // The reduction and the message size; not the communicator id or the call's number.
    key.dnn_dims = {c.lda, 0, 0, 0, c.stride_a, 0, 0, 0};
  }
  key.epilogue = c.epilogue;
  key.flags = c.flags & kLibShapeFlags;
  return key;
}

std::string_view PathBasisName(PathBasis basis) {
  return basis == PathBasis::kKernelName ? "kernel_name" : "call_types";
}

bool SameGroups(std::span<const trace::LibraryGroupShape> a, const trace::LibraryGroupsCut& a_cut,
                std::span<const trace::LibraryGroupShape> b, const trace::LibraryGroupsCut& b_cut) {
  const auto same = [](const trace::LibraryGroupShape& x, const trace::LibraryGroupShape& y) {
    return x.m == y.m && x.n == y.n && x.k == y.k && x.count == y.count && x.lda == y.lda &&
           x.ldb == y.ldb && x.ldc == y.ldc && x.trans_a == y.trans_a && x.trans_b == y.trans_b &&
           x.beta == y.beta;
  };
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), same) && a_cut.groups == b_cut.groups &&
         a_cut.problems == b_cut.problems && a_cut.mnk == b_cut.mnk && a_cut.mk == b_cut.mk &&
         a_cut.kn == b_cut.kn && a_cut.mn == b_cut.mn && a_cut.mn_reads_c == b_cut.mn_reads_c;
}

void TraceAnalyzer::State::NoteDamaged(const std::string& message) {
  if (run_.damaged_records++ < kMaxDamagedMessages) run_.damaged_messages.push_back(message);
}

// Every record passes through the collector: it pairs a grouped call's LibraryGroups records with
// the call (the record just before them) and refuses damaged ones; the row of the call gets the
// groups when they came whole.
void TraceAnalyzer::State::AddLibraryGroups(const trace::RecordView& r) {
  switch (groups_collector_.Add(r)) {
    case trace::LibraryGroupsCollector::Step::kNone:
      return;
    case trace::LibraryGroupsCollector::Step::kDamaged:
      NoteDamaged(groups_collector_.error());
      return;
    case trace::LibraryGroupsCollector::Step::kComplete:
      break;
  }
  if (last_library_ >= libraries_.size()) return;
  LibraryGroup& g = libraries_[last_library_];
  if (!g.groups_known) {
    g.groups.assign(groups_collector_.groups().begin(), groups_collector_.groups().end());
    g.groups_cut = groups_collector_.cut();
    g.groups_known = true;
  } else if (!SameGroups(g.groups, g.groups_cut, groups_collector_.groups(),
                         groups_collector_.cut())) {
    g.groups_vary = true;
  }
}

void TraceAnalyzer::State::AddLibraryCall(const trace::LibraryCallRecord& c, uint32_t thread,
                                          const StringLookup& strings) {
  auto it = library_index_.find(LibraryShapeKeyOf(c));
  if (it == library_index_.end()) {
    LibraryGroup g;
    g.routine = std::string(strings(c.name));
    if (g.routine.empty()) g.routine = std::string(BlasRoutineName(BlasRoutineFromId(c.routine)));
    g.routine_id = c.routine;
    g.shape = c;
    g.path = BlasComputePath(c);
    it = library_index_.emplace(LibraryShapeKeyOf(c), static_cast<uint32_t>(libraries_.size()))
             .first;
    libraries_.push_back(std::move(g));
  }
  const uint32_t index = it->second;
  last_library_ = index;
  LibraryGroup& g = libraries_[index];
  // The kernels this call launched: its figures are split evenly between them.
  const std::vector<uint64_t> launched = join_.TakeCallLaunches(thread);
  // A call made while its stream captured a CUDA graph ran nothing: its kernels' replays count.
  bool captured = false;
  if (const auto in_call = captured_in_call_.find(thread); in_call != captured_in_call_.end()) {
    captured = in_call->second > 0;
    captured_in_call_.erase(in_call);
  }
  g.source = static_cast<FigureSource>(c.source);
  if (captured) {
    ++g.captured_calls;
    g.captured_kernels += launched.size();
  } else {
    ++g.calls;
    if (c.status != 0) ++g.failed_calls;
    g.cpu_ns += c.exit_ns > c.enter_ns ? static_cast<double>(c.exit_ns - c.enter_ns) : 0;
    g.flops += c.flops;
    g.epilogue_flops += c.epilogue_flops;
    g.bytes += c.bytes;
    g.kernels += launched.size();
  }
  // A call recorded as plain FP32 whose kernel is a TF32 tensor-core kernel ran on TF32.
  if (g.path == ComputePath::kFp32) {
    for (uint64_t correlation : launched) {
      const Pending* p = FindAnyLaunch(correlation).launch;
      if (p != nullptr && KernelNameSaysTf32(kernels_[p->group].name)) {
        g.path = ComputePath::kTf32Tensor;
        g.path_basis = PathBasis::kKernelName;
        break;
      }
    }
  }
  // The call's types (or its kernel's name) say which roof its kernels run against; a catalog
  // reading of a library kernel's name never overrides them.
  for (uint64_t correlation : launched) {
    if (const Pending* p = FindAnyLaunch(correlation).launch) kernels_[p->group].path = g.path;
  }
  const double share = launched.empty() ? 0 : 1.0 / static_cast<double>(launched.size());
  double longest = -1;
  for (uint64_t correlation : launched) {
    const auto found = FindAnyLaunch(correlation);
    if (found.launch == nullptr) continue;
    Pending& pending = *found.launch;
    pending.library = index;
    if (pending.captured) {
      pending.lib_flops = c.flops * share;
      pending.lib_epilogue = c.epilogue_flops * share;
      pending.lib_bytes = c.bytes * share;
    }
    // The call's data and compute types say which roof its kernels run against.
    if (kernels_[pending.group].path == ComputePath::kUnknown)
      kernels_[pending.group].path = g.path;
    // The call's share stands for the launch in every figure of its kernel row: the row over
    // all launches (added when the launch came, without it) as well as the timed one.
    FigureSource new_flops = FigureSource::kUnknown, new_bytes = FigureSource::kUnknown;
    if (!Known(pending.flops_source)) {
      pending.flops = c.flops * share;
      pending.flops_source = new_flops = static_cast<FigureSource>(c.source);
    }
    // A collective's bytes are its message, not its kernel's DRAM traffic: left unknown.
    if (!Known(pending.bytes_source) && !IsCommRoutine(BlasRoutineFromId(c.routine))) {
      pending.bytes = c.bytes * share;
      pending.bytes_source = new_bytes = static_cast<FigureSource>(c.source);
    }
    if (!pending.captured) {
      AddFigures(kernels_[pending.group].all, pending.flops, 0, new_flops, pending.bytes,
                 new_bytes);
    }
    const KernelGroup& kernel = kernels_[pending.group];
    if (pending.gpu_ns > longest || longest < 0) {
      longest = pending.gpu_ns;
      g.main_grid = kernel.grid;
      g.main_block = kernel.block;
    }
    if (found.timed) {
      // The GPU record came before this call's record: account for it now.
      KernelGroup& kg = kernels_[pending.group];
      AddFigures(kg.timed, pending.flops, 0, pending.flops_source, pending.bytes,
                 pending.bytes_source, pending.gpu_ns);
      g.gpu_ns += pending.gpu_ns;
      g.timed_flops += pending.flops;
      g.timed_bytes += pending.bytes;
      AddKernelTime(g, pending.group, pending.gpu_ns);
      if (pending.activity >= 0 && Known(pending.flops_source)) {
        TimedActivity& a = run_.activities[static_cast<size_t>(pending.activity)];
        a.flops = pending.flops;
        a.flops_known = true;
      }
      if (g.device < 0) g.device = kg.device;
      DeviceActivity& d = devices_[kg.device];
      d.kernel_ns_by_source[SourceIndex(pending.flops_source)] += pending.gpu_ns;
      d.kernel_ns_by_source[SourceIndex(FigureSource::kUnknown)] -= pending.gpu_ns;
    }
  }
  // Timed launches are done; the call's own correlation joins GPU records that carry it.
  JoinHooks hooks{*this};
  join_.OnCall(c.correlation, index, launched, hooks);
}

}  // namespace flopspy::analyzers
