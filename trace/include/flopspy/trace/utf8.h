// Text from a trace is bytes a program chose (kernel and thread names, warnings, the host name);
// every output of the report (JSON above all, whose writer refuses invalid UTF-8) needs text.
#pragma once

#include <string>
#include <string_view>

namespace flopspy::trace {

// `bytes` with each ill-formed UTF-8 sequence (RFC 3629: stray continuation bytes, cut or
// overlong sequences, surrogates, code points above U+10FFFF) replaced by U+FFFD, one per
// maximal ill-formed subpart as Unicode recommends. Valid text comes back unchanged.
std::string ValidUtf8(std::string_view bytes);

}  // namespace flopspy::trace
