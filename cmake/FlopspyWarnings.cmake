# Compiler warnings for every flopspy target; CI builds with FLOPSPY_WERROR=ON.
add_library(flopspy_warnings INTERFACE)
target_compile_options(flopspy_warnings INTERFACE
  -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Wimplicit-fallthrough -Wcast-qual -Wformat=2
  $<$<BOOL:${FLOPSPY_WERROR}>:-Werror>)

# Sanitizers apply to tools and tests; libflopspy.so stays uninstrumented because a preloaded
# ASan runtime would have to come first in LD_PRELOAD of every program under test.
add_library(flopspy_sanitizers INTERFACE)
if(FLOPSPY_SANITIZE)
  target_compile_options(flopspy_sanitizers INTERFACE -fsanitize=${FLOPSPY_SANITIZE} -fno-omit-frame-pointer)
  target_link_options(flopspy_sanitizers INTERFACE -fsanitize=${FLOPSPY_SANITIZE})
endif()
