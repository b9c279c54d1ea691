// The typed kernel ABI: every parameter and return form of BEF_KERNEL and
// BEF_SYNC_KERNEL, errors reported at the kernel's location, and the derived
// signatures. Kernels are invoked on hand-built frames (the executor builds
// the same frames from BEF records).
#include "bef/host/kernel_utils.h"
#include "bef/host/sync_kernel_utils.h"

#include <cstring>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "bef/format/attribute_writer.h"
#include "bef/host/function.h"
#include "bef/host/host_context.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bef {
namespace {

using ::testing::ElementsAre;

class RecordingDecoder : public LocationDecoder {
 public:
  DecodedLocation DecodeLocation(uint64_t data) const override {
    DecodedLocation location;
    location.filename = "kernels.mlir";
    location.line = static_cast<uint32_t>(data);
    location.column = 3;
    return location;
  }
};

// A frame over arguments, attributes (laid out with EmitAttribute) and
// functions, invoked like the executor does.
class FrameFixture : public ::testing::Test {
 protected:
  FrameFixture()
      : host_(
            [this](const DecodedDiagnostic& d) { diagnostics_.push_back(d); },
            CreateMallocAllocator(), CreateSingleThreadedWorkQueue()),
        context_(RequestContext::Create(&host_, nullptr)) {
    context_.set_location(Location{&decoder_, 42});
  }

  uint32_t AddAttribute(const BefAttribute& attribute) {
    uint32_t offset = EmitAttribute(pool_, attribute);
    offsets_.push_back(offset);
    return offset;
  }

  void Run(AsyncKernelImplementation kernel, std::vector<AsyncValue*> arguments,
           size_t num_results) {
    // Copy the pool to 8-aligned storage like a loaded image.
    aligned_.assign(pool_.size() / 8 + 1, 0);
    if (pool_.size()) std::memcpy(aligned_.data(), pool_.bytes().data(), pool_.size());
    KernelBinding binding;
    binding.attribute_pool = reinterpret_cast<const uint8_t*>(aligned_.data());
    binding.attribute_offsets = offsets_.data();
    binding.num_attributes = static_cast<uint32_t>(offsets_.size());
    binding.function_table = functions_.data();
    binding.function_indices = function_indices_.data();
    binding.num_functions = static_cast<uint32_t>(function_indices_.size());
    arguments_ = std::move(arguments);
    results_.clear();
    results_.resize(num_results);
    AsyncKernelFrame frame(&context_, binding, arguments_, results_);
    kernel(&frame);
  }

  template <typename T>
  T Result(size_t i) {
    EXPECT_TRUE(results_[i]) << "result " << i << " not set";
    EXPECT_TRUE(results_[i]->IsConcrete()) << "result " << i;
    return results_[i]->get<T>();
  }

  std::vector<DecodedDiagnostic> diagnostics_;
  RecordingDecoder decoder_;
  HostContext host_;
  ExecutionContext context_;
  ByteWriter pool_;
  std::vector<uint64_t> aligned_;
  std::vector<uint32_t> offsets_;
  std::vector<const Function*> functions_;
  std::vector<uint32_t> function_indices_;
  std::vector<AsyncValue*> arguments_;
  std::vector<RCReference<AsyncValue>> results_;
};

AsyncValue* Value(int32_t v) {
  static std::vector<AsyncValueRef<int32_t>> keep;
  keep.push_back(MakeAvailableAsyncValueRef<int32_t>(v));
  return keep.back().GetAsyncValue();
}

// ---- Kernels under test.

int32_t Add(Argument<int32_t> a, Argument<int32_t> b) { return *a + *b; }

void AddToResult(Argument<int32_t> a, Attribute<int32_t> b, Result<int32_t> out) {
  out.Emplace(*a + *b);
}

std::pair<int32_t, int64_t> Split(Argument<int64_t> value) {
  return {static_cast<int32_t>(*value), *value >> 32};
}

std::tuple<int32_t, Chain, std::string> Three(StringAttribute text) {
  return {static_cast<int32_t>(text.get().size()), Chain(), std::string(text.get())};
}

absl::StatusOr<int32_t> Divide(Argument<int32_t> a, Argument<int32_t> b) {
  if (*b == 0) return absl::InternalError("Divide by zero");
  return *a / *b;
}

absl::Status Check(Argument<bool> ok) {
  return *ok ? absl::OkStatus() : absl::InternalError("check failed");
}

int64_t SumAll(RemainingArguments values) {
  int64_t sum = 0;
  for (size_t i = 0; i < values.size(); ++i) sum += values[i]->get<int32_t>();
  return sum;
}

void Fill(RemainingResults results, Attribute<int32_t> base) {
  for (size_t i = 0; i < results.size(); ++i) {
    results.EmplaceAt<int32_t>(i, *base + static_cast<int32_t>(i));
  }
}

int64_t Attributes(Attribute<bool> flag, Attribute<int64_t> big,
                   ArrayAttribute<int32_t> array, DenseAttribute dense,
                   ShapeAttribute shape, AggregateAttribute aggregate,
                   TypeAttribute type, RemainingAttributes rest) {
  int64_t result = *flag ? 1 : 0;
  result += *big;
  for (int32_t v : array.data()) result += v;
  result += dense.num_elements() * 1000 + dense.shape()[0] * 10000;
  result += shape.rank() * 100000;
  result += aggregate.size() * 1000000;
  result += static_cast<int64_t>(type.get()) * 10000000;
  result += static_cast<int64_t>(rest.size()) * 1000000000;
  return result;
}

AsyncValueRef<int32_t> Later(Result<int32_t> first, HostContext* host) {
  AsyncValueRef<int32_t> value = MakeUnconstructedAsyncValueRef<int32_t>();
  host->EnqueueWork([value = value.CopyRef()] { value.emplace(9); });
  first.Emplace(1);
  return value;
}

int32_t Contextual(const ExecutionContext& context, KernelErrorHandler handler,
                   Argument<int32_t> a) {
  if (*a < 0) handler.ReportError("negative: ", *a);
  return context.location().data == 42 ? *a : -1;
}

const Function* PickFunction(const Function* f, RemainingFunctions rest,
                             Result<int32_t> count) {
  count.Emplace(static_cast<int32_t>(rest.size()));
  return f;
}

class NamedFunction : public Function {
 public:
  explicit NamedFunction(std::string_view name)
      : Function(name, FunctionKind::kBefFunction, {}, {}) {}
  void Execute(const ExecutionContext&, std::span<AsyncValue* const>,
               std::span<RCReference<AsyncValue>>) const override {}
};

// ---- Tests.

TEST_F(FrameFixture, ArgumentsAndReturnValue) {
  Run(BEF_KERNEL(Add).implementation, {Value(2), Value(40)}, 1);
  EXPECT_EQ(Result<int32_t>(0), 42);
}

TEST_F(FrameFixture, TrailingChainArgumentIsIgnored) {
  AsyncValue* chain = GetReadyChainValue();
  Run(BEF_KERNEL(Add).implementation, {Value(1), Value(2), chain}, 1);
  EXPECT_EQ(Result<int32_t>(0), 3);
}

TEST_F(FrameFixture, ResultParameterAndAttribute) {
  AddAttribute(BefAttribute::I32(100));
  Run(BEF_KERNEL(AddToResult).implementation, {Value(5)}, 1);
  EXPECT_EQ(Result<int32_t>(0), 105);
}

TEST_F(FrameFixture, PairAndTupleReturns) {
  AsyncValueRef<int64_t> wide =
      MakeAvailableAsyncValueRef<int64_t>((int64_t{7} << 32) | 5);
  Run(BEF_KERNEL(Split).implementation, {wide.GetAsyncValue()}, 2);
  EXPECT_EQ(Result<int32_t>(0), 5);
  EXPECT_EQ(Result<int64_t>(1), 7);

  AddAttribute(BefAttribute::String("hello"));
  Run(BEF_KERNEL(Three).implementation, {}, 3);
  EXPECT_EQ(Result<int32_t>(0), 5);
  EXPECT_EQ(results_[1].get(), GetReadyChainValue());  // shared ready chain
  EXPECT_EQ(Result<std::string>(2), "hello");
}

TEST_F(FrameFixture, StatusOrErrorIsReportedAtTheKernelsLocation) {
  Run(BEF_KERNEL(Divide).implementation, {Value(1), Value(0)}, 1);
  ASSERT_TRUE(results_[0]->IsError());
  EXPECT_EQ(results_[0]->GetError().message(), "Divide by zero");
  EXPECT_EQ(results_[0]->GetError().code(), absl::StatusCode::kInternal);
  ASSERT_EQ(diagnostics_.size(), 1u);
  EXPECT_EQ(diagnostics_[0].message(), "Divide by zero");
  ASSERT_TRUE(diagnostics_[0].location.has_value());
  EXPECT_EQ(diagnostics_[0].location->filename, "kernels.mlir");
  EXPECT_EQ(diagnostics_[0].location->line, 42u);
  EXPECT_EQ(results_[0]->GetErrorInfo().location.data, 42u);

  Run(BEF_KERNEL(Divide).implementation, {Value(9), Value(3)}, 1);
  EXPECT_EQ(Result<int32_t>(0), 3);
  EXPECT_EQ(diagnostics_.size(), 1u);
}

// An operand of another type than the kernel reads is an error, not a read
// of the wrong memory (nothing else checks it without RegisterTypes).
// BEF_KERNEL gives a direct entry point exactly to kernels of typed operands
// and scalar attributes that return a scalar.
TEST(DirectKernelTest, DerivedFromTheSignature) {
  DirectKernel add = BEF_KERNEL(Add).direct;
  EXPECT_TRUE(add);
  EXPECT_FALSE((BEF_KERNEL(Three).direct));   // a tuple with a non-scalar
  EXPECT_EQ(add.try_run, nullptr);
  EXPECT_EQ(add.num_operands, 2u);
  uint16_t operand_types[kMaxDirectArguments];
  EXPECT_EQ(add.types(operand_types), AsyncValueTypeId<int32_t>());
  EXPECT_EQ(operand_types[0], AsyncValueTypeId<int32_t>());
  EXPECT_EQ(operand_types[1], AsyncValueTypeId<int32_t>());

  // Payloads in, payload out.
  int32_t two = 2, three = 3;
  const void* operands[] = {&two, &three};
  alignas(8) unsigned char result[kDirectResultSize];
  add.run(operands, nullptr, nullptr, result);
  int32_t sum;
  std::memcpy(&sum, result, sizeof(sum));
  EXPECT_EQ(sum, 5);
  // Boxed: a new value holding one reference.
  RCReference<AsyncValue> boxed = TakeRef(add.box(result));
  EXPECT_TRUE(boxed->IsConcrete());
  EXPECT_EQ(boxed->get<int32_t>(), 5);
  EXPECT_TRUE(boxed->IsUnique());
}

std::pair<int32_t, int64_t> SplitSum(Argument<int32_t> a, Argument<int32_t> b) {
  return {*a + *b, int64_t{*a} - *b};
}

// Kernels that can fail (StatusOr) or return several scalars get try_run:
// results through pointers, false on an error (reported by the frame path).
TEST(DirectKernelTest, TryRunForKernelsThatCanFailOrHaveSeveralResults) {
  DirectKernel divide = BEF_KERNEL(Divide).direct;
  ASSERT_TRUE(divide);
  EXPECT_EQ(divide.run, nullptr);
  ASSERT_NE(divide.try_run, nullptr);
  EXPECT_EQ(divide.num_results, 1u);
  int32_t nine = 9, three = 3, zero = 0;
  alignas(8) unsigned char quotient[kDirectResultSize];
  void* results[] = {quotient};
  const void* operands[] = {&nine, &three};
  EXPECT_TRUE(divide.try_run(operands, nullptr, nullptr, results));
  int32_t value;
  std::memcpy(&value, quotient, sizeof(value));
  EXPECT_EQ(value, 3);
  const void* by_zero[] = {&nine, &zero};
  EXPECT_FALSE(divide.try_run(by_zero, nullptr, nullptr, results));

  DirectKernel split = BEF_KERNEL(SplitSum).direct;
  ASSERT_NE(split.try_run, nullptr);
  EXPECT_EQ(split.num_results, 2u);
  uint16_t types[kMaxDirectResults];
  split.result_types(types);
  EXPECT_EQ(types[0], AsyncValueTypeId<int32_t>());
  EXPECT_EQ(types[1], AsyncValueTypeId<int64_t>());
  alignas(8) unsigned char sum[kDirectResultSize], difference[kDirectResultSize];
  void* split_results[] = {sum, difference};
  EXPECT_TRUE(split.try_run(operands, nullptr, nullptr, split_results));
  RCReference<AsyncValue> boxed = TakeRef(split.boxes[1](difference));
  EXPECT_EQ(boxed->get<int64_t>(), 6);
}

TEST_F(FrameFixture, OperandOfAnotherTypeIsAnError) {
  AsyncValueRef<int64_t> wide = MakeAvailableAsyncValueRef<int64_t>(7);
  Run(BEF_KERNEL(Add).implementation, {Value(1), wide.GetAsyncValue()}, 1);
  ASSERT_TRUE(results_[0]->IsError());
  EXPECT_EQ(results_[0]->GetError().message(), "operand 1 is not a value of type i32");
  EXPECT_EQ(results_[0]->GetError().code(), absl::StatusCode::kInvalidArgument);
  ASSERT_EQ(diagnostics_.size(), 1u);
  EXPECT_EQ(diagnostics_[0].location->line, 42u);
}

TEST_F(FrameFixture, StatusReturnFillsEveryUnsetResult) {
  AsyncValueRef<bool> no = MakeAvailableAsyncValueRef<bool>(false);
  Run(BEF_KERNEL(Check).implementation, {no.GetAsyncValue()}, 2);
  EXPECT_TRUE(results_[0]->IsError());
  EXPECT_EQ(results_[0].get(), results_[1].get());  // one error value
  EXPECT_EQ(diagnostics_.size(), 1u);
}

TEST_F(FrameFixture, RemainingArgumentsAndResults) {
  Run(BEF_KERNEL(SumAll).implementation, {Value(1), Value(2), Value(3)}, 1);
  EXPECT_EQ(Result<int64_t>(0), 6);
  AddAttribute(BefAttribute::I32(10));
  Run(BEF_KERNEL(Fill).implementation, {}, 3);
  EXPECT_EQ(Result<int32_t>(0), 10);
  EXPECT_EQ(Result<int32_t>(2), 12);
}

TEST_F(FrameFixture, EveryAttributeKind) {
  AddAttribute(BefAttribute::Bool(true));
  AddAttribute(BefAttribute::I64(1 << 20));
  AddAttribute(BefAttribute::I32Array({1, 2, 3}));
  AddAttribute(BefAttribute::Dense(DType::kF32, {2}, std::vector<uint8_t>(8, 0)));
  AddAttribute(BefAttribute::Shape({4, 5}));
  AddAttribute(BefAttribute::Aggregate({BefAttribute::I32(1), BefAttribute::String("x")}));
  AddAttribute(BefAttribute::Type(DType::kI32));
  AddAttribute(BefAttribute::I32(0));
  AddAttribute(BefAttribute::I32(0));
  Run(BEF_KERNEL(Attributes).implementation, {}, 1);
  EXPECT_EQ(Result<int64_t>(0),
            1 + (1 << 20) + 6 + 2 * 1000 + 2 * 10000 + 2 * 100000 + 2 * 1000000 +
                8 * 10000000 + int64_t{2} * 1000000000);
}

TEST_F(FrameFixture, AsyncResultsAndContext) {
  Run(BEF_KERNEL(Later).implementation, {}, 2);
  EXPECT_EQ(Result<int32_t>(0), 1);
  EXPECT_FALSE(results_[1]->IsAvailable());
  host_.Quiesce();
  EXPECT_EQ(Result<int32_t>(1), 9);

  Run(BEF_KERNEL(Contextual).implementation, {Value(3)}, 1);
  EXPECT_EQ(Result<int32_t>(0), 3);
  EXPECT_TRUE(diagnostics_.empty());
}

int32_t ReportsThenReturns(KernelErrorHandler handler) {
  handler.ReportError("bad input");
  return 5;
}

TEST_F(FrameFixture, ReportedErrorKeepsItsSlot) {
  // The error handler fills the unset slots; the value returned afterwards
  // does not replace the error.
  Run(BEF_KERNEL(ReportsThenReturns).implementation, {}, 1);
  ASSERT_TRUE(results_[0]->IsError());
  EXPECT_EQ(results_[0]->GetError().message(), "bad input");
  EXPECT_EQ(diagnostics_.size(), 1u);
}

TEST_F(FrameFixture, FunctionParameters) {
  NamedFunction a("a"), b("b"), c("c");
  functions_ = {&a, &b, &c};
  function_indices_ = {2, 0, 1};
  Run(BEF_KERNEL(PickFunction).implementation, {}, 2);
  EXPECT_EQ(Result<int32_t>(0), 2);
  EXPECT_EQ(Result<const Function*>(1)->name(), "c");
}

TEST(KernelSignatureTest, DerivedFromTypes) {
  KernelSignature add = BEF_KERNEL(Add).signature;
  EXPECT_TRUE(add.known);
  EXPECT_THAT(add.arguments, ElementsAre("i32", "i32"));
  EXPECT_THAT(add.results, ElementsAre("i32"));
  EXPECT_FALSE(add.variadic_arguments);

  KernelSignature three = BEF_KERNEL(Three).signature;
  EXPECT_THAT(three.arguments, ElementsAre());
  EXPECT_THAT(three.results, ElementsAre("i32", "!tfrt.chain", ""));

  KernelSignature sum = BEF_KERNEL(SumAll).signature;
  EXPECT_TRUE(sum.variadic_arguments);
  EXPECT_THAT(sum.results, ElementsAre("i64"));

  KernelSignature fill = BEF_KERNEL(AddToResult).signature;
  EXPECT_THAT(fill.arguments, ElementsAre("i32"));
  EXPECT_THAT(fill.results, ElementsAre("i32"));
  ASSERT_EQ(fill.attributes.size(), 1u);
  EXPECT_EQ(fill.attributes[0], 8);  // i32

  KernelSignature attributes = BEF_KERNEL(Attributes).signature;
  std::vector<int> layouts(attributes.attributes.begin(),
                           attributes.attributes.end());
  EXPECT_THAT(layouts, ElementsAre(5, 9, 136, 28, 27, 30, 25));
  EXPECT_TRUE(attributes.variadic_attributes);
  ASSERT_EQ(three.attributes.size(), 1u);
  EXPECT_EQ(three.attributes[0], 16);  // string
}

// ---- Sync kernels.

int32_t SyncAdd(const int32_t& a, const int32_t& b) { return a + b; }
absl::StatusOr<int32_t> SyncDivide(int32_t& a, int32_t& b) {
  if (b == 0) return absl::InternalError("Divide by zero");
  return a / b;
}
std::tuple<int32_t, int32_t> SyncSwap(const int32_t& a, const int32_t& b,
                                      Attribute<int32_t> offset) {
  return {b + *offset, a + *offset};
}

TEST_F(FrameFixture, SyncKernels) {
  SyncValue a(int32_t{6}), b(int32_t{3}), zero(int32_t{0}), out1, out2;
  KernelBinding binding;
  std::vector<SyncValue*> arguments = {&a, &b};
  std::vector<SyncValue*> results = {&out1, &out2};
  {
    SyncKernelFrame frame(&context_, binding, arguments, {results.data(), 1});
    BEF_SYNC_KERNEL(SyncAdd).implementation(&frame);
    EXPECT_TRUE(frame.status().ok());
    EXPECT_EQ(out1.get<int32_t>(), 9);
  }
  {
    std::vector<SyncValue*> divide = {&a, &zero};
    SyncKernelFrame frame(&context_, binding, divide, {results.data(), 1});
    BEF_SYNC_KERNEL(SyncDivide).implementation(&frame);
    EXPECT_EQ(frame.status().message(), "Divide by zero");
    EXPECT_TRUE(diagnostics_.empty());  // sync errors are not reported
  }
  {
    AddAttribute(BefAttribute::I32(100));
    aligned_.assign(pool_.size() / 8 + 1, 0);
    if (pool_.size()) std::memcpy(aligned_.data(), pool_.bytes().data(), pool_.size());
    binding.attribute_pool = reinterpret_cast<const uint8_t*>(aligned_.data());
    binding.attribute_offsets = offsets_.data();
    binding.num_attributes = 1;
    SyncKernelFrame frame(&context_, binding, arguments, results);
    BEF_SYNC_KERNEL(SyncSwap).implementation(&frame);
    EXPECT_EQ(out1.get<int32_t>(), 103);
    EXPECT_EQ(out2.get<int32_t>(), 106);
  }
  KernelSignature signature = BEF_SYNC_KERNEL(SyncAdd).signature;
  EXPECT_THAT(signature.arguments, ElementsAre("i32", "i32"));
  EXPECT_THAT(signature.results, ElementsAre("i32"));
}

// Sync kernels read the same attribute wrappers as async ones (one
// parameter machinery): their signatures say the same layouts.
int64_t SyncShapeRank(ShapeAttribute shape, TypeAttribute, Attribute<int32_t>) {
  return shape.rank();
}
void SyncWholeFrame(SyncKernelFrame*) {}
int64_t AsyncShapeRank(ShapeAttribute shape, TypeAttribute, Attribute<int32_t>) {
  return shape.rank();
}

TEST(SyncKernelSignatureTest, SameLayoutsAsAsyncKernels) {
  KernelSignature sync = BEF_SYNC_KERNEL(SyncShapeRank).signature;
  KernelSignature async = BEF_KERNEL(AsyncShapeRank).signature;
  EXPECT_EQ(sync.attributes, async.attributes);
  EXPECT_EQ(sync.attributes.size(), 3u);
  EXPECT_THAT(sync.results, ElementsAre("i64"));
  KernelSignature frame = BEF_SYNC_KERNEL(SyncWholeFrame).signature;
  EXPECT_TRUE(frame.variadic_arguments && frame.variadic_results && frame.variadic_attributes);
}

TEST(KernelRegistryTest, StaticRegistrationAndLookup) {
  KernelRegistry registry;
  registry.AddKernel("test.add", BEF_KERNEL(Add));
  registry.AddSyncKernel("test.add", BEF_SYNC_KERNEL(SyncAdd));
  const KernelEntry* entry = registry.Find("test.add");
  ASSERT_NE(entry, nullptr);
  EXPECT_NE(entry->async_implementation, nullptr);
  EXPECT_NE(entry->sync_implementation, nullptr);
  EXPECT_EQ(registry.Find("test.missing"), nullptr);
  EXPECT_THAT(registry.Names(), ElementsAre("test.add"));
}

void RegisterForTest(KernelRegistry* registry) {
  registry->AddKernel("static.add", BEF_KERNEL(Add));
}
BEF_STATIC_KERNEL_REGISTRATION(RegisterForTest);

TEST(KernelRegistryTest, StaticRegistrations) {
  KernelRegistry registry;
  RegisterStaticKernels(&registry);
  EXPECT_NE(registry.Find("static.add"), nullptr);
}

}  // namespace
}  // namespace bef
