// Test helpers: locate the golden corpus (@golden, i.e. shared/spec/golden)
// in a test's runfiles and read files as bytes or text.
#ifndef BEF_TESTING_GOLDEN_H_
#define BEF_TESTING_GOLDEN_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bef::testing {

// Path of `name` in the golden corpus (the test must list it as data,
// e.g. "@golden//:golden").
std::string GoldenPath(std::string_view name);

// Whole-file reads; an unreadable file fails the current test (ADD_FAILURE)
// and yields an empty result.
std::vector<uint8_t> ReadFileBytes(const std::string& path);
std::string ReadFileText(const std::string& path);

// Hex dump of `bytes` ("0b ef 00 ..."), 16 bytes a line, for readable
// failure messages.
std::string HexDump(const std::vector<uint8_t>& bytes);

}  // namespace bef::testing

#endif  // BEF_TESTING_GOLDEN_H_
