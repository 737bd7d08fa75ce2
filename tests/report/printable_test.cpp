// report/printable: a file name's control characters in a message or a line of progress.
#include "report/printable.hpp"

#include <gtest/gtest.h>

#include <string>

namespace rmgsort {
namespace {

TEST(WithoutControlsTest, ControlCharactersBecomeQuestionMarks) {
  EXPECT_EQ(without_controls("keys.bin: is a directory"), "keys.bin: is a directory");
  EXPECT_EQ(without_controls("a\nb\rc\td"), "a?b?c?d");
  EXPECT_EQ(without_controls("\x1b[7mX\x1b[0m"), "?[7mX?[0m");
  EXPECT_EQ(without_controls(std::string("\x00\x1f\x7f", 3)), "???");
  // Every other byte stays: UTF-8 names print as they are.
  EXPECT_EQ(without_controls("schl\xc3\xbcssel \xe2\x80\x94 ~!"), "schl\xc3\xbcssel \xe2\x80\x94 ~!");
  EXPECT_EQ(without_controls(""), "");
}

}  // namespace
}  // namespace rmgsort
