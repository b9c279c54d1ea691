#include "bef/host/host_allocator.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <algorithm>
#include <mutex>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "bef/support/logging.h"
#include "bef/support/string_view.h"

namespace bef {
namespace {

class MallocAllocator : public HostAllocator {
 public:
  explicit MallocAllocator(size_t max_kept_bytes) : max_kept_bytes_(max_kept_bytes) {}
  ~MallocAllocator() override {
    for (auto& [size, blocks] : kept_) {
      for (void* block : blocks) std::free(block);
    }
  }

  void* AllocateBytes(size_t size, size_t alignment) override {
    if (size >= kLargeBlock) return AllocateLarge(size, alignment);
    if (alignment <= alignof(std::max_align_t)) return std::malloc(size ? size : 1);
    return std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
  }
  void DeallocateBytes(void* pointer, size_t size) override {
    if (size >= kLargeBlock && pointer != nullptr) {
      const size_t rounded = RoundToPages(size);
      std::lock_guard<std::mutex> lock(mutex_);
      if (kept_bytes_ + rounded <= max_kept_bytes_) {
        kept_[rounded].push_back(pointer);
        kept_bytes_ += rounded;
        return;
      }
    }
    std::free(pointer);
  }

 private:
  static size_t RoundToPages(size_t size) { return (size + kPage - 1) / kPage * kPage; }

  // Page-aligned, a whole number of pages: a kept block serves any later
  // request of its page count with alignment up to a page.
  void* AllocateLarge(size_t size, size_t alignment) {
    const size_t rounded = RoundToPages(size);
    if (alignment <= kPage) {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = kept_.find(rounded);
      if (it != kept_.end() && !it->second.empty()) {
        void* block = it->second.back();
        it->second.pop_back();
        kept_bytes_ -= rounded;
        return block;
      }
    }
    const size_t block_alignment = std::max(alignment, kPage);
    return std::aligned_alloc(block_alignment,
                              (rounded + block_alignment - 1) / block_alignment * block_alignment);
  }

  static constexpr size_t kPage = 4096;
  const size_t max_kept_bytes_;
  std::mutex mutex_;
  absl::flat_hash_map<size_t, std::vector<void*>> kept_;  // page count -> blocks
  size_t kept_bytes_ = 0;
};

class ProfiledAllocator : public HostAllocator {
 public:
  explicit ProfiledAllocator(std::unique_ptr<HostAllocator> allocator)
      : allocator_(std::move(allocator)) {}
  ~ProfiledAllocator() override {
    if (print_profile_) PrintProfile();
  }

  void* AllocateBytes(size_t size, size_t alignment) override {
    void* pointer = allocator_->AllocateBytes(size, alignment);
    if (pointer == nullptr) return nullptr;
    int64_t allocations = current_allocations_.fetch_add(1) + 1;
    UpdateMax(max_allocations_, allocations);
    total_allocations_.fetch_add(1);
    int64_t bytes = current_bytes_.fetch_add(size) + size;
    UpdateMax(max_bytes_, bytes);
    return pointer;
  }
  void DeallocateBytes(void* pointer, size_t size) override {
    current_allocations_.fetch_sub(1);
    current_bytes_.fetch_sub(size);
    allocator_->DeallocateBytes(pointer, size);
  }

 protected:
  void PrintProfile() const {
    std::printf(
        "HostAllocator profile:\n"
        "Current number of allocations = %lld\n"
        "Max number of allocations = %lld\n"
        "Total number of allocations = %lld\n"
        "Current number of bytes allocated = %lld\n"
        "Max number of bytes allocated = %lld\n",
        static_cast<long long>(current_allocations_.load()),
        static_cast<long long>(max_allocations_.load()),
        static_cast<long long>(total_allocations_.load()),
        static_cast<long long>(current_bytes_.load()),
        static_cast<long long>(max_bytes_.load()));
  }
  static void UpdateMax(std::atomic<int64_t>& max, int64_t value) {
    int64_t current = max.load();
    while (value > current && !max.compare_exchange_weak(current, value)) {
    }
  }

  bool print_profile_ = true;
  std::unique_ptr<HostAllocator> allocator_;
  std::atomic<int64_t> current_allocations_{0};
  std::atomic<int64_t> max_allocations_{0};
  std::atomic<int64_t> total_allocations_{0};
  std::atomic<int64_t> current_bytes_{0};
  std::atomic<int64_t> max_bytes_{0};
};

class LeakCheckAllocator : public ProfiledAllocator {
 public:
  explicit LeakCheckAllocator(std::unique_ptr<HostAllocator> allocator)
      : ProfiledAllocator(std::move(allocator)) {
    print_profile_ = false;
  }
  ~LeakCheckAllocator() override {
    if (current_bytes_.load() == 0) return;
    PrintProfile();
    std::printf("Memory leak detected: %lld alive allocations, %lld alive bytes\n",
                static_cast<long long>(current_allocations_.load()),
                static_cast<long long>(current_bytes_.load()));
    std::fflush(stdout);
    std::exit(1);
  }
};

class FixedSizeAllocator : public HostAllocator {
 public:
  FixedSizeAllocator(std::unique_ptr<HostAllocator> allocator, size_t capacity)
      : allocator_(std::move(allocator)), capacity_(capacity) {}

  void* AllocateBytes(size_t size, size_t alignment) override {
    if (size <= kUnaccountedSize) return allocator_->AllocateBytes(size, alignment);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (size > capacity_) {
        LogLine(LogSeverity::kError, "test_fixed_size_allocator.cc", 71,
                absl::StrCat("Attempted to allocate ", size,
                             " bytes. However current capacity is only ",
                             capacity_, "."));
        return nullptr;
      }
      capacity_ -= size;
      LogLine(LogSeverity::kInfo, "test_fixed_size_allocator.cc", 67,
              absl::StrCat("Allocating ", size, " bytes. ", capacity_,
                           " remaining."));
    }
    return allocator_->AllocateBytes(size, alignment);
  }
  void DeallocateBytes(void* pointer, size_t size) override {
    if (size > kUnaccountedSize) {
      std::lock_guard<std::mutex> lock(mutex_);
      capacity_ += size;
      LogLine(LogSeverity::kInfo, "test_fixed_size_allocator.cc", 44,
              absl::StrCat("Freeing ", size, " bytes. ", capacity_,
                           " available."));
    }
    allocator_->DeallocateBytes(pointer, size);
  }

 private:
  static constexpr size_t kUnaccountedSize = 32;
  std::unique_ptr<HostAllocator> allocator_;
  std::mutex mutex_;
  size_t capacity_;
};

}  // namespace

std::unique_ptr<HostAllocator> CreateMallocAllocator(size_t max_kept_bytes) {
  return std::make_unique<MallocAllocator>(max_kept_bytes);
}

std::unique_ptr<HostAllocator> CreateProfiledAllocator(
    std::unique_ptr<HostAllocator> allocator) {
  return std::make_unique<ProfiledAllocator>(std::move(allocator));
}

std::unique_ptr<HostAllocator> CreateLeakCheckAllocator(
    std::unique_ptr<HostAllocator> allocator) {
  return std::make_unique<LeakCheckAllocator>(std::move(allocator));
}

std::unique_ptr<HostAllocator> CreateFixedSizeAllocator(
    std::unique_ptr<HostAllocator> allocator, size_t capacity) {
  return std::make_unique<FixedSizeAllocator>(std::move(allocator), capacity);
}

absl::StatusOr<std::unique_ptr<HostAllocator>> CreateHostAllocator(
    std::string_view type) {
  if (type == "malloc") return CreateMallocAllocator(kMaxKeptBytes);
  if (type == "profiled_allocator") {
    return CreateProfiledAllocator(CreateMallocAllocator(kMaxKeptBytes));
  }
  if (type == "leak_check_allocator") {
    return CreateLeakCheckAllocator(CreateMallocAllocator(kMaxKeptBytes));
  }
  if (type == "test_fixed_size_1k") {
    return CreateFixedSizeAllocator(CreateMallocAllocator(kMaxKeptBytes), 1024);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown host allocator type '", ToAbsl(type), "'"));
}

}  // namespace bef
