// DumpBefFile: a readable listing of a loaded BEF file (the bef-dump tool).
//
// The header and a section table (id, name, offset, length, alignment,
// share of the file), then the strings, kernels, types and function index,
// and for each function its registers (with types when the RegisterTypes
// section is present) and kernels (name, operands, attributes decoded with
// their names and types when the optional sections are present, function
// references, results, used-by lists, stream, location). A function whose
// record does not verify is listed with the error instead.
#ifndef BEF_LOADER_BEF_DUMP_H_
#define BEF_LOADER_BEF_DUMP_H_

#include <string>

#include "bef/loader/bef_file.h"

namespace bef {

struct BefDumpOptions {
  // Only the section table and totals.
  bool summary = false;
};

std::string DumpBefFile(const BefFile& file, const BefDumpOptions& options = {});

// MLIR-like text of a location record tree: "f.mlir":3:7, "name"(...),
// callsite(... at ...), fused[...], unknown.
std::string LocationNodeToString(const BefFile::LocationNode& node);

}  // namespace bef

#endif  // BEF_LOADER_BEF_DUMP_H_
