// The functional-unit class of a PTX instruction: the one classification the
// PTX engine reports and a timing model keys its pipes, counters and energies by.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cnuas::ptx {

struct Instruction;

// Sync stays last: kUnitClasses counts from it.
enum class UnitClass : std::uint8_t { Int, Fp32, Fp64, Sfu, Tensor, Memory, Control, Sync };
constexpr std::size_t kUnitClasses = static_cast<std::size_t>(UnitClass::Sync) + 1;

UnitClass unit_class(const Instruction& inst);

}  // namespace cnuas::ptx
