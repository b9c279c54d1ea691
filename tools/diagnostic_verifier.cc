#include "tools/diagnostic_verifier.h"

#include <fstream>
#include <regex>

namespace bef {
namespace {

// MLIR 22's annotation pattern.
const std::regex& AnnotationPattern() {
  static const std::regex* pattern = new std::regex(
      "expected-(error|note|remark|warning)(-re)? *"
      "(@([+-][0-9]+|above|below|unknown))? *\\{\\{(.*)\\}\\}$");
  return *pattern;
}

// A -re annotation: literal text with {{regex}} pieces.
std::string ToRegex(const std::string& text) {
  std::string regex;
  size_t at = 0;
  while (at < text.size()) {
    size_t open = text.find("{{", at);
    size_t literal_end = open == std::string::npos ? text.size() : open;
    for (size_t i = at; i < literal_end; ++i) {
      char c = text[i];
      if (std::string("\\^$.|?*+()[]{}").find(c) != std::string::npos) regex += '\\';
      regex += c;
    }
    if (open == std::string::npos) break;
    size_t close = text.find("}}", open + 2);
    if (close == std::string::npos) {
      regex += "\\{\\{";
      at = open + 2;
      continue;
    }
    regex += "(" + text.substr(open + 2, close - open - 2) + ")";
    at = close + 2;
  }
  return regex;
}

}  // namespace

DiagnosticVerifier::SourceFile* DiagnosticVerifier::Load(const std::string& path) {
  auto it = files_.find(path);
  if (it != files_.end()) return it->second.get();
  auto file = std::make_unique<SourceFile>();
  file->path = path;
  std::ifstream input(path);
  if (input) {
    file->readable = true;
    std::string line;
    while (std::getline(input, line)) file->lines.push_back(line);
  }
  for (size_t i = 0; i < file->lines.size(); ++i) {
    const std::string& line = file->lines[i];
    std::smatch match;
    if (!std::regex_search(line, match, AnnotationPattern())) continue;
    Annotation annotation;
    annotation.kind = match[1];
    annotation.regex = match[2].matched;
    annotation.text = match[5];
    annotation.line = static_cast<int>(i) + 1;
    annotation.column = static_cast<int>(match.position(0)) + 1;
    annotation.target_line = annotation.line;
    if (match[4].matched) {
      std::string designator = match[4];
      if (designator == "unknown") {
        annotation.unknown = true;
      } else if (designator == "above") {
        annotation.target_line = annotation.line - 1;
      } else if (designator == "below") {
        annotation.target_line = annotation.line + 1;
      } else {
        annotation.target_line = annotation.line + std::stoi(designator);
      }
    }
    file->annotations.push_back(std::move(annotation));
  }
  SourceFile* raw = file.get();
  files_.emplace(path, std::move(file));
  load_order_.push_back(raw);
  return raw;
}

bool DiagnosticVerifier::Matches(const Annotation& annotation,
                                 const std::string& message) {
  if (!annotation.regex) return message.find(annotation.text) != std::string::npos;
  try {
    return std::regex_search(message, std::regex(ToRegex(annotation.text)));
  } catch (const std::regex_error&) {
    return false;
  }
}

void DiagnosticVerifier::PrintSourceLine(const SourceFile* file, int line,
                                         int column, size_t underline) {
  if (file == nullptr || !file->readable || line < 1 ||
      line > static_cast<int>(file->lines.size())) {
    return;
  }
  const std::string& text = file->lines[line - 1];
  std::string marker(column > 1 ? column - 1 : 0, ' ');
  marker += '^';
  // A range is underlined up to the end of the line.
  size_t available = text.size() >= static_cast<size_t>(column)
                         ? text.size() - column + 1
                         : 1;
  size_t length = std::min(underline, available);
  if (length > 1) marker += std::string(length - 1, '~');
  std::fprintf(out_, "%s\n%s\n", text.c_str(), marker.c_str());
}

void DiagnosticVerifier::Report(const std::optional<DecodedLocation>& location,
                                const std::string& message) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (location && !location->opaque && !location->filename.empty()) {
    SourceFile* file = Load(location->filename);
    int line = static_cast<int>(location->line);
    for (Annotation& annotation : file->annotations) {
      if (!annotation.unknown && annotation.target_line == line &&
          annotation.kind == "error" && Matches(annotation, message)) {
        annotation.matched = true;
        return;
      }
    }
    for (Annotation& annotation : file->annotations) {
      if (!annotation.unknown && annotation.target_line == line &&
          annotation.kind != "error" && Matches(annotation, message)) {
        failed_ = true;
        std::fprintf(out_,
                     "%s:%d:%d: error: 'error' diagnostic emitted when expecting a '%s'\n",
                     file->path.c_str(), annotation.line, annotation.column,
                     annotation.kind.c_str());
        PrintSourceLine(file, annotation.line, annotation.column, 1);
        return;
      }
    }
    failed_ = true;
    std::fprintf(out_, "%s:%u:%u: error: unexpected error: %s\n",
                 file->path.c_str(), location->line, location->column,
                 message.c_str());
    PrintSourceLine(file, line, static_cast<int>(location->column), 1);
    return;
  }
  // Non-file locations match @unknown annotations of the files loaded so far.
  for (SourceFile* file : load_order_) {
    for (Annotation& annotation : file->annotations) {
      if (annotation.unknown && annotation.kind == "error" &&
          Matches(annotation, message)) {
        annotation.matched = true;
        return;
      }
    }
  }
  failed_ = true;
  if (location && location->opaque) {
    std::fprintf(out_, "<unknown>:0: error: loc(\"%s\"): unexpected error: %s\n",
                 location->description.c_str(), message.c_str());
  } else if (location && location->filename.empty() && location->line == UINT32_MAX) {
    // A virtual or out-of-range location: TFRT's quirk.
    std::fprintf(out_, "-:%u:%u: error: unexpected error: %s\n", location->line,
                 location->column, message.c_str());
  } else {
    std::fprintf(out_, "<unknown>:0: error: unexpected error: %s\n", message.c_str());
  }
}

bool DiagnosticVerifier::Finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<const Annotation*> unknown;
  for (SourceFile* file : load_order_) {
    for (const Annotation& annotation : file->annotations) {
      if (annotation.matched) continue;
      failed_ = true;
      if (annotation.unknown) {
        std::fprintf(out_, "<unknown>:0: error: expected %s \"%s\" was not produced\n",
                     annotation.kind.c_str(), annotation.text.c_str());
        unknown.push_back(&annotation);
        continue;
      }
      std::fprintf(out_, "%s:%d:%d: error: expected %s \"%s\" was not produced\n",
                   file->path.c_str(), annotation.line, annotation.column,
                   annotation.kind.c_str(), annotation.text.c_str());
      PrintSourceLine(file, annotation.line, annotation.column,
                      std::max<size_t>(1, annotation.text.size()));
    }
  }
  // MLIR reports unmatched @unknown annotations a second time.
  for (const Annotation* annotation : unknown) {
    std::fprintf(out_, "<unknown>:0: error: expected %s \"%s\" was not produced\n",
                 annotation->kind.c_str(), annotation->text.c_str());
  }
  std::fflush(out_);
  return !failed_;
}

}  // namespace bef
