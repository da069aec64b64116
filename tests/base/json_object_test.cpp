// base/json_object.h writes the same object the initializer-list form does, whatever the order
// its members come in, and a key written twice keeps its first value (std::map::emplace).
#include "base/json_object.h"

#include <gtest/gtest.h>

namespace {

using nlohmann::json;

TEST(JsonObject, SameObjectAsTheInitializerListInAnyOrder) {
  npu::JsonObject o;
  o.add("zeta", 1).add("alpha", "a").add("comm_not_overlapped_ns", 3).add("comm_not_overlapped_excl_receive_ns", 4);
  o.add("nested", json{{"x", 1}}).add("none", nullptr).add("ratio", 0.25);
  const json expected = {{"alpha", "a"},
                         {"comm_not_overlapped_excl_receive_ns", 4},
                         {"comm_not_overlapped_ns", 3},
                         {"nested", {{"x", 1}}},
                         {"none", nullptr},
                         {"ratio", 0.25},
                         {"zeta", 1}};
  const json got = o.take();
  EXPECT_EQ(got, expected);
  EXPECT_EQ(got.dump(), expected.dump());
}

TEST(JsonObject, AKeyWrittenTwiceKeepsItsFirstValueAndNoIdIsNull) {
  npu::JsonObject o;
  o.add("k", 1).add("k", 2).add_or_null("id", int64_t{-1}, int64_t{-1}).add_or_null("step", int64_t{7}, int64_t{-1});
  EXPECT_EQ(o.take(), (json{{"id", nullptr}, {"k", 1}, {"step", 7}}));
}

TEST(JsonObject, NoMembersIsAnEmptyObject) { EXPECT_EQ(npu::JsonObject().take().dump(), "{}"); }

}  // namespace
