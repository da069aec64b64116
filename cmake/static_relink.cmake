# The native release binary without a second build (scripts/static-build.sh, docs/release.md): with
# -DNPU_ADVISOR_STATIC_PREFIX=DIR (scripts/static-deps.sh's prefix: libsimdjson.a, libfmt.a), the target
# npu-advisor-static links the objects this build already compiled for npu-advisor with `-static -s`
# and the .a of every library. The same code: the compile commands do not change (simdjson.h and fmt's
# headers in DIR are byte for byte the installed ones, which static-deps.sh and this file check), only
# the link does. The layers are linked as archive files, not as targets, so that the shared libraries
# their targets name never reach this link.
set(_prefix "${NPU_ADVISOR_STATIC_PREFIX}")
foreach(_header simdjson.h fmt/core.h fmt/format.h)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${_prefix}/include/${_header}" "/usr/include/${_header}"
                  RESULT_VARIABLE _differs)
  if(_differs)
    message(FATAL_ERROR "NPU_ADVISOR_STATIC_PREFIX: ${_prefix}/include/${_header} is not /usr/include/${_header} "
                        "(scripts/static-deps.sh builds the installed versions)")
  endif()
endforeach()
set(_archives "")
foreach(_name simdjson fmt)
  find_library(NPU_STATIC_${_name} NAMES lib${_name}.a PATHS "${_prefix}/lib" NO_DEFAULT_PATH REQUIRED)
  list(APPEND _archives ${NPU_STATIC_${_name}})
endforeach()
foreach(_name yaml-cpp sqlite3 lua5.4 z)
  find_library(NPU_STATIC_${_name} NAMES lib${_name}.a REQUIRED)
  list(APPEND _archives ${NPU_STATIC_${_name}})
endforeach()
set(_layers "")
foreach(_layer mcp pipeline views reports compare rules loaders facts model collector base)
  list(APPEND _layers $<TARGET_FILE:npu_${_layer}>)
endforeach()
add_executable(npu-advisor-static $<TARGET_OBJECTS:npu_huge_pages> $<TARGET_OBJECTS:npu_cli>)
target_link_libraries(npu-advisor-static PRIVATE -Wl,--start-group ${_layers} -Wl,--end-group ${_archives}
                      -lm -ldl -lpthread)
target_link_options(npu-advisor-static PRIVATE -static -s)
add_dependencies(npu-advisor-static npu-advisor)  # every layer, built as npu-advisor's
message(STATUS "npu-advisor-static: this build's objects, linked with -static -s and ${_archives}")
