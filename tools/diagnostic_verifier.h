// DiagnosticVerifier: bef_executor's handling of runtime diagnostics, which
// is MLIR's source-manager diagnostic verifier (what TFRT's driver uses),
// reimplemented without MLIR so the driver starts in microseconds.
//
// A diagnostic with a file location loads that source file (once) and its
// `expected-*` annotations:
//   expected-(error|note|remark|warning)(-re)? *(@([+-]N|above|below|unknown))? *{{TEXT}}
// It matches an annotation of the same severity on its line whose TEXT is a
// substring (or, with -re, a regex with {{...}} pieces) of the diagnostic
// text; matched diagnostics print nothing. Other diagnostics are printed as
// MLIR prints them ("FILE:L:C: error: unexpected error: TEXT", the source
// line and a caret). Annotations of loaded files never matched are reported
// by Finish(). Non-file locations match `@unknown` annotations.
#ifndef BEF_TOOLS_DIAGNOSTIC_VERIFIER_H_
#define BEF_TOOLS_DIAGNOSTIC_VERIFIER_H_

#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bef/async/location.h"

namespace bef {

class DiagnosticVerifier {
 public:
  // Output goes to `out` (stderr in the driver).
  explicit DiagnosticVerifier(std::FILE* out) : out_(out) {}

  // An error diagnostic with text `message` (e.g. "runtime error: MSG").
  // Thread-safe.
  void Report(const std::optional<DecodedLocation>& location,
              const std::string& message);

  // Reports annotations never matched; returns whether everything was
  // expected (the driver's exit status is 0 exactly then).
  bool Finish();

 private:
  struct Annotation {
    std::string kind;  // error, warning, note, remark
    bool regex = false;
    std::string text;
    bool unknown = false;    // @unknown
    int target_line = 0;     // 1-based line it applies to
    int line = 0;            // where `expected-` is written
    int column = 0;
    bool matched = false;
  };
  struct SourceFile {
    std::string path;
    bool readable = false;
    std::vector<std::string> lines;
    std::vector<Annotation> annotations;
  };

  SourceFile* Load(const std::string& path);
  static bool Matches(const Annotation& annotation, const std::string& message);
  void PrintSourceLine(const SourceFile* file, int line, int column, size_t underline);

  std::FILE* out_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<SourceFile>> files_;
  std::vector<SourceFile*> load_order_;
  bool failed_ = false;
};

}  // namespace bef

#endif  // BEF_TOOLS_DIAGNOSTIC_VERIFIER_H_
