// Native functions: C++ callables a BEF file declares by name (function kind
// 1, `tfrt.native` declarations) and the loader resolves at load.
//
// A native function receives available arguments and must set every result
// (errors are returned as error values; they are not reported). The executor
// defers the call until all arguments are available.
#ifndef BEF_HOST_NATIVE_FUNCTION_H_
#define BEF_HOST_NATIVE_FUNCTION_H_

#include <span>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "bef/async/async_value.h"
#include "bef/async/rc_reference.h"

namespace bef {

class HostContext;

using NativeCallable = void (*)(std::span<AsyncValue* const> arguments,
                                std::span<RCReference<AsyncValue>> results,
                                HostContext* host);

class NativeFunctionRegistry {
 public:
  void Add(std::string_view name, NativeCallable callable) {
    functions_[std::string(name)] = callable;
  }
  // Null when `name` is not registered.
  NativeCallable Find(std::string_view name) const {
    auto it = functions_.find(std::string(name));
    return it == functions_.end() ? nullptr : it->second;
  }

 private:
  absl::flat_hash_map<std::string, NativeCallable> functions_;
};

using NativeFunctionRegistration = void (*)(NativeFunctionRegistry* registry);
bool AddStaticNativeFunctionRegistration(NativeFunctionRegistration registration);
void RegisterStaticNativeFunctions(NativeFunctionRegistry* registry);

#define BEF_STATIC_NATIVE_FUNCTION_REGISTRATION(function) \
  BEF_STATIC_NATIVE_FUNCTION_REGISTRATION_IMPL(function, __COUNTER__)
#define BEF_STATIC_NATIVE_FUNCTION_REGISTRATION_IMPL(function, counter) \
  BEF_STATIC_NATIVE_FUNCTION_REGISTRATION_IMPL2(function, counter)
#define BEF_STATIC_NATIVE_FUNCTION_REGISTRATION_IMPL2(function, counter) \
  [[maybe_unused]] static const bool bef_native_registration_##counter =  \
      ::bef::AddStaticNativeFunctionRegistration(function)

}  // namespace bef

#endif  // BEF_HOST_NATIVE_FUNCTION_H_
