/* flopspy.h: optional source markers for flopspy.
 *
 * Programs may mark regions of interest; flopspy records each begin and end with the time and,
 * when CPU counters are available, a CPU roofline point per region. Without libflopspy.so loaded
 * every call does nothing (one cached symbol lookup, then a NULL check), so the markers can stay
 * in production code.
 *
 *   #include <flopspy/flopspy.h>
 *   flopspy_region_begin("optimizer step");
 *   ...
 *   flopspy_region_end("optimizer step");
 *
 * Regions of one name nest per thread. From Python or any language with a C FFI, call the
 * exported functions of the same names, e.g. ctypes.CDLL(None).flopspy_region_begin(b"step").
 * Link with -ldl on glibc older than 2.34.
 */
#ifndef FLOPSPY_FLOPSPY_H_
#define FLOPSPY_FLOPSPY_H_

#include <dlfcn.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*flopspy_region_fn)(const char*);

/* Looked up once per call site family; a benign race stores the same pointer twice. */
static inline flopspy_region_fn flopspy_lookup_(const char* symbol, flopspy_region_fn* cache,
                                                int* looked_up) {
  if (!*looked_up) {
    *cache = (flopspy_region_fn)dlsym(RTLD_DEFAULT, symbol);
    *looked_up = 1;
  }
  return *cache;
}

static inline void flopspy_region_begin(const char* name) {
  static flopspy_region_fn fn;
  static int looked_up;
  flopspy_region_fn f = flopspy_lookup_("flopspy_region_begin", &fn, &looked_up);
  if (f) f(name);
}

static inline void flopspy_region_end(const char* name) {
  static flopspy_region_fn fn;
  static int looked_up;
  flopspy_region_fn f = flopspy_lookup_("flopspy_region_end", &fn, &looked_up);
  if (f) f(name);
}

#ifdef __cplusplus
} /* extern "C" */

/* RAII form for C++: { flopspy_region r("forward"); ... } */
class flopspy_region {
 public:
  explicit flopspy_region(const char* name) : name_(name) { flopspy_region_begin(name_); }
  ~flopspy_region() { flopspy_region_end(name_); }
  flopspy_region(const flopspy_region&) = delete;
  flopspy_region& operator=(const flopspy_region&) = delete;

 private:
  const char* name_;
};
#endif

#endif /* FLOPSPY_FLOPSPY_H_ */
