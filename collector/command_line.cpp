#include "collector/command_line.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace npu::collector {
namespace fs = std::filesystem;

bool is_python_name(std::string_view n) {
  if (n.substr(0, 6) != "python") return false;
  n.remove_prefix(6);
  size_t i = 0;
  while (i < n.size() && (std::isdigit(static_cast<unsigned char>(n[i])) || n[i] == '.')) ++i;
  n.remove_prefix(i);
  return n.empty() || n == "-dbg" || n == "d" || n == "m" || n == "u";
}

std::string find_on_path(const std::string& name, const std::string& path_env) {
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) return name;
  std::stringstream ss(path_env);
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    fs::path p = fs::path(dir.empty() ? "." : dir) / name;
    std::error_code ec;
    if (fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0) return p.string();
  }
  return "";
}

std::string shebang_interpreter(const std::string& line) {
  if (line.rfind("#!", 0) != 0) return "";
  std::istringstream words(line.substr(2));
  std::string w;
  if (!(words >> w)) return "";
  if (fs::path(w).filename() != "env") return w;
  // /usr/bin/env [-S] [VAR=value...] python3 ...
  while (words >> w) {
    if (w == "-S" || w.find('=') != std::string::npos) continue;
    if (w.rfind("-", 0) == 0) continue;
    return w;
  }
  return "";
}

namespace {

std::string first_line(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::string line;
  if (!in) return "";
  char buf[256];
  in.read(buf, sizeof buf);
  line.assign(buf, static_cast<size_t>(in.gcount()));
  return line.substr(0, line.find('\n'));
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string resolve_interpreter(const std::string& interp, const std::string& path_env) {
  std::string found = find_on_path(interp, path_env);
  return found.empty() ? interp : found;
}

}  // namespace

ClassifiedCommand classify_command(const std::vector<std::string>& argv, const std::string& path_env) {
  ClassifiedCommand c;
  c.argv = argv;
  if (argv.empty()) return c;
  const std::string& arg0 = argv[0];
  std::string base = fs::path(arg0).filename().string();
  if (is_python_name(base)) {
    c.is_python = true;
    c.interpreter = resolve_interpreter(arg0, path_env);
    c.why = base + " is a Python interpreter";
    return c;
  }
  std::string exe = find_on_path(arg0, path_env);
  if (ends_with(base, ".py")) {
    std::error_code ec;
    bool runnable = !exe.empty() && access(exe.c_str(), X_OK) == 0;
    std::string interp = runnable ? shebang_interpreter(first_line(exe)) : "";
    c.is_python = true;
    if (interp.empty()) {
      // Not executable (or no shebang): run it the way `python3 SCRIPT` would.
      c.interpreter = resolve_interpreter("python3", path_env);
      c.argv.insert(c.argv.begin(), c.interpreter);
      c.why = base + " is a Python script (run with " + c.interpreter + ")";
    } else {
      c.interpreter = resolve_interpreter(interp, path_env);
      c.why = base + " is a Python script (#! " + interp + ")";
    }
    return c;
  }
  if (!exe.empty()) {
    std::string interp = shebang_interpreter(first_line(exe));
    if (!interp.empty() && is_python_name(fs::path(interp).filename().string())) {
      c.is_python = true;
      c.interpreter = resolve_interpreter(interp, path_env);
      c.why = base + " is a Python program (#! " + interp + ")";
      return c;
    }
  }
  c.why = base + " is not a Python command";
  return c;
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !a.empty() && a.find_first_not_of(
                                   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                   "_-./=:,+@%") == std::string::npos;
    if (plain) {
      out += a;
      continue;
    }
    out += '\'';
    for (char ch : a) {
      if (ch == '\'') out += "'\\''";
      else out += ch;
    }
    out += '\'';
  }
  return out;
}

}  // namespace npu::collector

namespace npu::collector {

std::vector<std::string> split_shell_words(const std::string& line) {
  std::vector<std::string> out;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) out.push_back(word), word.clear(), in_word = false;
    } else if (c == '\\' && i + 1 < line.size()) {
      word += line[++i], in_word = true;
    } else if (c == '\'' || c == '"') {
      const size_t end = line.find(c, i + 1);
      if (end == std::string::npos) throw std::invalid_argument("unclosed " + std::string(1, c) + " in: " + line);
      word += line.substr(i + 1, end - i - 1), in_word = true;
      i = end;
    } else {
      word += c, in_word = true;
    }
  }
  if (in_word) out.push_back(word);
  return out;
}

}  // namespace npu::collector
