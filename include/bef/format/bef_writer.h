// BefWriter: builds a complete BEF file.
//
// It is the one place that lays out whole files: mlir-to-bef writes through it,
// and tests and benchmarks build programs with it directly.
//
// Sized for million-kernel functions: a function keeps its kernels' lists in
// a few flat arrays (no container per kernel), locations are a table of
// fixed-size nodes whose texts are stored once, and Write() hands the
// sections to a sink as they are (mlir-to-bef streams them to the output
// file) instead of assembling the file in a second buffer. A function's
// arrays are freed as soon as it is laid out.
//
//   BefWriter writer;
//   BefWriter::Function& f = writer.AddFunction(
//       FunctionKind::kBefFunction, "add_one", {"i32"}, {"i32"});
//   uint32_t one = f.AddKernel("tfrt.constant.i32")
//                      .AddAttribute(BefAttribute::I32(1), "value")
//                      .AddResult("i32");
//   uint32_t sum = f.AddKernel("tfrt.add.i32")
//                      .AddArgument(f.argument(0)).AddArgument(one)
//                      .AddResult("i32");
//   f.Return({sum});
//   absl::StatusOr<std::vector<uint8_t>> bytes = writer.Finish();
//
// Tables follow call order: kernel codes, type indices and attribute offsets
// are assigned on first use (KernelCode, TypeIndex, AddAttribute -- which the
// convenience methods call), and functions are numbered in AddFunction order.
// A caller that must reproduce another writer's order (mlir-to-bef follows
// TFRT's post-order walk) registers entries in that order first. Strings are
// collected and sorted at Finish().
//
// Derived at Finish(), following TFRT's translator:
//  * registers: arguments 0..n-1, then each AddResult in call order; the use
//    count of a register counts every operand slot and every Return use;
//  * the pseudo kernel (kernel 0): its first result is the special register
//    numbered NumRegs, used by every zero-operand kernel in kernel order; its
//    other results publish the arguments;
//  * used-by lists: for each result, one entry per use, latest kernel first
//    and within a kernel the higher operand slot first (MLIR's use-list order
//    for parsed text); Return uses are omitted.
//  * locations: one record per function, then per kernel, in function order
//    (location texts in the order the records first name them);
//    LocationStrings and Locations are written only when some location was
//    encodable;
//  * optional sections (AttributeTypes, AttributeNames, RegisterTypes) unless
//    Options::emit_optional_sections is false; attribute names are then also
//    added to the Strings section.
#ifndef BEF_FORMAT_BEF_WRITER_H_
#define BEF_FORMAT_BEF_WRITER_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bef/format/attribute_writer.h"
#include "bef/format/bef_encoding.h"

namespace bef {

// A source location as the writer encodes it (Locations section).
struct BefLocation {
  enum class Kind {
    kUnknown,
    kFileLineColumn,
    kName,
    kCallSite,
    kFused,
    // Cannot be written (an MLIR opaque location): the op gets a virtual
    // location offset (0xFFFFFFFE, 0xFFFFFFFD, ...) instead of a record.
    kUnencodable,
  };

  static BefLocation Unknown() { return {}; }
  static BefLocation FileLineColumn(std::string file, uint32_t line,
                                    uint32_t column);
  static BefLocation Name(std::string name, BefLocation child);
  static BefLocation CallSite(BefLocation callee, BefLocation caller);
  static BefLocation Fused(std::vector<BefLocation> children);
  static BefLocation Unencodable();

  Kind kind = Kind::kUnknown;
  std::string text;  // file name or location name
  uint32_t line = 0;
  uint32_t column = 0;
  std::vector<BefLocation> children;  // name: 1; call site: callee, caller
};

struct BefWriterOptions {
  // AttributeTypes, AttributeNames and RegisterTypes (for bef-to-mlir and
  // register type checks); mlir-to-bef --disable-optional-sections clears it.
  bool emit_optional_sections = true;
};

class BefWriter {
 public:
  using Options = BefWriterOptions;
  // A location in the writer's location table: kUnknownLocation, or what
  // AddLocation and the *Location methods return.
  using LocationId = uint32_t;
  static constexpr LocationId kUnknownLocation = 0;

  class Function;

  // One kernel of a function, in kernel-table order. Its lists live in its
  // function's flat arrays (a span each): a kernel costs no allocation of
  // its own. Lists are cheapest built in kernel order (the latest kernel's
  // lists are at the ends of the arrays); adding to an earlier kernel's list
  // moves that list to the end first.
  class Kernel {
   public:
    Kernel& AddArgument(uint32_t register_index);
    // Adds (or reuses) a top-level attribute. `name` is written to the
    // AttributeNames section.
    Kernel& AddAttribute(const BefAttribute& attribute,
                         std::string_view name = {});
    // An attribute already added with BefWriter::AddAttribute.
    Kernel& AddAttributeOffset(uint32_t offset, std::string_view name = {});
    Kernel& AddFunction(uint32_t function_index);
    // A new register of type `type`, as the kernel's next result.
    uint32_t AddResult(std::string_view type);
    // The same, with the type's index (BefWriter::TypeIndex).
    uint32_t AddResultOfType(uint32_t type_index);
    Kernel& set_stream(uint32_t stream) {
      stream_ = stream;
      return *this;
    }

    // Index in the function's kernel table (the pseudo kernel is 0).
    uint32_t index() const { return index_; }
    uint32_t result(size_t i) const;

   private:
    friend class BefWriter;
    friend class Function;
    // A list of this kernel: `count` entries of a function array from
    // `begin`.
    struct Span {
      uint32_t begin = 0;
      uint32_t count = 0;
    };

    Kernel(Function* function, uint32_t index, uint32_t code,
           LocationId location);

    Function* function_;
    uint32_t index_;
    uint32_t code_;
    LocationId location_;
    uint32_t stream_ = 0;
    Span arguments_;   // Function::arguments_
    Span attributes_;  // Function::attribute_offsets_ and attribute_names_
    Span functions_;   // Function::functions_
    Span results_;     // Function::results_
  };

  // A BEF or sync BEF function under construction.
  class Function {
   public:
    uint32_t index() const { return index_; }
    FunctionKind kind() const { return kind_; }
    // The register of argument `i`.
    uint32_t argument(size_t i) const { return static_cast<uint32_t>(i); }
    uint32_t num_registers() const {
      return static_cast<uint32_t>(register_types_.size());
    }

    void set_location(const BefLocation& location);
    void set_location(LocationId location) { location_ = location; }
    // Stream id of the pseudo kernel (the root stream).
    void set_root_stream(uint32_t stream) { root_stream_ = stream; }
    // Room for kernels reading `arguments` registers in all and defining
    // `results`, when the caller knows (no regrowth; the kernels' deque
    // grows without moving).
    void Reserve(size_t arguments, size_t results);
    Kernel& AddKernel(std::string_view name,
                      LocationId location = kUnknownLocation);
    Kernel& AddKernel(std::string_view name, const BefLocation& location);
    // A kernel by its code (BefWriter::KernelCode).
    Kernel& AddKernelOfCode(uint32_t code,
                            LocationId location = kUnknownLocation);
    // The function's result registers, in order (a register may repeat).
    void Return(std::vector<uint32_t> registers) {
      result_registers_ = std::move(registers);
    }

   private:
    friend class BefWriter;
    friend class Kernel;
    Function(BefWriter* writer, uint32_t index, FunctionKind kind)
        : writer_(writer), index_(index), kind_(kind) {}
    // Appends `value` to the list `span` of `array`, moving the list to the
    // array's end first when another list follows it.
    static void Append(Kernel::Span& span, std::vector<uint32_t>& array,
                       uint32_t value);
    std::span<const uint32_t> List(Kernel::Span span,
                                   const std::vector<uint32_t>& array) const {
      return {array.data() + span.begin, span.count};
    }
    // Frees the kernels and their lists (once laid out).
    void Release();

    BefWriter* writer_;
    uint32_t index_;
    FunctionKind kind_;
    LocationId location_ = kUnknownLocation;
    uint32_t root_stream_ = 0;
    std::vector<uint32_t> register_types_;  // type index per register
    std::deque<Kernel> kernels_;            // kernels 1..N
    std::vector<uint32_t> arguments_;
    std::vector<uint32_t> attribute_offsets_;
    std::vector<uint32_t> attribute_names_;  // BefWriter::attribute_names_
    std::vector<uint32_t> functions_;
    std::vector<uint32_t> results_;
    std::vector<uint32_t> result_registers_;
  };

  explicit BefWriter(Options options = {});
  BefWriter(const BefWriter&) = delete;
  BefWriter& operator=(const BefWriter&) = delete;
  ~BefWriter();

  // Index of `name` in the Kernels section, added on first use.
  uint32_t KernelCode(std::string_view name);
  // Index of `name` in the Types section, added on first use.
  uint32_t TypeIndex(std::string_view name);
  // Offset of `attribute` in the Attributes section; an equal attribute
  // added before is reused.
  uint32_t AddAttribute(const BefAttribute& attribute);
  // Adds a string to the Strings section that nothing else names (TFRT adds
  // the names of array-of-symbol attributes this way).
  void AddString(std::string_view text);

  // Locations, built bottom up: a text (file or location name) is stored
  // once and named by its LocationText index. Which are written (the rest
  // take virtual location offsets): unknown and file-line-column always, a
  // name always (an unencodable child as unknown), a call site when callee
  // and caller are, a fused location when at least one child is (only those
  // children are written).
  uint32_t LocationText(std::string_view text);
  LocationId FileLineColumnLocation(uint32_t text, uint32_t line,
                                    uint32_t column);
  LocationId NameLocation(uint32_t text, LocationId child);
  LocationId CallSiteLocation(LocationId callee, LocationId caller);
  LocationId FusedLocation(std::span<const LocationId> children);
  // A location that cannot be written (see BefLocation::kUnencodable).
  LocationId UnencodableLocation() const { return kUnencodableLocation; }
  // The table form of a BefLocation tree.
  LocationId AddLocation(const BefLocation& location);

  // Adds a BEF (async) or sync BEF function; argument and result types are
  // type names (registered with TypeIndex now).
  Function& AddFunction(FunctionKind kind, std::string_view name,
                        const std::vector<std::string>& argument_types,
                        const std::vector<std::string>& result_types);
  // Adds a native function (no body); returns its index.
  uint32_t AddNativeFunction(std::string_view name,
                             const std::vector<std::string>& argument_types,
                             const std::vector<std::string>& result_types);
  size_t num_functions() const { return functions_.size(); }

  // Lays out the file and hands it to `sink` in consecutive pieces (the
  // sections as they are, no copy of the whole file). Fails
  // (InvalidArgument) when a kernel names a register or function that does
  // not exist, or a function returns a number of registers that differs
  // from its result types. Releases each function's kernels once laid out:
  // call Write or Finish once.
  absl::Status Write(
      absl::FunctionRef<void(std::span<const uint8_t>)> sink);
  // Write into one buffer.
  absl::StatusOr<std::vector<uint8_t>> Finish();

 private:
  static constexpr LocationId kUnencodableLocation = 1;

  struct FunctionEntry {
    FunctionKind kind;
    std::string name;
    std::vector<uint32_t> argument_types;
    std::vector<uint32_t> result_types;
    std::unique_ptr<Function> body;  // null for native functions
  };
  // One location of the table; children are `num_children` entries of
  // location_children_ from `first_child`.
  struct LocationNode {
    BefLocation::Kind kind;
    bool encodable;
    uint32_t text;  // LocationText index (file or name)
    uint32_t line;
    uint32_t column;
    uint32_t first_child;
    uint32_t num_children;
  };
  class Layout;

  uint32_t NameIndex(std::string_view name);
  LocationId AddLocationNode(LocationNode node,
                             std::span<const LocationId> children);

  Options options_;
  std::vector<std::string> kernel_names_;
  absl::flat_hash_map<std::string, uint32_t> kernel_codes_;
  std::vector<std::string> type_names_;
  absl::flat_hash_map<std::string, uint32_t> type_indices_;
  ByteWriter attributes_;
  absl::flat_hash_map<std::string, uint32_t> attribute_offsets_;
  // (offset, BEF attribute type) of each top-level attribute, in order.
  std::vector<std::pair<uint32_t, uint8_t>> attribute_types_;
  // Attribute names of kernels (AttributeNames section), stored once.
  std::vector<std::string> attribute_names_;
  absl::flat_hash_map<std::string, uint32_t> attribute_name_indices_;
  std::vector<std::string> extra_strings_;
  std::vector<std::string> location_texts_;
  absl::flat_hash_map<std::string, uint32_t> location_text_indices_;
  std::vector<LocationNode> locations_;  // 0: unknown, 1: unencodable
  std::vector<LocationId> location_children_;
  std::vector<FunctionEntry> functions_;
};

}  // namespace bef

#endif  // BEF_FORMAT_BEF_WRITER_H_
