#include "passes/Lowering.h"
#include <gtest/gtest.h>
using namespace mapc;
TEST(Lowering, Placeholder) { SUCCEED(); }
