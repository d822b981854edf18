// A library with no function symbol at all once linked with -s and hidden visibility: what the
// symbolizer must call "no symbols" (tests/unit/symbols).
static int Triple(int x) {
  return x * 3;
}
int (*volatile flopspy_symbols_triple)(int) = Triple;
