// A small deterministic fuzzing driver for targets whose libraries the
// clang-14 libFuzzer build cannot take (MLIR's, built by Bazel with g++):
//
//   mutate_main SEED RUNS SAVE_PATH CORPUS_DIR_OR_FILE...
//
// reads the corpus (files ending in .mlir when a directory is given), then
// RUNS times picks an input (each CORPUS argument as likely as another) and applies 1-8 mutations (byte flips, token
// insertions from an MLIR dictionary, slices deleted, a token repeated up
// to 2,000 times and one time in ten up to 400,000: deep nesting of any
// kind)
// and runs LLVMFuzzerTestOneInput
// on it. Each input is written to SAVE_PATH before it runs, so a crash
// leaves the input that caused it behind. The same SEED gives the same
// inputs. An input slower than FUZZ_TIMEOUT seconds (default 10) is a
// finding: the driver stops with exit code 1 and the input kept.
#include <dirent.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
// Optional: the target's own summary, printed at the end.
extern "C" [[gnu::weak]] void MlirTextFuzzerReport();

namespace {

const char* const kTokens[] = {
    "{", "}", "(", ")", "[", "]", "<", ">", "-", "+", "*", " - ", " + d0", "->", ":",
    ",", "%", "%0", "@f", "\"", "#", "^bb0", "i32", "i1", "f32", "!tfrt.chain",
    "tfrt.return", "tfrt.add.i32", "tfrt.constant.i32 1", "func.func @f(", "loc(",
    "affine_map<(d0) -> (", "dense<[", "tensor<4xi32>", "floordiv", "mod", "=",
    "\n", "0x7fffffff", "-2147483649", "1e999", "\xff", "//", "tfrt.call @f",
};

void AddFile(const std::string& path, std::vector<std::string>* corpus) {
  std::ifstream file(path, std::ios::binary);
  corpus->emplace_back(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

void AddPath(const std::string& path, std::vector<std::string>* corpus) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(1);
  }
  if (!S_ISDIR(info.st_mode)) {
    AddFile(path, corpus);
    return;
  }
  DIR* dir = opendir(path.c_str());
  while (dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".mlir") == 0) {
      AddFile(path + "/" + name, corpus);
    }
  }
  closedir(dir);
}

std::string Mutate(std::string input, std::mt19937_64& random) {
  auto below = [&](size_t n) { return n == 0 ? size_t{0} : size_t(random() % n); };
  const int mutations = 1 + static_cast<int>(below(8));
  for (int m = 0; m < mutations; ++m) {
    const size_t at = below(input.size() + 1);
    switch (below(5)) {
      case 0:  // flip a byte
        if (!input.empty()) input[below(input.size())] ^= static_cast<char>(1 + below(255));
        break;
      case 1:  // insert a token
        input.insert(at, kTokens[below(std::size(kTokens))]);
        break;
      case 2: {  // delete a slice
        size_t length = below(std::min<size_t>(64, input.size() - std::min(at, input.size())) + 1);
        input.erase(std::min(at, input.size()), length);
        break;
      }
      case 3: {  // repeat a token many times (nesting of any kind), now and
                 // then past what any stack holds
        std::string token = kTokens[below(std::size(kTokens))];
        std::string repeated;
        const size_t most = below(10) == 0 ? 400000 : 2000;
        for (size_t i = 0, n = 1 + below(most); i < n; ++i) repeated += token;
        input.insert(at, repeated);
        break;
      }
      default: {  // repeat a slice of the input
        size_t begin = below(input.size() + 1);
        size_t length = below(std::min<size_t>(32, input.size() - begin) + 1);
        std::string slice = input.substr(begin, length), repeated;
        for (size_t i = 0, n = 1 + below(200); i < n; ++i) repeated += slice;
        input.insert(at, repeated);
        break;
      }
    }
  }
  return input;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s SEED RUNS SAVE_PATH CORPUS...\n", argv[0]);
    return 2;
  }
  const uint64_t seed = std::strtoull(argv[1], nullptr, 10);
  const long runs = std::strtol(argv[2], nullptr, 10);
  const std::string save_path = argv[3];
  // An input slower than this is a finding too (FUZZ_TIMEOUT, seconds).
  const char* timeout = std::getenv("FUZZ_TIMEOUT");
  const double timeout_seconds = timeout != nullptr ? std::strtod(timeout, nullptr) : 10.0;
  // One group per corpus argument, each as likely to be picked (a
  // directory of a few hand-written seeds counts as much as the golden
  // corpus).
  std::vector<std::vector<std::string>> groups;
  size_t seeds = 0;
  for (int i = 4; i < argc; ++i) {
    std::vector<std::string> group;
    AddPath(argv[i], &group);
    seeds += group.size();
    if (!group.empty()) groups.push_back(std::move(group));
  }
  if (groups.empty()) {
    std::fprintf(stderr, "no corpus\n");
    return 1;
  }
  std::mt19937_64 random(seed);
  for (long run = 0; run < runs; ++run) {
    const std::vector<std::string>& group = groups[random() % groups.size()];
    std::string input = Mutate(group[random() % group.size()], random);
    {
      std::ofstream saved(save_path, std::ios::binary | std::ios::trunc);
      saved << input;
    }
    const auto start = std::chrono::steady_clock::now();
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (seconds > timeout_seconds) {
      std::fprintf(stderr, "run %ld took %.1f s (more than %.1f): a finding, kept in %s\n", run,
                   seconds, timeout_seconds, save_path.c_str());
      return 1;
    }
  }
  std::printf("ran %ld mutated inputs from %zu seeds (seed %llu)\n", runs, seeds,
              static_cast<unsigned long long>(seed));
  if (MlirTextFuzzerReport != nullptr) MlirTextFuzzerReport();
  return 0;
}
