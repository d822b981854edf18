// flopspy_html_demo_trace [--cpu | --no-gpu] FILE: writes the tests' demo trace (with --cpu,
// the one with regions and CPU samples too; with --no-gpu, as recorded without GPU timing), to
// look at its reports:
//   flopspy_html_demo_trace demo.fspy && flopspy-report demo.fspy --html demo.html
#include <iostream>
#include <string>

#include "demo_trace.h"

int main(int argc, char** argv) {
  const std::string option = argc == 3 ? argv[1] : "";
  if (argc < 2 || argc > 3 || (argc == 3 && option != "--cpu" && option != "--no-gpu")) {
    std::cerr << "usage: flopspy_html_demo_trace [--cpu | --no-gpu] FILE\n";
    return 2;
  }
  flopspy::testing::WriteFile(
      argv[argc - 1], option == "--cpu"      ? flopspy::testing::DemoTraceWithCpu()
                      : option == "--no-gpu" ? flopspy::testing::DemoTraceWithoutGpuRecords()
                                             : flopspy::testing::DemoTrace());
  return 0;
}
