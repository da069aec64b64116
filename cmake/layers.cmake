# The layers of npu-advisor, each a static library that links only the layers below it
# (docs/architecture.md). A layer's sources are every .cpp in its folder, so a new file needs no
# edit here; cmake/check_layers.cmake (run by every build) refuses an #include that points up.
#
#   base ─► model ─┬─► loaders ─────────────────────────────────┐
#                  └─► facts ─┬─► rules ─► compare ─► reports ─┼─► pipeline ─► mcp ─► cli
#                             └─► views ───────────────────────┘
#   views (what the HTML report draws, docs/views.md) stand beside the rules: they read the facts,
#   and nothing but the pipeline (and above) reads them, so no rule can depend on drawing data.
#   collector (the capture of a new run) stands at the edge: only base below it, only cli above.
#   mcp (the MCP server: protocol, tools over the pipeline) is used by cli alone.
set(NPU_LAYER_TARGETS "" CACHE INTERNAL "")

# npu_layer(NAME [DEPS layer...] [LIBS target...] [SOURCES generated.cpp...] [EXCLUDE regex])
function(npu_layer name)
  cmake_parse_arguments(L "" "EXCLUDE" "DEPS;LIBS;SOURCES" ${ARGN})
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${name}/*.cpp)
  if(L_EXCLUDE)
    list(FILTER srcs EXCLUDE REGEX "${L_EXCLUDE}")
  endif()
  list(SORT srcs)
  set(deps "")
  foreach(d IN LISTS L_DEPS)
    list(APPEND deps npu_${d})
  endforeach()
  add_library(npu_${name} STATIC ${srcs} ${L_SOURCES})
  # Out of the unity batches (CMakeLists.txt): generated sources, and each format's format.cpp
  # (every one defines its own sniff and load).
  set(alone ${srcs})
  list(FILTER alone INCLUDE REGEX "/format\\.cpp$")
  set_source_files_properties(${alone} ${L_SOURCES} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  target_include_directories(npu_${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(npu_${name} PUBLIC ${deps} ${L_LIBS})
  set(NPU_LAYER_TARGETS ${NPU_LAYER_TARGETS} npu_${name} CACHE INTERNAL "")
endfunction()
