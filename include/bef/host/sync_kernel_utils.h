// The typed ABI of sync kernels (BEF_SYNC_KERNEL), on the parameter
// machinery of kernel_utils.h: the same attribute wrappers and layouts, the
// same parameter numbering and signature derivation, with plain values for
// operands and results (sync functions run on the sequential interpreter,
// no AsyncValues).
//
//   static int32_t AddI32(int32_t a, const int32_t& b) { return a + b; }
//   registry->AddSyncKernel("tfrt.add.i32", BEF_SYNC_KERNEL(AddI32));
//
// Parameters: `T`, `T&` or `const T&` (the next operand's value), any
// attribute wrapper of kernel_utils.h (Attribute<T>, ArrayAttribute<T>,
// StringAttribute, DenseAttribute, ShapeAttribute, AggregateAttribute,
// TypeAttribute), `const ExecutionContext&` or `SyncKernelFrame*` (which
// takes every operand, attribute and result). Return: void, T,
// std::tuple<...>, absl::StatusOr<...> or absl::Status (an error is the
// function's error).
#ifndef BEF_HOST_SYNC_KERNEL_UTILS_H_
#define BEF_HOST_SYNC_KERNEL_UTILS_H_

#include "bef/host/kernel_utils.h"

namespace bef {
namespace internal {

// A parameter type whose AttributeLayout is known is an attribute wrapper.
template <typename T>
concept AttributeWrapper = requires { AttributeLayout<T>::value; };

template <typename T>
struct SyncKernelParameter {
  // A plain operand: T, T& or const T&.
  static constexpr ParameterKind kind = ParameterKind::kArgument;
  using Value = std::remove_cv_t<std::remove_reference_t<T>>;
  static T Build(SyncKernelFrame* frame, size_t index) {
    return frame->GetArgAt(index)->template get<Value>();
  }
  static constexpr std::string_view type_name = BefTypeName<Value>::value;
};
template <AttributeWrapper T>
struct SyncKernelParameter<T> {
  static constexpr ParameterKind kind = ParameterKind::kAttribute;
  static constexpr uint8_t layout = AttributeLayout<T>::value;
  static T Build(SyncKernelFrame* frame, size_t index) { return T(frame->GetAttributeAt(index)); }
};
template <>
struct SyncKernelParameter<const ExecutionContext&> {
  static constexpr ParameterKind kind = ParameterKind::kOther;
  static const ExecutionContext& Build(SyncKernelFrame* frame, size_t) {
    return frame->GetExecutionContext();
  }
};
template <>
struct SyncKernelParameter<SyncKernelFrame*> {
  static constexpr ParameterKind kind = ParameterKind::kOther;
  static constexpr VariadicFlags variadic{true, true, true};
  static SyncKernelFrame* Build(SyncKernelFrame* frame, size_t) { return frame; }
};

template <typename T>
struct SyncReturnHandler {
  static constexpr size_t num_results = 1;
  static void Store(SyncKernelFrame* frame, size_t index, T&& value) {
    frame->EmplaceResultAt<T>(index, std::move(value));
  }
  static void AppendTypes(KernelSignature& signature) {
    signature.results.push_back(BefTypeName<T>::value);
  }
};
template <typename... Ts>
struct SyncReturnHandler<std::tuple<Ts...>> {
  static constexpr size_t num_results = sizeof...(Ts);
  static void Store(SyncKernelFrame* frame, size_t index, std::tuple<Ts...>&& values) {
    StoreAll(frame, index, std::move(values), std::index_sequence_for<Ts...>());
  }
  template <size_t... I>
  static void StoreAll(SyncKernelFrame* frame, size_t index, std::tuple<Ts...>&& values,
                       std::index_sequence<I...>) {
    (frame->EmplaceResultAt<Ts>(index + I, std::move(std::get<I>(values))), ...);
  }
  static void AppendTypes(KernelSignature& signature) {
    (signature.results.push_back(BefTypeName<Ts>::value), ...);
  }
};
template <typename T>
struct SyncReturnHandler<absl::StatusOr<T>> {
  static void Store(SyncKernelFrame* frame, size_t index, absl::StatusOr<T>&& value) {
    if (value.ok()) {
      SyncReturnHandler<T>::Store(frame, index, std::move(value).value());
    } else {
      frame->SetError(std::move(value).status());
    }
  }
  static void AppendTypes(KernelSignature& signature) {
    SyncReturnHandler<T>::AppendTypes(signature);
  }
};
template <>
struct SyncReturnHandler<absl::Status> {
  static void Store(SyncKernelFrame* frame, size_t, absl::Status&& status) {
    if (!status.ok()) frame->SetError(std::move(status));
  }
  static void AppendTypes(KernelSignature&) {}
};

// Whether a plain operand holds the type the kernel reads (a chain is
// never read).
template <typename P>
bool SyncArgumentMatches(SyncKernelFrame* frame, size_t index) {
  if constexpr (SyncKernelParameter<P>::kind == ParameterKind::kArgument) {
    using Value = typename SyncKernelParameter<P>::Value;
    if constexpr (std::is_same_v<Value, Chain>) {
      return true;
    } else {
      SyncValue* value = frame->GetArgAt(index);
      return value->HasValue() && value->template IsType<Value>();
    }
  } else {
    return true;
  }
}

template <typename F, F function>
struct SyncKernelImpl;

template <typename Return, typename... Params, Return (*function)(Params...)>
struct SyncKernelImpl<Return (*)(Params...), function> {
  static constexpr auto kIndices = ParameterIndicesOf<SyncKernelParameter, Params...>();

  static void Invoke(SyncKernelFrame* frame) {
    InvokeImpl(frame, std::index_sequence_for<Params...>());
  }
  template <size_t... I>
  static void InvokeImpl(SyncKernelFrame* frame, std::index_sequence<I...>) {
    // Plain operands are checked like async ones (KernelImpl).
    if (!(SyncArgumentMatches<Params>(frame, kIndices[I]) && ...)) [[unlikely]] {
      frame->SetError(absl::InvalidArgumentError(
          "an operand is not a value of the type the kernel reads"));
      return;
    }
    if constexpr (std::is_void_v<Return>) {
      function(SyncKernelParameter<Params>::Build(frame, kIndices[I])...);
    } else {
      SyncReturnHandler<Return>::Store(
          frame, 0, function(SyncKernelParameter<Params>::Build(frame, kIndices[I])...));
    }
  }
  static KernelSignature Signature() {
    KernelSignature signature;
    signature.known = true;
    AppendParameterSignature<SyncKernelParameter, Params...>(signature,
                                                             !std::is_void_v<Return>);
    if constexpr (!std::is_void_v<Return>) {
      SyncReturnHandler<Return>::AppendTypes(signature);
    }
    return signature;
  }
  static KernelDefinition<SyncKernelImplementation> Definition() {
    return {&Invoke, Signature()};
  }
};

}  // namespace internal

#define BEF_SYNC_KERNEL(...) \
  ::bef::internal::SyncKernelImpl<decltype(&__VA_ARGS__), &__VA_ARGS__>::Definition()

}  // namespace bef

#endif  // BEF_HOST_SYNC_KERNEL_UTILS_H_
