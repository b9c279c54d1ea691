// One table from the runtime's status codes to HTTP statuses, for every
// HTTP answer bef_serve gives (the protocol's /v2/ routes, the /v1/ API,
// the front end's refusals), and from it the gRPC codes: a request's error
// keeps its code (the runtime's codes are gRPC's, number for number), a
// run's error gets the code of its HTTP status, so both protocols answer
// one run's error alike.
#ifndef BEF_TOOLS_SERVING_STATUS_MAPPING_H_
#define BEF_TOOLS_SERVING_STATUS_MAPPING_H_

#include <string_view>

#include "absl/status/status.h"

namespace bef::serving {

// Where an error arose: handling the request (the client's mistakes: a
// bad body, an unknown model) or in the program's run (a kernel's error is
// the server's 500 whatever its code, but cancellations keep theirs).
enum class ErrorSource { kRequest, kRun };

// The HTTP status for `code`:
//   code                          request   run
//   NOT_FOUND                     404       500
//   INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE
//                                 400       500
//   UNAVAILABLE                   503       503
//   DEADLINE_EXCEEDED             504       504
//   CANCELLED                     499       499 (the client closed the connection)
//   anything else                 500       500
int HttpStatus(absl::StatusCode code, ErrorSource source);

// The gRPC code for `code`: a request error's own; a run error's from its
// HTTP status above (500 INTERNAL, 503 UNAVAILABLE, 504 DEADLINE_EXCEEDED,
// 499 CANCELLED).
absl::StatusCode GrpcCode(absl::StatusCode code, ErrorSource source);

// The code the /v1/ API's error body names for a status the front end
// answers by itself (404 NOT_FOUND, 413/431 RESOURCE_EXHAUSTED, 503
// UNAVAILABLE, other 4xx INVALID_ARGUMENT).
std::string_view CodeNameOfHttpStatus(int http_status);

}  // namespace bef::serving

#endif  // BEF_TOOLS_SERVING_STATUS_MAPPING_H_
