# dnnperf_library(NAME SOURCES... [LINK targets...]): a static library of the project, warnings on,
# the repository root as its include root (headers are included as "core/graph/graph.h").
function(dnnperf_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LINK" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${DNNPERF_WARNINGS}>)
  target_link_libraries(${name} PUBLIC ${ARG_LINK})
endfunction()
