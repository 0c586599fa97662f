// CU_OK for the driver API test programs: a failing call names itself and its
// error and makes main() return 1.
#pragma once

#include <cuda.h>

#include "check.h"

#define CU_OK(call)                                                                \
  do {                                                                             \
    const CUresult r_ = (call);                                                    \
    if (r_ != CUDA_SUCCESS) {                                                      \
      const char* name_ = nullptr;                                                 \
      cuGetErrorName(r_, &name_);                                                  \
      std::fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #call, name_); \
      return 1;                                                                    \
    }                                                                              \
  } while (0)
