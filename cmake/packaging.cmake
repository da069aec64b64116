# The installed layout and the Debian package (`cpack -G DEB` in the build folder; scripts/deb-check.sh
# builds, installs, uses and removes it). The binary needs no file beside it: the rules, report
# templates, Chart.js, facts schema, capture bootstrap and MCP documents are compiled in.
#   /usr/bin/npu-advisor
#   /usr/share/man/man1/npu-advisor.1.gz                      from --help (cmake/cli_docs.cmake)
#   /usr/share/bash-completion/completions/npu-advisor        from --help too
#   /usr/share/doc/npu-advisor/README.md, docs/
include(GNUInstallDirs)

set(NPU_CLI_DOCS ${CMAKE_CURRENT_BINARY_DIR}/npu-advisor.1.gz ${CMAKE_CURRENT_BINARY_DIR}/npu-advisor.bash-completion)
add_custom_command(
  OUTPUT ${NPU_CLI_DOCS}
  COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:npu-advisor> -DVERSION=${PROJECT_VERSION}
          -DMAN=${CMAKE_CURRENT_BINARY_DIR}/npu-advisor.1
          -DCOMPLETION=${CMAKE_CURRENT_BINARY_DIR}/npu-advisor.bash-completion
          -P ${PROJECT_SOURCE_DIR}/cmake/cli_docs.cmake
  COMMAND gzip -9nkf ${CMAKE_CURRENT_BINARY_DIR}/npu-advisor.1
  DEPENDS npu-advisor ${PROJECT_SOURCE_DIR}/cmake/cli_docs.cmake
  COMMENT "Writing the man page and the bash completion from --help" VERBATIM)
add_custom_target(cli_docs ALL DEPENDS ${NPU_CLI_DOCS})

install(TARGETS npu-advisor RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/npu-advisor.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/npu-advisor.bash-completion
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME npu-advisor)
set(NPU_DOC_DIR ${CMAKE_INSTALL_DATADIR}/doc/npu-advisor)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${NPU_DOC_DIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${NPU_DOC_DIR}/docs)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME npu-advisor)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "npu-advisor maintainers <maintainers@npu-advisor.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "rule-based performance advisor for AI training and inference profiles")
set(CPACK_PACKAGE_DESCRIPTION
    "npu-advisor reads the profiler output of AI training and inference jobs (Huawei Ascend torch_npu, "
    "MindSpore and msprof exports, PyTorch Kineto traces of CUDA, ROCm or CPU runs), computes where each "
    "step's time goes and ranks findings by their estimated saving, with evidence and commands. It compares "
    "runs, gates CI jobs on regressions, replays steps with fixes applied, captures new runs, and serves "
    "its tools over the Model Context Protocol (npu-advisor mcp).")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # Depends from the libraries the binary links (dpkg-shlibdeps)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3")  # `capture` / `analyze OUT -- CMD` profile Python programs
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)        # npu-advisor_VERSION_ARCH.deb
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_SOURCE_GENERATOR "")
include(CPack)
