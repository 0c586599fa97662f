// Names and descriptions of CUDA runtime and driver error codes.
#pragma once

namespace cnuas::cuda {

// "cudaErrorInvalidValue"; "cudaErrorUnknown" style text for unknown codes.
const char* error_name(int code);
// "invalid argument".
const char* error_description(int code);
// Driver API names ("CUDA_ERROR_INVALID_VALUE") for the same codes.
const char* driver_error_name(int code);

}  // namespace cnuas::cuda
