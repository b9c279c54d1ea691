// The compact reader takes the form clients send (so tiny requests skip the
// JSON tree) and leaves everything else to the general decoder; its values
// are the general decoder's (tests/serving/inference_protocol_test.py
// compares whole answers of both paths).
#include "tools/serving/compact_infer_request.h"

#include <cstdlib>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "bef/tensor/dense_host_tensor.h"
#include "gtest/gtest.h"
#include "tools/serving/bef_service.h"
#include "tools/serving/run_limits.h"

namespace bef::serving {
namespace {

class CompactInferRequestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<HostContext>> host = CreateServingHost("mstd:1");
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = std::move(*host);
    absl::StatusOr<ModelConfig> config = ModelConfig::Parse(
        R"({"entry_function": "add", "inputs": [{"name": "a"}, {"name": "b"}]})");
    ASSERT_TRUE(config.ok()) << config.status();
    const std::string path = std::string(std::getenv("TEST_SRCDIR")) + "/" +
                             std::getenv("TEST_WORKSPACE") + "/tests/serving/serve_test.bef";
    absl::StatusOr<std::shared_ptr<LoadedModel>> add =
        LoadedModel::Load(host_.get(), "add", 1, path, *config, &limits_);
    ASSERT_TRUE(add.ok()) << add.status();
    add_ = std::move(*add);
    absl::StatusOr<ModelConfig> echo_config =
        ModelConfig::Parse(R"({"entry_function": "echo_tensor", "inputs": [{"name": "x"}]})");
    absl::StatusOr<std::shared_ptr<LoadedModel>> echo =
        LoadedModel::Load(host_.get(), "echo", 1, path, *echo_config, &limits_);
    ASSERT_TRUE(echo.ok()) << echo.status();
    echo_ = std::move(*echo);
  }
  void TearDown() override { host_->Quiesce(); }

  std::optional<HttpInferRequest> Decode(const LoadedModel& model, std::string json,
                                         std::string binary = "") {
    const size_t length = json.size();
    auto body = std::make_shared<const std::string>(json + binary);
    return DecodeCompactInferRequest(model, body, length, host_->allocator());
  }

  RunLimits limits_;
  std::unique_ptr<HostContext> host_;
  std::shared_ptr<LoadedModel> add_;
  std::shared_ptr<LoadedModel> echo_;
};

TEST_F(CompactInferRequestTest, TakesTheFormClientsSend) {
  std::optional<HttpInferRequest> request = Decode(*add_, R"({"id": "r7", "inputs": [
        {"name": "b", "shape": [1], "datatype": "INT32", "data": [-40]},
        {"name": "a", "shape": [], "datatype": "INT32", "data": [2147483647]}],
        "parameters": {"timeout_ms": 250.5}})");
  ASSERT_TRUE(request.has_value());
  EXPECT_EQ(request->id, "r7");
  EXPECT_TRUE(request->has_id);
  EXPECT_EQ(request->timeout, absl::Microseconds(250500));
  ASSERT_EQ(request->inputs.size(), 2u);
  EXPECT_EQ(request->inputs[0]->get<int32_t>(), 2147483647);
  EXPECT_EQ(request->inputs[1]->get<int32_t>(), -40);
  EXPECT_EQ(request->outputs, std::vector<size_t>{0});
  EXPECT_EQ(request->binary_outputs, std::vector<bool>{false});

  request = Decode(*echo_, R"({"inputs": [{"name": "x", "datatype": "FP32", "shape": [2, 2],
      "data": [1, -2.5, 1e30, 16777217]}], "outputs": [{"name": "output_0",
      "parameters": {"binary_data": true}}]})");
  ASSERT_TRUE(request.has_value());
  const DenseHostTensor& tensor = request->inputs[0]->get<DenseHostTensor>();
  EXPECT_EQ(tensor.dtype(), DType::kF32);
  EXPECT_EQ(tensor.shape().dims(), (std::vector<int64_t>{2, 2}));
  const float* values = static_cast<const float*>(tensor.data());
  EXPECT_EQ(values[0], 1.0f);
  EXPECT_EQ(values[1], -2.5f);
  EXPECT_EQ(values[2], 1e30f);
  EXPECT_EQ(values[3], static_cast<float>(16777217.0));
  EXPECT_EQ(request->binary_outputs, std::vector<bool>{true});

  // Binary tensor data after the JSON: viewed, not copied.
  const std::string data("\x05\x00\x00\x00\xfa\xff\xff\xff", 8);
  request = Decode(*echo_, R"({"inputs": [{"name": "x", "datatype": "INT32", "shape": [2],
      "parameters": {"binary_data_size": 8}}], "parameters": {"binary_data_output": true}})",
                   data);
  ASSERT_TRUE(request.has_value());
  const int32_t* elements =
      static_cast<const int32_t*>(request->inputs[0]->get<DenseHostTensor>().data());
  EXPECT_EQ(elements[0], 5);
  EXPECT_EQ(elements[1], -6);
  EXPECT_EQ(request->binary_outputs, std::vector<bool>{true});
}

TEST_F(CompactInferRequestTest, LeavesEverythingElseToTheGeneralDecoder) {
  const char* kOthers[] = {
      // Not JSON, or not all of it.
      R"({"inputs": [)",
      R"({"inputs": [{"name": "a", "shape": [], "datatype": "INT32", "data": [1]}]} x)",
      R"({"inputs": [{"name": "a", "shape": [], "datatype": "INT32", "data": [01]}]})",
      R"({"inputs": [{"name": "a", "shape": [], "datatype": "INT32", "data": [-0]},
          {"name": "b", "shape": [], "datatype": "INT32", "data": [1]}]})",
      // Escapes, other fields, nested or string data, keys twice.
      R"({"inputs": [{"name": "\u0061", "shape": [], "datatype": "INT32", "data": [1]}]})",
      R"({"model_name": "add", "inputs": [{"name": "a", "shape": [], "datatype": "INT32",
          "data": [1]}, {"name": "b", "shape": [], "datatype": "INT32", "data": [1]}]})",
      R"({"inputs": [{"name": "a", "shape": [], "datatype": "INT32", "data": [[1]]},
          {"name": "b", "shape": [], "datatype": "INT32", "data": [1]}]})",
      R"({"inputs": [{"name": "a", "shape": [], "datatype": "INT32", "data": 1},
          {"name": "b", "shape": [], "datatype": "INT32", "data": [1]}]})",
      R"({"inputs": [{"name": "a", "name": "a", "shape": [], "datatype": "INT32", "data": [1]},
          {"name": "b", "shape": [], "datatype": "INT32", "data": [1]}]})",
      // What the general decoder refuses: out of range, a fraction, a
      // boolean for an integer, a missing or unknown input, a count.
      R"({"inputs": [{"name": "a", "shape": [], "datatype": "INT32", "data": [2147483648]},
          {"name": "b", "shape": [], "datatype": "INT32", "data": [1]}]})",
      R"({"inputs": [{"name": "a", "shape": [], "datatype": "INT32", "data": [1.5]},
          {"name": "b", "shape": [], "datatype": "INT32", "data": [1]}]})",
      R"({"inputs": [{"name": "a", "shape": [], "datatype": "INT32", "data": [true]},
          {"name": "b", "shape": [], "datatype": "INT32", "data": [1]}]})",
      R"({"inputs": [{"name": "a", "shape": [], "datatype": "INT32", "data": [1]}]})",
      R"({"inputs": [{"name": "c", "shape": [], "datatype": "INT32", "data": [1]},
          {"name": "b", "shape": [], "datatype": "INT32", "data": [1]}]})",
      R"({"inputs": [{"name": "a", "shape": [2], "datatype": "INT32", "data": [1]},
          {"name": "b", "shape": [], "datatype": "INT32", "data": [1]}]})",
      R"({"inputs": [{"name": "a", "shape": [], "datatype": "FP32", "data": [1]},
          {"name": "b", "shape": [], "datatype": "INT32", "data": [1]}]})",
      R"({"inputs": [{"name": "a", "shape": [], "datatype": "INT32", "data": [1]},
          {"name": "b", "shape": [], "datatype": "INT32", "data": [1]}],
          "parameters": {"timeout_ms": -1}})",
  };
  for (const char* json : kOthers) EXPECT_FALSE(Decode(*add_, json).has_value()) << json;
  // Binary data no input claims, or more than there is.
  EXPECT_FALSE(Decode(*echo_, R"({"inputs": [{"name": "x", "datatype": "INT32", "shape": [1],
      "parameters": {"binary_data_size": 4}}]})",
                      std::string(8, '\0'))
                   .has_value());
  EXPECT_FALSE(Decode(*echo_, R"({"inputs": [{"name": "x", "datatype": "INT32", "shape": [1],
      "parameters": {"binary_data_size": 8}}]})",
                      std::string(4, '\0'))
                   .has_value());
}

// At most 4,096 elements over the request; more go to the general decoder,
// whether the shape says so before the data or the data runs past it.
TEST_F(CompactInferRequestTest, TakesAtMostTheElementBudget) {
  auto request = [](int64_t count, bool shape_first) {
    std::string data = "[";
    for (int64_t i = 0; i < count; ++i) absl::StrAppend(&data, i == 0 ? "" : ",", i % 7);
    data += "]";
    const std::string shape = absl::StrCat(R"("shape": [)", count, "]");
    return absl::StrCat(
        R"({"inputs": [{"name": "x", "datatype": "INT32", )",
        shape_first ? shape + ", \"data\": " + data : "\"data\": " + data + ", " + shape, "}]}");
  };
  for (bool shape_first : {true, false}) {
    std::optional<HttpInferRequest> taken = Decode(*echo_, request(4096, shape_first));
    ASSERT_TRUE(taken.has_value()) << shape_first;
    EXPECT_EQ(taken->inputs[0]->get<DenseHostTensor>().NumElements(), 4096);
    EXPECT_FALSE(Decode(*echo_, request(4097, shape_first)).has_value()) << shape_first;
  }
  // A shape over the budget before any data: left at once (its data is
  // never read, so even data too short for the shape is the general
  // decoder's to refuse).
  EXPECT_FALSE(Decode(*echo_, R"({"inputs": [{"name": "x", "datatype": "INT32",
      "shape": [1000000000000], "data": [1]}]})")
                   .has_value());
  // An empty tensor whose dimensions before the zero exceed the budget
  // stays on the fast path.
  std::optional<HttpInferRequest> empty = Decode(*echo_, R"({"inputs": [{"name": "x",
      "datatype": "INT32", "shape": [5000, 0], "data": []}]})");
  ASSERT_TRUE(empty.has_value());
  EXPECT_EQ(empty->inputs[0]->get<DenseHostTensor>().NumElements(), 0);
}

}  // namespace
}  // namespace bef::serving
