// What kind of command `capture -- CMD` runs: a Python program (then the profiler is injected
// through a bootstrap sitecustomize) or anything else (then only msprof can profile it).
// Pure logic over argv, PATH and file contents, so it is unit-tested without running anything.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace npu::collector {

struct ClassifiedCommand {
  std::vector<std::string> argv;  // what to run: the command, or `python3 SCRIPT.py ...` for a
                                  // .py file that is not executable
  bool is_python = false;
  std::string interpreter;  // the Python that runs it (asked which profilers it can import)
  std::string why;          // how it was recognised, for the stderr line
};

// python, python3, python3.11, python3.11-dbg (a base name, not a path).
bool is_python_name(std::string_view basename);

// The first executable `name` on `path_env` (':'-separated); `name` itself when it contains a
// '/'; "" when not found.
std::string find_on_path(const std::string& name, const std::string& path_env);

// The interpreter of a `#!` line ("#!/usr/bin/env python3 -u" -> "python3",
// "#!/usr/bin/python3" -> "/usr/bin/python3"); "" when the file has no shebang.
std::string shebang_interpreter(const std::string& first_line);

// Recognises Python commands: a python interpreter as argv[0]; a *.py file; or a program whose
// shebang names python (torchrun, accelerate, deepspeed and other console scripts).
ClassifiedCommand classify_command(const std::vector<std::string>& argv, const std::string& path_env);

// One shell word per argument, quoted where needed (msprof's --application takes a string).
std::string shell_join(const std::vector<std::string>& argv);

// The words of a shell command line (`verify --after 'CMD'`): blanks separate, '...' and "..."
// quote, a backslash escapes the next character; no expansion. Throws std::invalid_argument for an
// unclosed quote.
std::vector<std::string> split_shell_words(const std::string& line);

}  // namespace npu::collector
