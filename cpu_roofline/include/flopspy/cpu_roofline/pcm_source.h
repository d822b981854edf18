// Memory traffic (Q only) from Intel PCM's tools, for hosts where the application may not open
// uncore counters itself but an administrator runs PCM (docs/cpu-counters-notes.md):
//   pcm-sensor-server: GET http://127.0.0.1:9738/ with Accept: application/json; absolute
//                      "DRAM Reads"/"DRAM Writes" bytes since the daemon started.
//   pcm-memory -csv:   a CSV file PCM keeps appending to (`pcm-memory 0.1 -csv=FILE -silent -nc`);
//                      MB/s per row, integrated over the rows' timestamps.
// Both are system-wide and Intel-only.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopspy/cpu_roofline/counters.h"

namespace flopspy::cpuroof {

// --- pcm-sensor-server ---------------------------------------------------------------------

struct PcmDramTotals {
  double read_bytes = 0;
  double write_bytes = 0;
  int sockets = 0;              // sockets seen in "Sockets"
  bool from_aggregate = false;  // "Uncore Aggregate" present (else the sum over sockets)
};

// Reads "Uncore Aggregate"."Uncore Counters"."DRAM Reads"/"DRAM Writes", or sums
// "Sockets"[i]."Uncore"."Uncore Counters" when there is no aggregate.
std::optional<PcmDramTotals> ParsePcmSensorJson(std::string_view json, std::string* error);

struct HttpUrl {
  std::string host = "127.0.0.1";
  uint16_t port = 9738;
  std::string path = "/";
};
std::optional<HttpUrl> ParseHttpUrl(std::string_view url, std::string* error);

// A minimal HTTP/1.0 GET (numeric IPv4 hosts and "localhost" only). Body on status 200.
std::optional<std::string> HttpGet(const HttpUrl& url, int timeout_ms, std::string* error);

class PcmSensorBackend : public CounterBackend {
 public:
  // Fails (nullptr, *why) when the daemon does not answer with usable JSON.
  static std::unique_ptr<PcmSensorBackend> Open(const HttpUrl& url, int timeout_ms,
                                                std::string* why);
  std::string_view name() const override { return "pcm-http"; }
  const std::vector<Channel>& channels() const override { return channels_; }
  bool Read(uint64_t now_ns, bool fast, Snapshot* out) override;
  bool ReopenInChild(std::string*) override { return true; }

 private:
  PcmSensorBackend(const HttpUrl& url, int timeout_ms);
  HttpUrl url_;
  int timeout_ms_;
  std::vector<Channel> channels_;
  std::mutex mu_;
  Snapshot cached_;
  double base_read_ = 0, base_write_ = 0;
};

// --- pcm-memory CSV --------------------------------------------------------------------------

struct PcmMemoryRow {
  int64_t time_ms = 0;  // ms since 1970 from the Date and Time columns (local time as printed)
  double read_mbs = 0;
  double write_mbs = 0;
};

// Incremental parser of pcm-memory's CSV: two header rows, then data rows.
class PcmMemoryCsvParser {
 public:
  // Feeds bytes; complete lines are parsed, a trailing partial line is kept for later.
  void Feed(std::string_view bytes);
  std::vector<PcmMemoryRow> TakeRows();
  bool header_ok() const { return read_cols_.size() > 0 && write_cols_.size() > 0; }
  const std::string& error() const { return error_; }

 private:
  void Line(std::string_view line);
  std::string partial_;
  int header_rows_ = 0;
  std::vector<std::string> groups_;
  std::vector<size_t> read_cols_, write_cols_;  // system columns, or one per socket to sum
  std::vector<PcmMemoryRow> rows_;
  std::string error_;
};

// Integrates MB/s x interval into bytes: the first row only sets the time base.
class PcmBandwidthIntegrator {
 public:
  void Add(const PcmMemoryRow& row);
  double read_bytes() const { return read_bytes_; }
  double write_bytes() const { return write_bytes_; }
  size_t rows() const { return rows_; }

 private:
  bool have_time_ = false;
  int64_t last_time_ms_ = 0;
  double read_bytes_ = 0, write_bytes_ = 0;
  size_t rows_ = 0;
};

class PcmCsvBackend : public CounterBackend {
 public:
  // Reads the header of `path` (which PCM may still be writing) and starts after its current
  // end. nullptr with *why when the file is missing or is not pcm-memory CSV.
  static std::unique_ptr<PcmCsvBackend> Open(const std::string& path, std::string* why);
  std::string_view name() const override { return "pcm-csv"; }
  const std::vector<Channel>& channels() const override { return channels_; }
  bool Read(uint64_t now_ns, bool fast, Snapshot* out) override;
  bool ReopenInChild(std::string*) override { return true; }

 private:
  explicit PcmCsvBackend(std::string path);
  bool Poll();  // reads what was appended since the last call
  std::string path_;
  std::vector<Channel> channels_;
  std::mutex mu_;
  uint64_t offset_ = 0;
  PcmMemoryCsvParser parser_;
  PcmBandwidthIntegrator integrator_;
};

}  // namespace flopspy::cpuroof
