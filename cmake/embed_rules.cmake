# Writes OUTPUT: a C++ file holding every rules/lua/**/*.lua as a raw string, so the
# built-in rules ship inside the binary. Run by CMake at build time (see CMakeLists.txt).
file(GLOB_RECURSE files RELATIVE "${RULES_DIR}" "${RULES_DIR}/*.lua")
list(SORT files)
set(out "// Generated from rules/lua by cmake/embed_rules.cmake. Do not edit.\n")
string(APPEND out "#include \"rules/builtin_rules.h\"\n\nnamespace npu {\n\n")
string(APPEND out "const std::vector<BuiltinRule>& builtin_rules() {\n  static const std::vector<BuiltinRule> rules = {\n")
foreach(f IN LISTS files)
  file(READ "${RULES_DIR}/${f}" content)
  string(APPEND out "      {\"${f}\", R\"npu_rule(${content})npu_rule\"},\n")
endforeach()
string(APPEND out "  };\n  return rules;\n}\n\n}  // namespace npu\n")
file(WRITE "${OUTPUT}.tmp" "${out}")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
