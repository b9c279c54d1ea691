// Kernel behaviours and error messages the golden corpus cannot reach (the
// stock driver has no request data, always has a resource context, ...),
// run through the executor on BefWriter programs.
#include <string>
#include <vector>

#include "bef/async/async_value_ref.h"
#include "bef/executor/bef_program.h"
#include "bef/format/bef_writer.h"
#include "lib/testing/program_builder.h"
#include "bef/format/format_error.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bef {
namespace {

using ::testing::ElementsAre;

class KernelMessagesTest : public ::testing::Test {
 protected:
  KernelMessagesTest()
      : host_(
            [this](const DecodedDiagnostic& diagnostic) {
              diagnostics_.push_back(diagnostic.message());
            },
            CreateMallocAllocator(), CreateSingleThreadedWorkQueue()) {
    RegisterStaticKernels(&host_.kernel_registry());
    RegisterStaticNativeFunctions(&host_.native_functions());
  }

  std::vector<RCReference<AsyncValue>> Run(BefWriter& writer, std::string_view name,
                                           RCReference<RequestContext> request) {
    absl::StatusOr<std::vector<uint8_t>> bytes = writer.Finish();
    EXPECT_TRUE(bytes.ok()) << bytes.status();
    auto program = BefProgram::FromBuffer(&host_, *bytes);
    EXPECT_TRUE(program.ok()) << DescribeFormatError(program.status());
    programs_.push_back(std::move(program).value());
    const Function* function = programs_.back()->GetFunction(name);
    ExecutionContext context(std::move(request));
    std::vector<RCReference<AsyncValue>> results(function->num_results());
    function->Execute(context, {}, results);
    host_.Await(results);
    host_.Quiesce();
    return results;
  }

  static std::string Error(const RCReference<AsyncValue>& value) {
    return value->IsError() ? std::string(value->GetError().message()) : "<no error>";
  }

  std::vector<std::string> diagnostics_;
  HostContext host_;
  std::vector<std::unique_ptr<BefProgram>> programs_;
};

uint32_t StringConstant(BefWriter::Function& f, const std::string& text) {
  return f.AddKernel("tfrt_test.get_string")
      .AddAttribute(BefAttribute::String(text), "value")
      .AddResult("!tfrt.string");
}

TEST_F(KernelMessagesTest, OnceRequiresAResourceContext) {
  BefWriter writer;
  auto& callee = writer.AddFunction(FunctionKind::kBefFunction, "seven", {}, {"i32"});
  callee.Return({callee.AddKernel("tfrt.constant.i32")
                     .AddAttribute(BefAttribute::I32(7), "value")
                     .AddResult("i32")});
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"i32"});
  f.Return({f.AddKernel("tfrt.once").AddFunction(callee.index()).AddResult("i32")});
  auto results = Run(writer, "f", RequestContext::Create(&host_, nullptr));
  EXPECT_EQ(Error(results[0]), "tfrt.once requires resource context");
  EXPECT_TRUE(diagnostics_.empty());  // not reported
}

TEST_F(KernelMessagesTest, OnceRunsOncePerResourceContext) {
  BefWriter writer;
  auto& callee = writer.AddFunction(FunctionKind::kBefFunction, "make", {}, {"i32"});
  callee.Return({callee.AddKernel("tfrt_test.async_constant.i32")
                     .AddAttribute(BefAttribute::I32(5), "value")
                     .AddResult("i32")});
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"i32", "i32"});
  uint32_t a = f.AddKernel("tfrt.once").AddFunction(callee.index()).AddResult("i32");
  uint32_t b = f.AddKernel("tfrt.once").AddFunction(callee.index()).AddResult("i32");
  f.Return({a, b});
  ResourceContext resources;
  auto results = Run(writer, "f", RequestContext::Create(&host_, &resources));
  // Both results resolve to the one shared value (same payload).
  EXPECT_EQ(&results[0]->get<int32_t>(), &results[1]->get<int32_t>());
  EXPECT_EQ(results[0]->get<int32_t>(), 5);
}

TEST_F(KernelMessagesTest, ParallelForBodyResultTypes) {
  BefWriter writer;
  auto& body = writer.AddFunction(FunctionKind::kBefFunction, "", {"i32", "i32"}, {"i32"});
  body.Return({0});
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"!tfrt.chain"});
  auto constant = [&](int32_t v) { return testing::Constant(f, v); };
  uint32_t start = constant(0), end = constant(10), block = constant(3);
  f.Return({f.AddKernel("tfrt.parallel_for.i32").AddArgument(start).AddArgument(end)
                .AddArgument(block).AddFunction(body.index()).AddResult("!tfrt.chain")});
  auto results = Run(writer, "f", RequestContext::Create(&host_, nullptr));
  EXPECT_EQ(Error(results[0]), "Invalid parallel body function result types");
  EXPECT_TRUE(diagnostics_.empty());
}

TEST_F(KernelMessagesTest, BenchmarkNeedsOneReturnValue) {
  BefWriter writer;
  auto& body = writer.AddFunction(FunctionKind::kBefFunction, "", {}, {});
  body.Return({});
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"!tfrt.chain"});
  f.Return({f.AddKernel("tfrt_test.benchmark")
                .AddAttribute(BefAttribute::I32(1), "duration_secs")
                .AddAttribute(BefAttribute::I32(1), "max_count")
                .AddAttribute(BefAttribute::String("b"), "name")
                .AddFunction(body.index())
                .AddResult("!tfrt.chain")});
  auto results = Run(writer, "f", RequestContext::Create(&host_, nullptr));
  EXPECT_EQ(Error(results[0]),
            "Benchmark op requires the input function have exactly one return value");
  EXPECT_THAT(diagnostics_,
              ElementsAre("Benchmark op requires the input function have exactly one "
                          "return value"));
}

TEST_F(KernelMessagesTest, BenchmarkPrintsItsSummary) {
  BefWriter writer;
  auto& body = writer.AddFunction(FunctionKind::kBefFunction, "", {}, {"i32"});
  body.Return({body.AddKernel("tfrt.constant.i32").AddAttribute(BefAttribute::I32(1), "value").AddResult("i32")});
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"!tfrt.chain"});
  f.Return({f.AddKernel("tfrt_test.benchmark")
                .AddAttribute(BefAttribute::I32(10), "duration_secs")
                .AddAttribute(BefAttribute::I32(5), "max_count")
                .AddAttribute(BefAttribute::String("tiny"), "name")
                .AddAttribute(BefAttribute::I32(2), "num_warmup_runs")
                .AddFunction(body.index())
                .AddResult("!tfrt.chain")});
  ::testing::internal::CaptureStdout();
  auto results = Run(writer, "f", RequestContext::Create(&host_, nullptr));
  std::string output = ::testing::internal::GetCapturedStdout();
  EXPECT_TRUE(results[0]->IsConcrete());
  EXPECT_THAT(output, ::testing::HasSubstr("BM:tiny:Count: 5\n"));
  for (const char* line :
       {"BM:tiny:Duration(ns): ", "BM:tiny:Time Min(ns): ", "BM:tiny:Time 50%(ns): ",
        "BM:tiny:Time 95%(ns): ", "BM:tiny:Time 99%(ns): ", "BM:tiny:CPU Min(ns): ",
        "BM:tiny:CPU 50%(ns): ", "BM:tiny:CPU 95%(ns): ", "BM:tiny:CPU 99%(ns): ",
        "BM:tiny:CPU utilization(percent): "}) {
    EXPECT_THAT(output, ::testing::HasSubstr(line));
  }
}

TEST_F(KernelMessagesTest, DuplicateLocations) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"!tfrt.chain", "!tfrt.chain"});
  BefLocation same = BefLocation::FileLineColumn("dup.mlir", 3, 4);
  uint32_t a = f.AddKernel("tfrt_test.unique_loc", same)
                   .AddAttribute(BefAttribute::String("first"), "name")
                   .AddResult("!tfrt.chain");
  uint32_t b = f.AddKernel("tfrt_test.unique_loc", BefLocation::FileLineColumn("dup.mlir", 5, 4))
                   .AddAttribute(BefAttribute::String("second"), "name")
                   .AddResult("!tfrt.chain");
  f.Return({a, b});
  auto results = Run(writer, "f", RequestContext::Create(&host_, nullptr));
  EXPECT_TRUE(results[0]->IsConcrete());
  EXPECT_TRUE(results[1]->IsConcrete());  // different locations: fine
}

TEST_F(KernelMessagesTest, RequestDataAndSumArrayAttr) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"i32", "i32", "i32"});
  uint32_t data = f.AddKernel("tfrt_test.get_request_context_data.i32").AddResult("i32");
  uint32_t good = StringConstant(f, "100");
  uint32_t bad = StringConstant(f, "ten");
  uint32_t sum = f.AddKernel("tfrt_test.sum_array_attr.i32").AddArgument(good)
                     .AddAttribute(BefAttribute::I32Array({1, 2, 3}), "values").AddResult("i32");
  uint32_t fail = f.AddKernel("tfrt_test.sum_array_attr.i32").AddArgument(bad)
                      .AddAttribute(BefAttribute::I32Array({1}), "values").AddResult("i32");
  f.Return({data, sum, fail});
  ResourceContext resources;
  resources.GetOrCreate<int32_t>("val", [] { return 1000; });
  RCReference<RequestContext> request = RequestContext::Create(&host_, &resources);
  request->SetData<int32_t>(20);
  auto results = Run(writer, "f", request);
  EXPECT_EQ(results[0]->get<int32_t>(), 20);
  EXPECT_EQ(results[1]->get<int32_t>(), 100 + 6 + 20 + 1000);
  EXPECT_EQ(Error(results[2]), "Cannot convert ten to target int");
}

TEST_F(KernelMessagesTest, GetDeviceUnknownName) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"!tfrt.device"});
  uint32_t chain = f.AddKernel("tfrt.new.chain").AddResult("!tfrt.chain");
  f.Return({f.AddKernel("tfrt.get_device").AddArgument(chain)
                .AddAttribute(BefAttribute::String("GPU:7"), "device_name")
                .AddResult("!tfrt.device")});
  auto results = Run(writer, "f", RequestContext::Create(&host_, nullptr));
  EXPECT_EQ(Error(results[0]), "cannot find device GPU:7");
}

// Without a RegisterTypes section nothing checks register types at load:
// kernels that read their operands from the frame check them at run time.
TEST_F(KernelMessagesTest, ControlFlowOperandsOfAnotherTypeAreErrors) {
  struct Case {
    std::string kernel;
    std::vector<std::string> body_arguments, body_results;
    std::string expected;
  };
  std::vector<Case> cases = {
      {"tfrt.if", {}, {}, "operand 0 is not a value of type i1"},
      {"tfrt.while", {}, {"i1"}, "operand 0 is not a value of type i1"},
      {"tfrt.repeat.i32", {}, {}, "operand 0 is not a value of type i32"},
      {"tfrt.case", {}, {}, "operand 0 is not a value of type i32"},
      {"tfrt.parallel_for.i32", {"i32", "i32"}, {}, "operand 0 is not a value of type i32"},
  };
  for (const Case& test : cases) {
    SCOPED_TRACE(test.kernel);
    diagnostics_.clear();
    BefWriter writer(BefWriterOptions{.emit_optional_sections = false});
    auto& body = writer.AddFunction(FunctionKind::kBefFunction, "body",
                                    test.body_arguments, test.body_results);
    std::vector<uint32_t> returned;
    for (size_t i = 0; i < test.body_results.size(); ++i) {
      returned.push_back(body.AddKernel("tfrt.constant.i1")
                             .AddAttribute(BefAttribute::Bool(false), "value")
                             .AddResult("i1"));
    }
    body.Return(returned);
    auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"i32"});
    uint32_t wide = f.AddKernel("tfrt.constant.i64")
                        .AddAttribute(BefAttribute::I64(1), "value")
                        .AddResult("i64");
    auto& kernel = f.AddKernel(test.kernel).AddArgument(wide);
    if (test.kernel == "tfrt.parallel_for.i32") kernel.AddArgument(wide).AddArgument(wide);
    if (test.kernel == "tfrt.while") {
      kernel.AddAttribute(BefAttribute::I64(1), "parallel_iterations");
    }
    kernel.AddFunction(body.index());
    if (test.kernel == "tfrt.if") kernel.AddFunction(body.index());
    uint32_t result = kernel.AddResult("i32");
    f.Return({result});
    auto values = Run(writer, "f", RequestContext::Create(&host_, nullptr));
    EXPECT_EQ(Error(values[0]), test.expected);
    EXPECT_THAT(diagnostics_, ElementsAre(test.expected));
  }
}

TEST_F(KernelMessagesTest, WhileBodyConditionOfAnotherTypeIsAnError) {
  BefWriter writer(BefWriterOptions{.emit_optional_sections = false});
  auto& body = writer.AddFunction(FunctionKind::kBefFunction, "body", {"i32"}, {"i32", "i1"});
  uint32_t not_a_condition = body.AddKernel("tfrt.constant.i64")
                                 .AddAttribute(BefAttribute::I64(1), "value")
                                 .AddResult("i64");
  body.Return({0, not_a_condition});
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"i32"});
  uint32_t yes = f.AddKernel("tfrt.constant.i1").AddAttribute(BefAttribute::Bool(true), "value")
                     .AddResult("i1");
  uint32_t zero = f.AddKernel("tfrt.constant.i32").AddAttribute(BefAttribute::I32(0), "value")
                      .AddResult("i32");
  f.Return({f.AddKernel("tfrt.while").AddArgument(yes).AddArgument(zero)
                .AddAttribute(BefAttribute::I64(1), "parallel_iterations")
                .AddFunction(body.index()).AddResult("i32")});
  auto values = Run(writer, "f", RequestContext::Create(&host_, nullptr));
  EXPECT_EQ(Error(values[0]), "tfrt.while: the body's last result is not an i1");
}

TEST_F(KernelMessagesTest, VariadicSumOperandOfAnotherTypeIsAnError) {
  BefWriter writer(BefWriterOptions{.emit_optional_sections = false});
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"i32"});
  uint32_t one = f.AddKernel("tfrt.constant.i32").AddAttribute(BefAttribute::I32(1), "value")
                     .AddResult("i32");
  uint32_t wide = f.AddKernel("tfrt.constant.i64").AddAttribute(BefAttribute::I64(1), "value")
                      .AddResult("i64");
  f.Return({f.AddKernel("tfrt_test.sum").AddArgument(one).AddArgument(wide).AddResult("i32")});
  auto values = Run(writer, "f", RequestContext::Create(&host_, nullptr));
  EXPECT_EQ(Error(values[0]), "operand 1 is not a value of type i32");
}

// A cancelled request skips the blocks of a parallel loop not yet started
// as a whole: a loop of 2^31 - 1 one-element blocks ends soon after the
// kernel budget runs out (walking every block would take hours).
TEST_F(KernelMessagesTest, CancelledParallelForSkipsTheRemainingBlocks) {
  BefWriter writer;
  auto& body = writer.AddFunction(FunctionKind::kBefFunction, "body", {"i32", "i32"},
                                  {"!tfrt.chain"});
  body.Return({body.AddKernel("tfrt.new.chain").AddResult("!tfrt.chain")});
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"!tfrt.chain"});
  auto constant = [&](int32_t v) { return testing::Constant(f, v); };
  uint32_t start = constant(0), end = constant(INT32_MAX), block = constant(1);
  f.Return({f.AddKernel("tfrt.parallel_for.i32").AddArgument(start).AddArgument(end)
                .AddArgument(block).AddFunction(body.index()).AddResult("!tfrt.chain")});
  RCReference<RequestContext> request = RequestContext::Create(&host_, nullptr);
  request->SetKernelBudget(1000);
  auto values = Run(writer, "f", request);
  EXPECT_EQ(Error(values[0]), "kernel budget of 1000 kernels exhausted");
}

}  // namespace
}  // namespace bef
