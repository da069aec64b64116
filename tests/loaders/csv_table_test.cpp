#include "loaders/common/csv_table.h"

#include <gtest/gtest.h>

#include "base/decimal.h"
#include "base/load_error.h"
#include "test_support.h"

using npu::CsvTable;
using npu::test::TempDir;

TEST(CsvTable, RealExportQuirks) {
  TempDir d;
  // BOM, CRLF, quoted start time with a trailing tab, triple-quoted shapes, N/A cells.
  std::string p = d.write("k.csv",
                          "\xEF\xBB\xBFStep ID,Name,Start Time(us),Duration(us),Input Shapes,Block Num\r\n"
                          "19,MatMul,\"1736413971558972.912\t\",185.504,\"\"\"81920,4096;8192,512\"\"\",16\r\n"
                          "19,hcom,1736413971559000,10,N/A,N/A\r\n");
  CsvTable t(p);
  int step = t.col({"Step Id"});  // "Step ID" normalises to the same key
  int start = t.require({"Start Time(us)"});
  int shapes = t.col({"Input Shapes"});
  int block = t.col({"Block Dim", "Block Num"});
  ASSERT_EQ(step, 0);
  ASSERT_EQ(block, 5);
  std::vector<std::string> seen_shapes;
  std::vector<int64_t> starts;
  std::vector<uint32_t> lines;
  t.for_each_row([&](const CsvTable::Row& r) {
    starts.push_back(*r.us_to_ns(start));
    seen_shapes.emplace_back(npu::trim_cell(r[shapes]));
    lines.push_back(r.line());
    if (r.line() == 3) {
      EXPECT_FALSE(r.integer(block).has_value());
    }
  });
  ASSERT_EQ(starts.size(), 2u);
  EXPECT_EQ(starts[0], 1736413971558972912LL);
  EXPECT_EQ(seen_shapes[0], "81920,4096;8192,512");
  EXPECT_EQ(seen_shapes[1], "N/A");
  EXPECT_EQ(lines, (std::vector<uint32_t>{2, 3}));
}

TEST(CsvTable, BadCellNamesFileLineAndColumn) {
  TempDir d;
  std::string p = d.write("k.csv", "Name,Duration(us)\nA,1.0\nB,oops\n");
  CsvTable t(p);
  int dur = t.require({"Duration(us)"});
  try {
    t.for_each_row([&](const CsvTable::Row& r) { r.us_to_ns(dur); });
    FAIL() << "expected a LoadError";
  } catch (const npu::LoadError& e) {
    EXPECT_EQ(std::string(e.what()), p + ":3: column \"Duration(us)\": \"oops\" is not a number");
  }
}

TEST(CsvTable, ShortRowIsSkippedWithWarning) {
  TempDir d;
  std::string p = d.write("k.csv", "A,B,C\n1,2,3\n4,5\n6,7,8\n");
  CsvTable t(p);
  int rows = 0;
  t.for_each_row([&](const CsvTable::Row&) { ++rows; });
  EXPECT_EQ(rows, 2);
  ASSERT_EQ(t.warnings().size(), 1u);
  EXPECT_NE(t.warnings()[0].find(":3: 1 of 3 rows"), std::string::npos) << t.warnings()[0];
}

TEST(CsvTable, MostlyBrokenRowsAreAnError) {
  TempDir d;
  std::string p = d.write("k.csv", "A,B,C\n1\n2\n3,4,5\n");
  CsvTable t(p);
  EXPECT_THROW(t.for_each_row([](const CsvTable::Row&) {}), npu::LoadError);
}

TEST(CsvTable, MissingRequiredColumnListsHeader) {
  TempDir d;
  std::string p = d.write("k.csv", "Name,Duration(us)\nA,1\n");
  CsvTable t(p);
  try {
    t.require({"Start Time(us)"});
    FAIL();
  } catch (const npu::LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("missing column \"Start Time(us)\"; header has: Name, Duration(us)"),
              std::string::npos)
        << e.what();
  }
}

TEST(CsvTable, EmptyFileHasNoHeader) {
  TempDir d;
  CsvTable t(d.write("e.csv", ""));
  EXPECT_TRUE(t.header().empty());
}
