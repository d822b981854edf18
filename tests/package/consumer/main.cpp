// A program that marks a region with the installed marker header: it must build with nothing
// but flopspy::markers and run with or without libflopspy.so loaded.
#include <flopspy/flopspy.h>

#include <cstdio>

int main() {
  double sum = 0;
  {
    flopspy_region region("consumer-step");
    for (int i = 1; i <= 1000; ++i) sum += 1.0 / i;
  }
  flopspy_region_begin("consumer-c-api");
  flopspy_region_end("consumer-c-api");
  std::printf("consumer ok %.3f\n", sum);
  return 0;
}
