// Long dependent chains, deep recursion and long loops complete on the
// default 8 MB stack: the executor and the loop kernels iterate instead of
// recursing. (It passes under --config=asan too, in about 3 minutes; the
// sanitizer passes of scripts/test.sh skip it, tag no_sanitizers, for time.)
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "bef/async/async_value_ref.h"
#include "bef/executor/bef_program.h"
#include "bef/format/bef_writer.h"
#include "bef/format/format_error.h"
#include "bef/host/kernel_utils.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/executor/executor_test_fixture.h"

namespace bef {
namespace {

using StackDepthTest = testing::ExecutorFixture;
using testing::Add;
using testing::Constant;

TEST_P(StackDepthTest, MillionKernelChainOnTheDefaultStack) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"i32"});
  uint32_t one = Constant(f, 1);
  uint32_t value = one;
  for (int i = 0; i < 1'000'000; ++i) value = Add(f, value, one);
  f.Return({value});
  auto program = Load(writer);
  EXPECT_EQ(I32(Run(*program, "f")[0]), 1'000'001);
}

// f(n) = n <= 0 ? 0 : f(n - 1) + 1, through tfrt.if and tfrt.call.
TEST_P(StackDepthTest, RecursionHundredThousandLevelsDeep) {
  BefWriter writer;
  // Index order: then-region, else-region, f.
  auto& base = writer.AddFunction(FunctionKind::kBefFunction, "", {"i32"}, {"i32"});
  base.Return({Constant(base, 0)});
  auto& step = writer.AddFunction(FunctionKind::kBefFunction, "", {"i32"}, {"i32"});
  uint32_t step_one = Constant(step, 1);
  uint32_t minus = step.AddKernel("tfrt.minus.i32").AddArgument(0)
                       .AddArgument(step_one).AddResult("i32");
  uint32_t inner = step.AddKernel("tfrt.call").AddArgument(minus).AddFunction(2).AddResult("i32");
  step.Return({Add(step, inner, step_one)});
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"}, {"i32"});
  uint32_t zero = Constant(f, 0);
  uint32_t done = f.AddKernel("tfrt.lessequal.i32").AddArgument(0)
                      .AddArgument(zero).AddResult("i1");
  f.Return({f.AddKernel("tfrt.if").AddArgument(done).AddArgument(0)
                .AddFunction(base.index()).AddFunction(step.index()).AddResult("i32")});
  auto program = Load(writer);
  AsyncValueRef<int32_t> n = MakeAvailableAsyncValueRef<int32_t>(100'000);
  EXPECT_EQ(I32(Run(*program, "f", {n.GetAsyncValue()})[0]), 100'000);
}

TEST_P(StackDepthTest, RepeatTenMillionIterationsWithASyncBody) {
  BefWriter writer;
  auto& body = writer.AddFunction(FunctionKind::kBefFunction, "", {"i32"}, {"i32"});
  uint32_t body_one = Constant(body, 1);
  body.Return({Add(body, 0, body_one)});
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"i32"});
  uint32_t count = Constant(f, 10'000'000);
  uint32_t zero = Constant(f, 0);
  f.Return({f.AddKernel("tfrt.repeat.i32").AddArgument(count)
                .AddArgument(zero).AddFunction(body.index()).AddResult("i32")});
  auto program = Load(writer);
  EXPECT_EQ(I32(Run(*program, "f")[0]), 10'000'000);
}

TEST_P(StackDepthTest, WhileMillionIterations) {
  BefWriter writer;
  // body(i) -> (i + 1, i + 1 < 1000000)
  auto& body = writer.AddFunction(FunctionKind::kBefFunction, "body", {"i32"}, {"i32", "i1"});
  uint32_t body_one = Constant(body, 1);
  uint32_t next = Add(body, 0, body_one);
  uint32_t limit = Constant(body, 999'999);
  uint32_t more = body.AddKernel("tfrt.lessequal.i32").AddArgument(next)
                      .AddArgument(limit).AddResult("i1");
  body.Return({next, more});
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"i32"});
  uint32_t go = f.AddKernel("tfrt.constant.i1").AddAttribute(BefAttribute::Bool(true), "value").AddResult("i1");
  uint32_t zero = Constant(f, 0);
  f.Return({f.AddKernel("tfrt.while").AddArgument(go).AddArgument(zero)
                .AddAttribute(BefAttribute::I64(1), "parallel_iterations")
                .AddFunction(body.index()).AddResult("i32")});
  auto program = Load(writer);
  EXPECT_EQ(I32(Run(*program, "f")[0]), 1'000'000);
}


INSTANTIATE_TEST_SUITE_P(WorkQueues, StackDepthTest, ::testing::Values("s", "mstd:2"));

}  // namespace
}  // namespace bef
