// Input and output of the converters (mlir-to-bef, bef-to-mlir, bef-opt),
// made safe for careless scripts and hostile inputs:
//
//  - Inputs are read with a bound (--max_input_bytes, default 4 GiB),
//    checked while reading, so `mlir-to-bef /dev/zero` ends in an error
//    instead of filling memory; a caller may check the first bytes (a BEF
//    file's magic) before the rest is read.
//  - An output that is the input (the same file, also through a symlink or a
//    hard link: same device and inode) is refused before anything is
//    opened for writing, so the input is left as it was.
//  - Only a regular file (or a new one) is removed when a run fails; `-o -`,
//    `/dev/stdout`, `/dev/null`, FIFOs and other non-regular paths are
//    written through and never deleted.
//  - MLIR text nested deeper than --max_nesting_depth (default 4,096
//    levels of `{`, `[` or `(`) is refused before MLIR's recursive parser
//    sees it, and the work runs on a thread whose stack holds that depth
//    (RunWithLargeStack), so deep input ends in a message and exit code 1,
//    never a signal. An affine map or set with more operators than
//    --max_affine_operators (default 10,000) is refused the same way (MLIR's
//    affine parser recurses per operator, its simplification is quadratic
//    in them). Nesting brackets do not show (a long run of unary
//    minus signs in an affine expression) is caught where it overflows that
//    stack: a guard region below it turns the fault into the same kind of
//    error, and a partly written output file is removed.
//
// docs/converters.md describes the flags.
#ifndef BEF_TOOLS_CONVERTER_IO_CONVERTER_IO_H_
#define BEF_TOOLS_CONVERTER_IO_CONVERTER_IO_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

namespace bef::converter_io {

// --max_input_bytes and --max_nesting_depth, as given on the command line
// (registered with LLVM's command line by this library, with
// --max_affine_operators, which CheckMlirNesting reads).
uint64_t MaxInputBytes();
unsigned MaxNestingDepth();

// Decides on the first bytes of an input (fewer when the input is shorter)
// whether to read the rest; on false it has reported why.
using PrefixCheck = std::function<bool(llvm::ArrayRef<char> first_bytes)>;

struct ReadOptions {
  uint64_t max_bytes = 0;
  // The path the output will be written to ("-" for standard output): the
  // input must not be that file.
  std::string output_path = "-";
  size_t prefix_size = 0;
  PrefixCheck check_prefix;  // optional
};

// Reads `path` ("-" for standard input). Null after writing a message to
// `error` (or after `check_prefix` refused).
std::unique_ptr<llvm::MemoryBuffer> ReadInput(const std::string& path,
                                              const ReadOptions& options,
                                              std::string* error);

// The deepest nesting of `{`, `[`, `(` and `<` in MLIR text, outside
// strings and comments, and the operators of each `affine_map<...>` and
// `affine_set<...>`. When the nesting exceeds `limit` or the operators
// --max_affine_operators, returns false with a message naming the line
// where it does.
bool CheckMlirNesting(llvm::StringRef text, unsigned limit,
                      llvm::StringRef buffer_name, std::string* error);

// Where a converter writes. Removes what it created only when the output is
// a regular file (or did not exist) and Keep() was not called.
class OutputFile {
 public:
  static std::unique_ptr<OutputFile> Open(const std::string& path,
                                          std::string* error);
  ~OutputFile();
  llvm::raw_ostream& os() { return *stream_; }
  // The run succeeded: keep the file. Returns false (with a message) when
  // writing failed.
  bool Keep(std::string* error);

 private:
  OutputFile() = default;
  std::unique_ptr<llvm::ToolOutputFile> regular_;  // removable
  std::unique_ptr<llvm::raw_fd_ostream> special_;  // device, FIFO, ...
  llvm::raw_ostream* stream_ = nullptr;
};

// The converters' usual sequence, each step printing its error to stderr
// and returning null (or false) when it fails:
//   OpenMlirInput   ReadInput with the flags' bound, refused when it is
//                   `output_path`, then CheckMlirNesting;
//   OpenOutput      OutputFile::Open;
//   KeepOutput      OutputFile::Keep.
std::unique_ptr<llvm::MemoryBuffer> OpenMlirInput(const std::string& input_path,
                                                  const std::string& output_path);
std::unique_ptr<OutputFile> OpenOutput(const std::string& path);
bool KeepOutput(OutputFile& output);

// Runs `body` on a thread whose stack holds --max_nesting_depth levels of
// MLIR's recursive parsing, verification, printing and destruction, and
// returns its exit code. Deeper recursion than the stack holds (nesting
// without brackets, which CheckMlirNesting cannot see) is an error, not a
// signal: the body is abandoned where it was (its memory leaks), and the
// message goes to `overflow_message` or, when that is null (the tools), to
// stderr, after removing the output files the body had opened.
int RunWithLargeStack(const std::function<int()>& body,
                      std::string* overflow_message = nullptr);

// The main of a converter tool: initialises LLVM, registers MLIR's printer
// and context options, parses the command line (with `overview` as --help's
// first line) and returns RunWithLargeStack(run).
int ConverterMain(int argc, char** argv, const char* overview, int (*run)());

}  // namespace bef::converter_io

#endif  // BEF_TOOLS_CONVERTER_IO_CONVERTER_IO_H_
