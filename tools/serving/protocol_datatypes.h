// The Open Inference Protocol's datatypes as bef_serve carries them: one
// table, every fact about each datatype in its row, from which the JSON,
// binary and gRPC forms and the model interface are all written
// (docs/serving.md, "Open Inference Protocol").
//
// BEF_FOR_EACH_NUMERIC_DATATYPE(X) calls X(NAME, CppType, dtype, bef_scalar,
// contents) for each numeric datatype:
//   NAME        the protocol's name ("FP32");
//   CppType     the C++ type of one element (a scalar argument's payload,
//               a dense tensor's element);
//   dtype       the DType of a dense tensor of it;
//   bef_scalar  the BEF type of a scalar argument or result of it ("f32"),
//               also the dtype name of the /v1/ API's tensors;
//   contents    the field of gRPC's InferTensorContents that carries it.
// BYTES is the one non-numeric datatype: `!tfrt.string` scalars, string
// tensors, `bytes_contents`; in raw form (the binary tensor data extension,
// gRPC's raw contents) each element is a 4-byte little-endian length and
// its bytes, written and read by the one codec below.
//
// A datatype travels as its row (`const ProtocolDatatype*`) from the moment
// a request or config is parsed: no datatype name is compared as a string
// outside this file.
#ifndef BEF_TOOLS_SERVING_PROTOCOL_DATATYPES_H_
#define BEF_TOOLS_SERVING_PROTOCOL_DATATYPES_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "bef/tensor/dense_host_tensor.h"

#define BEF_FOR_EACH_NUMERIC_DATATYPE(X)                          \
  X("BOOL", bool, ::bef::DType::kI1, "i1", bool_contents)         \
  X("INT8", int8_t, ::bef::DType::kI8, "i8", int_contents)        \
  X("INT32", int32_t, ::bef::DType::kI32, "i32", int_contents)    \
  X("INT64", int64_t, ::bef::DType::kI64, "i64", int64_contents)  \
  X("UINT8", uint8_t, ::bef::DType::kUI8, "ui8", uint_contents)   \
  X("UINT32", uint32_t, ::bef::DType::kUI32, "ui32", uint_contents) \
  X("UINT64", uint64_t, ::bef::DType::kUI64, "ui64", uint64_contents) \
  X("FP32", float, ::bef::DType::kF32, "f32", fp32_contents)      \
  X("FP64", double, ::bef::DType::kF64, "f64", fp64_contents)

namespace bef::serving {

// A datatype of the protocol as the runtime holds it (a row of the table).
struct ProtocolDatatype {
  std::string_view name;           // "FP32"
  bool bytes;                      // BYTES: strings
  DType dtype;                     // otherwise: a dense tensor's dtype
  std::string_view bef_scalar;     // "f32"; "!tfrt.string" for BYTES
  std::string_view grpc_contents;  // "fp32_contents"
};

// Every datatype bef_serve takes, BYTES last.
std::span<const ProtocolDatatype> ProtocolDatatypes();
// Null for a datatype the runtime has no tensors of (FP16, INT16, ...).
const ProtocolDatatype* FindDatatype(std::string_view name);
// The datatype of dense tensors of `dtype`, or null.
const ProtocolDatatype* DatatypeOfDType(DType dtype);
// The datatype a scalar of BEF type `type` carries ("i32": INT32), or null.
const ProtocolDatatype* DatatypeOfBefScalar(std::string_view type);
// The BYTES row.
const ProtocolDatatype& BytesDatatype();
// "BOOL, INT8, ..., BYTES", for messages.
const std::string& DatatypeNames();
// The datatype called `name`, or INVALID_ARGUMENT: "`what` has datatype
// 'NAME', which this server does not take (BOOL, ...)".
absl::StatusOr<const ProtocolDatatype*> ResolveDatatype(std::string_view name,
                                                        std::string_view what);
// The name of `datatype`; "" for none (a tensor of any datatype).
std::string_view DatatypeName(const ProtocolDatatype* datatype);

// BYTES in raw form: appends `element` as its 4-byte little-endian length
// and its bytes.
void AppendLengthPrefixed(std::string_view element, std::string* raw);
// The `count` elements of raw BYTES, or INVALID_ARGUMENT naming `what`
// when the bytes end inside a length or an element or hold another count.
absl::StatusOr<std::vector<std::string>> SplitLengthPrefixed(std::string_view raw, int64_t count,
                                                             std::string_view what);

}  // namespace bef::serving

#endif  // BEF_TOOLS_SERVING_PROTOCOL_DATATYPES_H_
