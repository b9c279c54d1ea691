// Every BEF file of the golden corpus (written by the reference translator)
// loads and dumps, with every function inflated; the malformed ones fail with
// TFRT's messages.
#include <dirent.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "bef/format/format_error.h"
#include "bef/loader/bef_dump.h"
#include "bef/loader/bef_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/golden.h"

namespace bef {
namespace {

std::vector<std::string> GoldenBefFiles() {
  std::vector<std::string> names;
  std::string directory = testing::GoldenPath("");
  DIR* dir = opendir(directory.c_str());
  EXPECT_NE(dir, nullptr) << directory;
  if (dir == nullptr) return names;
  while (dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (name.size() > 4 && name.substr(name.size() - 4) == ".bef") {
      names.push_back(name);
    }
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

TEST(GoldenFilesTest, EveryFileLoadsOrFailsAsTheReferenceDoes) {
  // Files the reference's executor rejects at load (with these messages).
  const std::map<std::string, std::string> rejected = {
      {"bef_malformed.empty.bef", "invalid BEF file header detected"},
      {"bef_malformed.header_only.bef", "invalid Kernels section in BEF file"},
      {"bef_malformed.bad_magic.bef", "invalid BEF file header detected"},
      {"bef_malformed.bad_version.bef", "Unknown BEF format version detected"},
      {"bef_malformed.truncated.bef", "BEF file section header corrupted"},
      {"bef_malformed.bad_length.bef", "BEF file section header corrupted"},
      {"split_input.bef", "BEF file section header corrupted"},
  };
  std::vector<std::string> files = GoldenBefFiles();
  EXPECT_GT(files.size(), 100u);
  for (const std::string& name : files) {
    absl::StatusOr<std::unique_ptr<BefFile>> file =
        BefFile::Open(testing::GoldenPath(name), {});
    auto expected = rejected.find(name);
    if (expected != rejected.end()) {
      ASSERT_FALSE(file.ok()) << name;
      EXPECT_EQ(file.status().message(), expected->second) << name;
      continue;
    }
    ASSERT_TRUE(file.ok()) << name << ": " << DescribeFormatError(file.status());
    for (uint32_t i = 0; i < (*file)->num_functions(); ++i) {
      if ((*file)->function(i).kind == FunctionKind::kNativeFunction) continue;
      absl::StatusOr<const FunctionInfo*> info = (*file)->GetFunctionInfo(i);
      EXPECT_TRUE(info.ok()) << name << " function " << i << ": "
                             << DescribeFormatError(info.status());
    }
    std::string dump = DumpBefFile(**file);
    EXPECT_THAT(dump, ::testing::Not(::testing::HasSubstr("error:"))) << name;
    EXPECT_THAT(dump, ::testing::Not(::testing::HasSubstr("warning:"))) << name;
  }
}

}  // namespace
}  // namespace bef
