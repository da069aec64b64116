// base/text.h clip() and base/json_file.h json_scalar_text(): text from an input longer than a
// name may be is kept cut, with its length, on a UTF-8 character boundary.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/json_file.h"
#include "base/text.h"

TEST(TextClip, ShortTextIsKept) {
  EXPECT_EQ(npu::text::clip("rank", 16), "rank");
  EXPECT_EQ(npu::text::clip("", 0), "");
}

TEST(TextClip, LongTextIsCutWithItsLengthWithinTheLimit) {
  const std::string s(100, 'a');
  const std::string c = npu::text::clip(s, 40);
  EXPECT_EQ(c, std::string(26, 'a') + "...(100 bytes)");
  EXPECT_LE(c.size(), 40u);
}

TEST(TextClip, TheCutNeverSplitsAUtf8Character) {
  std::string s;
  for (int i = 0; i < 30; ++i) s += "\xC3\xA9";  // é, 2 bytes each
  const std::string c = npu::text::clip(s, 20);  // 20 - len("...(60 bytes)") = 7: keep 6 bytes
  EXPECT_EQ(c, "\xC3\xA9\xC3\xA9\xC3\xA9...(60 bytes)");
}

TEST(TextClip, MetadataValuesAreCutAtTheNameLimit) {
  const std::string huge(npu::text::kMaxNameBytes * 4, 'x');
  EXPECT_LE(npu::json_scalar_text(nlohmann::json(huge)).size(), npu::text::kMaxNameBytes);
  EXPECT_LE(npu::json_scalar_text(nlohmann::json::array({huge})).size(), npu::text::kMaxNameBytes);
  EXPECT_EQ(npu::json_scalar_text(nlohmann::json(7)), "7");
}
