// A dependency of local_ext (NEEDED), hence in its local scope only.
extern "C" __attribute__((visibility("default"))) int fakecuda_local_dep_value() {
  return 4711;
}
