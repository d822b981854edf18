// flopspy's dlsym. Programs and libraries that find CUDA driver functions themselves
// (libcudart: dlopen("libcuda.so.1") then dlsym(h, "cuGetProcAddress_v2"); Triton:
// dlsym(h, "cuLaunchKernelEx")) get flopspy's wrappers for the functions it records.
//
// RTLD_NEXT and RTLD_DEFAULT lookups must resolve relative to the library that asked, which
// glibc finds from the return address of the dlsym call (RTLD_NEXT: the objects after the caller;
// RTLD_DEFAULT: the caller's own scope, which for a library opened with RTLD_LOCAL includes its
// dependencies). The exported dlsym is therefore a few instructions of assembly: for these two it
// jumps (not calls) into the real dlsym, which then sees the caller's own return address; every
// other lookup goes through flopspy_dlsym_override below. RTLD_DEFAULT needs no wrapping: the
// global scope already finds flopspy's own exports of the driver functions it wraps.
//
// Before the real dlsym is known (a lookup from another library's constructor that runs before
// flopspy's), the stub finds it first, keeping the arguments and the return address, and then
// jumps: the lookup still resolves relative to the caller, whatever the compiler makes of C++.
#include <dlfcn.h>

#include <cstring>

#include "driver_hooks.h"
#include "real_symbols.h"

extern "C" {
__attribute__((visibility("hidden"))) extern void* flopspy_next_dlsym;
__attribute__((visibility("hidden"))) void* flopspy_dlsym_override(void* handle, const char* name);
__attribute__((visibility("hidden"))) void* flopspy_resolve_next_dlsym();
}

static_assert(RTLD_DEFAULT == nullptr, "the dlsym stub tests RTLD_DEFAULT against 0");

#if defined(__x86_64__)
asm(R"(
    .text
    .globl dlsym
    .type dlsym, @function
    .p2align 4
dlsym:
    testq %rdi, %rdi
    je 1f
    cmpq $-1, %rdi
    jne flopspy_dlsym_override
1:
    movq flopspy_next_dlsym(%rip), %rax
    testq %rax, %rax
    je 2f
    jmp *%rax
2:
    pushq %rdi
    pushq %rsi
    subq $8, %rsp
    call flopspy_resolve_next_dlsym
    addq $8, %rsp
    popq %rsi
    popq %rdi
    testq %rax, %rax
    je 3f
    jmp *%rax
3:
    ret
    .size dlsym, .-dlsym
)");
#elif defined(__aarch64__)
asm(R"(
    .text
    .globl dlsym
    .type dlsym, %function
    .p2align 4
dlsym:
    cbz x0, 1f
    cmn x0, #1
    b.ne flopspy_dlsym_override
1:
    adrp x16, flopspy_next_dlsym
    ldr x16, [x16, :lo12:flopspy_next_dlsym]
    cbz x16, 2f
    br x16
2:
    stp x29, x30, [sp, #-32]!
    mov x29, sp
    stp x0, x1, [sp, #16]
    bl flopspy_resolve_next_dlsym
    mov x16, x0
    ldp x0, x1, [sp, #16]
    ldp x29, x30, [sp], #32
    cbz x16, 3f
    br x16
3:
    mov x0, #0
    ret
    .size dlsym, .-dlsym
)");
#else
#error "flopspy's dlsym stub is written for x86-64 and AArch64"
#endif

using flopspy::interpose::RealDlsym;

// The real dlsym for the stub (which then jumps to it); nullptr leaves the lookup failing.
void* flopspy_resolve_next_dlsym() {
  return reinterpret_cast<void*>(flopspy::interpose::RealDlsymFunction());
}

void* flopspy_dlsym_override(void* handle, const char* name) {
  void* result = RealDlsym(handle, name);
  if (result == nullptr || name == nullptr || name[0] != 'c' || name[1] != 'u') return result;
  return flopspy::interpose::WrapDriverSymbol(name, result);
}
