// Tensors as arguments and results of the embedding API (BefProgram).
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <memory>
#include <vector>

#include "bef/async/async_value_ref.h"
#include "bef/executor/bef_program.h"
#include "bef/format/bef_writer.h"
#include "bef/host/execution_context.h"
#include "bef/host/host_allocator.h"
#include "bef/host/host_context.h"
#include "bef/host/kernel_registry.h"
#include "bef/host/work_queue.h"
#include "bef/tensor/dense_host_tensor.h"
#include "gtest/gtest.h"

namespace bef {
namespace {

TEST(TensorEmbeddingTest, TensorArgumentAndResult) {
  HostContext host([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
                   CreateWorkQueue("s").value());
  RegisterStaticKernels(&host.kernel_registry());

  // fn(%t) -> (i1, tensor): fill %t with 2.5, compare it with itself, return
  // the comparison and the (same) tensor.
  BefWriter writer;
  BefWriter::Function& f = writer.AddFunction(
      FunctionKind::kBefFunction, "fill", {"!tfrt_tensor.tensor"},
      {"i1", "!tfrt_tensor.tensor"});
  uint32_t chain = f.AddKernel("tfrt.new.chain").AddResult("!tfrt.chain");
  uint32_t filled = f.AddKernel("tfrt_dht.fill_tensor_with_constant.f32")
                        .AddArgument(f.argument(0))
                        .AddArgument(chain)
                        .AddAttribute(BefAttribute::F32(2.5f), "value")
                        .AddResult("!tfrt.chain");
  BefWriter::Kernel& equal = f.AddKernel("tfrt_dht.tensor_equal.f32");
  equal.AddArgument(f.argument(0)).AddArgument(f.argument(0)).AddArgument(filled);
  uint32_t result = equal.AddResult("i1");
  equal.AddResult("!tfrt.chain");
  f.Return({result, f.argument(0)});
  std::vector<uint8_t> bytes = writer.Finish().value();
  auto program = BefProgram::FromBuffer(&host, bytes).value();

  TensorShape shape(std::vector<int64_t>{2, 3});
  auto buffer =
      DenseHostTensor::AllocateBuffer(host.allocator(), DType::kF32, shape);
  ASSERT_NE(buffer, nullptr);
  AsyncValueRef<DenseHostTensor> tensor =
      MakeAvailableAsyncValueRef<DenseHostTensor>(DType::kF32, shape, buffer);

  const Function* function = program->GetFunction("fill");
  ASSERT_NE(function, nullptr);
  ResourceContext resources;
  ExecutionContext context(RequestContext::Create(&host, &resources));
  AsyncValue* arguments[] = {tensor.GetAsyncValue()};
  std::vector<RCReference<AsyncValue>> results(function->num_results());
  function->Execute(context, arguments, results);
  host.Await(results);

  ASSERT_FALSE(results[0]->IsError());
  EXPECT_TRUE(results[0]->get<bool>());
  // The result is the caller's tensor (the same object, through the result
  // placeholder), written in place.
  ASSERT_FALSE(results[1]->IsError());
  EXPECT_EQ(&results[1]->get<DenseHostTensor>(),
            &tensor.GetAsyncValue()->get<DenseHostTensor>());
  const DenseHostTensor& written = tensor.GetAsyncValue()->get<DenseHostTensor>();
  const float* data = static_cast<const float*>(written.data());
  for (int i = 0; i < 6; ++i) EXPECT_EQ(data[i], 2.5f);
  EXPECT_EQ(written.ToString(),
            "DenseHostTensor dtype = f32, shape = [2, 3], values = "
            "[2.500000e+00, 2.500000e+00, 2.500000e+00, 2.500000e+00, "
            "2.500000e+00, 2.500000e+00]");
}

// A tensor built from a dense attribute views the program's image; it stays
// valid after the program (and its mapped file) is destroyed.
TEST(TensorEmbeddingTest, AttributeTensorOutlivesTheProgram) {
  HostContext host([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
                   CreateWorkQueue("s").value());
  RegisterStaticKernels(&host.kernel_registry());
  BefWriter writer;
  BefWriter::Function& f = writer.AddFunction(
      FunctionKind::kBefFunction, "constant", {}, {"!tfrt_tensor.tensor"});
  std::vector<uint8_t> elements(4096 * 4);
  for (size_t i = 0; i < elements.size(); ++i) elements[i] = i % 251;
  uint32_t tensor =
      f.AddKernel("tfrt_test.const_dense_attr")
          .AddAttribute(BefAttribute::Dense(DType::kI32, {4096}, elements), "value")
          .AddResult("!tfrt_tensor.tensor");
  f.Return({tensor});
  std::vector<uint8_t> bytes = writer.Finish().value();
  std::string path = ::testing::TempDir() + "/attribute_tensor.bef";
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
  auto program = BefProgram::Open(&host, path).value();
  std::vector<RCReference<AsyncValue>> results(1);
  {
    ResourceContext resources;
    ExecutionContext context(RequestContext::Create(&host, &resources));
    program->GetFunction("constant")->Execute(context, {}, results);
    host.Await(results);
  }
  ASSERT_FALSE(results[0]->IsError());
  const DenseHostTensor& result = results[0]->get<DenseHostTensor>();
  EXPECT_TRUE(result.read_only());  // a view of the mapped file
  const uint8_t* image = program->file().image().data();
  const uint8_t* data = static_cast<const uint8_t*>(result.data());
  EXPECT_TRUE(data >= image && data < image + program->file().image().size());
  program.reset();
  std::remove(path.c_str());
  EXPECT_EQ(std::memcmp(result.data(), elements.data(), elements.size()), 0);
}

}  // namespace
}  // namespace bef
