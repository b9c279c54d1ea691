// bef_serve's JSON codec: arguments refused with INVALID_ARGUMENT (never an
// exception), results to JSON, deep bodies refused, any bytes printable.
#include "tools/serving/json_codec.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "bef/async/async_value_ref.h"
#include "bef/tensor/dense_host_tensor.h"
#include "bef/tensor/sparse_and_string_tensors.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bef {
namespace {

using ::testing::HasSubstr;

class JsonCodecTest : public ::testing::Test {
 protected:
  absl::StatusOr<RCReference<AsyncValue>> Argument(std::string_view type, std::string_view json) {
    return ArgumentFromJson(type, Json::parse(json), allocator_.get(), "argument 0");
  }
  absl::StatusOr<RunRequest> Decode(std::vector<std::string_view> types, std::string_view body) {
    return DecodeRunRequest(body, "f", types, allocator_.get());
  }
  std::unique_ptr<HostAllocator> allocator_ = CreateMallocAllocator();
};

TEST_F(JsonCodecTest, ScalarsAreRangeChecked) {
  absl::StatusOr<RCReference<AsyncValue>> value = Argument("i32", "-7");
  ASSERT_TRUE(value.ok());
  EXPECT_EQ((*value)->get<int32_t>(), -7);
  EXPECT_THAT(Argument("i8", "300").status().message(), HasSubstr("argument 0 is out of range"));
  EXPECT_THAT(Argument("ui32", "-1").status().message(), HasSubstr("out of range"));
  EXPECT_THAT(Argument("i64", "true").status().message(), HasSubstr("must be an integer"));
  EXPECT_THAT(Argument("i1", "1").status().message(), HasSubstr("must be true or false"));
  EXPECT_EQ(Argument("i1", "1").status().code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(Argument("f32", "\"nan\"").ok());
  EXPECT_TRUE(std::isnan((*Argument("f32", "\"nan\""))->get<float>()));
  EXPECT_THAT(Argument("f64", "\"many\"").status().message(), HasSubstr("must be a number"));
  EXPECT_THAT(Argument("!tfrt.chain", "1").status().message(), HasSubstr("must be null"));
  EXPECT_THAT(Argument("!my.type", "1").status().message(),
              HasSubstr("which requests cannot supply"));
}

TEST_F(JsonCodecTest, TensorsInAndOut) {
  absl::StatusOr<RCReference<AsyncValue>> tensor =
      Argument("!tfrt_tensor.tensor", R"({"dtype": "i32", "shape": [2], "values": [1, 2]})");
  ASSERT_TRUE(tensor.ok()) << tensor.status();
  absl::StatusOr<Json> json = ResultToJson("!tfrt_tensor.tensor", tensor->get());
  ASSERT_TRUE(json.ok());
  EXPECT_EQ(DumpJson(*json), R"({"dtype":"i32","shape":[2],"values":[1,2]})");
  EXPECT_THAT(Argument("!tfrt_tensor.tensor", R"({"dtype": "i32", "shape": [3], "values": [1]})")
                  .status()
                  .message(),
              HasSubstr("has 1 values, its shape needs 3"));
  EXPECT_THAT(
      Argument("!tfrt_tensor.tensor",
               R"({"dtype": "i8", "shape": [1], "values": [1000]})").status().message(),
      HasSubstr("argument 0 value 0 is out of range"));
  EXPECT_THAT(Argument("!tfrt_tensor.tensor",
                       R"({"dtype": "i32", "shape": [4294967296, 4294967296], "values": []})")
                  .status()
                  .message(),
              HasSubstr("shape is too large"));
  EXPECT_THAT(Argument("!tfrt_tensor.tensor", R"({"dtype": "c64", "shape": [], "values": [1]})")
                  .status()
                  .message(),
              HasSubstr("unsupported dtype 'c64'"));
}

TEST_F(JsonCodecTest, DeepBodiesAreRefusedWhileParsing) {
  std::string deep = "{\"args\": " + std::string(60000, '[') + std::string(60000, ']') + "}";
  absl::StatusOr<RunRequest> request = Decode({"i32"}, deep);
  ASSERT_FALSE(request.ok());
  EXPECT_THAT(request.status().message(), HasSubstr("more than 64 levels deep"));
  EXPECT_THAT(Decode({"i32"}, "{").status().message(), HasSubstr("not valid JSON"));
  EXPECT_THAT(Decode({"i32"}, R"({"args": [[1]]})").status().message(),
              HasSubstr("argument 0 must be an integer"));
}

// Chains are named in "args" (null) but are not inputs: the run supplies
// them.
TEST_F(JsonCodecTest, ChainArgumentsAreCheckedAndLeftToTheRun) {
  absl::StatusOr<RunRequest> request =
      Decode({"!tfrt.chain", "i32", "!tfrt.chain"}, R"({"args": [null, 5, null]})");
  ASSERT_TRUE(request.ok()) << request.status();
  ASSERT_EQ(request->arguments.size(), 1u);
  EXPECT_EQ(request->arguments[0]->get<int32_t>(), 5);
  EXPECT_THAT(Decode({"!tfrt.chain", "i32"}, R"({"args": [1, 5]})").status().message(),
              HasSubstr("must be null"));
  EXPECT_THAT(Decode({"!tfrt.chain", "i32"}, R"({"args": [5]})").status().message(),
              HasSubstr("takes 2 arguments"));
}

TEST_F(JsonCodecTest, RunRequestsAreChecked) {
  absl::StatusOr<RunRequest> request = Decode({"i32", "f32"}, R"({"args": [1, 2.5],
                                                              "deadline_ms": 20})");
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ(request->arguments[0]->get<int32_t>(), 1);
  EXPECT_EQ(request->arguments[1]->get<float>(), 2.5f);
  EXPECT_EQ(request->deadline, absl::Milliseconds(20));
  EXPECT_THAT(Decode({"i32"}, R"({"args": []})").status().message(),
              HasSubstr("'f' takes 1 arguments, the request has 0"));
  EXPECT_THAT(Decode({}, R"({"other": 1})").status().message(), HasSubstr("unknown field 'other'"));
  EXPECT_THAT(Decode({}, R"({"deadline_ms": 0})").status().message(),
              HasSubstr("must be a positive number"));
  EXPECT_THAT(Decode({}, "[]").status().message(), HasSubstr("must be a JSON object"));
}

// dtype and shape before values: the elements go straight into the tensor;
// values first: through the JSON tree. Either way the same tensor and the
// same errors.
TEST_F(JsonCodecTest, TensorValuesAreStreamedWhenTheirHeaderComesFirst) {
  for (const char* body : {R"({"args": [{"dtype": "f32", "shape": [2, 2], "values": [1, 2, 3, 4.5]}]})",
                           R"({"args": [{"values": [1, 2, 3, 4.5], "shape": [2, 2], "dtype": "f32"}]})"}) {
    absl::StatusOr<RunRequest> request = Decode({"!tfrt_tensor.tensor"}, body);
    ASSERT_TRUE(request.ok()) << request.status();
    const DenseHostTensor& tensor = request->arguments[0]->get<DenseHostTensor>();
    EXPECT_EQ(tensor.shape().dims(), (std::vector<int64_t>{2, 2}));
    EXPECT_EQ(static_cast<const float*>(tensor.data())[3], 4.5f);
  }
  absl::StatusOr<RunRequest> strings = Decode(
      {"!tfrt_tensor.tensor"}, R"({"args": [{"dtype": "string", "shape": [2], "values": ["a", ""]}]})");
  ASSERT_TRUE(strings.ok()) << strings.status();
  EXPECT_EQ(strings->arguments[0]->get<StringHostTensor>().values(),
            (std::vector<std::string>{"a", ""}));
  auto error = [&](const char* body) {
    return std::string(Decode({"!tfrt_tensor.tensor"}, body).status().message());
  };
  EXPECT_THAT(error(R"({"args": [{"dtype": "i8", "shape": [3], "values": [1, 2]}]})"),
              HasSubstr("argument 0 has 2 values, its shape needs 3"));
  EXPECT_THAT(error(R"({"args": [{"dtype": "i8", "shape": [1], "values": [1, 2]}]})"),
              HasSubstr("argument 0 has 2 values, its shape needs 1"));
  EXPECT_THAT(error(R"({"args": [{"dtype": "i8", "shape": [2], "values": [1, 300]}]})"),
              HasSubstr("argument 0 value 1 is out of range"));
  EXPECT_THAT(error(R"({"args": [{"dtype": "i8", "shape": [1], "values": [[1]]}]})"),
              HasSubstr("argument 0 values must be numbers"));
  EXPECT_THAT(error(R"({"args": [{"dtype": "q8", "shape": [1], "values": [1]}]})"),
              HasSubstr("unsupported dtype 'q8'"));
  EXPECT_THAT(error(R"({"args": [{"dtype": "string", "shape": [1], "values": [1]}]})"),
              HasSubstr("values must be strings"));
}

TEST_F(JsonCodecTest, ProtocolTensorDataIsStreamedIntoTheTensor) {
  auto tensors = [](std::string_view name) { return name != "scalar"; };
  absl::StatusOr<InferRequestJson> parsed = ParseInferRequestJson(
      R"({"id": "7", "inputs": [
            {"name": "x", "datatype": "FP32", "shape": [2, 2], "data": [[1, 2], [3, 4.5]]},
            {"name": "scalar", "datatype": "INT32", "shape": [], "data": [5]},
            {"name": "s", "datatype": "BYTES", "shape": [2], "data": ["a", "b"]},
            {"data": [1], "name": "late", "datatype": "INT32", "shape": [1]},
            {"name": "p", "datatype": "INT32", "shape": [1], "parameters": {}, "data": [1]}]})",
      tensors, allocator_.get());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_GE(parsed->streamed.size(), 3u);
  // Streamed: the tensor holds the elements, the tree keeps an empty "data".
  const DenseHostTensor& x = parsed->streamed[0]->get<DenseHostTensor>();
  EXPECT_EQ(x.dtype(), DType::kF32);
  EXPECT_EQ(x.shape().dims(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(static_cast<const float*>(x.data())[3], 4.5f);
  EXPECT_EQ(parsed->body["inputs"][0]["data"], Json::array());
  EXPECT_EQ(parsed->streamed[2]->get<StringHostTensor>().values(),
            (std::vector<std::string>{"a", "b"}));
  // Not streamed: a scalar, data before the header, an input with
  // parameters: left in the tree.
  EXPECT_FALSE(parsed->streamed[1]);
  EXPECT_EQ(parsed->body["inputs"][1]["data"], Json::array({5}));
  EXPECT_TRUE(parsed->streamed.size() <= 3 || !parsed->streamed[3]);
  EXPECT_EQ(parsed->body["inputs"][3]["data"], Json::array({1}));
  EXPECT_EQ(parsed->body["inputs"][4]["data"], Json::array({1}));

  // Refused while parsing, with the messages of the tree's path.
  auto error = [&](std::string_view body) {
    return ParseInferRequestJson(body, tensors, allocator_.get()).status();
  };
  EXPECT_THAT(error(R"({"inputs": [{"name": "x", "datatype": "INT32", "shape": [3],
                                    "data": [1]}]})").message(),
              HasSubstr("input 'x' has 1 data elements, its shape needs 3"));
  EXPECT_THAT(error(R"({"inputs": [{"name": "x", "datatype": "INT32", "shape": [1],
                                    "data": [[1]]}]})").message(),
              HasSubstr("input 'x' data is nested deeper than its shape's 1 dimensions"));
  EXPECT_THAT(error(R"({"inputs": [{"name": "x", "datatype": "FP32", "shape": [1],
                                    "data": [1e39]}]})").message(),
              HasSubstr("out of range"));
  EXPECT_THAT(error(R"({"inputs": [{"name": "x", "datatype": "BOOL", "shape": [1],
                                    "data": [2]}]})").message(),
              HasSubstr("must be true or false"));
  EXPECT_EQ(error(R"({"inputs": [{"name": "x", "datatype": "INT32", "shape": [1],
                                  "data": [{}]}]})").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(error("{").code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(JsonCodecTest, StreamedNumbersKeepEveryTypesRangeAndRules) {
  // Numbers go from the parser straight into the tensor (no Json each):
  // the edges of every type stored exactly, everything else refused with
  // the same message as one element at a time.
  auto tensors = [](std::string_view) { return true; };
  auto parse = [&](std::string_view datatype, std::string_view data) {
    std::string body = R"({"inputs": [{"name": "x", "datatype": ")" + std::string(datatype) +
                       R"(", "shape": [-1], "data": )" + std::string(data) + "}]}";
    size_t count = std::count(data.begin(), data.end(), ',') + 1;
    body.replace(body.find("-1"), 2, std::to_string(count));
    return ParseInferRequestJson(body, tensors, allocator_.get());
  };
  auto values = [&]<typename T>(std::string_view datatype, std::string_view data, T) {
    absl::StatusOr<InferRequestJson> parsed = parse(datatype, data);
    EXPECT_TRUE(parsed.ok()) << datatype << " " << data << ": " << parsed.status();
    std::vector<T> out;
    if (!parsed.ok()) return out;
    const DenseHostTensor& tensor = parsed->streamed[0]->get<DenseHostTensor>();
    const T* elements = static_cast<const T*>(tensor.data());
    out.assign(elements, elements + tensor.NumElements());
    return out;
  };
  EXPECT_EQ(values("INT8", "[-128, 127, 0]", int8_t{}), (std::vector<int8_t>{-128, 127, 0}));
  EXPECT_EQ(values("UINT8", "[0, 255]", uint8_t{}), (std::vector<uint8_t>{0, 255}));
  EXPECT_EQ(values("INT32", "[-2147483648, 2147483647]", int32_t{}),
            (std::vector<int32_t>{INT32_MIN, INT32_MAX}));
  EXPECT_EQ(values("UINT32", "[4294967295]", uint32_t{}), (std::vector<uint32_t>{UINT32_MAX}));
  EXPECT_EQ(values("INT64", "[-9223372036854775808, 9223372036854775807]", int64_t{}),
            (std::vector<int64_t>{INT64_MIN, INT64_MAX}));
  EXPECT_EQ(values("UINT64", "[18446744073709551615, 0]", uint64_t{}),
            (std::vector<uint64_t>{UINT64_MAX, 0}));
  EXPECT_EQ(values("FP32", "[1, -2, 0.5, 3.4e38, 18446744073709551615]", float{}),
            (std::vector<float>{1, -2, 0.5f, 3.4e38f, 18446744073709551615.0f}));
  EXPECT_EQ(values("FP64", "[1e308, -5, 0.1]", double{}), (std::vector<double>{1e308, -5, 0.1}));
  EXPECT_EQ(values("BOOL", "[true, false]", bool{}), (std::vector<bool>{true, false}));
  auto error = [&](std::string_view datatype, std::string_view data) {
    return std::string(parse(datatype, data).status().message());
  };
  EXPECT_THAT(error("INT8", "[1, 128]"), HasSubstr("input 'x' value 1 is out of range"));
  EXPECT_THAT(error("INT8", "[-129]"), HasSubstr("input 'x' value 0 is out of range"));
  EXPECT_THAT(error("UINT8", "[-1]"), HasSubstr("input 'x' value 0 is out of range"));
  EXPECT_THAT(error("INT64", "[9223372036854775808]"), HasSubstr("out of range"));
  EXPECT_THAT(error("INT32", "[1.5]"), HasSubstr("input 'x' value 0 must be an integer"));
  EXPECT_THAT(error("FP32", "[1, 1e39]"), HasSubstr("input 'x' value 1 is out of range"));
  EXPECT_THAT(error("BOOL", "[1]"), HasSubstr("must be true or false"));
}

TEST_F(JsonCodecTest, AnyBytesPrint) {
  AsyncValueRef<std::string> bytes =
      MakeAvailableAsyncValueRef<std::string>(std::string("ok\xff\xfe", 4));
  absl::StatusOr<Json> json = ResultToJson("!tfrt.string", bytes.GetAsyncValue());
  ASSERT_TRUE(json.ok());
  EXPECT_EQ(DumpJson(*json), "\"ok\xEF\xBF\xBD\xEF\xBF\xBD\"");
}


// The protocol's encoder writes names, ids and datatypes with
// AppendJsonString: the same bytes DumpJson writes for any string.
TEST(AppendJsonStringTest, WritesWhatDumpJsonWrites) {
  const std::string cases[] = {"",
                               "add",
                               "INT32",
                               "a b/c:d-e_1.2",
                               "quote\"inside",
                               "back\\slash",
                               "tab\tnew\nline",
                               std::string("nul\0byte", 8),
                               "\x7f delete",
                               "caf\xc3\xa9",
                               "bad\xff\xfe",
                               "\xe2\x82"};
  for (const std::string& text : cases) {
    std::string written;
    AppendJsonString(text, &written);
    EXPECT_EQ(written, DumpJson(Json(text))) << text;
  }
}

}  // namespace
}  // namespace bef
