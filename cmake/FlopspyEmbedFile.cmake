# cmake -DINPUT=<file> -DOUTPUT=<file.cpp> -DSYMBOL=<C++ name> -DNAMESPACE=<ns> -P FlopspyEmbedFile.cmake
# Writes a C++ source defining `const unsigned char SYMBOL[]` (64-byte aligned) and
# `const size_t SYMBOL_size` with the bytes of INPUT, so that a binary carries the file.
file(READ ${INPUT} _hex HEX)
string(LENGTH "${_hex}" _length)
math(EXPR _size "${_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," _bytes "${_hex}")
file(WRITE ${OUTPUT}.tmp
"// Generated from ${INPUT} by cmake/FlopspyEmbedFile.cmake; do not edit.
#include <cstddef>

namespace ${NAMESPACE} {

alignas(64) extern const unsigned char ${SYMBOL}[] = {
${_bytes}
};
extern const size_t ${SYMBOL}_size = ${_size};

}  // namespace ${NAMESPACE}
")
file(RENAME ${OUTPUT}.tmp ${OUTPUT})
