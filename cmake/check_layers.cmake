# Fails when a source file includes a header of a layer it may not use (cmake/layers.cmake).
# Run by every build (target check_layers) and by ctest (architecture.layers):
#   cmake -DSOURCE_DIR=<repo> -P cmake/check_layers.cmake
# May include: the layer itself and the layers listed here. Test, bench and fuzz code may use all.
# Two arrows the layer order alone would allow are refused: reports render the report document
# (the run summary is built from the model in pipeline/), and the CLI detects and loads through
# pipeline/, never a loader.
cmake_minimum_required(VERSION 3.25)
set(allowed_base      base)
set(allowed_model     base model)
set(allowed_loaders   base model loaders)
set(allowed_facts     base model facts)
set(allowed_rules     base model facts rules)
set(allowed_views     base model facts views)
set(allowed_compare   base model facts rules compare)
set(allowed_reports   base facts rules compare reports)
set(allowed_pipeline  base model loaders facts rules compare reports views pipeline)
set(allowed_mcp       base model loaders facts rules compare reports views pipeline mcp)
set(allowed_collector base collector)
set(allowed_cli       base model facts rules compare reports views pipeline mcp collector cli)
set(layers base model loaders facts rules compare reports views pipeline mcp collector cli)

set(violations "")
foreach(layer IN LISTS layers)
  file(GLOB_RECURSE files "${SOURCE_DIR}/${layer}/*.h" "${SOURCE_DIR}/${layer}/*.cpp")
  foreach(f IN LISTS files)
    file(STRINGS "${f}" includes REGEX "^[ \t]*#[ \t]*include[ \t]+\"[a-z_]+/")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]+\"([a-z_]+)/.*" "\\1" target "${line}")
      if(NOT target IN_LIST layers)
        continue()  # not a layer folder (a generated file's folder, a third-party path)
      endif()
      if(NOT target IN_LIST allowed_${layer})
        file(RELATIVE_PATH rel "${SOURCE_DIR}" "${f}")
        string(STRIP "${line}" line)
        list(JOIN allowed_${layer} " " may)
        list(APPEND violations "${rel}: ${line} (${layer} may include only: ${may})")
      endif()
    endforeach()
  endforeach()
endforeach()

if(violations)
  list(LENGTH violations n)
  list(JOIN violations "\n  " text)
  message(FATAL_ERROR "${n} include(s) against the layering (cmake/check_layers.cmake, docs/architecture.md):\n  ${text}")
endif()
