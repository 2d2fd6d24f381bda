#include "ir/KTile.h"
#include <gtest/gtest.h>
using namespace mapc;
TEST(KTile, Placeholder) { EXPECT_EQ(grayDecode(grayEncode(5)), 5u); }
