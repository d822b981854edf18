// flopspy_html_demo_trace FILE: writes the tests' demo trace, to look at its HTML report:
//   flopspy_html_demo_trace demo.fspy && flopspy-report demo.fspy --html demo.html
#include <iostream>

#include "demo_trace.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: flopspy_html_demo_trace FILE\n";
    return 2;
  }
  flopspy::testing::WriteFile(argv[1], flopspy::testing::DemoTrace());
  return 0;
}
