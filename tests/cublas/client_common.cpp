#include "client_common.h"

#include <cstdlib>

namespace flopspy::cublas_client {

Sink::Sink() {
  if (const char* path = std::getenv("FLOPSPY_CUBLAS_EXPECT")) expect_ = std::fopen(path, "a");
}

Sink::~Sink() {
  if (expect_ != nullptr) std::fclose(expect_);
}

void Sink::Write(const Expect& e) {
  ++calls_;
  if (expect_ != nullptr) std::fprintf(expect_, "%s\n", e.line().c_str());
}

void Sink::Print(const char* name, const std::string& what) {
  std::printf("%s %s\n", name, what.c_str());
}

}  // namespace flopspy::cublas_client
