// Runs the launches of driver_at_load.cpp: one from its constructor, two from main through the
// pointer it kept. Prints the same with and without flopspy.
#include <cstdio>

#include "app_util.h"

extern "C" int driver_at_load_result();
extern "C" int driver_at_load_launch_again(int n);

int main() {
  launchtest::Print("constructor cuLaunchKernel", driver_at_load_result());
  launchtest::Print("main cuLaunchKernel 5151", driver_at_load_launch_again(5151));
  launchtest::Print("main cuLaunchKernel 5252", driver_at_load_launch_again(5252));
  launchtest::PrintFakeReports();
  return 0;
}
