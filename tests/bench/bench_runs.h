// What the benchmarks that run themselves once per variant share: their own path, and the
// repetitions of a Google Benchmark JSON report.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace flopspy::testing {

// This program's path (/proc/self/exe), "" if unknown.
std::string SelfPath();

double Median(std::vector<double> v);

// CPU time in ns of every repetition in a Google Benchmark JSON report, by benchmark name without
// its "/iterations:N" suffix ("BM_Walk/1/iterations:20000" -> "BM_Walk/1"). CPU time of the
// running thread: what a call costs it, whatever else the machine runs.
bool ReadRepetitions(const std::string& path, std::map<std::string, std::vector<double>>& out);

}  // namespace flopspy::testing
