// PythonLineOf against CPython itself: line tables and co_lines() dumped by
// tests/data/python_lines/make_fixtures.py from 3.10 to 3.13 (committed), and fresh from the
// interpreter on this machine. Every code unit's line must match.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "flopspy/analyzers/call_sites.h"

namespace flopspy::analyzers {
namespace {

namespace fs = std::filesystem;

const fs::path kFixtures = fs::path(FLOPSPY_TEST_DATA_DIR) / "python_lines";

std::string FromHex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

// Decodes every code object of one fixture; returns the offsets compared.
size_t ExpectFixtureLines(const nlohmann::json& fixture, const std::string& what) {
  size_t compared = 0;
  const auto version = fixture.at("version").get<uint16_t>();
  const std::string format = fixture.at("format").get<std::string>();
  for (const auto& c : fixture.at("codes")) {
    PyCode code;
    code.filename = c.at("file").get<std::string>();
    code.name = c.at("name").get<std::string>();
    code.first_line = c.at("first_line").get<int32_t>();
    code.python_version = version;
    code.format =
        format == "py310" ? trace::PyLinetableFormat::kPy310 : trace::PyLinetableFormat::kPy311;
    code.linetable = FromHex(c.at("linetable").get<std::string>());
    size_t wrong = 0;
    for (const auto& pair : c.at("lines")) {
      const auto offset = pair.at(0).get<uint32_t>();
      const int expected = pair.at(1).get<int>();
      const int got = PythonLineOf(code, offset);
      if (got != expected && ++wrong <= 3) {
        ADD_FAILURE() << what << " " << code.name << " offset " << offset << ": line " << got
                      << ", co_lines() says " << expected;
      }
      ++compared;
    }
  }
  return compared;
}

TEST(PythonLines, EveryCommittedFixtureDecodesToTheInterpretersLines) {
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(kFixtures)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    const nlohmann::json fixture = nlohmann::json::parse(in);
    const size_t compared = ExpectFixtureLines(fixture, entry.path().filename().string());
    EXPECT_GT(compared, 1000u) << entry.path();
    ++files;
  }
  // 3.10 (pairs), 3.11 twice (Debian's and pyenv's), 3.12, 3.13 (location tables).
  EXPECT_GE(files, 5u);
}

TEST(PythonLines, FixturesCoverLongJumpsLateFunctionsAndLinesWithoutLocation) {
  std::ifstream in(kFixtures / "cpython-3.12.1.json");
  ASSERT_TRUE(in) << "fixture missing";
  const nlohmann::json fixture = nlohmann::json::parse(in);
  bool late = false, no_line = false, big_line = false;
  for (const auto& c : fixture.at("codes")) {
    late = late || c.at("first_line").get<int>() > 1000;
    for (const auto& pair : c.at("lines")) {
      no_line = no_line || pair.at(1).get<int>() == 0;
      big_line = big_line || pair.at(1).get<int>() > c.at("first_line").get<int>() + 300;
    }
  }
  EXPECT_TRUE(late);
  EXPECT_TRUE(no_line);
  EXPECT_TRUE(big_line);
}

// The interpreter on this machine, now: whatever version Debian ships decodes as well.
TEST(PythonLines, TheLocalInterpreterAgreesLive) {
  const fs::path python = "/usr/bin/python3";
  if (!fs::exists(python)) GTEST_SKIP() << "no /usr/bin/python3";
  const fs::path out =
      fs::temp_directory_path() / ("flopspy_python_lines_" + std::to_string(::getpid()) + ".json");
  const std::string command =
      python.string() + " " + (kFixtures / "make_fixtures.py").string() + " > " + out.string();
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(out);
  const nlohmann::json fixture = nlohmann::json::parse(in);
  fs::remove(out);
  EXPECT_GT(ExpectFixtureLines(fixture, "live " + fixture.at("python").get<std::string>()), 1000u);
}

TEST(PythonLines, Python310PairsWithNoLineMarkers) {
  PyCode code;
  code.first_line = 10;
  code.format = trace::PyLinetableFormat::kPy310;
  // bytes 0-3 line 11, bytes 4-5 no line, bytes 6-9 line 13 (the -128 does not move the line).
  code.linetable = std::string{4, 1, 2, static_cast<char>(-128), 4, 2};
  EXPECT_EQ(PythonLineOf(code, 0), 11);
  EXPECT_EQ(PythonLineOf(code, 3), 11);
  EXPECT_EQ(PythonLineOf(code, 4), 0);
  EXPECT_EQ(PythonLineOf(code, 6), 13);
  EXPECT_EQ(PythonLineOf(code, 10), 0);  // past the table
}

TEST(PythonLines, Python311FormsByHand) {
  PyCode code;
  code.first_line = 100;
  code.format = trace::PyLinetableFormat::kPy311;
  code.linetable = std::string{
      static_cast<char>(0x80 | (0 << 3) | 1),  0x05,               // short form, 2 units, line 100
      static_cast<char>(0x80 | (12 << 3) | 0), 0x01,        0x02,  // one-line form, +2: 102
      static_cast<char>(0x80 | (13 << 3) | 0), 0x40 | 0x10, 0x01,  // no columns, +(80 >> 1): 142
      static_cast<char>(0x80 | (15 << 3) | 0),                     // no location
      static_cast<char>(0x80 | (14 << 3) | 2), 0x03,        0x00, 0x04, 0x05,  // long form, -1: 141
  };
  EXPECT_EQ(PythonLineOf(code, 0), 100);
  EXPECT_EQ(PythonLineOf(code, 2), 100);
  EXPECT_EQ(PythonLineOf(code, 4), 102);
  EXPECT_EQ(PythonLineOf(code, 6), 142);
  EXPECT_EQ(PythonLineOf(code, 8), 0);
  EXPECT_EQ(PythonLineOf(code, 10), 141);
  EXPECT_EQ(PythonLineOf(code, 14), 141);
  EXPECT_EQ(PythonLineOf(code, 16), 0);
}

TEST(PythonLines, DamagedTablesGiveNoLineAndNeverReadPastTheEnd) {
  PyCode code;
  code.first_line = 1;
  code.format = trace::PyLinetableFormat::kPy311;
  code.linetable = std::string{static_cast<char>(0x80 | (14 << 3))};  // long form, cut
  EXPECT_EQ(PythonLineOf(code, 0), 0);
  code.linetable = std::string{static_cast<char>(0x80 | (13 << 3))} +
                   std::string(20, static_cast<char>(0x40));  // a varint that never ends
  EXPECT_EQ(PythonLineOf(code, 0), 0);
  code.linetable = std::string{0x01, 0x02};  // not an entry's first byte
  EXPECT_EQ(PythonLineOf(code, 0), 0);
  // A line delta far beyond any file: refused, not overflowed.
  code.linetable = std::string{static_cast<char>(0x80 | (13 << 3))};
  code.linetable += std::string(10, static_cast<char>(0x7F));
  code.linetable += '\x3F';
  EXPECT_EQ(PythonLineOf(code, 0), 0);
  code.format = trace::PyLinetableFormat::kPy310;
  code.linetable = std::string{4};  // half a pair
  EXPECT_EQ(PythonLineOf(code, 0), 0);
  code.format = trace::PyLinetableFormat::kUnknown;
  code.python_version = 0x0309;
  code.linetable = std::string{4, 1};
  EXPECT_EQ(PythonLineOf(code, 0), 0);
  code.python_version = 0x030A;  // an older writer without the format: the version decides
  EXPECT_EQ(PythonLineOf(code, 0), 2);
}

}  // namespace
}  // namespace flopspy::analyzers
