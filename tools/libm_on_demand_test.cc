// The libm functions bef_executor defines (libm_on_demand.cc) are the ones
// its code calls, and they give libm's results.
#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "gtest/gtest.h"

namespace {

template <typename T, typename Bits>
Bits BitsOf(T value) {
  static_assert(sizeof(T) == sizeof(Bits));
  Bits bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

TEST(LibmOnDemandTest, CallsReachTheForwardersNotLibm) {
  void* libm = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(libm, nullptr);
  // What this executable calls is its own definition, not libm's.
  EXPECT_NE(reinterpret_cast<void*>(static_cast<double (*)(double)>(&::log2)),
            dlsym(libm, "log2"));
  EXPECT_NE(reinterpret_cast<void*>(&::nan), dlsym(libm, "nan"));
  dlclose(libm);
}

TEST(LibmOnDemandTest, GivesLibmsResults) {
  volatile double ten = 10.0, tenth = 0.1, half_up = 2.5, eight = 8.0;
  EXPECT_EQ((BitsOf<double, uint64_t>(std::log2(ten))), 0x400a934f0979a371u);
  EXPECT_EQ((BitsOf<double, uint64_t>(std::log2(tenth))), 0xc00a934f0979a371u);
  EXPECT_EQ(std::log2(eight), 3.0);
  EXPECT_EQ(std::llround(half_up), 3);
  EXPECT_EQ(std::llround(-half_up), -3);
  EXPECT_EQ((BitsOf<double, uint64_t>(std::nan("0x5"))), 0x7ff8000000000005u);
  EXPECT_EQ((BitsOf<float, uint32_t>(std::nanf("7"))), 0x7fc00007u);
  EXPECT_TRUE(std::isnan(std::nan("")));
}

}  // namespace
