// flopspy_html_demo_trace [--cpu] FILE: writes the tests' demo trace (with --cpu, the one with
// regions and CPU samples too), to look at its HTML report:
//   flopspy_html_demo_trace demo.fspy && flopspy-report demo.fspy --html demo.html
#include <iostream>
#include <string>

#include "demo_trace.h"

int main(int argc, char** argv) {
  const bool cpu = argc == 3 && std::string(argv[1]) == "--cpu";
  if (argc != 2 && !cpu) {
    std::cerr << "usage: flopspy_html_demo_trace [--cpu] FILE\n";
    return 2;
  }
  flopspy::testing::WriteFile(
      argv[argc - 1], cpu ? flopspy::testing::DemoTraceWithCpu() : flopspy::testing::DemoTrace());
  return 0;
}
