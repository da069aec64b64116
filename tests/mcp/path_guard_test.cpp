// What the MCP server's tools may read (mcp/path_guard.h): inside the allowed folders only, after
// realpath, with every symbolic link below a folder checked too.
#include "mcp/path_guard.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "test_support.h"

namespace {

namespace fs = std::filesystem;
using npu::mcp::PathGuard;
using npu::mcp::PathRefused;

std::string refusal(const PathGuard& g, const std::string& path) {
  try {
    g.resolve(path);
  } catch (const PathRefused& e) {
    return e.what();
  }
  return "";
}

TEST(PathGuard, AllowedFoldersMustExist) {
  npu::test::TempDir d;
  EXPECT_THROW(PathGuard({(d.path() / "missing").string()}), std::invalid_argument);
  const std::string file = d.write("f.txt", "x");
  EXPECT_THROW(PathGuard({file}), std::invalid_argument);
}

TEST(PathGuard, InsideOnlyAfterRealpath) {
  npu::test::TempDir d;
  const std::string allowed = d.write("allowed/run/trace.json", "[]");
  d.write("secret/data.json", "[]");
  d.write("allowed2/x", "");
  PathGuard g({(d.path() / "allowed").string()});
  const std::string root = fs::canonical(d.path() / "allowed").string();
  EXPECT_EQ(g.resolve(allowed).real, root + "/run/trace.json");
  EXPECT_EQ(g.resolve((d.path() / "allowed").string()).real, root);
  EXPECT_EQ(g.resolve((d.path() / "allowed/run/../run").string()).real, root + "/run");

  // Outside, by "..", by a name that only starts like the folder, by a missing path.
  EXPECT_NE(refusal(g, (d.path() / "allowed/../secret/data.json").string()).find("outside"), std::string::npos);
  EXPECT_NE(refusal(g, (d.path() / "allowed2/x").string()).find("outside"), std::string::npos);
  EXPECT_NE(refusal(g, "/etc/passwd").find("outside"), std::string::npos);
  EXPECT_NE(refusal(g, "/no/such/file").find("outside"), std::string::npos);  // not "no such file"
  EXPECT_NE(refusal(g, (d.path() / "allowed/missing").string()).find("No such file"), std::string::npos);
  EXPECT_NE(refusal(g, "").find("no path"), std::string::npos);
}

TEST(PathGuard, SymbolicLinksOut) {
  npu::test::TempDir d;
  d.write("allowed/run/ASCEND_PROFILER_OUTPUT/kernel_details.csv", "a\n");
  d.write("secret/trace_view.json", "[]");
  d.write("other/inner/x.json", "[]");
  const fs::path allowed = d.path() / "allowed";
  // A link given as the path, leading out.
  fs::create_symlink(d.path() / "secret", allowed / "out");
  PathGuard g({allowed.string(), (d.path() / "other").string()});
  EXPECT_NE(refusal(g, (allowed / "out").string()).find("outside"), std::string::npos);
  EXPECT_NE(refusal(g, (allowed / "out/trace_view.json").string()).find("outside"), std::string::npos);
  // A link below the folder given, leading out: the whole folder is refused.
  EXPECT_NE(refusal(g, allowed.string()).find("symbolic link"), std::string::npos);
  fs::remove(allowed / "out");
  EXPECT_EQ(refusal(g, allowed.string()), "");

  fs::create_symlink(d.path() / "secret/trace_view.json", allowed / "run/ASCEND_PROFILER_OUTPUT/trace_view.json");
  EXPECT_NE(refusal(g, (allowed / "run").string()).find("trace_view.json"), std::string::npos);
  fs::remove(allowed / "run/ASCEND_PROFILER_OUTPUT/trace_view.json");

  // A link to another allowed folder is followed, and what is below it checked too.
  fs::create_symlink(d.path() / "other/inner", allowed / "run/inner");
  EXPECT_EQ(refusal(g, (allowed / "run").string()), "");
  fs::create_symlink(d.path() / "secret", d.path() / "other/inner/deeper");
  EXPECT_NE(refusal(g, (allowed / "run").string()).find("deeper"), std::string::npos);
  fs::remove(d.path() / "other/inner/deeper");

  // A loop of links ends; a broken link inside is no way out.
  fs::create_symlink(allowed / "run", allowed / "run/loop");
  fs::create_symlink(allowed / "nothing", allowed / "run/broken");
  EXPECT_EQ(refusal(g, (allowed / "run").string()), "");
  // A broken link out is refused as a link to an outside file is: the answer does not tell
  // whether anything is there.
  fs::create_symlink(d.path() / "nothing", allowed / "run/broken_out");
  EXPECT_NE(refusal(g, (allowed / "run").string()).find("leading outside"), std::string::npos);
  fs::create_symlink(d.path() / "secret/trace_view.json", allowed / "there_out");
  const auto after = [&](const fs::path& p) { return refusal(g, p.string()).substr(p.string().size()); };
  EXPECT_EQ(after(allowed / "run/broken_out"), after(allowed / "there_out"));
  EXPECT_EQ(after(allowed / "run/broken_out/x.json"), after(allowed / "there_out"));
}

TEST(PathGuard, FingerprintFollowsTheFiles) {
  npu::test::TempDir d;
  d.write("allowed/run/a.csv", "1\n");
  PathGuard g({(d.path() / "allowed").string()});
  const std::string before = g.resolve((d.path() / "allowed/run").string()).fingerprint;
  EXPECT_EQ(g.resolve((d.path() / "allowed/run").string()).fingerprint, before);
  d.write("allowed/run/a.csv", "12\n");
  EXPECT_NE(g.resolve((d.path() / "allowed/run").string()).fingerprint, before);
}

TEST(PathGuard, TooManyEntriesIsRefused) {
  npu::test::TempDir d;
  for (int i = 0; i < 5; ++i) d.write("allowed/f" + std::to_string(i), "");
  PathGuard g({(d.path() / "allowed").string()});
  g.max_entries = 3;
  EXPECT_NE(refusal(g, (d.path() / "allowed").string()).find("more than 3"), std::string::npos);
}

}  // namespace
