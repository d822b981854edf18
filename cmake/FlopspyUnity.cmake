# Unity builds for the targets with many sources: their files are compiled eight to a
# translation unit, so the heavy headers they share (nlohmann/json, fmt, GoogleTest) are parsed and
# their templates instantiated once per eight files instead of once per file (eight report files:
# 78 s as one unit, 191 s apart, on two cores). Two files of such a target share a unit, so:
# helpers in anonymous namespaces must not repeat a name (docs/CONTRIBUTING.md).
# -DFLOPSPY_UNITY_BUILD=OFF compiles every file on its own: quicker to rebuild while working on
# a few files, and it catches a file that forgets an include its batch happened to supply.
option(FLOPSPY_UNITY_BUILD "Compile the larger targets eight files to a translation unit" ON)

function(flopspy_unity_build)
  if(NOT FLOPSPY_UNITY_BUILD)
    return()
  endif()
  foreach(_target ${ARGN})
    set_target_properties(${_target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  endforeach()
endfunction()
