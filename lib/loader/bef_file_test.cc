// BefFile: every accessor on files built with BefWriter, lazy inflation,
// locations of every kind, the optional sections, kernel and native-function
// resolution, register type checks, and rejection of malformed records.
#include "bef/loader/bef_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bef/format/bef_writer.h"
#include "bef/format/format_error.h"
#include "bef/host/kernel_utils.h"
#include "bef/host/sync_kernel_utils.h"
#include "bef/loader/bef_dump.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/stand_in_kernels.h"

namespace bef {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

int64_t ReadDense(DenseAttribute dense) { return dense.num_elements(); }
void Call(AsyncKernelFrame*) {}
int32_t SyncAdd(const int32_t& a, const int32_t& b) { return a + b; }
void NativeAdd(std::span<AsyncValue* const>, std::span<RCReference<AsyncValue>>,
               HostContext*) {}

KernelRegistry& TestKernels() {
  static KernelRegistry* registry = [] {
    auto* r = new KernelRegistry();
    bef::testing::AddStandInCoreKernels(*r);
    r->AddKernel("test.read_dense", BEF_KERNEL(ReadDense));
    r->AddKernel("tfrt.call", &Call);
    r->AddSyncKernel("tfrt.add.i32", BEF_SYNC_KERNEL(SyncAdd));
    return r;
  }();
  return *registry;
}

NativeFunctionRegistry& TestNatives() {
  static NativeFunctionRegistry* registry = [] {
    auto* r = new NativeFunctionRegistry();
    r->Add("native_add", &NativeAdd);
    return r;
  }();
  return *registry;
}

BefLoadOptions Resolving() {
  return {.kernels = &TestKernels(), .native_functions = &TestNatives()};
}

std::vector<uint8_t> Finish(BefWriter& writer) {
  absl::StatusOr<std::vector<uint8_t>> bytes = writer.Finish();
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.value_or(std::vector<uint8_t>{});
}

std::unique_ptr<BefFile> Load(const std::vector<uint8_t>& bytes,
                              BefLoadOptions options = Resolving()) {
  absl::StatusOr<std::unique_ptr<BefFile>> file = BefFile::OpenBuffer(bytes, options);
  EXPECT_TRUE(file.ok()) << DescribeFormatError(file.status());
  return file.ok() ? std::move(file).value() : nullptr;
}

absl::Status LoadError(const std::vector<uint8_t>& bytes,
                       BefLoadOptions options = Resolving()) {
  absl::StatusOr<std::unique_ptr<BefFile>> file = BefFile::OpenBuffer(bytes, options);
  EXPECT_FALSE(file.ok());
  return file.ok() ? absl::OkStatus() : file.status();
}

BefLocation At(const std::string& file, uint32_t line, uint32_t column) {
  return BefLocation::FileLineColumn(file, line, column);
}

// main(i32 x) -> (i32, !tfrt.chain): c = constant 1; s = add x c;
// ch = new.chain; p = print s ch; return s, p. Plus a native and a sync
// function, and an unused function.
std::vector<uint8_t> Program(BefWriterOptions options = {}) {
  BefWriter writer(options);
  writer.AddNativeFunction("native_add", {"i32", "i32"}, {"i32"});
  BefWriter::Function& sync =
      writer.AddFunction(FunctionKind::kSyncBefFunction, "sync_add",
                         {"i32", "i32"}, {"i32"});
  sync.Return({sync.AddKernel("tfrt.add.i32").AddArgument(0).AddArgument(1).AddResult("i32")});
  BefWriter::Function& f = writer.AddFunction(FunctionKind::kBefFunction, "main",
                                              {"i32"}, {"i32", "!tfrt.chain"});
  f.set_location(At("p.mlir", 1, 1));
  uint32_t c = f.AddKernel("tfrt.constant.i32", At("p.mlir", 2, 3))
                   .AddAttribute(BefAttribute::I32(1), "value")
                   .AddResult("i32");
  uint32_t s = f.AddKernel("tfrt.add.i32",
                           BefLocation::Name("adder", At("p.mlir", 3, 5)))
                   .AddArgument(0)
                   .AddArgument(c)
                   .AddResult("i32");
  uint32_t ch = f.AddKernel("tfrt.new.chain",
                            BefLocation::CallSite(At("lib.py", 5, 6), At("top.py", 9, 10)))
                    .set_stream(3)
                    .AddResult("!tfrt.chain");
  uint32_t p = f.AddKernel("tfrt.print.i32",
                           BefLocation::Fused({At("a.py", 1, 1), BefLocation::Name("t", BefLocation::Unknown())}))
                   .AddArgument(s)
                   .AddArgument(ch)
                   .AddResult("!tfrt.chain");
  f.Return({s, p});
  BefWriter::Function& unused =
      writer.AddFunction(FunctionKind::kBefFunction, "", {}, {});
  unused.AddKernel("tfrt.new.chain", BefLocation::Unencodable()).AddResult("!tfrt.chain");
  unused.Return({});
  return Finish(writer);
}

TEST(BefFileTest, TablesAndFunctionIndex) {
  std::vector<uint8_t> bytes = Program();
  std::unique_ptr<BefFile> file = Load(bytes);
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(file->num_kernels(), 4u);
  EXPECT_EQ(file->kernel_name(0), "tfrt.add.i32");
  EXPECT_NE(file->kernel(0), nullptr);
  EXPECT_EQ(file->num_types(), 2u);
  EXPECT_EQ(file->type_name(1), "!tfrt.chain");
  ASSERT_EQ(file->num_functions(), 4u);
  EXPECT_EQ(file->function(0).kind, FunctionKind::kNativeFunction);
  EXPECT_EQ(file->function(0).native, &NativeAdd);
  EXPECT_EQ(file->function(1).kind, FunctionKind::kSyncBefFunction);
  const BefFunctionEntry* main = file->FindFunction("main");
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(main->index, 2u);
  EXPECT_THAT(main->argument_types, ElementsAre(0));
  EXPECT_THAT(main->result_types, ElementsAre(0, 1));
  EXPECT_EQ(file->FindFunction(""), nullptr);  // anonymous
  EXPECT_EQ(file->FindFunction("nope"), nullptr);
}

TEST(BefFileTest, FunctionsInflateLazilyOnce) {
  std::vector<uint8_t> bytes = Program();
  std::unique_ptr<BefFile> file = Load(bytes);
  ASSERT_NE(file, nullptr);
  // Sync functions are verified at load; nothing else yet.
  EXPECT_EQ(file->num_inflated_functions(), 1);
  std::vector<std::thread> threads;
  std::vector<const FunctionInfo*> seen(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] { seen[t] = file->GetFunctionInfo(2).value(); });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(file->num_inflated_functions(), 2);
  for (int t = 1; t < 4; ++t) EXPECT_EQ(seen[t], seen[0]);
  // Function 3 is never called, never inflated.
  EXPECT_EQ(file->num_inflated_functions(), 2);
}

TEST(BefFileTest, FunctionInfo) {
  std::vector<uint8_t> bytes = Program();
  std::unique_ptr<BefFile> file = Load(bytes);
  const FunctionInfo* info = file->GetFunctionInfo(2).value();
  EXPECT_EQ(info->num_registers, 5u);
  EXPECT_EQ(info->num_arguments, 1u);
  EXPECT_THAT(info->register_uses, ElementsAre(1, 1, 2, 1, 1));
  ASSERT_EQ(info->kernels.size(), 5u);
  EXPECT_THAT(info->initial_ready_counts, ElementsAre(1, 1, 2, 1, 2));
  EXPECT_THAT(info->result_registers, ElementsAre(2, 4));
  const KernelInfo& add = info->kernels[2];
  EXPECT_EQ(file->kernel_name(add.code()), "tfrt.add.i32");
  EXPECT_THAT(add.arguments(), ElementsAre(0, 1));
  EXPECT_THAT(add.results(), ElementsAre(2));
  EXPECT_NE(add.async_implementation, nullptr);
  EXPECT_EQ(info->kernels[3].stream, 3u);
  const KernelInfo& constant = info->kernels[1];
  ASSERT_EQ(constant.num_attributes(), 1u);
  EXPECT_EQ(file->AttributeTypeAt(constant.attributes()[0]), 8u);

  const FunctionInfo* sync = file->GetFunctionInfo(1).value();
  EXPECT_EQ(sync->kind, FunctionKind::kSyncBefFunction);
  EXPECT_NE(sync->kernels[1].sync_implementation, nullptr);
}

TEST(BefFileTest, LocationsOfEveryKind) {
  std::vector<uint8_t> bytes = Program();
  std::unique_ptr<BefFile> file = Load(bytes);
  const FunctionInfo* info = file->GetFunctionInfo(2).value();
  DecodedLocation function = file->DecodeLocation(info->location);
  EXPECT_FALSE(function.opaque);
  EXPECT_EQ(function.filename, "p.mlir");
  EXPECT_EQ(function.line, 1u);
  DecodedLocation constant = file->DecodeLocation(info->kernels[1].location());
  EXPECT_EQ(constant.line, 2u);
  EXPECT_EQ(constant.column, 3u);
  DecodedLocation name = file->DecodeLocation(info->kernels[2].location());
  EXPECT_TRUE(name.opaque);
  EXPECT_EQ(name.description, "p.mlir;3;5(adder)");
  DecodedLocation call = file->DecodeLocation(info->kernels[3].location());
  EXPECT_EQ(call.description, "lib.py;5;6<-top.py;9;10");
  DecodedLocation fused = file->DecodeLocation(info->kernels[4].location());
  EXPECT_EQ(fused.description, "a.py;1;1,t");
  // Virtual (unencodable) offsets decode as TFRT's quirk.
  const FunctionInfo* unused = file->GetFunctionInfo(3).value();
  EXPECT_EQ(unused->kernels[1].location(), kFirstVirtualLocationOffset);
  DecodedLocation virtual_location =
      file->DecodeLocation(unused->kernels[1].location());
  EXPECT_FALSE(virtual_location.opaque);
  EXPECT_EQ(virtual_location.filename, "");
  EXPECT_EQ(virtual_location.line, 4294967295u);
  EXPECT_EQ(virtual_location.column, 4294967295u);

  std::optional<BefFile::LocationNode> tree =
      file->DecodeLocationTree(info->kernels[3].location());
  ASSERT_TRUE(tree.has_value());
  EXPECT_EQ(LocationNodeToString(*tree),
            "callsite(\"lib.py\":5:6 at \"top.py\":9:10)");
  EXPECT_EQ(LocationNodeToString(*file->DecodeLocationTree(info->kernels[4].location())),
            "fused[\"a.py\":1:1, \"t\"(unknown)]");
}

TEST(BefFileTest, OptionalSections) {
  std::vector<uint8_t> bytes = Program();
  std::unique_ptr<BefFile> file = Load(bytes);
  EXPECT_THAT(file->RegisterTypes(2).value(), ElementsAre(0, 0, 0, 1, 1));
  auto names = file->AttributeNames(2).value();
  ASSERT_EQ(names.size(), 5u);
  EXPECT_THAT(names[1], ElementsAre("value"));
  EXPECT_TRUE(names[2].empty());

  std::vector<uint8_t> bare = Program({.emit_optional_sections = false});
  std::unique_ptr<BefFile> bare_file = Load(bare);
  EXPECT_TRUE(bare_file->RegisterTypes(2).value().empty());
  EXPECT_TRUE(bare_file->AttributeNames(2).value().empty());
  EXPECT_EQ(bare_file->AttributeTypeAt(0), std::nullopt);
}

TEST(BefFileTest, OpenMapsAFileAndCopiesUnalignedBuffers) {
  std::vector<uint8_t> bytes = Program();
  std::string path = ::testing::TempDir() + "/program.bef";
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  absl::StatusOr<std::unique_ptr<BefFile>> mapped = BefFile::Open(path, Resolving());
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  EXPECT_EQ((*mapped)->image().size(), bytes.size());
  EXPECT_EQ(reinterpret_cast<uintptr_t>((*mapped)->image().data()) % 8, 0u);
  EXPECT_NE((*mapped)->FindFunction("main"), nullptr);

  std::vector<uint8_t> shifted(bytes.size() + 1);
  std::copy(bytes.begin(), bytes.end(), shifted.begin() + 1);
  absl::StatusOr<std::unique_ptr<BefFile>> copied = BefFile::OpenBuffer(
      std::span<const uint8_t>(shifted).subspan(1), Resolving());
  ASSERT_TRUE(copied.ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>((*copied)->image().data()) % 8, 0u);

  absl::StatusOr<std::unique_ptr<BefFile>> missing =
      BefFile::Open(::testing::TempDir() + "/missing.bef");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(),
              HasSubstr("No such file or directory"));
}

// What Open reads belongs to the BefFile: truncating, rewriting or removing
// the file afterwards changes nothing the program sees (a mapping would
// die of SIGBUS on the truncation's lost pages).
TEST(BefFileTest, LoadedBytesSurviveTheFileChanging) {
  std::vector<uint8_t> bytes = Program();
  std::string path = ::testing::TempDir() + "/changing.bef";
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  absl::StatusOr<std::unique_ptr<BefFile>> file = BefFile::Open(path, Resolving());
  ASSERT_TRUE(file.ok()) << file.status();
  // Same size, other bytes; then cut to nothing; then gone.
  {
    std::vector<uint8_t> garbage(bytes.size(), 0x5a);
    std::ofstream(path, std::ios::binary | std::ios::in | std::ios::out)
        .write(reinterpret_cast<const char*>(garbage.data()), garbage.size());
  }
  ASSERT_EQ(::truncate(path.c_str(), 0), 0);
  ASSERT_EQ(std::remove(path.c_str()), 0);
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), (*file)->image().begin(),
                         (*file)->image().end()));
  const BefFunctionEntry* main = (*file)->FindFunction("main");
  ASSERT_NE(main, nullptr);
  EXPECT_TRUE((*file)->GetFunctionInfo(main->index).ok());
}

TEST(BefFileTest, MapFileMapsTheFile) {
  std::vector<uint8_t> bytes = Program();
  std::string path = ::testing::TempDir() + "/mapped.bef";
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  BefLoadOptions options = Resolving();
  options.map_file = true;
  absl::StatusOr<std::unique_ptr<BefFile>> file = BefFile::Open(path, options);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_NE((*file)->FindFunction("main"), nullptr);
  EXPECT_EQ((*file)->image().size(), bytes.size());
}

TEST(BefFileTest, FilesThatAreNotRegular) {
  // A FIFO without a writer: refused at once when only regular files are
  // taken (never blocks opening it).
  std::string fifo = ::testing::TempDir() + "/fifo.bef";
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  BefLoadOptions regular = Resolving();
  regular.regular_files_only = true;
  absl::StatusOr<std::unique_ptr<BefFile>> refused = BefFile::Open(fifo, regular);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.status().message(), HasSubstr("is a FIFO, not a regular file"));
  EXPECT_EQ(BefFile::Open("-", regular).status().code(), absl::StatusCode::kFailedPrecondition);
  std::remove(fifo.c_str());

  // A directory is never a program.
  absl::StatusOr<std::unique_ptr<BefFile>> directory = BefFile::Open(::testing::TempDir());
  ASSERT_FALSE(directory.ok());
  EXPECT_THAT(directory.status().message(), HasSubstr("is a directory"));

  // An endless device is read as a stream only until its first bytes show
  // it is not BEF.
  absl::StatusOr<std::unique_ptr<BefFile>> zeros = BefFile::Open("/dev/zero", Resolving());
  ASSERT_FALSE(zeros.ok());
  EXPECT_THAT(zeros.status().message(), HasSubstr("invalid BEF file header"));
  EXPECT_EQ(BefFile::Open("/dev/zero", regular).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(BefFileTest, ReadRegularFileReadsAsOpenDoes) {
  std::string path = ::testing::TempDir() + "/config.json";
  std::ofstream(path, std::ios::binary) << "{\"inputs\": []}";
  absl::StatusOr<std::string> text = ReadRegularFile(path, 100);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "{\"inputs\": []}");
  // Larger than the limit: refused before it is read.
  absl::StatusOr<std::string> large = ReadRegularFile(path, 5);
  EXPECT_EQ(large.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(large.status().message(), HasSubstr("is larger than 5 bytes"));
  // A FIFO without a writer is refused at once; a directory, a device and
  // a missing file too.
  std::string fifo = ::testing::TempDir() + "/config.fifo";
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  absl::StatusOr<std::string> refused = ReadRegularFile(fifo, 100);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.status().message(), HasSubstr("is a FIFO, not a regular file"));
  std::remove(fifo.c_str());
  EXPECT_THAT(ReadRegularFile(::testing::TempDir(), 100).status().message(),
              HasSubstr("is a directory, not a regular file"));
  EXPECT_EQ(ReadRegularFile("/dev/zero", 100).status().code(),
            absl::StatusCode::kFailedPrecondition);
  absl::StatusOr<std::string> missing = ReadRegularFile(path + ".gone", 100);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("No such file or directory"));
}

TEST(BefFileTest, InputsOverTheSizeLimitAreNotRead) {
  std::vector<uint8_t> bytes = Program();
  std::string path = ::testing::TempDir() + "/limited.bef";
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  BefLoadOptions options = Resolving();
  options.max_file_bytes = bytes.size() - 1;
  absl::StatusOr<std::unique_ptr<BefFile>> file = BefFile::Open(path, options);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(file.status().message(), HasSubstr("max_file_bytes"));
  options.max_file_bytes = bytes.size();
  EXPECT_TRUE(BefFile::Open(path, options).ok());
}

TEST(BefFileTest, UnknownKernel) {
  KernelRegistry empty;
  // With arguments/results in the file: no location (TFRT's behaviour).
  absl::Status status = LoadError(Program(), {.kernels = &empty});
  EXPECT_EQ(status.message(), "unknown kernel name 'tfrt.add.i32'");
  EXPECT_FALSE(LoadErrorLocation(status).has_value());
  // No function has arguments or results: the first use's location.
  BefWriter writer;
  BefWriter::Function& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {});
  f.AddKernel("tfrt.new.chain", At("u.mlir", 1, 1)).AddResult("!tfrt.chain");
  f.AddKernel("unsupported_kernel", At("u.mlir", 7, 3)).AddResult("!tfrt.chain");
  f.Return({});
  status = LoadError(Finish(writer));
  EXPECT_EQ(status.message(), "unknown kernel name 'unsupported_kernel'");
  std::optional<DecodedLocation> location = LoadErrorLocation(status);
  ASSERT_TRUE(location.has_value());
  EXPECT_EQ(location->filename, "u.mlir");
  EXPECT_EQ(location->line, 7u);
  EXPECT_EQ(location->column, 3u);
}

TEST(BefFileTest, UnknownNativeFunction) {
  NativeFunctionRegistry none;
  absl::Status status =
      LoadError(Program(), {.kernels = &TestKernels(), .native_functions = &none});
  EXPECT_EQ(status.message(),
            "invalid FunctionIndex section in BEF file: unable to find native "
            "function in global registry");
}

TEST(BefFileTest, SyncResultThatIsAnArgumentIsALoadError) {
  BefWriter writer;
  BefWriter::Function& f =
      writer.AddFunction(FunctionKind::kSyncBefFunction, "s", {"i32"}, {"i32"});
  f.Return({0});
  absl::Status status = LoadError(Finish(writer));
  EXPECT_EQ(status.message(),
            "invalid FunctionIndex section in BEF file: Invalid "
            "SyncBEFFunction(Result cannot be an argument or another result)");
}

TEST(BefFileTest, RegisterTypesAreCheckedAgainstSignatures) {
  BefWriter writer;
  BefWriter::Function& f =
      writer.AddFunction(FunctionKind::kBefFunction, "f", {"i64", "i32"}, {});
  f.AddKernel("tfrt.add.i32").AddArgument(0).AddArgument(1).AddResult("i32");
  f.Return({});
  std::vector<uint8_t> bytes = Finish(writer);
  std::unique_ptr<BefFile> file = Load(bytes);
  absl::StatusOr<const FunctionInfo*> info = file->GetFunctionInfo(0);
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().message(), "invalid Function section in BEF file");
  EXPECT_THAT(FormatErrorDetail(info.status()),
              HasSubstr("operand 0 is i64, the kernel expects i32"));
  // Without the check (or without RegisterTypes) it loads.
  BefLoadOptions unchecked = Resolving();
  unchecked.check_register_types = false;
  EXPECT_TRUE(Load(bytes, unchecked)->GetFunctionInfo(0).ok());
}

TEST(BefFileTest, TrailingChainOperandIsAccepted) {
  BefWriter writer;
  BefWriter::Function& f = writer.AddFunction(FunctionKind::kBefFunction, "f",
                                              {"i32", "i32", "!tfrt.chain"}, {});
  f.AddKernel("tfrt.add.i32").AddArgument(0).AddArgument(1).AddArgument(2).AddResult("i32");
  f.Return({});
  std::vector<uint8_t> bytes = Finish(writer);
  EXPECT_TRUE(Load(bytes)->GetFunctionInfo(0).ok());

  BefWriter extra;
  BefWriter::Function& g =
      extra.AddFunction(FunctionKind::kBefFunction, "g", {"i32", "i32", "i32"}, {});
  g.AddKernel("tfrt.add.i32").AddArgument(0).AddArgument(1).AddArgument(2).AddResult("i32");
  g.Return({});
  std::vector<uint8_t> extra_bytes = Finish(extra);
  EXPECT_FALSE(Load(extra_bytes)->GetFunctionInfo(0).ok());
}

TEST(BefFileTest, KernelsMustProvideWhatTheyRead) {
  BefWriter writer;
  BefWriter::Function& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"}, {});
  f.AddKernel("tfrt.add.i32").AddArgument(0).AddResult("i32");  // one operand
  f.AddKernel("tfrt.constant.i32").AddResult("i32");            // no attribute
  f.Return({});
  std::vector<uint8_t> bytes = Finish(writer);
  absl::StatusOr<const FunctionInfo*> info = Load(bytes)->GetFunctionInfo(0);
  ASSERT_FALSE(info.ok());
  EXPECT_THAT(FormatErrorDetail(info.status()),
              HasSubstr("1 operands, the kernel reads 2"));
}

TEST(BefFileTest, AttributesAreVerifiedAsTheKernelReadsThem) {
  // A dense-reading kernel pointed at an i32 attribute near the pool's end.
  BefWriter writer;
  BefWriter::Function& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {});
  f.AddKernel("test.read_dense").AddAttribute(BefAttribute::I32(7), "d").AddResult("i64");
  f.Return({});
  std::vector<uint8_t> bytes = Finish(writer);
  absl::StatusOr<const FunctionInfo*> info = Load(bytes)->GetFunctionInfo(0);
  ASSERT_FALSE(info.ok());
  EXPECT_THAT(FormatErrorDetail(info.status()), HasSubstr("attribute 0"));
}

TEST(BefFileTest, VersionAndHeaderErrors) {
  std::vector<uint8_t> bytes = Program();
  bytes[2] = 1;
  EXPECT_EQ(LoadError(bytes).message(), "Unknown BEF format version detected");
  EXPECT_EQ(LoadError({0x0B, 0xEF, 0x00}).message(),
            "invalid Kernels section in BEF file");
}

// Corrupts one field of main's record (found by its known layout) and checks
// that inflation rejects it with a message.
TEST(BefFileTest, InconsistentDataflowIsRejected) {
  std::vector<uint8_t> good = Program();
  std::unique_ptr<BefFile> file = Load(good);
  const FunctionInfo* info = file->GetFunctionInfo(2).value();
  size_t image_offset = reinterpret_cast<const uint8_t*>(info->kernels[2].record) -
                        file->image().data();
  struct Mutation {
    size_t word;     // from the add kernel's record start
    uint32_t value;
    const char* detail;
  };
  // Add record: code, loc, 2 args, 0 attrs, 0 fns, 1 result, used-by count 2,
  // args 0 1, result 2, used-by [4] ...
  for (const Mutation& m : std::vector<Mutation>{
           {7, 3, "used-by lists do not match"},   // reads register 3
           {10, 3, "used-by lists do not match"},  // lists another later kernel
           {8, 0, "used-by lists do not match"},   // reads register 0 twice
           {7, 99, "argument register 99"},         // out of range
           {9, 0, "produced twice"},                // result = argument 0
           {6, 5, "is not a later kernel"},         // more used-by entries
           {6, 900, "run past the kernel list"},
           {0, 77, "kernel code 77"},
       }) {
    std::vector<uint8_t> bad = good;
    size_t at = image_offset + 4 * m.word;
    bad[at] = m.value & 0xFF;
    bad[at + 1] = bad[at + 2] = bad[at + 3] = 0;
    BefLoadOptions unchecked = Resolving();
    unchecked.check_register_types = false;  // let the dataflow check see it
    std::unique_ptr<BefFile> bad_file = Load(bad, unchecked);
    ASSERT_NE(bad_file, nullptr);
    absl::StatusOr<const FunctionInfo*> bad_info = bad_file->GetFunctionInfo(2);
    ASSERT_FALSE(bad_info.ok()) << m.detail;
    EXPECT_THAT(FormatErrorDetail(bad_info.status()), HasSubstr(m.detail));
  }
}

TEST(BefDumpTest, ListsEveryAttributeKindAndLocation) {
  BefWriter writer;
  BefWriter::Function& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {});
  using A = BefAttribute;
  f.AddKernel("k", At("d.mlir", 4, 2))
      .AddAttribute(A::Bool(true), "a1")
      .AddAttribute(A::I64(-5), "a2")
      .AddAttribute(A::F32(1.5f), "a3")
      .AddAttribute(A::String("text"), "a4")
      .AddAttribute(A::Type(DType::kBF16), "a5")
      .AddAttribute(A::I32Array({1, 2}), "a6")
      .AddAttribute(A::EmptyArray(), "a7")
      .AddAttribute(A::Dense(DType::kI32, {2, 2}, std::vector<uint8_t>(16, 0)), "a8")
      .AddAttribute(A::Shape({3, -1}), "a9")
      .AddAttribute(A::UnrankedShape(), "b1")
      .AddAttribute(A::Aggregate({A::I8(1), A::String("x")}), "b2")
      .AddAttribute(A::SymbolRef(0, "m", {"f"}, "module {}"), "b3")
      .AddResult("i32");
  f.Return({});
  std::vector<uint8_t> bytes = Finish(writer);
  std::unique_ptr<BefFile> file = Load(bytes, {});
  std::string dump = DumpBefFile(*file);
  for (const char* expected :
       {"a1 = true : i1", "a2 = -5 : i64", "a3 = 1.5 : f32", "a4 = \"text\"",
        "a5 = bf16", "a6 = [1, 2] : array<i32>", "a7 = [] : array<i32>",
        "a8 = dense<i32>[2, 2] (16 bytes)", "a9 = shape<3x?>", "b1 = shape<*>",
        "b2 = [1 : i8, \"x\"]", "b3 = @m::@f", "at \"d.mlir\":4:2",
        "Attributes", "FunctionIndex", "%0 : i32"}) {
    EXPECT_THAT(dump, HasSubstr(expected));
  }
  std::string summary = DumpBefFile(*file, {.summary = true});
  EXPECT_THAT(summary, HasSubstr("RegisterTypes"));
  EXPECT_THAT(summary, ::testing::Not(HasSubstr("kernels (")));
}

}  // namespace
}  // namespace bef
