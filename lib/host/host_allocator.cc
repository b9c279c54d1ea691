#include "bef/host/host_allocator.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include <mutex>
#include "bef/support/logging.h"
#include "bef/support/string_view.h"

namespace bef {
namespace {

class MallocAllocator : public HostAllocator {
 public:
  void* AllocateBytes(size_t size, size_t alignment) override {
    if (alignment <= alignof(std::max_align_t)) return std::malloc(size ? size : 1);
    return std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
  }
  void DeallocateBytes(void* pointer, size_t) override { std::free(pointer); }
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

std::unique_ptr<HostAllocator> CreateMallocAllocator() {
  return std::make_unique<MallocAllocator>();
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
  if (type == "malloc") return CreateMallocAllocator();
  if (type == "profiled_allocator") {
    return CreateProfiledAllocator(CreateMallocAllocator());
  }
  if (type == "leak_check_allocator") {
    return CreateLeakCheckAllocator(CreateMallocAllocator());
  }
  if (type == "test_fixed_size_1k") {
    return CreateFixedSizeAllocator(CreateMallocAllocator(), 1024);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown host allocator type '", ToAbsl(type), "'"));
}

}  // namespace bef
