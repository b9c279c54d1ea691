// KernelRegistry: entries and names live in blocks; an entry found once
// stays where it is however many kernels are added after it.
#include "bef/host/kernel_registry.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace bef {
namespace {

void First(AsyncKernelFrame*) {}
void Second(AsyncKernelFrame*) {}
void Sync(SyncKernelFrame*) {}

TEST(KernelRegistryTest, EntriesStayPutAcrossBlocks) {
  KernelRegistry registry;
  registry.AddKernel("test.first", &First);
  const KernelEntry* first = registry.Find("test.first");
  ASSERT_NE(first, nullptr);
  // Many names, some longer than a name block, across many entry blocks.
  std::vector<std::string> names;
  for (int i = 0; i < 3000; ++i) {
    names.push_back("test.kernel." + std::to_string(i) + std::string(i % 7 == 0 ? 5000 : i % 40, 'x'));
    std::string_view temporary = names.back();  // the registry copies it
    registry.AddKernel(temporary, &Second);
  }
  EXPECT_EQ(registry.size(), 3001u);
  EXPECT_EQ(registry.Find("test.first"), first);
  EXPECT_EQ(first->async_implementation, &First);
  for (const std::string& name : names) {
    const KernelEntry* entry = registry.Find(name);
    ASSERT_NE(entry, nullptr) << name.substr(0, 40);
    EXPECT_EQ(entry->async_implementation, &Second);
  }
  EXPECT_EQ(registry.Find("test.kernel.1"), nullptr);  // a prefix only
  std::vector<std::string> sorted = registry.Names();
  EXPECT_EQ(sorted.size(), 3001u);
  EXPECT_TRUE(std::is_sorted(sorted.begin(), sorted.end()));
}

TEST(KernelRegistryTest, AsyncAndSyncShareOneEntry) {
  KernelRegistry registry;
  registry.AddKernel("test.both", &First);
  const KernelEntry* entry = registry.Find("test.both");
  registry.AddSyncKernel("test.both", &Sync);
  registry.AddKernel("test.both", &Second);  // replaces the async one
  EXPECT_EQ(registry.Find("test.both"), entry);
  EXPECT_EQ(entry->async_implementation, &Second);
  EXPECT_EQ(entry->sync_implementation, &Sync);
  EXPECT_EQ(registry.size(), 1u);
}

}  // namespace
}  // namespace bef
