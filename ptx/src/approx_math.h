// sin.approx, cos.approx and ex2.approx on f32. The hardware's results are
// approximations within the PTX ISA's bounds (sin/cos: absolute error about
// 2^-20.5; ex2: relative error about 2^-22); the engine computes each in
// double precision from the f32 input (Cody-Waite reduction, Taylor
// polynomials by fused multiply-adds) and rounds once to f32, which is nearly
// always the correctly rounded value.
//
// The same operations run one lane at a time (std::fma) or four lanes at a
// time with AVX2+FMA, so the two give the same bits: a kernel's results do
// not depend on the host's vector unit. Inputs outside the reduced range
// (non-finite, |x| >= 2^20 for sin/cos, |x| > 200 for ex2) take the host's
// single-precision library, lane by lane, on both paths.
#pragma once

#include <cstdint>

namespace cnuas::ptx::approx {

float sin(float x);
float cos(float x);
float ex2(float x);

enum class Function { Sin, Cos, Ex2 };

// The function of the f32 values in the low halves of 32 lanes' registers
// `a` into `d` (zero-extended), for every lane; `ftz` flushes subnormal inputs
// and results to zero of their sign. `d` may be `a`.
void lanes(Function f, std::uint64_t* d, const std::uint64_t* a, bool ftz);

}  // namespace cnuas::ptx::approx
