// Runs the client linked at startup (libcublas.so.N in the global scope).
extern "C" int flopspy_cublas_client_main();

int main() {
  return flopspy_cublas_client_main();
}
