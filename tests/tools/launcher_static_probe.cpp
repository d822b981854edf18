// A statically linked program for launcher_untraceable_test.cpp: no ELF interpreter, so no
// LD_PRELOAD. Prints one line and exits with the status given as its first argument.
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  std::puts("static probe ran");
  return argc > 1 ? std::atoi(argv[1]) : 0;
}
