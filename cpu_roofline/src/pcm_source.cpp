#include "flopspy/cpu_roofline/pcm_source.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>

#include "flopspy/platform/owned_fd.h"
#include "flopspy/platform/safe_file.h"
#include "flopspy/trace/schema.h"
#include "text_util.h"

namespace flopspy::cpuroof {

// --- pcm-sensor-server JSON ------------------------------------------------------------------

std::optional<PcmDramTotals> ParsePcmSensorJson(std::string_view json, std::string* error) {
  nlohmann::json j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    *error = "pcm-sensor-server did not answer with a JSON object";
    return std::nullopt;
  }
  auto counters_of = [](const nlohmann::json& uncore, double* rd, double* wr) {
    if (!uncore.is_object()) return false;
    auto c = uncore.find("Uncore Counters");
    if (c == uncore.end() || !c->is_object()) return false;
    auto r = c->find("DRAM Reads");
    auto w = c->find("DRAM Writes");
    if (r == c->end() || w == c->end() || !r->is_number() || !w->is_number()) return false;
    *rd = r->get<double>();
    *wr = w->get<double>();
    return true;
  };
  PcmDramTotals t;
  double socket_rd = 0, socket_wr = 0;
  bool sockets_ok = true;
  if (auto s = j.find("Sockets"); s != j.end() && s->is_array()) {
    for (const auto& sock : *s) {
      double rd = 0, wr = 0;
      auto u = sock.find("Uncore");
      if (u == sock.end() || !counters_of(*u, &rd, &wr)) {
        sockets_ok = false;
        continue;
      }
      socket_rd += rd;  // summed over sockets: every socket's controllers count
      socket_wr += wr;
      ++t.sockets;
    }
  }
  if (auto a = j.find("Uncore Aggregate"); a != j.end()) {
    if (counters_of(*a, &t.read_bytes, &t.write_bytes)) {
      t.from_aggregate = true;
      return t;
    }
  }
  if (t.sockets > 0 && sockets_ok) {
    t.read_bytes = socket_rd;
    t.write_bytes = socket_wr;
    return t;
  }
  *error = "no \"DRAM Reads\"/\"DRAM Writes\" in pcm-sensor-server's answer";
  return std::nullopt;
}

std::optional<HttpUrl> ParseHttpUrl(std::string_view url, std::string* error) {
  HttpUrl u;
  std::string_view rest = Trim(url);
  if (!StartsWith(rest, "http://")) {
    *error = "only http:// URLs are supported: '" + std::string(url) + "'";
    return std::nullopt;
  }
  rest.remove_prefix(7);
  const size_t slash = rest.find('/');
  std::string_view hostport = rest.substr(0, slash);
  u.path = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  const size_t colon = hostport.rfind(':');
  if (colon != std::string_view::npos) {
    auto port = ParseUint(hostport.substr(colon + 1));
    if (!port || *port == 0 || *port > 65535) {
      *error = "bad port in '" + std::string(url) + "'";
      return std::nullopt;
    }
    u.port = static_cast<uint16_t>(*port);
    hostport = hostport.substr(0, colon);
  }
  u.host = hostport.empty() ? "127.0.0.1" : std::string(hostport);
  if (u.host == "localhost") u.host = "127.0.0.1";
  in_addr addr;
  if (inet_pton(AF_INET, u.host.c_str(), &addr) != 1) {
    *error = "host must be a numeric IPv4 address or localhost: '" + u.host + "'";
    return std::nullopt;
  }
  return u;
}

namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Waits for `events` on fd until the deadline; false on timeout or error.
bool WaitFd(int fd, short events, int64_t deadline_ms) {
  while (true) {
    const int64_t left = deadline_ms - NowMs();
    if (left <= 0) return false;
    pollfd p{fd, events, 0};
    const int r = poll(&p, 1, static_cast<int>(left));
    if (r > 0) return true;
    if (r == 0) return false;
    if (errno != EINTR) return false;
  }
}

std::string DecodeChunked(std::string_view body) {
  std::string out;
  while (!body.empty()) {
    const size_t eol = body.find("\r\n");
    if (eol == std::string_view::npos) break;
    std::string_view size_text = body.substr(0, eol);
    if (size_t semi = size_text.find(';'); semi != std::string_view::npos) {
      size_text = size_text.substr(0, semi);
    }
    uint64_t size = 0;
    auto [p, ec] = std::from_chars(size_text.data(), size_text.data() + size_text.size(), size, 16);
    (void)p;
    if (ec != std::errc() || size == 0) break;
    body.remove_prefix(eol + 2);
    if (body.size() < size) break;
    out.append(body.substr(0, size));
    body.remove_prefix(std::min<size_t>(body.size(), size + 2));
  }
  return out;
}

}  // namespace

std::optional<std::string> HttpGet(const HttpUrl& url, int timeout_ms, std::string* error) {
  const int64_t deadline = NowMs() + timeout_ms;
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    *error = std::string("socket: ") + strerror(errno);
    return std::nullopt;
  }
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(url.port);
  inet_pton(AF_INET, url.host.c_str(), &addr.sin_addr);
  const std::string where = url.host + ":" + std::to_string(url.port);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0) {
    if (errno != EINPROGRESS) {
      *error = "cannot connect to " + where + ": " + strerror(errno);
      return std::nullopt;
    }
    if (!WaitFd(fd, POLLOUT, deadline)) {
      *error = "timed out connecting to " + where;
      return std::nullopt;
    }
    int so_error = 0;
    socklen_t len = sizeof so_error;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len);
    if (so_error != 0) {
      *error = "cannot connect to " + where + ": " + strerror(so_error);
      return std::nullopt;
    }
  }
  const std::string request = "GET " + url.path + " HTTP/1.0\r\nHost: " + where +
                              "\r\nAccept: application/json\r\nConnection: close\r\n\r\n";
  size_t sent = 0;
  while (sent < request.size()) {
    if (!WaitFd(fd, POLLOUT, deadline)) {
      *error = "timed out sending to " + where;
      return std::nullopt;
    }
    const ssize_t n = send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno != EAGAIN && errno != EINTR) {
      *error = std::string("send: ") + strerror(errno);
      return std::nullopt;
    }
    if (n > 0) sent += static_cast<size_t>(n);
  }
  std::string response;
  constexpr size_t kMaxResponse = 16u << 20;
  char buf[16384];
  while (true) {
    if (!WaitFd(fd, POLLIN, deadline)) {
      *error = "timed out reading from " + where;
      return std::nullopt;
    }
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      *error = std::string("recv: ") + strerror(errno);
      return std::nullopt;
    }
    response.append(buf, static_cast<size_t>(n));
    if (response.size() > kMaxResponse) {
      *error = "answer from " + where + " is too large";
      return std::nullopt;
    }
  }
  const size_t header_end = response.find("\r\n\r\n");
  if (header_end == std::string::npos || !StartsWith(response, "HTTP/")) {
    *error = "not an HTTP answer from " + where;
    return std::nullopt;
  }
  const std::string_view head(response.data(), header_end);
  const size_t sp = head.find(' ');
  if (sp == std::string_view::npos || head.substr(sp + 1, 3) != "200") {
    *error = "HTTP status '" + std::string(head.substr(0, head.find("\r\n"))) + "' from " + where;
    return std::nullopt;
  }
  std::string body = response.substr(header_end + 4);
  if (ToLower(head).find("transfer-encoding: chunked") != std::string::npos) {
    body = DecodeChunked(body);
  }
  return body;
}

PcmSensorBackend::PcmSensorBackend(const HttpUrl& url, int timeout_ms)
    : url_(url), timeout_ms_(timeout_ms) {
  Channel rd;
  rd.name = "pcm-sensor-server DRAM Reads";
  rd.quantity = Quantity::kBytes;
  rd.direction = Direction::kRead;
  rd.system_wide = true;
  Channel wr = rd;
  wr.name = "pcm-sensor-server DRAM Writes";
  wr.direction = Direction::kWrite;
  channels_ = {rd, wr};
}

std::unique_ptr<PcmSensorBackend> PcmSensorBackend::Open(const HttpUrl& url, int timeout_ms,
                                                         std::string* why) {
  std::unique_ptr<PcmSensorBackend> b(new PcmSensorBackend(url, timeout_ms));
  std::string error;
  auto body = HttpGet(url, timeout_ms, &error);
  std::optional<PcmDramTotals> totals;
  if (body) totals = ParsePcmSensorJson(*body, &error);
  if (!totals) {
    *why = "pcm-sensor-server at http://" + url.host + ":" + std::to_string(url.port) + url.path +
           ": " + error;
    return nullptr;
  }
  // Counts start at zero when flopspy starts (the daemon's are absolute since it started).
  b->base_read_ = totals->read_bytes;
  b->base_write_ = totals->write_bytes;
  b->cached_.values = {ChannelValue{0, 0, 0, true}, ChannelValue{0, 0, 0, true}};
  return b;
}

bool PcmSensorBackend::Read(uint64_t now_ns, bool fast, Snapshot* out) {
  if (!fast) {
    std::string error;
    auto body = HttpGet(url_, timeout_ms_, &error);
    std::optional<PcmDramTotals> totals;
    if (body) totals = ParsePcmSensorJson(*body, &error);
    std::lock_guard<std::mutex> lock(mu_);
    cached_.t_ns = now_ns;
    if (totals) {
      auto rel = [](double v, double base) {
        return v > base ? static_cast<uint64_t>(v - base) : uint64_t{0};
      };
      cached_.values = {ChannelValue{rel(totals->read_bytes, base_read_), 0, 0, true},
                        ChannelValue{rel(totals->write_bytes, base_write_), 0, 0, true}};
    } else {
      for (ChannelValue& v : cached_.values) v.ok = false;
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  *out = cached_;
  out->t_ns = now_ns;
  return true;
}

// --- pcm-memory CSV --------------------------------------------------------------------------

namespace {

std::vector<std::string> CsvFields(std::string_view line) {
  std::vector<std::string> out;
  for (std::string_view f : Split(line, ',')) out.emplace_back(Trim(f));
  return out;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

// "2024-05-01" and "12:34:56.789" -> ms (integers: a double of seconds since 1970 would cost
// the 0.1 s intervals their last digits).
std::optional<int64_t> ParseDateTime(std::string_view date, std::string_view time) {
  const auto d = Split(date, '-');
  const auto t = Split(time, ':');
  if (d.size() != 3 || t.size() != 3) return std::nullopt;
  auto y = ParseUint(d[0]), mo = ParseUint(d[1]), da = ParseUint(d[2]);
  auto h = ParseUint(t[0]), mi = ParseUint(t[1]);
  auto s = ParseDouble(t[2]);
  if (!y || !mo || !da || !h || !mi || !s || *mo < 1 || *mo > 12 || *da < 1 || *da > 31) {
    return std::nullopt;
  }
  const int64_t days = DaysFromCivil(static_cast<int64_t>(*y), static_cast<unsigned>(*mo),
                                     static_cast<unsigned>(*da));
  return days * 86'400'000 + static_cast<int64_t>(*h) * 3'600'000 +
         static_cast<int64_t>(*mi) * 60'000 + static_cast<int64_t>(std::llround(*s * 1000.0));
}

}  // namespace

void PcmMemoryCsvParser::Feed(std::string_view bytes) {
  partial_.append(bytes);
  size_t start = 0;
  while (true) {
    const size_t nl = partial_.find('\n', start);
    if (nl == std::string::npos) break;
    Line(std::string_view(partial_).substr(start, nl - start));
    start = nl + 1;
  }
  partial_.erase(0, start);
}

std::vector<PcmMemoryRow> PcmMemoryCsvParser::TakeRows() {
  std::vector<PcmMemoryRow> out;
  out.swap(rows_);
  return out;
}

void PcmMemoryCsvParser::Line(std::string_view line) {
  line = Trim(line);
  if (line.empty()) return;
  const std::vector<std::string> f = CsvFields(line);
  if (header_rows_ == 0) {
    groups_ = f;
    ++header_rows_;
    return;
  }
  if (header_rows_ == 1) {
    ++header_rows_;
    // System totals when present; else the per-socket totals, summed.
    for (size_t i = 0; i < f.size(); ++i) {
      const std::string& g = i < groups_.size() ? groups_[i] : std::string();
      if (g == "System" && f[i] == "Read") read_cols_ = {i};
      if (g == "System" && f[i] == "Write") write_cols_ = {i};
    }
    if (read_cols_.empty() || write_cols_.empty()) {
      read_cols_.clear();
      write_cols_.clear();
      for (size_t i = 0; i < f.size(); ++i) {
        if (f[i] == "Mem Read (MB/s)") read_cols_.push_back(i);
        if (f[i] == "Mem Write (MB/s)") write_cols_.push_back(i);
      }
    }
    if (f.size() < 2 || f[0] != "Date" || f[1] != "Time" || !header_ok()) {
      error_ = "not pcm-memory CSV output (expected Date,Time and System Read/Write columns)";
      read_cols_.clear();
      write_cols_.clear();
    }
    return;
  }
  if (!header_ok() || f.size() < 2) return;
  auto when = ParseDateTime(f[0], f[1]);
  if (!when) return;  // a repeated header or a partial line
  PcmMemoryRow row;
  row.time_ms = *when;
  for (size_t c : read_cols_) {
    if (c >= f.size()) return;
    auto v = ParseDouble(f[c]);
    if (!v) return;
    row.read_mbs += *v;
  }
  for (size_t c : write_cols_) {
    if (c >= f.size()) return;
    auto v = ParseDouble(f[c]);
    if (!v) return;
    row.write_mbs += *v;
  }
  rows_.push_back(row);
}

void PcmBandwidthIntegrator::Add(const PcmMemoryRow& row) {
  ++rows_;
  if (!have_time_) {
    have_time_ = true;
    last_time_ms_ = row.time_ms;
    return;
  }
  const int64_t dt_ms = row.time_ms - last_time_ms_;
  last_time_ms_ = row.time_ms;
  // A clock step or a restart: skip the row rather than invent traffic.
  if (dt_ms <= 0 || dt_ms > 3'600'000) return;
  const double dt = static_cast<double>(dt_ms) * 1e-3;
  // pcm-memory's MB are 10^6 bytes.
  read_bytes_ += row.read_mbs * 1e6 * dt;
  write_bytes_ += row.write_mbs * 1e6 * dt;
}

PcmCsvBackend::PcmCsvBackend(std::string path) : path_(std::move(path)) {
  Channel rd;
  rd.name = "pcm-memory Read";
  rd.quantity = Quantity::kBytes;
  rd.direction = Direction::kRead;
  rd.system_wide = true;
  Channel wr = rd;
  wr.name = "pcm-memory Write";
  wr.direction = Direction::kWrite;
  channels_ = {rd, wr};
}

std::unique_ptr<PcmCsvBackend> PcmCsvBackend::Open(const std::string& path, std::string* why) {
  std::unique_ptr<PcmCsvBackend> b(new PcmCsvBackend(path));
  if (std::string not_file = platform::NotARegularFile(path); !not_file.empty()) {
    *why = "pcm-memory CSV: " + not_file;
    return nullptr;
  }
  if (access(path.c_str(), R_OK) != 0) {
    *why = "cannot read pcm-memory CSV '" + path + "' (run e.g. sudo pcm-memory 0.1 -csv=" + path +
           " -silent -nc)";
    return nullptr;
  }
  b->Poll();
  if (!b->parser_.header_ok()) {
    *why = "'" + path + "': " +
           (b->parser_.error().empty() ? std::string("no pcm-memory CSV header yet")
                                       : b->parser_.error());
    return nullptr;
  }
  // Rows already in the file only set the time base.
  return b;
}

bool PcmCsvBackend::Poll() {
  // pcm-memory appends to a regular file; a FIFO or device put in its place is never opened (it
  // would block the sampler or never end), and one poll reads a bounded part of what is new.
  constexpr uint64_t kMaxPollBytes = uint64_t{64} << 20;
  platform::OwnedFd fd = platform::OwnedFd::Adopt(platform::OpenRegularForReading(path_, nullptr));
  if (!fd.valid()) return false;
  struct stat st {};
  if (fstat(fd.get(), &st) != 0) {
    fd.CloseIfOurs();
    return false;
  }
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size < offset_) offset_ = 0;  // truncated and rewritten
  std::string chunk(std::min(size - offset_, kMaxPollBytes), '\0');
  size_t got = 0;
  while (got < chunk.size() && fd.StillOurs()) {
    const ssize_t n =
        pread(fd.get(), chunk.data() + got, chunk.size() - got, static_cast<off_t>(offset_ + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  fd.CloseIfOurs();
  chunk.resize(got);
  offset_ += chunk.size();
  parser_.Feed(chunk);
  for (const PcmMemoryRow& row : parser_.TakeRows()) integrator_.Add(row);
  return true;
}

bool PcmCsvBackend::Read(uint64_t now_ns, bool fast, Snapshot* out) {
  std::lock_guard<std::mutex> lock(mu_);
  bool ok = true;
  if (!fast) ok = Poll();
  out->t_ns = now_ns;
  out->values = {ChannelValue{static_cast<uint64_t>(integrator_.read_bytes()), 0, 0, ok},
                 ChannelValue{static_cast<uint64_t>(integrator_.write_bytes()), 0, 0, ok}};
  return true;
}

}  // namespace flopspy::cpuroof
