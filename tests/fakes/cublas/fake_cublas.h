// Control functions of the fake libcublas.so.N and libcublasLt.so.N. The fakes check only that a
// handle, descriptor or layout is one this copy made (another copy's gets
// CUBLAS_STATUS_NOT_INITIALIZED, or INVALID_VALUE for descriptors and layouts): every entry point
// counts its call and returns the status the test chose (legacy functions return a fixed value
// and leave the status for cublasGetError()). Each loaded copy has its own counters.
#pragma once

#include <cstdint>

extern "C" {
// Status every later call returns (default: FLOPSPY_FAKE_CUBLAS_STATUS, else 0 = success).
void flopspy_fake_cublas_set_status(int status);
// Calls of one entry point so far (nullptr: all entry points).
uint64_t flopspy_fake_cublas_calls(const char* name);
// The soname of this copy ("libcublas.so.12", "libcublas-0c0ffee1.so.13", ...).
const char* flopspy_fake_cublas_soname();

void flopspy_fake_cublaslt_set_status(int status);
uint64_t flopspy_fake_cublaslt_calls(const char* name);
const char* flopspy_fake_cublaslt_soname();
// cublasLtMatmulDescGetAttribute / cublasLtMatrixLayoutGetAttribute fail with
// CUBLAS_STATUS_INVALID_VALUE for this attribute id (-1: none), as an old cuBLASLt would.
void flopspy_fake_cublaslt_fail_desc_attribute(int attribute);
void flopspy_fake_cublaslt_fail_layout_attribute(int attribute);
}
