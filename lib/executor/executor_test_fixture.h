// Test fixture for executor tests: a HostContext with the kernel
// libraries on the work queue named by the test parameter, loading BefWriter
// programs and running their functions to completion.
#ifndef BEF_LIB_EXECUTOR_EXECUTOR_TEST_FIXTURE_H_
#define BEF_LIB_EXECUTOR_EXECUTOR_TEST_FIXTURE_H_

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "bef/async/async_value_ref.h"
#include "bef/executor/bef_program.h"
#include "bef/format/bef_writer.h"
#include "lib/testing/program_builder.h"
#include "bef/format/format_error.h"
#include "gtest/gtest.h"

namespace bef::testing {

class ExecutorFixture : public ::testing::TestWithParam<const char*> {
 protected:
  ExecutorFixture() {
    host_ = std::make_unique<HostContext>(
        [this](const DecodedDiagnostic& diagnostic) {
          std::lock_guard<std::mutex> lock(mutex_);
          diagnostics_.push_back(diagnostic.message());
        },
        CreateMallocAllocator(), CreateWorkQueue(GetParam()).value());
    RegisterStaticKernels(&host_->kernel_registry());
    RegisterStaticNativeFunctions(&host_->native_functions());
  }

  std::unique_ptr<BefProgram> Load(BefWriter& writer) {
    absl::StatusOr<std::vector<uint8_t>> bytes = writer.Finish();
    EXPECT_TRUE(bytes.ok()) << bytes.status();
    absl::StatusOr<std::unique_ptr<BefProgram>> program =
        BefProgram::FromBuffer(host_.get(), *bytes);
    EXPECT_TRUE(program.ok()) << DescribeFormatError(program.status());
    return program.ok() ? std::move(program).value() : nullptr;
  }

  std::vector<RCReference<AsyncValue>> Run(
      const BefProgram& program, std::string_view name,
      std::vector<AsyncValue*> arguments = {},
      RCReference<RequestContext> request = nullptr) {
    const Function* function = program.GetFunction(name);
    EXPECT_NE(function, nullptr) << name;
    if (!request) request = RequestContext::Create(host_.get(), &resources_);
    ExecutionContext context(request);
    std::vector<RCReference<AsyncValue>> results(function->num_results());
    function->Execute(context, arguments, results);
    host_->Await(results);
    host_->Quiesce();
    return results;
  }

  static int32_t I32(const RCReference<AsyncValue>& value) {
    EXPECT_TRUE(value->IsConcrete())
        << (value->IsError() ? value->GetError().ToString() : "unavailable");
    return value->IsConcrete() ? value->get<int32_t>() : -999;
  }

  std::unique_ptr<HostContext> host_;
  ResourceContext resources_;
  std::mutex mutex_;
  std::vector<std::string> diagnostics_;
};

}  // namespace bef::testing

#endif  // BEF_LIB_EXECUTOR_EXECUTOR_TEST_FIXTURE_H_
