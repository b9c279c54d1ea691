// Deterministic corruption test: at least 10,000 mutants of valid BEF files
// (truncations, bit flips, extreme bytes, huge 32-bit words, insertions,
// deletions) are opened and, where they open, every function is inflated and
// the file is dumped. Nothing may crash (the suite also runs under ASan and
// UBSan), and every rejection must be a status with a message.
#include <dirent.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "bef/format/bef_writer.h"
#include "bef/format/format_error.h"
#include "bef/host/kernel_utils.h"
#include "bef/loader/bef_dump.h"
#include "bef/loader/bef_file.h"
#include "gtest/gtest.h"
#include "lib/testing/golden.h"

namespace bef {
namespace {

int32_t AddI32(Argument<int32_t> a, Argument<int32_t> b) { return *a + *b; }
int32_t ConstantI32(Attribute<int32_t> value) { return *value; }
int64_t ConstantI64(Attribute<int64_t> value) { return *value; }
Chain PrintI32(Argument<int32_t>, Argument<Chain>) { return Chain(); }
Chain NewChain() { return Chain(); }
int64_t Dense(DenseAttribute dense) { return dense.num_elements(); }
int64_t Strings(StringAttribute a, ArrayAttribute<int64_t> b) {
  return static_cast<int64_t>(a.get().size() + b.size());
}
void Raw(AsyncKernelFrame*) {}

std::vector<std::string> GoldenBefFiles() {
  std::vector<std::string> names;
  DIR* dir = opendir(testing::GoldenPath("").c_str());
  if (dir == nullptr) return names;
  while (dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (name.size() > 4 && name.substr(name.size() - 4) == ".bef") names.push_back(name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<uint8_t> Mutate(const std::vector<uint8_t>& original, std::mt19937& rng) {
  std::vector<uint8_t> bytes = original;
  auto pick = [&](size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  switch (pick(6)) {
    case 0:  // truncation
      bytes.resize(pick(bytes.size() + 1));
      break;
    case 1: {  // bit flips
      int flips = 1 + static_cast<int>(pick(3));
      for (int i = 0; i < flips && !bytes.empty(); ++i) {
        bytes[pick(bytes.size())] ^= static_cast<uint8_t>(1u << pick(8));
      }
      break;
    }
    case 2: {  // extreme byte
      static const uint8_t kExtremes[] = {0x00, 0xFF, 0x7F, 0x80, 0x81, 0x01};
      if (!bytes.empty()) bytes[pick(bytes.size())] = kExtremes[pick(6)];
      break;
    }
    case 3: {  // huge 32-bit word, aligned or not
      static const uint32_t kWords[] = {0xFFFFFFFF, 0x7FFFFFFF, 0x80000000,
                                        0xFFFFFFFE, 0x00010000, 0x0000FFFF};
      if (bytes.size() >= 4) {
        size_t at = pick(bytes.size() - 3);
        if (pick(2) == 0) at &= ~size_t{3};
        uint32_t word = kWords[pick(6)];
        for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<uint8_t>(word >> (8 * i));
      }
      break;
    }
    case 4: {  // insertion
      size_t at = pick(bytes.size() + 1);
      size_t count = 1 + pick(8);
      std::vector<uint8_t> inserted(count);
      for (uint8_t& b : inserted) b = static_cast<uint8_t>(pick(256));
      bytes.insert(bytes.begin() + at, inserted.begin(), inserted.end());
      break;
    }
    case 5: {  // deletion
      if (bytes.empty()) break;
      size_t at = pick(bytes.size());
      size_t count = std::min(bytes.size() - at, 1 + pick(8));
      bytes.erase(bytes.begin() + at, bytes.begin() + at + count);
      break;
    }
  }
  return bytes;
}

TEST(CorruptionTest, MutantsNeverCrash) {
  std::vector<std::vector<uint8_t>> bases;
  KernelRegistry registry;
  for (const std::string& name : GoldenBefFiles()) {
    std::vector<uint8_t> bytes = testing::ReadFileBytes(testing::GoldenPath(name));
    absl::StatusOr<std::unique_ptr<BefFile>> file = BefFile::OpenBuffer(bytes);
    if (!file.ok()) continue;
    for (uint32_t code = 0; code < (*file)->num_kernels(); ++code) {
      registry.AddKernel((*file)->kernel_name(code), &Raw);
    }
    bases.push_back(std::move(bytes));
  }
  // Typed kernels: their signatures drive attribute and register checks.
  registry.AddKernel("tfrt.add.i32", BEF_KERNEL(AddI32));
  registry.AddKernel("tfrt.constant.i32", BEF_KERNEL(ConstantI32));
  registry.AddKernel("tfrt.constant.i64", BEF_KERNEL(ConstantI64));
  registry.AddKernel("tfrt.print.i32", BEF_KERNEL(PrintI32));
  registry.AddKernel("tfrt.new.chain", BEF_KERNEL(NewChain));
  registry.AddKernel("tfrt_test.const_dense_attr", BEF_KERNEL(Dense));
  registry.AddKernel("test.strings", BEF_KERNEL(Strings));
  ASSERT_GT(bases.size(), 100u);

  constexpr int kMutants = 12000;
  std::mt19937 rng(20261122);
  int opened = 0, rejected = 0, functions_ok = 0, functions_rejected = 0;
  for (int i = 0; i < kMutants; ++i) {
    const std::vector<uint8_t>& base = bases[i % bases.size()];
    std::vector<uint8_t> mutant = Mutate(base, rng);
    BefLoadOptions options;
    if (i % 2 == 0) options.kernels = &registry;
    absl::StatusOr<std::unique_ptr<BefFile>> file =
        BefFile::OpenBuffer(mutant, options, "mutant", /*copy=*/true);
    if (!file.ok()) {
      ++rejected;
      ASSERT_FALSE(file.status().message().empty()) << "mutant " << i;
      continue;
    }
    ++opened;
    for (uint32_t f = 0; f < (*file)->num_functions(); ++f) {
      if ((*file)->function(f).kind == FunctionKind::kNativeFunction) continue;
      absl::StatusOr<const FunctionInfo*> info = (*file)->GetFunctionInfo(f);
      if (info.ok()) {
        ++functions_ok;
      } else {
        ++functions_rejected;
        ASSERT_FALSE(info.status().message().empty()) << "mutant " << i;
      }
      // Every location field decodes without crashing.
      if (info.ok()) {
        for (const KernelInfo& kernel : (*info)->kernels) {
          if (&kernel != &(*info)->kernels[0]) {
            (*file)->DecodeLocation(kernel.location());
          }
        }
      }
    }
    std::string dump = DumpBefFile(**file);
    ASSERT_FALSE(dump.empty());
  }
  std::printf("%d mutants: %d opened (%d functions verified, %d rejected), "
              "%d rejected at open\n",
              kMutants, opened, functions_ok, functions_rejected, rejected);
  EXPECT_EQ(opened + rejected, kMutants);
  EXPECT_GT(opened, 0);
  EXPECT_GT(rejected, 0);
  EXPECT_GT(functions_rejected, 0);
}

}  // namespace
}  // namespace bef
