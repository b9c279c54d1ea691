// KernelRegistry: entries and names live in blocks; an entry found once
// stays where it is however many kernels are added after it.
#include "bef/host/kernel_registry.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <thread>
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


int first_runs = 0;
int second_runs = 0;
void RegisterFirstDialect(KernelRegistry* registry) {
  ++first_runs;
  registry->AddKernel("first.one", &First);
  registry->AddKernel("shared.one", &First);
}
void RegisterSecondDialect(KernelRegistry* registry) {
  ++second_runs;
  registry->AddKernel("second.one", &Second);
  registry->AddKernel("shared.one", &Second);  // registered later: wins
}
constexpr std::string_view kFirstDialects[] = {"first", "shared"};
constexpr std::string_view kSecondDialects[] = {"second", "shared"};

TEST(KernelRegistryTest, DeferredRegistrationsRunOnFirstUseOfTheirDialect) {
  first_runs = second_runs = 0;
  KernelRegistry registry;
  registry.AddDeferredRegistration(&RegisterFirstDialect, kFirstDialects);
  registry.AddDeferredRegistration(&RegisterSecondDialect, kSecondDialects);
  EXPECT_EQ(first_runs + second_runs, 0);
  ASSERT_NE(registry.Find("first.one"), nullptr);
  EXPECT_EQ(first_runs, 1);
  EXPECT_EQ(second_runs, 0);
  // A dialect both declare: both run, in the order they were deferred, the
  // first not again.
  const KernelEntry* shared = registry.Find("shared.one");
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(shared->async_implementation, &Second);
  EXPECT_EQ(first_runs, 1);
  EXPECT_EQ(second_runs, 1);
  EXPECT_EQ(registry.Find("first.two"), nullptr);
  EXPECT_EQ(registry.size(), 3u);
}

// A library registering a kernel of a dialect it did not declare.
int undeclared_runs = 0;
void RegisterUndeclaredDialect(KernelRegistry* registry) {
  ++undeclared_runs;
  registry->AddKernel("second.two", &Second);
  registry->AddKernel("third.one", &Second);  // "third" is not declared
}
constexpr std::string_view kOnlySecondDialect[] = {"second"};

TEST(KernelRegistryTest, AMissRunsEveryPendingRegistration) {
  first_runs = undeclared_runs = 0;
  KernelRegistry registry;
  registry.AddDeferredRegistration(&RegisterFirstDialect, kFirstDialects);
  registry.AddDeferredRegistration(&RegisterUndeclaredDialect, kOnlySecondDialect);
  // No library declares "third": the miss runs them all, and finds it.
  const KernelEntry* third = registry.Find("third.one");
  ASSERT_NE(third, nullptr);
  EXPECT_EQ(third->async_implementation, &Second);
  EXPECT_EQ(first_runs, 1);
  EXPECT_EQ(undeclared_runs, 1);
  // Nothing pending any more: a plain miss.
  EXPECT_EQ(registry.Find("other.one"), nullptr);
  EXPECT_EQ(registry.num_deferred_pending(), 0u);
  EXPECT_EQ(registry.size(), 4u);
}

TEST(KernelRegistryTest, AddingAKernelRunsItsDialectFirst) {
  first_runs = second_runs = 0;
  KernelRegistry registry;
  registry.AddDeferredRegistration(&RegisterFirstDialect, kFirstDialects);
  registry.AddDeferredRegistration(&RegisterSecondDialect, kSecondDialects);
  // Added after the deferred ones: replaces theirs, as if they had run.
  registry.AddKernel("first.one", &Second);
  EXPECT_EQ(first_runs, 1);
  EXPECT_EQ(second_runs, 0);
  EXPECT_EQ(registry.Find("first.one")->async_implementation, &Second);
  // Listing names runs every deferred registration.
  std::vector<std::string> names = registry.Names();
  EXPECT_EQ(second_runs, 1);
  EXPECT_EQ(names, (std::vector<std::string>{"first.one", "second.one", "shared.one"}));
}

TEST(KernelRegistryTest, ConcurrentLookupsRunEachDeferredRegistrationOnce) {
  first_runs = second_runs = 0;
  KernelRegistry registry;
  registry.AddDeferredRegistration(&RegisterFirstDialect, kFirstDialects);
  registry.AddDeferredRegistration(&RegisterSecondDialect, kSecondDialects);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&registry, t] {
      for (int i = 0; i < 100; ++i) {
        const KernelEntry* entry = registry.Find((t + i) % 2 == 0 ? "first.one" : "second.one");
        EXPECT_NE(entry, nullptr);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(first_runs, 1);
  EXPECT_EQ(second_runs, 1);
}

}  // namespace
}  // namespace bef
