#include "lib/testing/golden.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include "gtest/gtest.h"

namespace bef::testing {

std::string GoldenPath(std::string_view name) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  std::string root = srcdir ? std::string(srcdir) + "/golden/files/"
                            : std::string("external/golden/files/");
  return root + std::string(name);
}

std::vector<uint8_t> ReadFileBytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    ADD_FAILURE() << "cannot read " << path;
    return {};
  }
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(file), {});
}

std::string ReadFileText(const std::string& path) {
  std::vector<uint8_t> bytes = ReadFileBytes(path);
  return std::string(bytes.begin(), bytes.end());
}

std::string HexDump(const std::vector<uint8_t>& bytes) {
  std::string out;
  char buffer[24];
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i % 16 == 0) {
      std::snprintf(buffer, sizeof(buffer), "%s%04zx:", i ? "\n" : "", i);
      out += buffer;
    }
    std::snprintf(buffer, sizeof(buffer), " %02x", bytes[i]);
    out += buffer;
  }
  return out;
}

}  // namespace bef::testing
