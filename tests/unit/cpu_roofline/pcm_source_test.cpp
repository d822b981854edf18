// Intel PCM as a Q source: pcm-sensor-server JSON over a loopback stub, pcm-memory CSV files
// (whole and growing), aggregation over sockets, and the backend choice in OpenBackend.
#include "flopspy/cpu_roofline/pcm_source.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "fake_perf.h"
#include "flopspy/cpu_roofline/backend_factory.h"
#include "flopspy/cpu_roofline/sysfs_pmu.h"
#include "flopspy/trace/schema.h"
#include "test_paths.h"

namespace flopspy::cpuroof {
namespace {

std::string Fixture(const std::string& name) {
  auto text = ReadSmallFile(testing::DataDir() + "/pcm/" + name);
  EXPECT_TRUE(text) << name;
  return text ? *text + "\n" : "";
}

TEST(PcmSensorJson, ReadsTheAggregate) {
  std::string error;
  auto t = ParsePcmSensorJson(Fixture("sensor_2s.json"), &error);
  ASSERT_TRUE(t) << error;
  EXPECT_TRUE(t->from_aggregate);
  EXPECT_EQ(t->sockets, 2);
  EXPECT_DOUBLE_EQ(t->read_bytes, 9e9);
  EXPECT_DOUBLE_EQ(t->write_bytes, 3e9);
}

TEST(PcmSensorJson, SumsEverySocketWithoutAnAggregate) {
  // perfplot's `sysRead =+ ...` kept only the last socket; both must count.
  std::string error;
  auto t = ParsePcmSensorJson(Fixture("sensor_no_aggregate.json"), &error);
  ASSERT_TRUE(t) << error;
  EXPECT_FALSE(t->from_aggregate);
  EXPECT_DOUBLE_EQ(t->read_bytes, 6e9 + 3e9);
  EXPECT_DOUBLE_EQ(t->write_bytes, 2e9 + 1e9);
}

TEST(PcmSensorJson, RejectsOtherAnswers) {
  std::string error;
  EXPECT_FALSE(ParsePcmSensorJson("<html>dashboard</html>", &error));
  EXPECT_FALSE(ParsePcmSensorJson("{\"Sockets\": []}", &error));
  EXPECT_NE(error.find("DRAM Reads"), std::string::npos);
}

TEST(HttpUrl, ParsesHostPortAndPath) {
  std::string error;
  auto u = ParseHttpUrl("http://127.0.0.1:9738/", &error);
  ASSERT_TRUE(u) << error;
  EXPECT_EQ(u->port, 9738);
  EXPECT_EQ(u->path, "/");
  auto l = ParseHttpUrl("http://localhost:8080/persecond", &error);
  ASSERT_TRUE(l) << error;
  EXPECT_EQ(l->host, "127.0.0.1");
  EXPECT_EQ(l->path, "/persecond");
  EXPECT_FALSE(ParseHttpUrl("https://127.0.0.1/", &error));
  EXPECT_FALSE(ParseHttpUrl("http://example.com/", &error));
  EXPECT_FALSE(ParseHttpUrl("http://127.0.0.1:99999/", &error));
}

// A loopback HTTP server answering each connection with the next body.
class StubServer {
 public:
  explicit StubServer(std::vector<std::string> bodies, bool chunked = false)
      : bodies_(std::move(bodies)), chunked_(chunked) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    listen(fd_, 8);
    thread_ = std::thread([this] { Serve(); });
  }
  ~StubServer() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  uint16_t port() const { return port_; }
  int requests() const { return requests_.load(); }
  std::string last_request() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_;
  }

 private:
  void Serve() {
    while (!stop_) {
      const int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::string req;
      char buf[1024];
      while (req.find("\r\n\r\n") == std::string::npos) {
        const ssize_t n = read(c, buf, sizeof buf);
        if (n <= 0) break;
        req.append(buf, static_cast<size_t>(n));
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        last_ = req;
      }
      const int i = requests_++;
      const std::string& body = bodies_[std::min<size_t>(i, bodies_.size() - 1)];
      std::string resp;
      if (chunked_) {
        char size[32];
        std::snprintf(size, sizeof size, "%zx", body.size());
        resp = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + std::string(size) +
               "\r\n" + body + "\r\n0\r\n\r\n";
      } else {
        resp = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
               std::to_string(body.size()) + "\r\n\r\n" + body;
      }
      (void)!write(c, resp.data(), resp.size());
      close(c);
    }
  }
  std::vector<std::string> bodies_;
  bool chunked_;
  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  std::mutex mu_;
  std::string last_;
  std::thread thread_;
};

std::string SensorBody(double reads, double writes) {
  return "{\"Uncore Aggregate\": {\"Uncore Counters\": {\"DRAM Reads\": " + std::to_string(reads) +
         ", \"DRAM Writes\": " + std::to_string(writes) + "}}}";
}

TEST(HttpGet, AsksForJsonAndReadsTheBody) {
  StubServer server({Fixture("sensor_2s.json")});
  std::string error;
  HttpUrl url;
  url.port = server.port();
  auto body = HttpGet(url, 2000, &error);
  ASSERT_TRUE(body) << error;
  EXPECT_NE(body->find("Uncore Aggregate"), std::string::npos);
  EXPECT_NE(server.last_request().find("Accept: application/json"), std::string::npos);
}

TEST(HttpGet, DecodesChunkedAnswers) {
  StubServer server({SensorBody(1, 2)}, true);
  std::string error;
  HttpUrl url;
  url.port = server.port();
  auto body = HttpGet(url, 2000, &error);
  ASSERT_TRUE(body) << error;
  EXPECT_EQ(*body, SensorBody(1, 2));
}

TEST(HttpGet, FailsFastWithoutADaemon) {
  // A port nobody listens on: refused at once.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  HttpUrl url;
  url.port = ntohs(addr.sin_port);
  close(fd);
  std::string error;
  EXPECT_FALSE(HttpGet(url, 2000, &error));
  EXPECT_NE(error.find("cannot connect"), std::string::npos) << error;
}

TEST(HttpGet, TimesOutOnASilentServer) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  listen(fd, 1);  // never accepts, never answers
  HttpUrl url;
  url.port = ntohs(addr.sin_port);
  std::string error;
  EXPECT_FALSE(HttpGet(url, 100, &error));
  EXPECT_NE(error.find("timed out"), std::string::npos) << error;
  close(fd);
}

TEST(PcmSensorBackend, CountsBytesSinceOpenAndCachesForFastReads) {
  StubServer server({SensorBody(1e9, 5e8), SensorBody(3e9, 1e9), SensorBody(7e9, 2e9)});
  HttpUrl url;
  url.port = server.port();
  std::string why;
  auto b = PcmSensorBackend::Open(url, 2000, &why);
  ASSERT_TRUE(b) << why;
  ASSERT_EQ(b->channels().size(), 2u);
  EXPECT_TRUE(b->channels()[0].system_wide);
  Snapshot s;
  ASSERT_TRUE(b->Read(10, false, &s));
  EXPECT_EQ(s.values[0].raw, 2'000'000'000u);
  EXPECT_EQ(s.values[1].raw, 500'000'000u);
  const int before = server.requests();
  ASSERT_TRUE(b->Read(11, true, &s));  // an application thread: no HTTP request
  EXPECT_EQ(server.requests(), before);
  EXPECT_EQ(s.values[0].raw, 2'000'000'000u);
  EXPECT_EQ(s.t_ns, 11u);
}

TEST(PcmMemoryCsv, IntegratesSystemReadAndWrite) {
  PcmMemoryCsvParser p;
  p.Feed(Fixture("memory_2s.csv"));
  ASSERT_TRUE(p.header_ok()) << p.error();
  PcmBandwidthIntegrator in;
  for (const auto& row : p.TakeRows()) in.Add(row);
  EXPECT_EQ(in.rows(), 3u);
  // Two 0.1 s intervals at 5000 MB/s read and 1500 MB/s write.
  EXPECT_NEAR(in.read_bytes(), 2 * 0.1 * 5000e6, 1);
  EXPECT_NEAR(in.write_bytes(), 2 * 0.1 * 1500e6, 1);
}

TEST(PcmMemoryCsv, IgnoresPersistentMemoryColumns) {
  PcmMemoryCsvParser p;
  p.Feed(Fixture("memory_2s_nc_pmm.csv"));
  ASSERT_TRUE(p.header_ok());
  const auto rows = p.TakeRows();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_DOUBLE_EQ(rows[0].read_mbs, 5000);
  EXPECT_DOUBLE_EQ(rows[0].write_mbs, 1500);
}

TEST(PcmMemoryCsv, SumsSocketsWithoutSystemColumns) {
  PcmMemoryCsvParser p;
  p.Feed(Fixture("memory_sockets_only.csv"));
  ASSERT_TRUE(p.header_ok());
  const auto rows = p.TakeRows();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_DOUBLE_EQ(rows[0].read_mbs, 2000 + 3000);
  EXPECT_DOUBLE_EQ(rows[0].write_mbs, 500 + 1000);
}

TEST(PcmMemoryCsv, ParsesLinesSplitAcrossFeeds) {
  const std::string text = Fixture("memory_2s.csv");
  PcmMemoryCsvParser p;
  for (size_t i = 0; i < text.size(); i += 7) p.Feed(text.substr(i, 7));
  EXPECT_EQ(p.TakeRows().size(), 3u);
}

TEST(PcmMemoryCsv, RejectsOtherCsv) {
  PcmMemoryCsvParser p;
  p.Feed("a,b,c\n1,2,3\n4,5,6\n");
  EXPECT_FALSE(p.header_ok());
  EXPECT_FALSE(p.error().empty());
}

TEST(PcmCsvBackend, FollowsAGrowingFile) {
  const std::string path = ::testing::TempDir() + "/pcm-memory-follow.csv";
  const std::string all = Fixture("memory_2s.csv");
  std::vector<std::string> lines;
  std::istringstream ss(all);
  for (std::string l; std::getline(ss, l);) lines.push_back(l + "\n");
  ASSERT_EQ(lines.size(), 5u);
  {
    std::ofstream out(path);
    out << lines[0] << lines[1] << lines[2];
  }
  std::string why;
  auto b = PcmCsvBackend::Open(path, &why);
  ASSERT_TRUE(b) << why;
  Snapshot a, c;
  ASSERT_TRUE(b->Read(0, false, &a));
  {
    std::ofstream out(path, std::ios::app);
    out << lines[3] << lines[4];
  }
  ASSERT_TRUE(b->Read(1, true, &c));  // fast: nothing new read yet
  EXPECT_EQ(c.values[0].raw, a.values[0].raw);
  ASSERT_TRUE(b->Read(2, false, &c));
  EXPECT_NEAR(static_cast<double>(c.values[0].raw - a.values[0].raw), 2 * 0.1 * 5000e6, 2);
  EXPECT_NEAR(static_cast<double>(c.values[1].raw - a.values[1].raw), 2 * 0.1 * 1500e6, 2);
  std::remove(path.c_str());
  EXPECT_FALSE(PcmCsvBackend::Open(path, &why));
  EXPECT_NE(why.find("pcm-memory"), std::string::npos);
}

TEST(OpenBackend, PcmIsIntelOnly) {
  testing::FakePerf fake;
  BackendDeps deps;
  deps.perf = fake.Syscalls();
  SamplerConfig config;
  config.mode = BackendMode::kPcmCsv;
  config.pcm_csv_path = testing::DataDir() + "/pcm/memory_2s.csv";
  config.paths = testing::FakeHost("zen4_vm");
  std::string error;
  config.cpu_override = ParseCpuIdOverride("AuthenticAMD:0x19:0x11", &error);
  OpenedBackend amd = OpenBackend(config, deps);
  EXPECT_FALSE(amd.capabilities.traffic.available);
  EXPECT_NE(amd.capabilities.traffic.reason.find("only Intel CPUs"), std::string::npos);

  config.cpu_override = ParseCpuIdOverride("GenuineIntel:6:0x8F", &error);
  OpenedBackend intel = OpenBackend(config, deps);
  ASSERT_TRUE(intel.backend);
  EXPECT_TRUE(intel.capabilities.traffic.available) << intel.capabilities.traffic.reason;
  EXPECT_TRUE(intel.capabilities.traffic_flags & trace::kCpuMemoryFromPcm);
  EXPECT_TRUE(intel.capabilities.traffic_flags & trace::kCpuSystemWideMemory);
  EXPECT_EQ(intel.backend->name(), "perf+pcm-csv");
}

TEST(OpenBackend, AutoFallsBackToPcmSensorServerOnIntel) {
  StubServer server({SensorBody(1e9, 1e9)});
  testing::FakePerf fake;
  fake.error_for = [](const perf_event_attr&, int cpu) { return cpu >= 0 ? EACCES : 0; };
  BackendDeps deps;
  deps.perf = fake.Syscalls();
  SamplerConfig config;
  config.mode = BackendMode::kAuto;
  config.pcm_url = "http://127.0.0.1:" + std::to_string(server.port()) + "/";
  config.paths = testing::FakeHost("spr");
  std::string error;
  config.cpu_override = ParseCpuIdOverride("GenuineIntel:6:0x8F", &error);
  OpenedBackend o = OpenBackend(config, deps);
  EXPECT_TRUE(o.capabilities.traffic.available) << o.capabilities.traffic.reason;
  EXPECT_NE(o.capabilities.traffic.source.find("pcm-sensor-server"), std::string::npos);
  EXPECT_TRUE(o.capabilities.work.available);
}

}  // namespace
}  // namespace flopspy::cpuroof
