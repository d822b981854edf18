#include "report/trace_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <future>
#include <thread>

#include "flopspy/gpu_roofline/device_properties_json.h"
#include "flopspy/gpu_roofline/device_table.h"
#include "flopspy/trace/utf8.h"
#include "report/call_site_symbols.h"
#include "report/ceilings_input.h"
#include "report/crash_handler.h"

namespace flopspy::tools {

uint64_t TraceReport::duration_ns() const {
  if (summary.last_ns <= summary.first_ns || summary.first_ns == UINT64_MAX) return 0;
  return summary.last_ns - summary.first_ns;
}

std::string DefaultCeilingsPath() {
  if (const char* explicit_path = std::getenv("FLOPSPY_CEILINGS")) return explicit_path;
  std::string base;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    base = xdg;
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    base = std::string(home) + "/.cache";
  } else {
    return "";
  }
  return base + "/flopspy/gpu-ceilings.json";
}

namespace {

// The CPU roofline points of a trace, labelled for tables and charts.
void AddCpuSample(TraceReport& report, const trace::RecordView& record,
                  const analyzers::StringLookup& strings) {
  if (record.type != trace::RecordType::kCpuSample) return;
  cpuroof::LabeledSample sample;
  sample.record = record.As<trace::CpuSampleRecord>();
  switch (static_cast<trace::CpuSampleScope>(sample.record.scope)) {
    case trace::CpuSampleScope::kRegion:
      sample.label = std::string(strings(sample.record.region));
      break;
    case trace::CpuSampleScope::kRun:
      sample.label = "whole run";
      break;
    default:
      sample.label = "interval " + std::to_string(report.cpu_samples.size() + 1);
      break;
  }
  report.cpu_samples.push_back(std::move(sample));
}

// A copy the GPU ran that touched host memory: its DMA is memory traffic the CPU's system-wide
// counters see, so CPU points overlapping it are flagged (the sampler sees only the API call).
void AddHostCopy(std::vector<std::pair<uint64_t, uint64_t>>& copies,
                 const trace::RecordView& record) {
  if (record.type != trace::RecordType::kGpuActivity) return;
  const auto a = record.As<trace::GpuActivityRecord>();
  if (a.kind != static_cast<uint8_t>(trace::GpuActivityKind::kMemcpy)) return;
  const auto host = [](uint8_t kind) {
    return kind == static_cast<uint8_t>(trace::MemoryKind::kPageable) ||
           kind == static_cast<uint8_t>(trace::MemoryKind::kPinned);
  };
  const auto copy = static_cast<trace::CopyKind>(a.copy_kind);
  if (copy == trace::CopyKind::kHostToDevice || copy == trace::CopyKind::kDeviceToHost ||
      copy == trace::CopyKind::kHostToHost || host(a.src_kind) || host(a.dst_kind)) {
    copies.emplace_back(a.start_ns, a.end_ns);
  }
}

// The chart of the trace's CPU points against this machine's CPU ceilings (measured by
// `flopspy ceilings --cpu` for the same CPU model), when the trace has points.
// The CPU model key the sampler recorded, when the metadata holds one of the right shape. The
// metadata is the file's word, so anything else (a number, an object, a key naming another
// folder) is no key at all.
std::string CpuKey(const nlohmann::json& metadata) {
  const auto roofline = metadata.find("cpu_roofline");
  if (roofline == metadata.end() || !roofline->is_object()) return "";
  const auto caps = roofline->find("capabilities");
  if (caps == roofline->end() || !caps->is_object()) return "";
  const auto key = caps->find("cpu_key");
  if (key == caps->end() || !key->is_string()) return "";
  const std::string text = key->get<std::string>();
  const bool safe = std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
  });
  return safe ? text : "";
}

void ResolveCpuRoofline(TraceReport& report) {
  if (report.cpu_samples.empty()) return;
  std::optional<cpuroof::CpuCeilings> ceilings;
  if (const std::string key = CpuKey(report.metadata); !key.empty()) {
    // Bounded and never from a FIFO (LoadCeilings). A file that cannot be read leaves the
    // chart without measured roofs, as a missing one does.
    std::string unused;
    ceilings = cpuroof::LoadCeilings(cpuroof::CeilingsPathForKey(key), &unused);
  }
  cpuroof::CpuRooflineInputs inputs;
  if (ceilings) inputs.ceilings = &*ceilings;
  report.cpu_roofline = cpuroof::BuildCpuRoofline(report.cpu_samples, inputs);
}

// The devices of a trace's metadata, and their roofs: the table's (or computed) figures, with
// measured ceilings of the same GPU merged in when there are any.
void ResolveDevices(TraceReport& report, const ReportOptions& options) {
  const auto devices = report.metadata.find("devices");
  if (devices == report.metadata.end() || !devices->is_array()) return;
  int32_t index = 0;
  for (const auto& entry : *devices) {
    const gpuroof::DeviceProperties props = gpuroof::DevicePropertiesFromJson(entry);
    analyzers::DeviceRoofs roofs = gpuroof::RoofsForDevice(props);
    if (options.ceilings && !props.uuid.empty()) {
      const gpuroof::MeasuredCeilings* measured =
          gpuroof::FindCeilings(*options.ceilings, props.uuid, props.driver_version);
      if (measured == nullptr)
        measured = gpuroof::FindCeilingsAnyDriver(*options.ceilings, props.uuid);
      if (measured != nullptr) gpuroof::MergeMeasuredCeilings(roofs, *measured);
    }
    report.devices[index] = props;
    report.roofs[index] = std::move(roofs);
    ++index;
  }
}

// A metadata block as JSON, or null with `too_deep` set when it nests deeper than
// kMaxMetadataDepth. nlohmann's parser keeps its own stack on the heap, but merge_patch, dump and
// the CSV flattening recurse once per level: 60,000 levels overflowed the stack (fuzz regression
// deep-metadata-nesting).
nlohmann::json ParseMetadata(const std::string& text, bool& too_deep) {
  too_deep = false;
  const nlohmann::json::parser_callback_t limit =
      [&too_deep](int depth, nlohmann::json::parse_event_t event, nlohmann::json&) {
        const bool opens = event == nlohmann::json::parse_event_t::object_start ||
                           event == nlohmann::json::parse_event_t::array_start;
        // `depth` counts the containers around this one.
        if (opens && depth >= kMaxMetadataDepth) too_deep = true;
        return !too_deep;
      };
  // The JSON parser refuses ill-formed UTF-8 (a command line with a Latin-1 argument): keep the
  // block, with U+FFFD in its place.
  nlohmann::json block =
      nlohmann::json::parse(trace::ValidUtf8(text), limit, /*allow_exceptions=*/false);
  if (too_deep) return nullptr;
  return block;
}

void MergeMetadata(TraceReport& report, const std::string& text, uint64_t offset) {
  bool too_deep = false;
  const nlohmann::json block = ParseMetadata(text, too_deep);
  if (too_deep) {
    const std::string why = fmt::format(
        "the metadata block at byte {} nests deeper than {} levels; it was ignored (no flopspy "
        "writes such metadata: the file is damaged or crafted)",
        offset, kMaxMetadataDepth);
    report.summary.warnings.push_back({trace::WarningCode::kGeneric, 0, why});
    report.problems.push_back(why);
    return;
  }
  if (block.is_object()) report.metadata.merge_patch(block);
}

// FLOPSPY_MODEL_FLOPS as the runtime recorded it (config.model_flops: a number or its text);
// 0 when absent or not a positive number.
double ModelFlopsOf(const nlohmann::json& metadata) {
  const auto config = metadata.find("config");
  if (config == metadata.end() || !config->is_object()) return 0;
  const auto value = config->find("model_flops");
  if (value == config->end()) return 0;
  double flops = 0;
  if (value->is_number()) {
    flops = value->get<double>();
  } else if (value->is_string()) {
    char* end = nullptr;
    const std::string text = value->get<std::string>();
    flops = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0') flops = 0;
  }
  return std::isfinite(flops) && flops > 0 ? flops : 0;
}

}  // namespace

TraceReport AnalyzeTrace(const std::string& path, const ReportOptions& options,
                         const std::function<void(uint64_t, uint64_t)>& progress) {
  return AnalyzeTrace(trace::TraceReader::OpenFile(path), path, options, progress);
}

TraceReport AnalyzeTrace(trace::TraceReader reader, const std::string& path,
                         const ReportOptions& options,
                         const std::function<void(uint64_t, uint64_t)>& progress) {
  TraceReport report;
  report.path = path;
  report.header_ok = reader.header_ok();
  if (!report.header_ok) {
    report.read = reader.header_status();
    return report;
  }
  report.header = reader.header();
  report.host = trace::ValidUtf8(reader.host());
  // One index of the trace's definitions, filled a chunk ahead of the analyses that read it.
  analyzers::TraceIndex index;
  analyzers::TraceSummarizer summarizer;
  analyzers::TraceAnalyzer run(index);
  run.UseExternalFigures(options.kernel_figures.get());
  analyzers::RegionAnalyzer regions;
  analyzers::RangeCollector ranges;
  analyzers::CallSiteCollector call_sites;
  analyzers::CommCollector communication;
  analyzers::LaunchOverheadAnalyzer launch_overhead(index);
  const analyzers::StringLookup strings = [&reader](uint32_t id) { return reader.String(id); };
  const uint64_t size = reader.header_status().file_size;
  // Every analyzer sees every record in file order; they share nothing, so the launch-overhead
  // analysis (the heaviest: 8.9 s of work became 6 s on 2 cores with 10 million records,
  // docs/performance.md) may take each chunk on a second thread beside the others.
  const auto overhead_analysis = [&](std::span<const trace::RecordView> records) {
    for (const trace::RecordView& record : records) launch_overhead.Add(record, strings);
  };
  std::vector<std::pair<uint64_t, uint64_t>> host_copies;
  std::vector<uint64_t> metadata_offsets;  // of the summary's metadata blocks, in file order
  const auto other_analyses = [&](std::span<const trace::RecordView> records) {
    for (const trace::RecordView& record : records) {
      if (record.type == trace::RecordType::kMetadata)
        metadata_offsets.push_back(record.file_offset);
      summarizer.Add(record, strings);
      run.Add(record, strings);
      regions.Add(record, strings);
      ranges.Add(record, strings);
      call_sites.Add(record, strings);
      communication.Add(record, strings);
      AddCpuSample(report, record, strings);
      AddHostCopy(host_copies, record);
    }
  };
  report.read = reader.ForEachChunk(
      [&](std::span<const trace::RecordView> records) {
        // Before the analyses: they may then read the index from two threads.
        for (const trace::RecordView& record : records) index.Add(record, strings);
        if (!options.parallel_analyses) {
          other_analyses(records);
          overhead_analysis(records);
          return;
        }
        std::future<void> beside = std::async(std::launch::async, [&overhead_analysis, records] {
          UseCrashStackOnThisThread();
          overhead_analysis(records);
        });
        other_analyses(records);
        beside.get();  // rethrows what the overhead analysis threw
      },
      progress ? std::function<void(uint64_t)>([&](uint64_t done) { progress(done, size); })
               : nullptr);
  report.summary = summarizer.Take();
  if (report.read.status != trace::ReadStatus::kOk) {
    // Every output lists warnings: this one says what the numbers below cannot include.
    report.summary.warnings.push_back(
        {trace::WarningCode::kGeneric, 0,
         "flopspy-report stopped reading at byte " + std::to_string(report.read.stop_offset) +
             " (" + std::string(trace::ReadStatusName(report.read.status)) +
             "): " + std::to_string(report.read.unread_bytes()) + " of the file's " +
             std::to_string(report.read.file_size) +
             " bytes were not read, so the records, losses and warnings written there are "
             "missing from this report"});
  }
  report.launch_overhead = launch_overhead.Finish();
  for (size_t i = 0; i < report.summary.metadata.size(); ++i) {
    const uint64_t offset = i < metadata_offsets.size() ? metadata_offsets[i] : 0;
    MergeMetadata(report, report.summary.metadata[i], offset);
  }
  ResolveDevices(report, options);
  report.run = run.Finish(report.roofs, options.thresholds);
  // Damaged records the analysis refused (the rest of the trace reads as usual): every output
  // lists its warnings.
  for (const std::string& message : report.run.damaged_messages) {
    report.summary.warnings.push_back(
        {trace::WarningCode::kGeneric, 0, "damaged trace: " + message});
  }
  if (const uint64_t more = report.run.damaged_records - report.run.damaged_messages.size()) {
    report.summary.warnings.push_back(
        {trace::WarningCode::kGeneric, 0,
         "damaged trace: " + std::to_string(more) + " more damaged records were refused"});
  }
  report.advice = analyzers::AdviseRun(report.run, report.roofs);
  report.comm_log = communication.Finish();
  report.communication = analyzers::AnalyzeCommunication(report.comm_log, report.run);
  report.regions = regions.Finish();
  const analyzers::RangeLog range_log = ranges.Finish();
  report.ranges = analyzers::AnalyzeRanges(range_log, report.run.activities);
  report.call_sites =
      AnalyzeCallSitesWithSymbols(call_sites.Finish(), report.run, options.call_sites, &range_log);
  if (report.call_sites.damaged > 0) {
    report.summary.warnings.push_back(
        {trace::WarningCode::kGeneric, 0,
         "damaged trace: " + std::to_string(report.call_sites.damaged) +
             " call-site records (stacks, code objects, modules, stack samples) were refused"});
  }
  analyzers::StepOptions step_options = options.steps;
  if (step_options.model_flops_per_step <= 0) {
    step_options.model_flops_per_step = ModelFlopsOf(report.metadata);
  }
  // Steps need every kernel's GPU time; sampled GPU timing has them only in its windows.
  if (!report.run.sampling.sampled) {
    report.steps = analyzers::FindSteps(range_log, report.run, step_options);
  }
  cpuroof::FlagPointsOverlappingGpuCopies(report.cpu_samples, std::move(host_copies));
  ResolveCpuRoofline(report);
  return report;
}

std::vector<TraceReport> AnalyzeTraces(const std::vector<std::string>& paths,
                                       const ReportOptions& given_options,
                                       const std::function<void(size_t, uint64_t)>& progress) {
  std::vector<TraceReport> reports(paths.size());
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const size_t workers = std::max<size_t>(1, std::min<size_t>(paths.size(), cores));
  // Fewer files than cores: the idle cores take a share of each file's analysis.
  ReportOptions options = given_options;
  options.parallel_analyses = options.parallel_analyses || paths.size() < cores;
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (size_t w = 0; w < workers; ++w) {
    pool.emplace_back([&] {
      UseCrashStackOnThisThread();  // a crash while reading a file still says so
      for (size_t i = next++; i < paths.size(); i = next++) {
        reports[i] = AnalyzeTrace(
            paths[i], options,
            progress ? std::function<void(uint64_t, uint64_t)>(
                           [&progress, i](uint64_t done, uint64_t) { progress(i, done); })
                     : nullptr);
      }
    });
  }
  for (auto& t : pool) t.join();
  return reports;
}

}  // namespace flopspy::tools
