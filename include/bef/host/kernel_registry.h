// KernelRegistry: kernel name -> implementation and signature.
//
// Kernel libraries register with BEF_STATIC_KERNEL_REGISTRATION at static
// initialization; RegisterStaticKernels() copies them into a registry (the
// BefFile loader resolves every kernel name of a file against it once, at
// load). A signature lists the BEF type names of the arguments and results
// ("" accepts any type), so the loader can check a file's register types.
//
// Deferred registration: a library whose kernel names all belong to known
// dialects (the part of the name before the first '.': "tfrt_dht" for
// tfrt_dht.make_tensor.i32) registers with
// BEF_STATIC_KERNEL_REGISTRATION_FOR_DIALECTS, and the registry runs it only
// when a kernel of one of those dialects is first looked up or added (or all
// names are listed). A process pays at start-up only for the kernel
// libraries its programs use: registering every kernel bef_executor links
// was most of its own start-up work (docs/performance.md).
#ifndef BEF_HOST_KERNEL_REGISTRY_H_
#define BEF_HOST_KERNEL_REGISTRY_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"

namespace bef {

class AsyncKernelFrame;
class AsyncValue;
class SyncKernelFrame;

using AsyncKernelImplementation = void (*)(AsyncKernelFrame* frame);
using SyncKernelImplementation = void (*)(SyncKernelFrame* frame);

// The executor's fast entry point of a kernel that only reads typed
// scalar operands and scalar attributes and returns one scalar that cannot
// fail (tfrt.add.i32, tfrt.constant.i32, ...). BEF_KERNEL derives it from
// the kernel's C++ signature; the kernel function is the same.
//
// The executor works on payloads, not values: `run` reads operand i through
// `operands[i]` (a pointer to the operand's payload, of the type
// `operand_types` names) and writes the result's payload to `result`
// (kDirectResultSize bytes, 8-aligned). A result that only direct kernels
// read is kept unboxed in the executor's register -- no AsyncValue, no
// allocation, no reference count; `box` makes a value of it when a value
// is needed. No frame exists, so the kernel must not keep its operands
// (Argument<T>::value() is null in a direct call).
//
// Called only when every operand is available, not an error and of the
// type `run` reads; otherwise the executor runs the frame-based
// implementation, which reports the error. A pure kernel (BEF_PURE_KERNEL)
// may read operands of other payload types by reference: bit i of
// `reference_operands` set means operands[i] points at a register holding
// the address of operand i's payload (inside its value, which outlives the
// call), not at the payload.
//
// Kernels that can fail (absl::StatusOr results) or have several scalar
// results (std::pair, std::tuple) have `try_run` instead of `run`: it writes
// result i's payload to results[i] and returns false, leaving the error for
// the frame path to report, when the kernel fails. The executor then runs the
// same kernel through its frame on the same operands, which reports the
// error at the kernel's location: the function is called twice on an error
// (direct kernels read only their operands and attributes, so that is
// unobservable), never on success.
using DirectBox = AsyncValue* (*)(const void* result);
struct DirectCall;
struct DirectKernel {
  void (*run)(const void* const* operands, const uint8_t* attribute_pool,
              const uint32_t* attribute_offsets, void* result) = nullptr;
  bool (*try_run)(const void* const* operands, const uint8_t* attribute_pool,
                  const uint32_t* attribute_offsets, void* const* results) = nullptr;
  // Every other kernel whose signature a frame-less call can build (kernel_
  // utils.h, DirectParameter::kSupportedCall: operands of any payload type,
  // Result<T>s of scalars and chains, a KernelErrorHandler, the contexts;
  // returning nothing, a status, scalars, chains, an AsyncValueRef of a
  // scalar): `call` writes result i's payload to results[i] and returns
  // true when the kernel set each of them so; otherwise `call_state` says
  // what it did instead (an error it reported, results given as values,
  // results not set), and the executor makes the results of that, as the
  // frame path would have: the kernel runs once either way. Kernels with
  // effects of their own are among these, so the executor runs them only
  // where the dataflow path would run them, in its order (segments).
  bool (*call)(const void* const* operands, const uint8_t* attribute_pool,
               const uint32_t* attribute_offsets, void* const* results,
               DirectCall& call_state) = nullptr;
  // `call` of a kernel that reaches the work queue (takes a HostContext* or
  // const ExecutionContext&) or returns an AsyncValueRef: its results may
  // come from a task. The executor runs it where the dataflow path would,
  // takes the first task it enqueues and runs that from a task of its own,
  // with the kernel's users after it (execution_plan.h, "async call
  // steps"): no frame, waiter or second task per kernel.
  bool may_enqueue = false;
  // `try_run` or `call` (not an async call step's) shaped as `run`: writes
  // result i's payload to result + i * kDirectResultSize, and reports a
  // failure, or a call that did not end with its payloads in place, as the
  // executor's own trampoline for try and call steps would (kernel_utils.h,
  // line_kernel_failed): the executor calls it as the step itself, with the
  // kernel's attributes, one call instead of two, where the kernel's
  // results are consecutive registers (as the converter numbers them).
  void (*run_step)(const void* const* operands, const uint8_t* attribute_pool,
                   const uint32_t* attribute_offsets, void* result) = nullptr;
  // A new available value (one reference) holding the payload at `result`
  // (result 0's; `boxes` has one per result).
  DirectBox box = nullptr;
  const DirectBox* boxes = nullptr;
  // Writes the AsyncValue type id of each operand's payload to
  // operand_types[0, num_operands) (kAnyOperandType: not read) and returns
  // result 0's. Type ids are assigned at run time, hence a function.
  uint16_t (*types)(uint16_t* operand_types) = nullptr;
  // Writes each result's type id to result_types[0, num_results).
  void (*result_types)(uint16_t* result_types) = nullptr;
  uint32_t num_operands = 0;
  uint32_t num_results = 1;
  uint32_t reference_operands = 0;

  explicit operator bool() const {
    return run != nullptr || try_run != nullptr || call != nullptr;
  }
};
// An operand whose payload a direct kernel does not read (a chain).
inline constexpr uint16_t kAnyOperandType = UINT16_MAX;
inline constexpr size_t kDirectResultSize = 8;
// Direct kernels have at most this many operands and results.
inline constexpr uint32_t kMaxDirectArguments = 8;
inline constexpr uint32_t kMaxDirectResults = 4;

struct KernelSignature {
  // Inline for the common sizes: hundreds of signatures are built at every
  // process start (docs/performance.md), most with at most 3 arguments,
  // 1 result and 8 attributes.
  // BEF type names; "" accepts any type.
  absl::InlinedVector<std::string_view, 3> arguments;
  absl::InlinedVector<std::string_view, 1> results;
  // The BEF attribute type each attribute is read as (0: not read through a
  // typed view). The loader verifies every attribute of a kernel with this
  // layout before the kernel can run.
  absl::InlinedVector<uint8_t, 8> attributes;
  // Function references read (const Function* parameters).
  uint32_t num_functions = 0;
  // Further arguments / results / attributes of any type (RemainingArguments,
  // ...).
  bool variadic_arguments = false;
  bool variadic_results = false;
  bool variadic_attributes = false;
  // Whether the signature is known at all (kernels registered without one
  // are not checked).
  bool known = false;
};

// Async kernels only: a kernel that calls one of its functions on its
// operands and returns that function's results, nothing else. The
// executor's straight-line plan runs such a call of a straight-line function
// in place, on payload registers (execution_plan.h).
//   kCall  function 0 on every operand (tfrt.call);
//   kIf    operand 0, an i1, picks function 0 (true) or 1 (false), called on
//          the other operands (tfrt.if, tfrt.cond).
enum class FunctionCallKind : uint8_t { kNone, kCall, kIf };

template <typename Implementation>
struct KernelDefinition {
  Implementation implementation = nullptr;
  KernelSignature signature;
  // Async kernels only; optional (see DirectKernel).
  DirectKernel direct;
  // Async kernels only: the kernel's one result is a chain, ready as soon
  // as the kernel runs, and it does nothing else (tfrt.new.chain,
  // tfrt.merge.chains). Where every operand is known to be an available
  // value (the executor's straight-line plan), running it is nothing.
  bool chain_only = false;
  FunctionCallKind function_call = FunctionCallKind::kNone;
};

// `definition` marked chain-only (see KernelDefinition::chain_only).
template <typename Implementation>
KernelDefinition<Implementation> ChainOnly(KernelDefinition<Implementation> definition) {
  definition.chain_only = true;
  return definition;
}

// `definition` marked as a function call of `kind` (see FunctionCallKind).
template <typename Implementation>
KernelDefinition<Implementation> FunctionCall(KernelDefinition<Implementation> definition,
                                              FunctionCallKind kind) {
  definition.function_call = kind;
  return definition;
}

struct KernelEntry {
  AsyncKernelImplementation async_implementation = nullptr;
  DirectKernel direct;  // when the signature is known
  bool chain_only = false;
  FunctionCallKind function_call = FunctionCallKind::kNone;
  SyncKernelImplementation sync_implementation = nullptr;
  KernelSignature async_signature;
  KernelSignature sync_signature;
};

class KernelRegistry;
using KernelRegistration = void (*)(KernelRegistry* registry);

// Adding kernels (AddKernel, AddSyncKernel, AddDeferredRegistration) must not
// race with anything else on the registry; lookups (Find) may run
// concurrently with each other, including the deferred registrations they
// trigger.
class KernelRegistry {
 public:
  // Adding a kernel of a dialect first runs that dialect's deferred
  // registrations, so a kernel added later replaces a deferred one of the
  // same name, as if every registration had run up front.
  void AddKernel(std::string_view name,
                 KernelDefinition<AsyncKernelImplementation> definition);
  void AddKernel(std::string_view name, AsyncKernelImplementation implementation);
  void AddSyncKernel(std::string_view name,
                     KernelDefinition<SyncKernelImplementation> definition);
  void AddSyncKernel(std::string_view name,
                     SyncKernelImplementation implementation);

  // Runs `registration` the first time a kernel of one of `dialects` is
  // looked up or added, or all names are listed. Every kernel it adds
  // should be of one of `dialects`: one that is not is still found, but
  // only by the lookup that misses and so runs every pending registration
  // (and it replaces a kernel of that name added since). `dialects` must
  // outlive the registry (string literals). Registrations run in the order
  // they were deferred.
  void AddDeferredRegistration(KernelRegistration registration,
                               std::span<const std::string_view> dialects);

  // Room for `kernels` more entries without rehashing.
  void Reserve(size_t kernels) { kernels_.reserve(kernels_.size() + kernels); }

  // Null when `name` is not registered. The entry is stable for the
  // registry's lifetime. Runs the deferred registrations of `name`'s dialect
  // first, and every pending one when those do not register it.
  const KernelEntry* Find(std::string_view name) const;
  // Deferred registrations that have not run yet.
  size_t num_deferred_pending() const {
    return deferred_pending_.load(std::memory_order_acquire);
  }
  // Both run every deferred registration first.
  size_t size() const;
  std::vector<std::string> Names() const;

  // The dialect of a kernel name: what precedes its first '.' (the whole
  // name if it has none).
  static std::string_view DialectOf(std::string_view name) {
    return name.substr(0, name.find('.'));
  }

 private:
  struct Deferred {
    KernelRegistration registration;
    std::span<const std::string_view> dialects;
    bool ran = false;
  };

  // The entry of `name`, created (empty) on first use.
  KernelEntry& Entry(std::string_view name);
  // Runs the deferred registrations of `dialect` (all of them when
  // `every_dialect`), unless one is running already (it is adding kernels).
  void RunDeferred(std::string_view dialect, bool every_dialect);
  // Find, size and Names are logically const: running a deferred
  // registration only makes the registry what it would have been had it run
  // up front. Serialized by mutex_ while any is pending.
  void RunDeferredForLookup(std::string_view dialect, bool every_dialect) const;

  // Registering every kernel is most of bef_executor's own start-up work,
  // so entries and names live in blocks (a few allocations for hundreds of
  // kernels, and a few pages touched) rather than one allocation each.
  static constexpr size_t kEntriesPerBlock = 64;
  static constexpr size_t kNameBlockSize = 4096;
  std::vector<std::unique_ptr<KernelEntry[]>> entry_blocks_;
  size_t entries_in_last_block_ = kEntriesPerBlock;
  std::vector<std::unique_ptr<char[]>> name_blocks_;
  char* name_cursor_ = nullptr;  // free space of the last name block
  size_t name_bytes_left_ = 0;
  // Keys point into name_blocks_ (or, for names longer than a block, their
  // own block).
  absl::flat_hash_map<std::string_view, KernelEntry*> kernels_;

  std::vector<Deferred> deferred_;
  // Deferred registrations not run yet; lookups take mutex_ while nonzero.
  std::atomic<size_t> deferred_pending_{0};
  // Whether a deferred registration is running (adding kernels).
  bool running_deferred_ = false;
  mutable std::mutex mutex_;
};

// Adds `registration` to the list RegisterStaticKernels runs.
bool AddStaticKernelRegistration(KernelRegistration registration);
// Adds `registration` to the list RegisterStaticKernels defers (see
// KernelRegistry::AddDeferredRegistration); `dialects` is static storage.
bool AddStaticKernelRegistration(KernelRegistration registration,
                                 std::span<const std::string_view> dialects);
// Runs every static registration on `registry`, or defers it to the first
// use of its dialects.
void RegisterStaticKernels(KernelRegistry* registry);

#define BEF_STATIC_KERNEL_REGISTRATION(function) \
  BEF_STATIC_KERNEL_REGISTRATION_IMPL(function, __COUNTER__)
#define BEF_STATIC_KERNEL_REGISTRATION_IMPL(function, counter) \
  BEF_STATIC_KERNEL_REGISTRATION_IMPL2(function, counter)
#define BEF_STATIC_KERNEL_REGISTRATION_IMPL2(function, counter)        \
  [[maybe_unused]] static const bool bef_kernel_registration_##counter = \
      ::bef::AddStaticKernelRegistration(function)

// A registration whose kernels all belong to the dialects listed (string
// literals), run on the first use of one of them:
//   BEF_STATIC_KERNEL_REGISTRATION_FOR_DIALECTS(RegisterShapeKernels, "ts");
#define BEF_STATIC_KERNEL_REGISTRATION_FOR_DIALECTS(function, ...) \
  BEF_STATIC_KERNEL_REGISTRATION_FOR_DIALECTS_IMPL(function, __COUNTER__, __VA_ARGS__)
#define BEF_STATIC_KERNEL_REGISTRATION_FOR_DIALECTS_IMPL(function, counter, ...) \
  BEF_STATIC_KERNEL_REGISTRATION_FOR_DIALECTS_IMPL2(function, counter, __VA_ARGS__)
#define BEF_STATIC_KERNEL_REGISTRATION_FOR_DIALECTS_IMPL2(function, counter, ...)   \
  static constexpr ::std::string_view bef_kernel_dialects_##counter[] = {__VA_ARGS__}; \
  [[maybe_unused]] static const bool bef_kernel_registration_##counter =              \
      ::bef::AddStaticKernelRegistration(function, bef_kernel_dialects_##counter)

}  // namespace bef

#endif  // BEF_HOST_KERNEL_REGISTRY_H_
