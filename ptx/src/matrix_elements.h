// Matrix element values shared by wmma, mma and wgmma (ops_matrix.cpp): the
// bits of one element as an exact double, and a double rounded to a type.
#pragma once

#include <cstdint>

#include "ptx/types.h"

namespace cnuas::ptx {

double matrix_element_value(std::uint64_t bits, Type t);
std::uint64_t matrix_element_bits(double v, Type t, bool satfinite);

}  // namespace cnuas::ptx
