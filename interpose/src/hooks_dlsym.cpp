// flopspy's dlsym. Programs and libraries that find CUDA driver functions themselves
// (libcudart: dlopen("libcuda.so.1") then dlsym(h, "cuGetProcAddress_v2"); Triton:
// dlsym(h, "cuLaunchKernelEx")) get flopspy's wrappers for the functions it records.
//
// RTLD_NEXT lookups must resolve relative to the library that asked, which glibc finds from the
// return address of the dlsym call. The exported dlsym is therefore a few instructions of
// assembly: for RTLD_NEXT it jumps (not calls) into the real dlsym, which then sees the caller's
// own return address; every other lookup goes through DlsymOverride below.
#include <dlfcn.h>

#include <cstring>

#include "driver_hooks.h"
#include "real_symbols.h"

extern "C" {
__attribute__((visibility("hidden"))) extern void* flopspy_next_dlsym;
__attribute__((visibility("hidden"))) void* flopspy_dlsym_override(void* handle, const char* name);
__attribute__((visibility("hidden"))) void* flopspy_dlsym_next_unresolved(void* handle,
                                                                          const char* name);
}

#if defined(__x86_64__)
asm(R"(
    .text
    .globl dlsym
    .type dlsym, @function
    .p2align 4
dlsym:
    cmpq $-1, %rdi
    jne flopspy_dlsym_override
    movq flopspy_next_dlsym(%rip), %rax
    testq %rax, %rax
    je flopspy_dlsym_next_unresolved
    jmp *%rax
    .size dlsym, .-dlsym
)");
#elif defined(__aarch64__)
asm(R"(
    .text
    .globl dlsym
    .type dlsym, %function
    .p2align 4
dlsym:
    cmn x0, #1
    b.ne flopspy_dlsym_override
    adrp x16, flopspy_next_dlsym
    ldr x16, [x16, :lo12:flopspy_next_dlsym]
    cbz x16, flopspy_dlsym_next_unresolved
    br x16
    .size dlsym, .-dlsym
)");
#else
#error "flopspy's dlsym stub is written for x86-64 and AArch64"
#endif

using flopspy::interpose::RealDlsym;

// Before the real dlsym is known (a lookup during another library's constructor) RTLD_NEXT is
// resolved once relative to flopspy itself, then the stub takes over.
void* flopspy_dlsym_next_unresolved(void* handle, const char* name) {
  return RealDlsym(handle, name);
}

void* flopspy_dlsym_override(void* handle, const char* name) {
  void* result = RealDlsym(handle, name);
  if (result == nullptr || name == nullptr || name[0] != 'c' || name[1] != 'u') return result;
  return flopspy::interpose::WrapDriverSymbol(name, result);
}
