// The test client's bookkeeping: every call it makes is printed on stdout (what the program sees:
// statuses, returned values) and, when FLOPSPY_CUBLAS_EXPECT names a file, described there
// (appended: several modules of one process write in turn) as one line of the LibraryCallRecord
// fields flopspy should write for it:
//
//   name=cublasSgemm_v2<TAB>status=0<TAB>m=10<TAB>...
//
// Fields not on the line keep their defaults (docs/cublas-hooks.md §2: types 0xFF, dimensions 0,
// batch 1, epilogue 1, ...) after the entry point's fixed types are applied; the test
// (cublas_hooks_test.cpp) builds the whole expected record that way and compares every field.
// The values passed are distinctive per call (they grow with the call index), so a field taken
// from the wrong argument shows.
#pragma once

#include <cublas.h>
#include <cublasLt.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>

namespace flopspy::cublas_client {

// One expected record, built field by field.
class Expect {
 public:
  explicit Expect(const char* name) : line_(std::string("name=") + name) {}
  Expect& Set(const char* key, long long value) {
    line_ += '\t';
    line_ += key;
    line_ += '=';
    line_ += std::to_string(value);
    return *this;
  }
  const std::string& line() const { return line_; }

 private:
  std::string line_;
};

// Where expectations and the program's visible results go.
class Sink {
 public:
  Sink();
  ~Sink();
  void Write(const Expect& e);
  // The program's own output: what a user of the library would see.
  void Print(const char* name, const std::string& what);
  int calls() const { return calls_; }

 private:
  FILE* expect_ = nullptr;
  int calls_ = 0;
};

// A fake device pointer whose alignment is 2^shift (shift 1..9): bit 40 is set so it is never
// null, and the alignment comes from the lowest set bit.
inline const void* FakePointer(int shift) {
  return reinterpret_cast<const void*>((uintptr_t{1} << 40) | (uintptr_t{1} << shift));
}

// Host scalars of each type, zero or not.
template <class T>
const T* HostScalar(bool non_zero) {
  static const T zero = [] {
    T v;
    std::memset(static_cast<void*>(&v), 0, sizeof v);
    return v;
  }();
  static const T one = [] {
    T v;
    std::memset(static_cast<void*>(&v), 0, sizeof v);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      v = static_cast<T>(1.5);
    } else if constexpr (std::is_same_v<T, cuComplex>) {
      v = make_cuComplex(0.f, 1.5f);  // a zero real part: both parts must be looked at
    } else if constexpr (std::is_same_v<T, cuDoubleComplex>) {
      v = make_cuDoubleComplex(0., 1.5);
    } else {
      const uint16_t bits = 0x3E00;  // 1.5 in FP16 (and a non-zero BF16)
      std::memcpy(static_cast<void*>(&v), &bits, sizeof bits);
    }
    return v;
  }();
  return non_zero ? &one : &zero;
}

// A host scalar of a cudaDataType (alpha/beta of the Ex forms), in a buffer big enough for any.
struct TypedScalar {
  alignas(16) unsigned char bytes[16] = {};
  TypedScalar(int type, bool non_zero) {
    if (!non_zero) return;
    switch (type) {
      case CUDA_R_32F:
        Put(1.5f);
        break;
      case CUDA_R_64F:
        Put(1.5);
        break;
      case CUDA_C_32F:
        Put(make_cuComplex(0.f, 1.5f));
        break;
      case CUDA_C_64F:
        Put(make_cuDoubleComplex(0., 1.5));
        break;
      case CUDA_R_32I:
        Put(int32_t{3});
        break;
      default:
        Put(uint16_t{0x3E00});
        break;  // 16-bit floats
    }
  }
  template <class T>
  void Put(T v) {
    std::memcpy(bytes, &v, sizeof v);
  }
};

}  // namespace flopspy::cublas_client
