// base/text.h md_code(): text from a rule or a run as one Markdown code span, whatever backticks it
// holds (issue 47: a rule id with a backtick closed its span and put live HTML in the report).
#include <string>

#include <gtest/gtest.h>

#include "base/text.h"

using npu::text::md_code;

TEST(TextMarkdown, PlainTextIsOneBacktickSpan) {
  EXPECT_EQ(md_code("compute.top_operators"), "`compute.top_operators`");
  EXPECT_EQ(md_code(""), "``");
}

TEST(TextMarkdown, TheFenceIsLongerThanAnyBacktickRunInside) {
  EXPECT_EQ(md_code("a`<b>x</b>"), "``a`<b>x</b>``");
  EXPECT_EQ(md_code("a``b`c"), "```a``b`c```");
}

TEST(TextMarkdown, ABacktickAtAnEdgeIsPaddedAndLineBreaksAreSpaces) {
  EXPECT_EQ(md_code("`<img src=x>`"), "`` `<img src=x>` ``");
  EXPECT_EQ(md_code("a\nb\rc"), "`a b c`");
}
