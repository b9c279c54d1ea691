#include "kernels/cpu/prepared_filters.h"

#include <cstring>
#include <memory>
#include <mutex>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"

namespace bef::cpu_kernels {
namespace {

struct Key {
  const void* data;
  BefConv2DShape shape;

  friend bool operator==(const Key& a, const Key& b) {
    return a.data == b.data && std::memcmp(&a.shape, &b.shape, sizeof(a.shape)) == 0;
  }
  template <typename H>
  friend H AbslHashValue(H state, const Key& key) {
    return H::combine(H::combine_contiguous(std::move(state),
                                            reinterpret_cast<const int64_t*>(&key.shape),
                                            sizeof(key.shape) / sizeof(int64_t)),
                      key.data);
  }
};

struct Entry {
  std::weak_ptr<const void> owner;
  void* prepared = nullptr;
  int64_t bytes = 0;
};

struct Cache {
  std::mutex mutex;
  absl::flat_hash_map<Key, Entry, absl::Hash<Key>> entries;
  int64_t bytes = 0;
  const BefOneDnnApi* onednn = nullptr;

  // Drops every entry whose image is gone. REQUIRES: mutex held.
  void DropStale() {
    for (auto it = entries.begin(); it != entries.end();) {
      if (it->second.owner.expired()) {
        onednn->release_filter(it->second.prepared);
        bytes -= it->second.bytes;
        entries.erase(it++);
      } else {
        ++it;
      }
    }
  }
};

Cache& TheCache() {
  static Cache* cache = new Cache;  // never destroyed: used until exit
  return *cache;
}

}  // namespace

const void* PreparedFilter(const DenseHostTensor& filter, const BefConv2DShape& shape,
                           const BefOneDnnApi& onednn, int64_t first_channel) {
  const std::shared_ptr<const void>* owner =
      filter.buffer() ? filter.buffer()->constant_owner() : nullptr;
  if (owner == nullptr || *owner == nullptr) return nullptr;
  const float* data = static_cast<const float*>(filter.data()) + first_channel;
  const Key key{data, shape};
  const int64_t bytes = shape.filter_height * shape.filter_width * shape.in_channels *
                        shape.out_channels * static_cast<int64_t>(sizeof(float));
  Cache& cache = TheCache();
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    cache.onednn = &onednn;
    auto it = cache.entries.find(key);
    if (it != cache.entries.end()) {
      if (!it->second.owner.expired()) return it->second.prepared;
      onednn.release_filter(it->second.prepared);  // an earlier image's
      cache.bytes -= it->second.bytes;
      cache.entries.erase(it);
    }
    // A miss happens once per filter and image: sweeping every entry then
    // keeps an unloaded model's filters from waiting for the capacity bound
    // (a server that reloads models would otherwise hold up to 1 GiB of them).
    cache.DropStale();
    if (cache.bytes + bytes > kCapacityBytes) return nullptr;
  }
  void* prepared = nullptr;
  char error[512];
  if (onednn.prepare_filter(&shape, data, &prepared, error, sizeof(error)) != 0) {
    return nullptr;  // the call reorders it then, and reports a real failure
  }
  std::lock_guard<std::mutex> lock(cache.mutex);
  auto [it, inserted] = cache.entries.try_emplace(key, Entry{*owner, prepared, bytes});
  if (!inserted) {
    onednn.release_filter(prepared);  // another thread prepared it first
  } else {
    cache.bytes += bytes;
  }
  return it->second.prepared;
}

int64_t PreparedFilterBytes() {
  Cache& cache = TheCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  return cache.bytes;
}

}  // namespace bef::cpu_kernels
