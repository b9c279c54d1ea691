// bef_serve's JSON codec: arguments refused with INVALID_ARGUMENT (never an
// exception), results to JSON, deep bodies refused, any bytes printable.
#include "tools/serving/json_codec.h"

#include <cmath>
#include <string>

#include "bef/async/async_value_ref.h"
#include "bef/tensor/dense_host_tensor.h"
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
  absl::StatusOr<Json> parsed = ParseRequestBody(deep);
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr("more than 64 levels deep"));
  EXPECT_FALSE(ParseRequestBody("{").ok());
  EXPECT_TRUE(ParseRequestBody(R"({"args": [[1]]})").ok());
}

TEST_F(JsonCodecTest, AnyBytesPrint) {
  AsyncValueRef<std::string> bytes =
      MakeAvailableAsyncValueRef<std::string>(std::string("ok\xff\xfe", 4));
  absl::StatusOr<Json> json = ResultToJson("!tfrt.string", bytes.GetAsyncValue());
  ASSERT_TRUE(json.ok());
  EXPECT_EQ(DumpJson(*json), "\"ok\xEF\xBF\xBD\xEF\xBF\xBD\"");
}

}  // namespace
}  // namespace bef
