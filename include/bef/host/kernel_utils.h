// The typed kernel ABI: kernels are plain C++ functions whose parameter types
// say what they take, wrapped at compile time into AsyncKernelImplementation
// (BEF_KERNEL); sync kernels have theirs in sync_kernel_utils.h
// (BEF_SYNC_KERNEL), on the same parameter machinery.
//
//   static int32_t AddI32(Argument<int32_t> a, Argument<int32_t> b) {
//     return *a + *b;
//   }
//   registry->AddKernel("tfrt.add.i32", BEF_KERNEL(AddI32));
//
// Parameters (in any order; each kind is numbered in its own sequence):
//   Argument<T>             the next operand (available; T its payload)
//   RemainingArguments      all further operands
//   Attribute<T>            the next attribute, a scalar T
//   StringAttribute, ArrayAttribute<T>, DenseAttribute, ShapeAttribute,
//   AggregateAttribute, TypeAttribute   the next attribute, of that layout
//   RemainingAttributes     all further attributes
//   const Function*         the next function reference
//   RemainingFunctions      all further function references
//   Result<T>               the next result slot
//   RemainingResults        all further result slots
//   const ExecutionContext&, HostContext*, KernelErrorHandler,
//   AsyncKernelFrame*       the context
// Return value (fills the result slots after the Result<T> parameters):
//   void; T (emplaced; a Chain gives the shared ready chain);
//   AsyncValueRef<T> / RCReference<AsyncValue> (forwarded as is);
//   std::pair / std::tuple of those (consecutive slots);
//   absl::StatusOr<X> (an error is reported at the kernel's location and
//   fills every unset result); absl::Status (likewise, no value).
//
// A kernel may take fewer arguments than the op has operands: TFRT programs
// pass a trailing chain to kernels that ignore it.
//
// The signature (BEF type names per argument and result) is derived from
// the parameter and return types for the loader's register type check;
// types without a BEF name accept anything.
#ifndef BEF_HOST_KERNEL_UTILS_H_
#define BEF_HOST_KERNEL_UTILS_H_

#include <array>
#include <cstring>
#include <cstdint>
#include <span>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bef/async/async_value.h"
#include "bef/async/async_value_ref.h"
#include "bef/format/attribute_view.h"
#include "bef/host/host_context.h"
#include "bef/host/kernel_frame.h"
#include "bef/host/kernel_registry.h"
#include "bef/support/debug_check.h"
#include "bef/support/operand_type_name.h"

namespace bef {

// ---------------------------------------------------------------------------
// BEF type names of payload types (for signatures).

template <typename T>
struct BefTypeName {
  static constexpr std::string_view value = "";
};
// Use in namespace bef (not inside an anonymous namespace).
#define BEF_DEFINE_TYPE_NAME(type, name)               \
  template <>                                          \
  struct BefTypeName<type> {                           \
    static constexpr std::string_view value = name;    \
  }
BEF_DEFINE_TYPE_NAME(bool, "i1");
BEF_DEFINE_TYPE_NAME(int8_t, "i8");
BEF_DEFINE_TYPE_NAME(int16_t, "i16");
BEF_DEFINE_TYPE_NAME(int32_t, "i32");
BEF_DEFINE_TYPE_NAME(int64_t, "i64");
BEF_DEFINE_TYPE_NAME(uint8_t, "ui8");
BEF_DEFINE_TYPE_NAME(uint16_t, "ui16");
BEF_DEFINE_TYPE_NAME(uint32_t, "ui32");
BEF_DEFINE_TYPE_NAME(uint64_t, "ui64");
BEF_DEFINE_TYPE_NAME(float, "f32");
BEF_DEFINE_TYPE_NAME(double, "f64");
BEF_DEFINE_TYPE_NAME(Chain, "!tfrt.chain");

// The BEF DType of a scalar payload type (Invalid if none).
template <typename T>
struct BefDTypeOf {
  static constexpr DType value = DType::kInvalid;
};
#define BEF_DEFINE_DTYPE(type, dtype)              \
  template <>                                      \
  struct BefDTypeOf<type> {                        \
    static constexpr DType value = DType::dtype;   \
  }
BEF_DEFINE_DTYPE(bool, kI1);
BEF_DEFINE_DTYPE(int8_t, kI8);
BEF_DEFINE_DTYPE(int16_t, kI16);
BEF_DEFINE_DTYPE(int32_t, kI32);
BEF_DEFINE_DTYPE(int64_t, kI64);
BEF_DEFINE_DTYPE(uint8_t, kUI8);
BEF_DEFINE_DTYPE(uint16_t, kUI16);
BEF_DEFINE_DTYPE(uint32_t, kUI32);
BEF_DEFINE_DTYPE(uint64_t, kUI64);
BEF_DEFINE_DTYPE(float, kF32);
BEF_DEFINE_DTYPE(double, kF64);

// ---------------------------------------------------------------------------
// Parameter types.

template <typename T>
class Argument {
 public:
  explicit Argument(AsyncValue* value) : value_(value) {}
  // In a direct call (DirectKernel): the payload only, no value.
  explicit Argument(T* payload) : payload_(payload) {}
  // The operand (null in a direct call).
  AsyncValue* value() const { return value_; }
  T& get() const { return payload_ != nullptr ? *payload_ : value_->get<T>(); }
  T& operator*() const { return get(); }
  T* operator->() const { return &get(); }
  // A new reference to the operand; in a direct call (no value), a new
  // available value holding a copy of the payload.
  AsyncValueRef<T> ValueRef() const {
    if (value_ == nullptr) [[unlikely]] {
      if constexpr (std::is_copy_constructible_v<T>) {
        return MakeAvailableAsyncValueRef<T>(*payload_);
      } else {
        BEF_DEBUG_CHECK(false, "Argument::ValueRef of a payload that cannot be copied, in a direct call");
      }
    }
    return AsyncValueRef<T>(FormRef(value_));
  }

 private:
  AsyncValue* value_ = nullptr;
  T* payload_ = nullptr;
};

class RemainingArguments {
 public:
  explicit RemainingArguments(std::span<AsyncValue* const> values)
      : values_(values) {}
  size_t size() const { return values_.size(); }
  AsyncValue* operator[](size_t i) const { return values_[i]; }
  std::span<AsyncValue* const> values() const { return values_; }

 private:
  std::span<AsyncValue* const> values_;
};

// One frame-less call of a kernel through DirectKernel::call (the
// executor's entry point for kernels with Result<T>s, operands read by
// reference, an error handler or a context; kernel_registry.h): the context
// it runs in and what it did with its results. The executor resets
// `emplaced` before each call; `error`, `valued` and `values` are the
// executor's to read and reset when a call returned false.
struct DirectCall {
  HostContext* host = nullptr;  // HostContext* parameters, and its allocator
  const ExecutionContext* context = nullptr;  // const ExecutionContext& ones
  // The first error the kernel reported (owned; null: none). Every member
  // is trivial, so the executor's thread-local DirectCall costs no guard.
  absl::Status* error = nullptr;
  // Bit i: result i's payload is in its register. A word of its own, not
  // a uint32_t beside `valued`: the check after each call (CallDirectImpl)
  // then loads exactly what the kernel's last `|=` stored. A load spanning
  // that store and `valued` cannot be served from the store buffer and
  // waits for the store to reach the cache, which was a third of a tensor
  // kernel's call step (docs/performance.md, "Loads the store buffer can
  // serve").
  uint64_t emplaced = 0;
  uint32_t valued = 0;  // bit i: result i was given as a value, values[i]
  AsyncValue* values[kMaxDirectResults] = {};  // one reference each

  bool ok() const { return error == nullptr; }
  void ReportError(absl::Status status) {
    if (error == nullptr) error = new absl::Status(std::move(status));
  }
  void SetValue(size_t index, RCReference<AsyncValue> value) {
    if ((valued >> index) & 1) TakeRef(values[index]);  // the earlier one, dropped
    values[index] = value.release();
    valued |= 1u << index;
  }
};

// The executor's state of the frame-less calls on this thread, which a
// kernel's step entry point (DirectKernel::run_step) reports to as the
// executor's own trampoline would (lib/executor/line_cursor.h, RunTryStep):
//   line_kernel_failed    a try or call step failed (a try step's result is
//                         then zeros; the runner looks at this after every
//                         such step and clears it);
//   line_call_incomplete  a call step did not end with every result's
//                         payload in its register: line_direct_call holds
//                         what it did (its error, results given as values)
//                         for the runner to make its results of;
//   line_direct_call      the running call step's DirectCall (the runner
//                         sets its host and context).
// The executor's and BEF_KERNEL's only: never a kernel author's.
namespace internal {
extern constinit thread_local bool line_kernel_failed;
extern constinit thread_local bool line_call_incomplete;
extern constinit thread_local DirectCall line_direct_call;
}  // namespace internal

template <typename T>
class Result {
 public:
  Result(AsyncKernelFrame* frame, size_t index) : frame_(frame), index_(index) {}
  // In a direct call: the result's payload register.
  Result(void* payload, DirectCall* call, size_t index)
      : index_(index), payload_(payload), call_(call) {}
  // User-provided, so the ABI passes a Result by reference to the caller's
  // object, built in place by 8-byte stores the kernel's 8-byte loads are
  // served from. A trivially copyable Result (32 bytes, passed in memory)
  // was built on the caller's stack and copied to the argument area with
  // 16-byte loads spanning two of those stores, which the store buffer
  // cannot serve: a stall per Result<> per call (docs/performance.md,
  // "Loads the store buffer can serve").
  Result(const Result& other)
      : frame_(other.frame_), index_(other.index_), payload_(other.payload_),
        call_(other.call_) {}
  Result& operator=(const Result&) = default;
  template <typename... Args>
  void Emplace(Args&&... args) const {
    if (call_ != nullptr) {
      ::new (payload_) T(std::forward<Args>(args)...);
      call_->emplaced |= 1u << index_;
      return;
    }
    frame_->EmplaceResultAt<T>(index_, std::forward<Args>(args)...);
  }
  void Set(AsyncValueRef<T> value) const { Set(value.ReleaseRCRef()); }
  void Set(RCReference<AsyncValue> value) const {
    if (call_ != nullptr) {
      call_->SetValue(index_, std::move(value));
      return;
    }
    frame_->SetResultAt(index_, std::move(value));
  }
  // A placeholder stored in the slot, to fill later.
  AsyncValueRef<T> Allocate() const {
    if (call_ != nullptr) {
      // Made with both references, the call's and the kernel's (no atomic
      // increment for the second).
      AsyncValue* value = new ConcreteAsyncValue<T>(
          typename ConcreteAsyncValue<T>::UnconstructedTag(), 2);
      call_->SetValue(index_, TakeRef(value));
      return AsyncValueRef<T>(TakeRef(value));
    }
    return frame_->AllocateResultAt<T>(index_);
  }

 private:
  AsyncKernelFrame* frame_ = nullptr;
  size_t index_;
  void* payload_ = nullptr;
  DirectCall* call_ = nullptr;
};

class RemainingResults {
 public:
  RemainingResults(AsyncKernelFrame* frame, size_t first)
      : frame_(frame), first_(first) {}
  size_t size() const { return frame_->GetNumResults() - first_; }
  RCReference<AsyncValue>& operator[](size_t i) const {
    return frame_->GetResultAt(first_ + i);
  }
  template <typename T>
  AsyncValueRef<T> AllocateAt(size_t i) const {
    return frame_->AllocateResultAt<T>(first_ + i);
  }
  template <typename T, typename... Args>
  void EmplaceAt(size_t i, Args&&... args) const {
    frame_->EmplaceResultAt<T>(first_ + i, std::forward<Args>(args)...);
  }

 private:
  AsyncKernelFrame* frame_;
  size_t first_;
};

template <typename T>
class Attribute {
 public:
  explicit Attribute(const uint8_t* attribute)
      : value_(LoadScalarAttribute<T>(attribute)) {}
  const T& get() const { return value_; }
  const T& operator*() const { return value_; }

 private:
  T value_;
};

template <>
class Attribute<bool> {
 public:
  explicit Attribute(const uint8_t* attribute) : value_(*attribute != 0) {}
  bool get() const { return value_; }
  bool operator*() const { return value_; }

 private:
  bool value_;
};

class StringAttribute {
 public:
  explicit StringAttribute(const uint8_t* attribute)
      : value_(StringAttributeView(attribute)) {}
  std::string_view get() const { return value_; }
  std::string_view operator*() const { return value_; }

 private:
  std::string_view value_;
};

template <typename T>
class ArrayAttribute {
 public:
  explicit ArrayAttribute(const uint8_t* attribute)
      : data_(ArrayAttributeView<T>(attribute)) {}
  std::span<const T> data() const { return data_; }
  size_t size() const { return data_.size(); }
  const T& operator[](size_t i) const { return data_[i]; }

 private:
  std::span<const T> data_;
};

class DenseAttribute : public DenseAttributeView {
 public:
  using DenseAttributeView::DenseAttributeView;
};
class ShapeAttribute : public ShapeAttributeView {
 public:
  using ShapeAttributeView::ShapeAttributeView;
};
class AggregateAttribute : public AggregateAttributeView {
 public:
  using AggregateAttributeView::AggregateAttributeView;
};
class TypeAttribute {
 public:
  explicit TypeAttribute(const uint8_t* attribute)
      : dtype_(static_cast<DType>(*attribute)) {}
  DType get() const { return dtype_; }

 private:
  DType dtype_;
};

class RemainingAttributes {
 public:
  RemainingAttributes(const AsyncKernelFrame* frame, size_t first)
      : frame_(frame), first_(first) {}
  size_t size() const { return frame_->GetNumAttributes() - first_; }
  const uint8_t* operator[](size_t i) const {
    return frame_->GetAttributeAt(first_ + i);
  }
  // Bytes from attribute i to the end of the Attributes section.
  size_t available_bytes(size_t i) const {
    return frame_->GetAttributeBytesAvailable(first_ + i);
  }

 private:
  const AsyncKernelFrame* frame_;
  size_t first_;
};

class RemainingFunctions {
 public:
  RemainingFunctions(const AsyncKernelFrame* frame, size_t first)
      : frame_(frame), first_(first) {}
  size_t size() const { return frame_->GetNumFunctions() - first_; }
  const Function* operator[](size_t i) const {
    return frame_->GetFunctionAt(first_ + i);
  }

 private:
  const AsyncKernelFrame* frame_;
  size_t first_;
};

// Reports an error at the kernel's location and fills the unset results.
class KernelErrorHandler {
 public:
  explicit KernelErrorHandler(AsyncKernelFrame* frame) : frame_(frame) {}
  // In a direct call: the executor reports it when the kernel returns.
  explicit KernelErrorHandler(DirectCall* call) : call_(call) {}
  void ReportError(absl::Status status) const {
    if (call_ != nullptr) {
      call_->ReportError(std::move(status));
      return;
    }
    frame_->ReportError(std::move(status));
  }
  template <typename... Parts>
  void ReportError(const Parts&... parts) const {
    ReportError(absl::InternalError(absl::StrCat(parts...)));
  }

 private:
  AsyncKernelFrame* frame_ = nullptr;
  DirectCall* call_ = nullptr;
};

// The operand-type error of BEF_KERNEL, for kernels that read operands from
// the frame themselves (control flow, variadic kernels): true when operand
// `index` exists and holds a T; otherwise reports the error at the kernel's
// location, fills the results with it and returns false.
// Reports "operand N is not a value of type T" (also what BEF_KERNEL's
// typed operands report).
inline void ReportArgumentTypeError(AsyncKernelFrame* frame, size_t index,
                                    std::string_view type_name) {
  frame->ReportError(absl::InvalidArgumentError(
      absl::StrCat("operand ", index, " is not a value of type ",
                   absl::string_view(type_name.data(), type_name.size()))));
}
template <typename T>
bool CheckArgumentType(AsyncKernelFrame* frame, size_t index) {
  if (index < frame->GetNumArgs() && frame->GetArgAt(index)->IsType<T>()) [[likely]] {
    return true;
  }
  ReportArgumentTypeError(frame, index, BefTypeName<T>::value);
  return false;
}
// The same for operands 0, 1, ... holding T0, T1, ... in turn.
template <typename... T>
bool CheckArgumentTypes(AsyncKernelFrame* frame) {
  size_t index = 0;
  return (CheckArgumentType<T>(frame, index++) && ...);
}

// ---------------------------------------------------------------------------
// Implementation of BEF_KERNEL.

namespace internal {

// The results array of a step entry point (DirectKernel::run_step): result
// i's payload at `first` + i * kDirectResultSize.
template <uint32_t kCount>
struct ConsecutiveResults {
  explicit ConsecutiveResults(void* first) {
    for (uint32_t i = 0; i < kCount; ++i) {
      slots[i] = static_cast<unsigned char*>(first) + i * kDirectResultSize;
    }
  }
  void* slots[kCount > 0 ? kCount : 1];
};

// Reserves room for `count` elements of an inlined vector only past its
// inline room (the inline check is the common case, and stays inline).
template <typename InlinedVector>
void ReserveBeyondInline(InlinedVector& vector, size_t count) {
  if (count > vector.capacity()) vector.reserve(count);
}

enum class ParameterKind {
  kArgument,
  kAttribute,
  kFunction,
  kResult,
  kOther,  // contexts and Remaining*: numbered by the others' counts
};

// What a parameter takes all of (Remaining*, the frame).
struct VariadicFlags {
  bool arguments = false;
  bool results = false;
  bool attributes = false;
};

template <typename T>
inline constexpr bool kAlwaysFalse = false;

// Kind, Build(frame, index), signature contribution. The primary template is
// every type the ABI cannot pass: a compile error that names it (in the
// "required from KernelParameter<...>" line) and says what to write.
template <typename T>
struct KernelParameter {
  static_assert(kAlwaysFalse<T>,
                "BEF_KERNEL: unsupported kernel parameter type (named in the "
                "'KernelParameter<...>' instantiation above). A kernel takes Argument<T>, "
                "Result<T>, Attribute<T>, ArrayAttribute<T>, StringAttribute, DenseAttribute, "
                "ShapeAttribute, AggregateAttribute, TypeAttribute, const Function*, "
                "RemainingArguments, RemainingResults, RemainingAttributes, RemainingFunctions, "
                "const ExecutionContext&, HostContext*, HostAllocator*, KernelErrorHandler or "
                "AsyncKernelFrame*: "
                "an operand of type T is Argument<T>, not T (docs/writing-kernels.md)");
  static constexpr ParameterKind kind = ParameterKind::kOther;
};

template <typename T>
struct KernelParameter<Argument<T>> {
  static constexpr ParameterKind kind = ParameterKind::kArgument;
  static Argument<T> Build(AsyncKernelFrame* frame, size_t index) {
    return Argument<T>(frame->GetArgAt(index));
  }
  static constexpr std::string_view type_name = BefTypeName<T>::value;
};

// The BEF attribute type a view reads (for the loader's verification).
template <typename T>
struct AttributeLayout;
template <typename T>
struct AttributeLayout<Attribute<T>> {
  static_assert(BefDTypeOf<T>::value != DType::kInvalid,
                "Attribute<T> needs a scalar BEF type");
  static constexpr uint8_t value = static_cast<uint8_t>(BefDTypeOf<T>::value);
};
template <typename T>
struct AttributeLayout<ArrayAttribute<T>> {
  static constexpr uint8_t value =
      ArrayAttributeType(static_cast<uint8_t>(BefDTypeOf<T>::value));
};
template <>
struct AttributeLayout<StringAttribute> {
  static constexpr uint8_t value = static_cast<uint8_t>(DType::kString);
};
template <>
struct AttributeLayout<DenseAttribute> {
  static constexpr uint8_t value = static_cast<uint8_t>(AttributeType::kDense);
};
template <>
struct AttributeLayout<ShapeAttribute> {
  static constexpr uint8_t value = static_cast<uint8_t>(AttributeType::kShape);
};
template <>
struct AttributeLayout<AggregateAttribute> {
  static constexpr uint8_t value =
      static_cast<uint8_t>(AttributeType::kAggregate);
};
template <>
struct AttributeLayout<TypeAttribute> {
  static constexpr uint8_t value = static_cast<uint8_t>(AttributeType::kType);
};

template <typename T>
struct AttributeParameter {
  static constexpr ParameterKind kind = ParameterKind::kAttribute;
  static constexpr uint8_t layout = AttributeLayout<T>::value;
  static T Build(AsyncKernelFrame* frame, size_t index) {
    return T(frame->GetAttributeAt(index));
  }
};
template <typename T>
struct KernelParameter<Attribute<T>> : AttributeParameter<Attribute<T>> {};
template <typename T>
struct KernelParameter<ArrayAttribute<T>>
    : AttributeParameter<ArrayAttribute<T>> {};
template <>
struct KernelParameter<StringAttribute> : AttributeParameter<StringAttribute> {};
template <>
struct KernelParameter<DenseAttribute> : AttributeParameter<DenseAttribute> {};
template <>
struct KernelParameter<ShapeAttribute> : AttributeParameter<ShapeAttribute> {};
template <>
struct KernelParameter<AggregateAttribute>
    : AttributeParameter<AggregateAttribute> {};
template <>
struct KernelParameter<TypeAttribute> : AttributeParameter<TypeAttribute> {};

template <>
struct KernelParameter<const Function*> {
  static constexpr ParameterKind kind = ParameterKind::kFunction;
  static const Function* Build(AsyncKernelFrame* frame, size_t index) {
    return frame->GetFunctionAt(index);
  }
};

template <typename T>
struct KernelParameter<Result<T>> {
  static constexpr ParameterKind kind = ParameterKind::kResult;
  static Result<T> Build(AsyncKernelFrame* frame, size_t index) {
    return Result<T>(frame, index);
  }
  static constexpr std::string_view type_name = BefTypeName<T>::value;
};

// Parameters numbered by how many of another kind precede them.
template <ParameterKind counted>
struct RemainingParameter {
  static constexpr ParameterKind kind = ParameterKind::kOther;
  static constexpr ParameterKind counts = counted;
};
template <>
struct KernelParameter<RemainingArguments>
    : RemainingParameter<ParameterKind::kArgument> {
  static constexpr VariadicFlags variadic{.arguments = true};
  static RemainingArguments Build(AsyncKernelFrame* frame, size_t first) {
    return RemainingArguments(frame->GetArguments().subspan(first));
  }
};
template <>
struct KernelParameter<RemainingResults>
    : RemainingParameter<ParameterKind::kResult> {
  static constexpr VariadicFlags variadic{.results = true};
  static RemainingResults Build(AsyncKernelFrame* frame, size_t first) {
    return RemainingResults(frame, first);
  }
};
template <>
struct KernelParameter<RemainingAttributes>
    : RemainingParameter<ParameterKind::kAttribute> {
  static constexpr VariadicFlags variadic{.attributes = true};
  static RemainingAttributes Build(AsyncKernelFrame* frame, size_t first) {
    return RemainingAttributes(frame, first);
  }
};
template <>
struct KernelParameter<RemainingFunctions>
    : RemainingParameter<ParameterKind::kFunction> {
  static RemainingFunctions Build(AsyncKernelFrame* frame, size_t first) {
    return RemainingFunctions(frame, first);
  }
};
template <>
struct KernelParameter<const ExecutionContext&>
    : RemainingParameter<ParameterKind::kOther> {
  static const ExecutionContext& Build(AsyncKernelFrame* frame, size_t) {
    return frame->GetExecutionContext();
  }
};
// The host's allocator (what a kernel that makes or copies tensors needs,
// without the work queue a HostContext* reaches).
template <>
struct KernelParameter<HostAllocator*> : RemainingParameter<ParameterKind::kOther> {
  static HostAllocator* Build(AsyncKernelFrame* frame, size_t) {
    return frame->GetHostContext()->allocator();
  }
};
template <>
struct KernelParameter<HostContext*> : RemainingParameter<ParameterKind::kOther> {
  static HostContext* Build(AsyncKernelFrame* frame, size_t) {
    return frame->GetHostContext();
  }
};
template <>
struct KernelParameter<KernelErrorHandler>
    : RemainingParameter<ParameterKind::kOther> {
  static KernelErrorHandler Build(AsyncKernelFrame* frame, size_t) {
    return KernelErrorHandler(frame);
  }
};
template <>
struct KernelParameter<AsyncKernelFrame*>
    : RemainingParameter<ParameterKind::kOther> {
  static constexpr VariadicFlags variadic{true, true, true};
  static AsyncKernelFrame* Build(AsyncKernelFrame* frame, size_t) {
    return frame;
  }
};

// How the typed ABIs (BEF_KERNEL here, BEF_SYNC_KERNEL in
// sync_kernel_utils.h) describe a parameter type P: Traits<P>::kind, and
// optionally Traits<P>::counts (a parameter numbered in another kind's
// sequence: Remaining*), Traits<P>::type_name (arguments, results),
// Traits<P>::layout (attributes) and Traits<P>::variadic (what it takes
// all of).
template <template <typename> class Traits, typename T, typename = void>
struct CountsOf {
  static constexpr ParameterKind value = Traits<T>::kind;
};
template <template <typename> class Traits, typename T>
struct CountsOf<Traits, T, std::void_t<decltype(Traits<T>::counts)>> {
  static constexpr ParameterKind value = Traits<T>::counts;
};
template <template <typename> class Traits, typename T, typename = void>
struct VariadicOf {
  static constexpr VariadicFlags value{};
};
template <template <typename> class Traits, typename T>
struct VariadicOf<Traits, T, std::void_t<decltype(Traits<T>::variadic)>> {
  static constexpr VariadicFlags value = Traits<T>::variadic;
};

// For each parameter, its index within its kind's sequence.
template <template <typename> class Traits, typename... Params>
constexpr std::array<size_t, sizeof...(Params)> ParameterIndicesOf() {
  constexpr ParameterKind kinds[] = {Traits<Params>::kind..., ParameterKind::kOther};
  constexpr ParameterKind counted[] = {CountsOf<Traits, Params>::value...,
                                       ParameterKind::kOther};
  std::array<size_t, sizeof...(Params)> indices{};
  size_t seen[5] = {0, 0, 0, 0, 0};
  for (size_t i = 0; i < sizeof...(Params); ++i) {
    indices[i] = seen[static_cast<int>(counted[i])];
    if (kinds[i] != ParameterKind::kOther) ++seen[static_cast<int>(kinds[i])];
  }
  return indices;
}
template <typename... Params>
constexpr std::array<size_t, sizeof...(Params)> ParameterIndices() {
  return ParameterIndicesOf<KernelParameter, Params...>();
}

// Adds what the parameters read to `signature`: argument and result type
// names, attribute layouts, function references, variadic kinds. Sized once
// (registration is start-up work) where the inline room is not enough;
// `extra_results` more results follow (the return value's).
template <template <typename> class Traits, typename... Params>
void AppendParameterSignature(KernelSignature& signature, size_t extra_results) {
  ReserveBeyondInline(signature.arguments,
                      (0 + ... + (Traits<Params>::kind == ParameterKind::kArgument)));
  ReserveBeyondInline(signature.results,
                      (0 + ... + (Traits<Params>::kind == ParameterKind::kResult)) +
                          extra_results);
  ReserveBeyondInline(signature.attributes,
                      (0 + ... + (Traits<Params>::kind == ParameterKind::kAttribute)));
  [[maybe_unused]] auto add = [&signature](auto tag) {
    using P = typename decltype(tag)::type;
    if constexpr (Traits<P>::kind == ParameterKind::kArgument) {
      signature.arguments.push_back(Traits<P>::type_name);
    } else if constexpr (Traits<P>::kind == ParameterKind::kResult) {
      signature.results.push_back(Traits<P>::type_name);
    } else if constexpr (Traits<P>::kind == ParameterKind::kAttribute) {
      signature.attributes.push_back(Traits<P>::layout);
    } else if constexpr (Traits<P>::kind == ParameterKind::kFunction) {
      ++signature.num_functions;
    }
    constexpr VariadicFlags variadic = VariadicOf<Traits, P>::value;
    signature.variadic_arguments |= variadic.arguments;
    signature.variadic_results |= variadic.results;
    signature.variadic_attributes |= variadic.attributes;
  };
  (add(std::type_identity<Params>()), ...);
}

// What is wrong with the order of a kernel's parameters, per kind
// (ParameterKind's value): a parameter of that kind after the Remaining* of
// it (which takes every one after those before it), or two Remaining* of it.
struct ParameterOrder {
  bool after_remaining[5] = {};
  bool two_remaining[5] = {};
};
template <template <typename> class Traits, typename... Params>
constexpr ParameterOrder CheckParameterOrder() {
  constexpr ParameterKind kinds[] = {Traits<Params>::kind..., ParameterKind::kOther};
  constexpr ParameterKind counted[] = {CountsOf<Traits, Params>::value...,
                                       ParameterKind::kOther};
  ParameterOrder order;
  bool remaining[5] = {};
  for (size_t i = 0; i < sizeof...(Params); ++i) {
    if (kinds[i] == ParameterKind::kOther && counted[i] != ParameterKind::kOther) {
      const int of = static_cast<int>(counted[i]);  // a Remaining* parameter
      order.two_remaining[of] |= remaining[of];
      remaining[of] = true;
    } else if (kinds[i] != ParameterKind::kOther) {
      order.after_remaining[static_cast<int>(kinds[i])] |= remaining[static_cast<int>(kinds[i])];
    }
  }
  return order;
}
// The order checks of a typed ABI, each a compile error that says what to
// write instead.
template <template <typename> class Traits, typename... Params>
struct CheckedParameterOrder {
  static constexpr ParameterOrder kOrder = CheckParameterOrder<Traits, Params...>();
  static constexpr int Of(ParameterKind kind) { return static_cast<int>(kind); }
  static_assert(!kOrder.after_remaining[Of(ParameterKind::kArgument)],
                "BEF_KERNEL: an Argument<T> after RemainingArguments: RemainingArguments takes "
                "every operand after the Argument<T>s before it; declare each Argument<T> "
                "before it");
  static_assert(!kOrder.after_remaining[Of(ParameterKind::kResult)],
                "BEF_KERNEL: a Result<T> after RemainingResults: RemainingResults takes every "
                "result after the Result<T>s before it (and the return value's); declare each "
                "Result<T> before it");
  static_assert(!kOrder.after_remaining[Of(ParameterKind::kAttribute)],
                "BEF_KERNEL: an attribute after RemainingAttributes: RemainingAttributes takes "
                "every attribute after those before it; declare each attribute before it");
  static_assert(!kOrder.after_remaining[Of(ParameterKind::kFunction)],
                "BEF_KERNEL: a const Function* after RemainingFunctions: declare each "
                "const Function* before it");
  static_assert(!kOrder.two_remaining[Of(ParameterKind::kArgument)],
                "BEF_KERNEL: two RemainingArguments: the first takes every remaining operand; "
                "declare one");
  static_assert(!kOrder.two_remaining[Of(ParameterKind::kResult)],
                "BEF_KERNEL: two RemainingResults: the first takes every remaining result; "
                "declare one");
  static_assert(!kOrder.two_remaining[Of(ParameterKind::kAttribute)],
                "BEF_KERNEL: two RemainingAttributes: the first takes every remaining "
                "attribute; declare one");
  static_assert(!kOrder.two_remaining[Of(ParameterKind::kFunction)],
                "BEF_KERNEL: two RemainingFunctions: the first takes every remaining function; "
                "declare one");
  static constexpr bool kValid = true;
};

template <typename... Params>
constexpr size_t CountKind([[maybe_unused]] ParameterKind kind) {
  size_t count = 0;
  ((count += KernelParameter<Params>::kind == kind), ...);
  return count;
}

// ---- Return values.

// A slot already set (by an error the kernel reported before returning)
// keeps its value.
template <typename T>
struct ReturnHandler {
  static constexpr size_t num_results = 1;
  static void Store(AsyncKernelFrame* frame, size_t index, T&& value) {
    if (frame->GetResultAt(index)) return;
    frame->EmplaceResultAt<T>(index, std::move(value));
  }
  static void AppendTypes(KernelSignature& signature) {
    signature.results.push_back(BefTypeName<T>::value);
  }
};
template <>
struct ReturnHandler<Chain> {
  static constexpr size_t num_results = 1;
  static void Store(AsyncKernelFrame* frame, size_t index, Chain&&) {
    if (frame->GetResultAt(index)) return;
    frame->SetResultAt(index, FormRef(GetReadyChainValue()));
  }
  static void AppendTypes(KernelSignature& signature) {
    signature.results.push_back(BefTypeName<Chain>::value);
  }
};
template <typename T>
struct ReturnHandler<AsyncValueRef<T>> {
  static constexpr size_t num_results = 1;
  static void Store(AsyncKernelFrame* frame, size_t index, AsyncValueRef<T>&& value) {
    if (frame->GetResultAt(index)) return;
    frame->SetResultAt(index, value.ReleaseRCRef());
  }
  static void AppendTypes(KernelSignature& signature) {
    signature.results.push_back(BefTypeName<T>::value);
  }
};
template <>
struct ReturnHandler<RCReference<AsyncValue>> {
  static constexpr size_t num_results = 1;
  static void Store(AsyncKernelFrame* frame, size_t index,
                    RCReference<AsyncValue>&& value) {
    if (frame->GetResultAt(index)) return;
    frame->SetResultAt(index, std::move(value));
  }
  static void AppendTypes(KernelSignature& signature) {
    signature.results.push_back("");
  }
};
template <typename... Ts>
struct ReturnHandler<std::tuple<Ts...>> {
  static constexpr size_t num_results = (ReturnHandler<Ts>::num_results + ...);
  static void Store(AsyncKernelFrame* frame, size_t index,
                    std::tuple<Ts...>&& values) {
    StoreAll(frame, index, std::move(values), std::index_sequence_for<Ts...>());
  }
  template <size_t... I>
  static void StoreAll(AsyncKernelFrame* frame, size_t index,
                       std::tuple<Ts...>&& values, std::index_sequence<I...>) {
    size_t next = index;
    ((ReturnHandler<Ts>::Store(frame, next, std::move(std::get<I>(values))),
      next += ReturnHandler<Ts>::num_results),
     ...);
  }
  static void AppendTypes(KernelSignature& signature) {
    (ReturnHandler<Ts>::AppendTypes(signature), ...);
  }
};
template <typename A, typename B>
struct ReturnHandler<std::pair<A, B>> {
  static constexpr size_t num_results = 2;
  static void Store(AsyncKernelFrame* frame, size_t index, std::pair<A, B>&& values) {
    ReturnHandler<A>::Store(frame, index, std::move(values.first));
    ReturnHandler<B>::Store(frame, index + 1, std::move(values.second));
  }
  static void AppendTypes(KernelSignature& signature) {
    ReturnHandler<A>::AppendTypes(signature);
    ReturnHandler<B>::AppendTypes(signature);
  }
};
template <typename T>
struct ReturnHandler<absl::StatusOr<T>> {
  static constexpr size_t num_results = ReturnHandler<T>::num_results;
  static void Store(AsyncKernelFrame* frame, size_t index,
                    absl::StatusOr<T>&& value) {
    if (value.ok()) {
      ReturnHandler<T>::Store(frame, index, std::move(value).value());
    } else {
      frame->ReportError(std::move(value).status());
    }
  }
  static void AppendTypes(KernelSignature& signature) {
    ReturnHandler<T>::AppendTypes(signature);
  }
};
template <>
struct ReturnHandler<absl::Status> {
  static constexpr size_t num_results = 0;
  static void Store(AsyncKernelFrame* frame, size_t, absl::Status&& status) {
    if (!status.ok()) frame->ReportError(std::move(status));
  }
  static void AppendTypes(KernelSignature&) {}
};

// Whether a typed operand holds its type (Argument<T>; other parameters and
// Argument<Chain>, which is never read, always match).
template <typename P>
struct ArgumentCheck {
  static bool Matches(AsyncKernelFrame*, size_t) { return true; }
  static constexpr std::string_view type_name = "";
};
template <typename T>
struct ArgumentCheck<Argument<T>> {
  static bool Matches(AsyncKernelFrame* frame, size_t index) {
    if constexpr (std::is_same_v<T, Chain>) {
      return true;
    } else {
      return frame->GetArgAt(index)->IsType<T>();
    }
  }
  static constexpr std::string_view type_name =
      OperandTypeName<T>::value.empty() ? BefTypeName<T>::value : OperandTypeName<T>::value;
};

// What the direct entry point (DirectKernel) supports: scalar operands,
// scalar attributes (verified by the loader like the frame path's), one
// scalar result that fits kDirectResultSize. A pure kernel (BEF_PURE_KERNEL)
// may also read operands of any other payload type, by reference, and
// return chains.
//
// The call entry point (DirectKernel::call) takes more (kSupportedCall):
// operands of any payload type (by reference), Result<T>s of scalars or
// chains (written to their payload registers), a KernelErrorHandler, the
// HostAllocator*, and the HostContext* and const ExecutionContext& of an
// asynchronous one (BuildCall).
template <typename P>
struct DirectParameter {
  static constexpr bool kSupported = false;
  static constexpr bool kSupportedPure = false;
  static constexpr bool kSupportedCall = false;
  static constexpr bool kOperand = false;
  static constexpr bool kResult = false;
  static constexpr bool kByReference = false;
  static uint16_t Type() { return kAnyOperandType; }
  static P Build(const void* const*, const uint8_t*, const uint32_t*, size_t);
  static P BuildCall(const void* const*, const uint8_t*, const uint32_t*, void* const*,
                     DirectCall&, size_t);
};
// The frame-less parameters every entry point builds the same way.
template <typename P>
struct DirectCallFromBuild {
  static constexpr bool kResult = false;
  [[gnu::always_inline]] static P BuildCall(const void* const* operands,
                                            const uint8_t* attribute_pool,
                                            const uint32_t* attribute_offsets, void* const*,
                                            DirectCall&, size_t index) {
    return DirectParameter<P>::Build(operands, attribute_pool, attribute_offsets, index);
  }
};
template <typename T>
struct DirectParameter<Result<T>> {
  static constexpr bool kSupported = false;
  static constexpr bool kSupportedPure = false;
  static constexpr bool kSupportedCall =
      std::is_same_v<T, Chain> || (std::is_arithmetic_v<T> && sizeof(T) <= kDirectResultSize);
  static constexpr bool kOperand = false;
  static constexpr bool kResult = true;
  static constexpr bool kByReference = false;
  using Payload = T;
  static uint16_t Type() { return AsyncValueTypeId<T>(); }
  [[gnu::always_inline]] static Result<T> BuildCall(const void* const*, const uint8_t*,
                                                    const uint32_t*, void* const* results,
                                                    DirectCall& call, size_t index) {
    return Result<T>(results[index], &call, index);
  }
};
// A parameter only the call entry point builds, that is no operand or
// result (an error handler, an allocator, a context).
struct DirectCallContextParameter {
  static constexpr bool kSupported = false;
  static constexpr bool kSupportedPure = false;
  static constexpr bool kSupportedCall = true;
  static constexpr bool kOperand = false;
  static constexpr bool kResult = false;
  static constexpr bool kByReference = false;
  static uint16_t Type() { return kAnyOperandType; }
};
template <>
struct DirectParameter<KernelErrorHandler> : DirectCallContextParameter {
  [[gnu::always_inline]] static KernelErrorHandler BuildCall(const void* const*, const uint8_t*,
                                                             const uint32_t*, void* const*,
                                                             DirectCall& call, size_t) {
    return KernelErrorHandler(&call);
  }
};
template <>
struct DirectParameter<HostAllocator*> : DirectCallContextParameter {
  [[gnu::always_inline]] static HostAllocator* BuildCall(const void* const*, const uint8_t*,
                                                         const uint32_t*, void* const*,
                                                         DirectCall& call, size_t) {
    return call.host->allocator();
  }
};
// HostContext* and const ExecutionContext& reach the work queue: a kernel
// taking one may complete its results from a task (DirectKernel::
// may_enqueue: an async call step).
template <>
struct DirectParameter<HostContext*> : DirectCallContextParameter {
  static constexpr bool kMayEnqueue = true;
  [[gnu::always_inline]] static HostContext* BuildCall(const void* const*, const uint8_t*,
                                                       const uint32_t*, void* const*,
                                                       DirectCall& call, size_t) {
    return call.host;
  }
};
template <>
struct DirectParameter<const ExecutionContext&> : DirectCallContextParameter {
  static constexpr bool kMayEnqueue = true;
  [[gnu::always_inline]] static const ExecutionContext& BuildCall(const void* const*,
                                                                  const uint8_t*,
                                                                  const uint32_t*,
                                                                  void* const*,
                                                                  DirectCall& call, size_t) {
    return *call.context;
  }
};
// Whether a parameter reaches the work queue.
template <typename P, typename = void>
struct MayEnqueue : std::false_type {};
template <typename P>
struct MayEnqueue<P, std::void_t<decltype(DirectParameter<P>::kMayEnqueue)>>
    : std::bool_constant<DirectParameter<P>::kMayEnqueue> {};
template <typename T>
struct DirectParameter<Argument<T>> : DirectCallFromBuild<Argument<T>> {
  // Scalars: payloads are read at AsyncValue::ScalarPayload and copied as
  // kDirectResultSize bytes into the operand's register.
  static constexpr bool kScalar =
      std::is_same_v<T, Chain> ||
      (std::is_trivially_copyable_v<T> && alignof(T) <= alignof(AsyncValue) &&
       sizeof(T) <= kDirectResultSize);
  // Any other payload (a tensor, a string): the operand's register holds
  // the address of the value's payload (pure kernels only: whether reading
  // it has no side effects is the kernel's to say).
  static constexpr bool kByReference = !kScalar && alignof(T) <= alignof(AsyncValue);
  static constexpr bool kSupported = kScalar;
  static constexpr bool kSupportedPure = kScalar || kByReference;
  static constexpr bool kSupportedCall = kScalar || kByReference;
  static constexpr bool kOperand = true;
  static uint16_t Type() {
    if constexpr (std::is_same_v<T, Chain>) {
      return kAnyOperandType;
    } else {
      return AsyncValueTypeId<T>();
    }
  }
  [[gnu::always_inline]] static Argument<T> Build(const void* const* operands,
                                                  const uint8_t*, const uint32_t*,
                                                  size_t index) {
    T* payload;
    if constexpr (kByReference) {
      payload = *static_cast<T* const*>(operands[index]);
    } else {
      payload = static_cast<T*>(const_cast<void*>(operands[index]));
    }
    // Never null in a direct call: the compiler drops Argument's value path
    // (and the frame it needs), so a direct kernel is a leaf function.
    if (payload == nullptr) __builtin_unreachable();
    return Argument<T>(payload);
  }
};
template <typename T>
struct DirectParameter<Attribute<T>> : DirectCallFromBuild<Attribute<T>> {
  static constexpr bool kSupported = true;
  static constexpr bool kSupportedPure = true;
  static constexpr bool kSupportedCall = true;
  static constexpr bool kOperand = false;
  static constexpr bool kByReference = false;
  static uint16_t Type() { return kAnyOperandType; }
  [[gnu::always_inline]] static Attribute<T> Build(const void* const*,
                                                   const uint8_t* attribute_pool,
                                                   const uint32_t* attribute_offsets,
                                                   size_t index) {
    return Attribute<T>(attribute_pool + attribute_offsets[index]);
  }
};
template <typename R, typename = void>
struct DirectResult {
  static constexpr bool kSupported = false;
};
template <typename R>
struct DirectResult<R, std::enable_if_t<std::is_arithmetic_v<R>>> {
  static constexpr bool kSupported =
      sizeof(R) <= kDirectResultSize && alignof(R) <= alignof(AsyncValue);
};
// A pure kernel's result may also be a chain (it only orders the kernel).
template <typename R>
inline constexpr bool kDirectResultSupportedPure =
    DirectResult<R>::kSupported || std::is_same_v<R, Chain>;

template <typename R>
AsyncValue* BoxDirectPayload(const void* result) {
  if constexpr (std::is_same_v<R, Chain>) {
    return FormRef(GetReadyChainValue()).release();
  } else {
    using Value = ConcreteAsyncValue<R>;
    return new Value(typename Value::ConcreteTag(), *static_cast<const R*>(result));
  }
}

// The results try_run supports (DirectKernel): several scalars
// (std::pair, std::tuple), and absl::StatusOr of a scalar or of those.
template <typename R>
struct DirectResults {
  static constexpr bool kSupported = false;
  static constexpr bool kSupportedPure = false;
};
template <typename... Ts>
struct DirectScalars {
  static constexpr bool kSupported =
      sizeof...(Ts) <= kMaxDirectResults && (DirectResult<Ts>::kSupported && ...);
  static constexpr bool kSupportedPure =
      sizeof...(Ts) <= kMaxDirectResults && (kDirectResultSupportedPure<Ts> && ...);
  static constexpr uint32_t kCount = sizeof...(Ts);
  static constexpr DirectBox kBoxes[] = {&BoxDirectPayload<Ts>...};
  static void Types(uint16_t* types) {
    size_t i = 0;
    ((types[i++] = AsyncValueTypeId<Ts>()), ...);
  }
  template <typename Tuple>
  [[gnu::always_inline]] static bool Store(Tuple&& values, void* const* results) {
    StoreAll(std::forward<Tuple>(values), results, std::index_sequence_for<Ts...>());
    return true;
  }
  template <typename Tuple, size_t... I>
  [[gnu::always_inline]] static void StoreAll(Tuple&& values, void* const* results,
                                              std::index_sequence<I...>) {
    ((::new (results[I]) Ts(std::get<I>(values))), ...);
  }
};
template <typename A, typename B>
struct DirectResults<std::pair<A, B>> : DirectScalars<A, B> {};
template <typename... Ts>
struct DirectResults<std::tuple<Ts...>> : DirectScalars<Ts...> {};
template <typename T>
inline constexpr bool kDirectScalar = std::is_arithmetic_v<T> || std::is_same_v<T, Chain>;
template <typename T>
struct DirectResults<absl::StatusOr<T>>
    : std::conditional_t<kDirectScalar<T>, DirectScalars<T>, DirectResults<T>> {
  using Base = std::conditional_t<kDirectScalar<T>, DirectScalars<T>, DirectResults<T>>;
  [[gnu::always_inline]] static bool Store(absl::StatusOr<T>&& value, void* const* results) {
    if (!value.ok()) [[unlikely]] return false;
    if constexpr (kDirectScalar<T>) {
      return Base::Store(std::tuple<T>(*value), results);
    } else {
      return Base::Store(std::move(*value), results);
    }
  }
};

// What the call entry point (DirectKernel::call) does with a kernel's return
// value: its results (kCount, written from results[0] on, as payloads)
// or its error (DirectCall::error). void and absl::Status have none; a
// scalar or a chain one; std::pair / std::tuple of them several; and
// absl::StatusOr of any of those; an AsyncValueRef of a scalar or chain,
// given as a value (an asynchronous kernel's: DirectKernel::may_enqueue).
template <typename R>
struct CallReturn {
  static constexpr bool kSupported = false;
  static constexpr uint32_t kCount = 0;
};
template <>
struct CallReturn<void> {
  static constexpr bool kSupported = true;
  static constexpr uint32_t kCount = 0;
  static void Types(uint16_t*) {}
  static constexpr DirectBox kBoxes[1] = {nullptr};
};
template <>
struct CallReturn<absl::Status> : CallReturn<void> {
  [[gnu::always_inline]] static void Store(absl::Status&& status, void* const*, DirectCall& call,
                                           uint32_t) {
    if (!status.ok()) [[unlikely]] call.ReportError(std::move(status));
  }
};
template <typename... Ts>
struct CallScalars {
  static constexpr bool kSupported =
      sizeof...(Ts) <= kMaxDirectResults && (kDirectResultSupportedPure<Ts> && ...);
  static constexpr uint32_t kCount = sizeof...(Ts);
  static void Types(uint16_t* types) {
    size_t i = 0;
    ((types[i++] = AsyncValueTypeId<Ts>()), ...);
  }
  // Sized: a bound clang can see when CallBoxes reads it in a constant
  // expression.
  static constexpr DirectBox kBoxes[sizeof...(Ts)] = {&BoxDirectPayload<Ts>...};
  // A slot already set (the kernel reported an error before returning)
  // keeps what it has, as ReturnHandler does.
  template <typename Tuple>
  [[gnu::always_inline]] static void Store(Tuple&& values, void* const* results,
                                           DirectCall& call, uint32_t first) {
    if (!call.ok()) [[unlikely]] return;
    StoreAll(std::forward<Tuple>(values), results, std::index_sequence_for<Ts...>());
    call.emplaced |= ((1u << kCount) - 1) << first;
  }
  template <typename Tuple, size_t... I>
  [[gnu::always_inline]] static void StoreAll(Tuple&& values, void* const* results,
                                              std::index_sequence<I...>) {
    ((::new (results[I]) Ts(std::get<I>(values))), ...);
  }
};
template <typename R>
  requires(kDirectScalar<R>)
struct CallReturn<R> : CallScalars<R> {
  [[gnu::always_inline]] static void Store(R&& value, void* const* results, DirectCall& call,
                                           uint32_t first) {
    CallScalars<R>::Store(std::tuple<R>(value), results, call, first);
  }
};
template <typename A, typename B>
struct CallReturn<std::pair<A, B>> : CallScalars<A, B> {};
template <typename... Ts>
struct CallReturn<std::tuple<Ts...>> : CallScalars<Ts...> {};
template <typename T>
struct CallReturn<absl::StatusOr<T>> : CallReturn<T> {
  [[gnu::always_inline]] static void Store(absl::StatusOr<T>&& value, void* const* results,
                                           DirectCall& call, uint32_t first) {
    if (!value.ok()) [[unlikely]] {
      call.ReportError(std::move(value).status());
      return;
    }
    CallReturn<T>::Store(*std::move(value), results, call, first);
  }
};
template <typename T>
  requires(kDirectScalar<T>)
struct CallReturn<AsyncValueRef<T>> {
  static constexpr bool kSupported = true;
  static constexpr bool kAsync = true;
  static constexpr uint32_t kCount = 1;
  static void Types(uint16_t* types) { types[0] = AsyncValueTypeId<T>(); }
  static constexpr DirectBox kBoxes[1] = {&BoxDirectPayload<T>};
  [[gnu::always_inline]] static void Store(AsyncValueRef<T>&& value, void* const*,
                                           DirectCall& call, uint32_t first) {
    if (!call.ok()) [[unlikely]] return;
    call.SetValue(first, value.ReleaseRCRef());
  }
};
template <typename R, typename = void>
struct ReturnsAsync : std::false_type {};
template <typename R>
struct ReturnsAsync<R, std::void_t<decltype(CallReturn<R>::kAsync)>> : std::true_type {};

template <typename F, F function, bool kPure = false>
struct KernelImpl;

template <typename Return, typename... Params, Return (*function)(Params...), bool kPure>
struct KernelImpl<Return (*)(Params...), function, kPure> {
  static_assert(CheckedParameterOrder<KernelParameter, Params...>::kValid);
  static constexpr auto kIndices = ParameterIndices<Params...>();
  static constexpr size_t kNumResultParameters =
      CountKind<Params...>(ParameterKind::kResult);

  static void Invoke(AsyncKernelFrame* frame) {
    InvokeImpl(frame, std::index_sequence_for<Params...>());
  }

  template <size_t... I>
  static void InvokeImpl(AsyncKernelFrame* frame, std::index_sequence<I...>) {
    // Typed operands are checked (one type-id compare each): without a
    // RegisterTypes section nothing else guarantees them, and reading a
    // value as another type would read the wrong memory.
    if (!(ArgumentCheck<Params>::Matches(frame, kIndices[I]) && ...)) [[unlikely]] {
      size_t index = 0;
      std::string_view expected;
      bool found = false;
      ((ArgumentCheck<Params>::Matches(frame, kIndices[I]) ||
        (!found && ((index = kIndices[I]), (expected = ArgumentCheck<Params>::type_name),
                    (found = true)))),
       ...);
      ReportArgumentTypeError(frame, index, expected);
      return;
    }
    if constexpr (std::is_void_v<Return>) {
      function(KernelParameter<Params>::Build(frame, kIndices[I])...);
    } else {
      ReturnHandler<Return>::Store(
          frame, kNumResultParameters,
          function(KernelParameter<Params>::Build(frame, kIndices[I])...));
    }
  }

  static KernelSignature Signature() {
    KernelSignature signature;
    signature.known = true;
    AppendParameterSignature<KernelParameter, Params...>(signature, !std::is_void_v<Return>);
    if constexpr (!std::is_void_v<Return>) {
      ReturnHandler<Return>::AppendTypes(signature);
    }
    return signature;
  }

  // ---- The direct entry point (DirectKernel), for kernels whose
  // parameters are all Argument<T> / Attribute<T> and that return a scalar.
  static constexpr bool kDirectParameters =
      kPure ? (DirectParameter<Params>::kSupportedPure && ...)
            : (DirectParameter<Params>::kSupported && ...);
  static constexpr bool kDirect =
      kDirectParameters &&
      (kPure ? kDirectResultSupportedPure<Return> : DirectResult<Return>::kSupported);
  // Fallible or several results: the try_run entry point.
  static constexpr bool kTryDirect =
      kDirectParameters && !kDirect &&
      (kPure ? DirectResults<Return>::kSupportedPure : DirectResults<Return>::kSupported);
  static_assert(!kPure || kDirect || kTryDirect,
                "BEF_PURE_KERNEL: the kernel has no direct entry point (parameters other "
                "than Argument<T> / Attribute<T>, or results other than scalars and chains)");

  static void RunDirect(const void* const* operands, const uint8_t* attribute_pool,
                        const uint32_t* attribute_offsets, void* result) {
    RunDirectImpl(operands, attribute_pool, attribute_offsets, result,
                  std::index_sequence_for<Params...>());
  }
  template <size_t... I>
  // (A kernel of no parameters reads none of them.)
  [[gnu::always_inline]] static void RunDirectImpl(
      [[maybe_unused]] const void* const* operands, [[maybe_unused]] const uint8_t* attribute_pool,
      [[maybe_unused]] const uint32_t* attribute_offsets, void* result,
      std::index_sequence<I...>) {
    ::new (result) Return(function(DirectParameter<Params>::Build(
        operands, attribute_pool, attribute_offsets, kIndices[I])...));
  }
  static AsyncValue* BoxDirect(const void* result) { return BoxDirectPayload<Return>(result); }
  static bool TryRunDirect(const void* const* operands, const uint8_t* attribute_pool,
                           const uint32_t* attribute_offsets, void* const* results) {
    return TryRunDirectImpl(operands, attribute_pool, attribute_offsets, results,
                            std::index_sequence_for<Params...>());
  }
  template <size_t... I>
  [[gnu::always_inline]] static bool TryRunDirectImpl(
      [[maybe_unused]] const void* const* operands, [[maybe_unused]] const uint8_t* attribute_pool,
      [[maybe_unused]] const uint32_t* attribute_offsets, void* const* results,
      std::index_sequence<I...>) {
    return DirectResults<Return>::Store(
        function(DirectParameter<Params>::Build(operands, attribute_pool, attribute_offsets,
                                                kIndices[I])...),
        results);
  }
  // try_run shaped as `run` (DirectKernel::run_step): result i's payload
  // at result + i * kDirectResultSize.
  static void TryStepDirect(const void* const* operands, const uint8_t* attribute_pool,
                            const uint32_t* attribute_offsets, void* result) {
    constexpr uint32_t kCount = DirectResults<Return>::kCount;
    const ConsecutiveResults<kCount> results(result);
    if (!TryRunDirectImpl(operands, attribute_pool, attribute_offsets, results.slots,
                          std::index_sequence_for<Params...>())) [[unlikely]] {
      line_kernel_failed = true;
      // Defined payloads (a false i1, zeros) for whatever a straight-line
      // run still runs before it looks at the flag and abandons the run.
      std::memset(result, 0, kCount * kDirectResultSize);
    }
  }
  static void DirectOperandTypes(uint16_t* operand_types) {
    size_t operand = 0;
    ((DirectParameter<Params>::kOperand
          ? void(operand_types[operand++] = DirectParameter<Params>::Type())
          : void()),
     ...);
  }
  // Bit i: operand i is read by reference (DirectKernel::reference_operands).
  static constexpr uint32_t ReferenceOperands() {
    uint32_t bits = 0;
    uint32_t operand = 0;
    ((DirectParameter<Params>::kOperand
          ? void(bits |= (DirectParameter<Params>::kByReference ? 1u : 0u) << operand++)
          : void()),
     ...);
    return bits;
  }
  static uint16_t DirectTypes(uint16_t* operand_types) {
    DirectOperandTypes(operand_types);
    if constexpr (kDirect) {
      return AsyncValueTypeId<Return>();
    } else {
      uint16_t result_types[kMaxDirectResults];
      DirectResults<Return>::Types(result_types);
      return result_types[0];
    }
  }

  // ---- The call entry point (DirectKernel::call): every other kernel
  // whose parameters and return value a direct call can build and take
  // (DirectParameter::kSupportedCall, CallReturn), with at most
  // kMaxDirectResults results, at least one.
  static constexpr uint32_t kCallResults =
      static_cast<uint32_t>(kNumResultParameters) + CallReturn<Return>::kCount;
  static constexpr bool kCall = !kPure && !kDirect && !kTryDirect &&
                                (DirectParameter<Params>::kSupportedCall && ...) &&
                                CallReturn<Return>::kSupported && kCallResults >= 1 &&
                                kCallResults <= kMaxDirectResults;

  static bool CallDirect(const void* const* operands, const uint8_t* attribute_pool,
                         const uint32_t* attribute_offsets, void* const* results,
                         DirectCall& call) {
    return CallDirectImpl(operands, attribute_pool, attribute_offsets, results, call,
                          std::index_sequence_for<Params...>());
  }
  template <size_t... I>
  [[gnu::always_inline]] static bool CallDirectImpl(
      [[maybe_unused]] const void* const* operands, [[maybe_unused]] const uint8_t* attribute_pool,
      [[maybe_unused]] const uint32_t* attribute_offsets, void* const* results, DirectCall& call,
      std::index_sequence<I...>) {
    if constexpr (std::is_void_v<Return>) {
      function(DirectParameter<Params>::BuildCall(operands, attribute_pool, attribute_offsets,
                                                  results, call, kIndices[I])...);
    } else {
      CallReturn<Return>::Store(
          function(DirectParameter<Params>::BuildCall(operands, attribute_pool,
                                                      attribute_offsets, results, call,
                                                      kIndices[I])...),
          results + kNumResultParameters, call, static_cast<uint32_t>(kNumResultParameters));
    }
    // Done on the line when every result's payload is in its register.
    return call.emplaced == (1u << kCallResults) - 1 && call.valued == 0 && call.ok();
  }
  // `call` shaped as `run` (DirectKernel::run_step): result i's payload
  // at result + i * kDirectResultSize.
  static void CallStepDirect(const void* const* operands, const uint8_t* attribute_pool,
                             const uint32_t* attribute_offsets, void* result) {
    DirectCall& call = line_direct_call;
    BEF_DEBUG_CHECK(call.host != nullptr && call.valued == 0 && call.ok(),
                    "a call step ran outside a segment runner, or after an unread one");
    call.emplaced = 0;
    const ConsecutiveResults<kCallResults> results(result);
    if (!CallDirectImpl(operands, attribute_pool, attribute_offsets, results.slots, call,
                        std::index_sequence_for<Params...>())) [[unlikely]] {
      line_kernel_failed = true;
      line_call_incomplete = true;
    }
  }
  // Result types and boxes: the Result<T> parameters', then the return's.
  static void CallResultTypes(uint16_t* types) {
    size_t i = 0;
    [[maybe_unused]] auto add = [&](auto tag) {
      using P = typename decltype(tag)::type;
      if constexpr (DirectParameter<P>::kResult) types[i++] = DirectParameter<P>::Type();
    };
    (add(std::type_identity<Params>()), ...);
    CallReturn<Return>::Types(types + i);
  }
  static constexpr std::array<DirectBox, kMaxDirectResults> CallBoxes() {
    std::array<DirectBox, kMaxDirectResults> boxes{};
    size_t i = 0;
    [[maybe_unused]] auto add = [&](auto tag) {
      using P = typename decltype(tag)::type;
      if constexpr (DirectParameter<P>::kResult) {
        if (i < kMaxDirectResults) boxes[i++] = &BoxDirectPayload<typename DirectParameter<P>::Payload>;
      }
    };
    (add(std::type_identity<Params>()), ...);
    for (uint32_t r = 0; r < CallReturn<Return>::kCount && i < kMaxDirectResults; ++r) {
      boxes[i++] = CallReturn<Return>::kBoxes[r];
    }
    return boxes;
  }
  static constexpr std::array<DirectBox, kMaxDirectResults> kCallBoxes = CallBoxes();
  static uint16_t CallTypes(uint16_t* operand_types) {
    DirectOperandTypes(operand_types);
    uint16_t result_types[kMaxDirectResults];
    CallResultTypes(result_types);
    return result_types[0];
  }

  static KernelDefinition<AsyncKernelImplementation> Definition() {
    if constexpr (kCall) {
      DirectKernel direct;
      direct.call = &CallDirect;
      direct.may_enqueue = (MayEnqueue<Params>::value || ...) || ReturnsAsync<Return>::value;
      direct.box = kCallBoxes[0];
      direct.boxes = kCallBoxes.data();
      direct.types = &CallTypes;
      direct.result_types = &CallResultTypes;
      direct.num_operands = CountKind<Params...>(ParameterKind::kArgument);
      direct.num_results = kCallResults;
      direct.reference_operands = ReferenceOperands();
      // (An async call step's runner calls `call` itself.)
      if (!direct.may_enqueue) direct.run_step = &CallStepDirect;
      return {&Invoke, Signature(), direct};
    } else if constexpr (kDirect) {
      DirectKernel direct;
      direct.run = &RunDirect;
      direct.box = &BoxDirect;
      direct.types = &DirectTypes;
      direct.num_operands = CountKind<Params...>(ParameterKind::kArgument);
      direct.reference_operands = ReferenceOperands();
      return {&Invoke, Signature(), direct};
    } else if constexpr (kTryDirect) {
      DirectKernel direct;
      direct.try_run = &TryRunDirect;
      direct.box = DirectResults<Return>::kBoxes[0];
      direct.boxes = DirectResults<Return>::kBoxes;
      direct.types = &DirectTypes;
      direct.result_types = &DirectResults<Return>::Types;
      direct.num_operands = CountKind<Params...>(ParameterKind::kArgument);
      direct.num_results = DirectResults<Return>::kCount;
      direct.reference_operands = ReferenceOperands();
      direct.run_step = &TryStepDirect;
      return {&Invoke, Signature(), direct};
    } else {
      return {&Invoke, Signature()};
    }
  }
};

}  // namespace internal

#define BEF_KERNEL(...) \
  ::bef::internal::KernelImpl<decltype(&__VA_ARGS__), &__VA_ARGS__>::Definition()

// BEF_KERNEL for a kernel that reads only its operands and attributes and has
// no other effect (what its chain results order is nothing of its own): its
// direct entry point may also read operands of any payload type by
// reference (Argument<DenseHostTensor>, ...) and return chains, so the
// executor can call it without a frame wherever its operands are
// available values of the types it reads (the straight line, segments;
// execution_plan.h). Taking only Argument<T> / Attribute<T> and returning
// scalars or chains (or absl::StatusOr / std::pair / std::tuple of them) is
// required. Its frame implementation stays what BEF_KERNEL makes: a kernel
// whose frame path must check operands itself (RemainingArguments, error
// messages of its own) takes the direct entry point of a typed twin:
//   auto definition = BEF_KERNEL(Checked);
//   definition.direct = BEF_PURE_KERNEL(Typed).direct;  // same attributes
#define BEF_PURE_KERNEL(...)                                                     \
  ::bef::internal::KernelImpl<decltype(&__VA_ARGS__), &__VA_ARGS__, /*kPure=*/true>:: \
      Definition()

}  // namespace bef

#endif  // BEF_HOST_KERNEL_UTILS_H_
