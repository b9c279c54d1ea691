// Every kernel library bef_executor links defers its registration to the
// first use of its dialects (BEF_STATIC_KERNEL_REGISTRATION_FOR_DIALECTS):
// each kernel must then be found by a lookup in a registry where nothing
// else has run, through its dialect's libraries alone (a kernel of an
// undeclared dialect is found only by running every library: the start-up
// cost deferral avoids).
#include <string>
#include <vector>

#include "bef/host/kernel_registry.h"
#include "gtest/gtest.h"

namespace bef {
namespace {

TEST(StaticRegistrationTest, EveryKernelIsFoundByItsFirstLookup) {
  KernelRegistry everything;
  RegisterStaticKernels(&everything);
  std::vector<std::string> names = everything.Names();  // runs them all
  ASSERT_GT(names.size(), 400u);
  for (const std::string& name : names) {
    KernelRegistry fresh;
    RegisterStaticKernels(&fresh);
    EXPECT_NE(fresh.Find(name), nullptr) << name;
    EXPECT_GT(fresh.num_deferred_pending(), 0u)
        << name << " is found only by running every kernel library: its library does not "
        << "declare its dialect";
  }
}

TEST(StaticRegistrationTest, OnlyTheDialectsUsedAreRegistered) {
  KernelRegistry registry;
  RegisterStaticKernels(&registry);
  const size_t deferred = registry.num_deferred_pending();
  EXPECT_GE(deferred, 10u);  // every kernel library bef_executor links
  ASSERT_NE(registry.Find("tfrt.add.i32"), nullptr);
  // The tfrt libraries (basic and control flow) ran, no other.
  EXPECT_EQ(registry.num_deferred_pending(), deferred - 2);
  EXPECT_NE(registry.Find("tfrt.constant.i32"), nullptr);
  EXPECT_EQ(registry.num_deferred_pending(), deferred - 2);
  // A miss (the loader's error path) runs every library: one may have
  // registered the kernel without declaring its dialect.
  EXPECT_EQ(registry.Find("tfrt_unknown.kernel"), nullptr);
  EXPECT_EQ(registry.num_deferred_pending(), 0u);
}

}  // namespace
}  // namespace bef
