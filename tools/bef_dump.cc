// bef-dump: prints what is in a BEF file.
//
//   bef-dump [--summary] FILE.bef     (FILE "-" or none: standard input)
//
// Reads any BEF file this project or TFRT writes; kernel names are shown,
// not resolved, so files for other kernel sets can be inspected. Exit status
// 1 when the file does not load (the error is printed with its section and
// byte offset) or the dump cannot be written.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "bef/format/format_error.h"
#include "bef/loader/bef_dump.h"
#include "bef/loader/bef_file.h"

int main(int argc, char** argv) {
  bef::BefDumpOptions options;
  std::string path = "-";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--summary" || arg == "-summary") {
      options.summary = true;
    } else if (arg == "--help" || arg == "-h") {
      std::printf("usage: %s [--summary] [FILE.bef]\n", argv[0]);
      return 0;
    } else if (arg.size() > 1 && arg[0] == '-') {
      std::fprintf(stderr, "%s: unknown option %s\n", argv[0], arg.c_str());
      return 2;
    } else {
      path = arg;
    }
  }
  bef::BefLoadOptions load;
  load.check_register_types = false;
  absl::StatusOr<std::unique_ptr<bef::BefFile>> file = bef::BefFile::Open(path, load);
  if (!file.ok()) {
    std::fprintf(stderr, "%s: %s: %s\n", argv[0], path.c_str(),
                 bef::DescribeFormatError(file.status()).c_str());
    return 1;
  }
  std::string text = bef::DumpBefFile(**file, options);
  // Output that cannot be written (a full disk, a closed pipe) is an error,
  // not a silent success.
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() ||
      std::fflush(stdout) != 0) {
    std::fprintf(stderr, "%s: cannot write the dump: %s\n", argv[0], std::strerror(errno));
    return 1;
  }
  return 0;
}
