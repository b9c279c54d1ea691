// ByteBudget: a server-wide bound on the bytes of one kind that clients can
// make bef_serve hold at once (docs/serving.md, "Limits and timeouts"):
// request bodies being read (HttpServerOptions::max_body_bytes_in_flight)
// and answers being built or waiting for a slow reader to take them
// (RunLimits::response_bytes, --max_response_bytes). Bytes are reserved
// before they are allocated, as they are needed, and given back when the
// memory is freed; a reservation the budget cannot give is refused at once,
// never waited for, so a client that holds its share only holds that.
//
// Thread-safety: every method may be called from any thread; a Reservation
// belongs to one request at a time.
#ifndef BEF_TOOLS_SERVING_BYTE_BUDGET_H_
#define BEF_TOOLS_SERVING_BYTE_BUDGET_H_

#include <atomic>
#include <cstdint>
#include <utility>

namespace bef::serving {

class ByteBudget {
 public:
  explicit ByteBudget(uint64_t limit) : limit_(limit) {}
  ByteBudget(const ByteBudget&) = delete;
  ByteBudget& operator=(const ByteBudget&) = delete;

  uint64_t limit() const { return limit_.load(std::memory_order_relaxed); }
  void set_limit(uint64_t limit) { limit_.store(limit, std::memory_order_relaxed); }
  // Bytes reserved now.
  uint64_t held() const { return held_.load(std::memory_order_relaxed); }

  // Bytes of one budget held by one request; given back when it is
  // destroyed (or Release()d). An empty reservation holds nothing.
  class Reservation {
   public:
    Reservation() = default;
    Reservation(Reservation&& other) noexcept
        : budget_(std::exchange(other.budget_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
    Reservation& operator=(Reservation&& other) noexcept {
      if (this != &other) {
        Release();
        budget_ = std::exchange(other.budget_, nullptr);
        bytes_ = std::exchange(other.bytes_, 0);
      }
      return *this;
    }
    ~Reservation() { Release(); }

    uint64_t bytes() const { return bytes_; }
    // Holds `more` bytes more of `budget` (the reservation's budget once it
    // has one); false, holding what it held, when the budget cannot give
    // them.
    bool Grow(ByteBudget& budget, uint64_t more) {
      if (!budget.TryTake(more)) return false;
      budget_ = &budget;
      bytes_ += more;
      return true;
    }
    // Gives back what is held beyond `bytes`.
    void ShrinkTo(uint64_t bytes) {
      if (budget_ == nullptr || bytes >= bytes_) return;
      budget_->Give(bytes_ - bytes);
      bytes_ = bytes;
    }
    void Release() { ShrinkTo(0); }

   private:
    ByteBudget* budget_ = nullptr;
    uint64_t bytes_ = 0;
  };

 private:
  bool TryTake(uint64_t bytes) {
    uint64_t held = held_.load(std::memory_order_relaxed);
    do {
      if (bytes > limit() || held > limit() - bytes) return false;
    } while (!held_.compare_exchange_weak(held, held + bytes, std::memory_order_relaxed));
    return true;
  }
  void Give(uint64_t bytes) { held_.fetch_sub(bytes, std::memory_order_relaxed); }

  std::atomic<uint64_t> limit_;
  std::atomic<uint64_t> held_{0};
};

}  // namespace bef::serving

#endif  // BEF_TOOLS_SERVING_BYTE_BUDGET_H_
