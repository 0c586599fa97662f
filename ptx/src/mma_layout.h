// The mma.sync family's forms and per-lane fragment layouts (PTX ISA 9.0,
// "Matrix Fragments for mma.m16n8k*" and the sparse mma.sp sections), and the
// structured sparsity of A shared by mma.sp and wgmma.mma_async.sp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ptx/ir.h"

namespace cnuas::ptx {

// The input type families the mma.sync and wgmma forms are defined by.
inline bool mma_half(Type t) {
  return t == Type::F16 || t == Type::BF16;
}
inline bool mma_fp8(Type t) {
  return t == Type::E4M3 || t == Type::E5M2;
}
inline bool mma_byte_int(Type t) {
  return t == Type::S8 || t == Type::U8;
}

struct MmaCoord {
  unsigned row, col;
};

// Empty when the engine runs this mma shape and type combination, else why not.
std::string mma_form_problem(const MatrixOp& mx);

// Bits one element of type t takes in a fragment register (f16 16, s4 4, b1 1, f64 64).
unsigned mma_element_bits(Type t);

// Element e (in register order, packed low bits first) of a lane's fragment of A ('a'),
// B ('b') or C/D ('c'). For a sparse A it is the column of the packed M x K/2 matrix.
MmaCoord mma_fragment_coord(const MatrixOp& mx, char which, unsigned lane, unsigned e);

// Elements of a lane's fragment: A (the packed half when sparse), B or C/D.
unsigned mma_fragment_elements(const MatrixOp& mx, char which);

// The structured sparsity of A (ISA "Sparse matrix storage"): each row is cut into chunks
// of four units holding two non-zero units (f16/bf16, 8-bit: a unit is an element; s4/u4:
// a pair of elements; tf32: a chunk is two elements holding one). A chunk's 4-bit metadata
// holds the unit index of its first non-zero in bits 0-1, the second in bits 2-3 (tf32:
// 0b0100 for element 0, 0b1110 for element 1). In each group of four lanes (groupID g)
// the threads the selector names hold the metadata of rows g (bits 0-15) and g + 8 (bits
// 16-31), four chunks per thread, the first thread the first four chunks.
struct SparseA {
  Type type;
  unsigned k;  // the K of the uncompressed A

  unsigned chunks_per_row() const;
  // Threads of a group of four that hold metadata, and the selectors accepted (0 .. n-1).
  unsigned metadata_threads() const { return chunks_per_row() / 4; }
  unsigned selectors() const { return 4 / metadata_threads(); }
};

// Expands one warp's 16 rows of a packed A (16 x k/2, row-major) into 16 x k, reading the
// metadata words of the warp's 32 lanes. Returns why it cannot (an invalid selector or
// metadata value: the ISA leaves both undefined, the engine stops) and sets `lane` to the
// lane at fault; empty on success.
std::string expand_sparse_rows(const SparseA& s, unsigned selector, bool ordered,
                               const std::uint64_t* metadata, const std::vector<double>& packed,
                               std::vector<double>& full, unsigned& lane);

}  // namespace cnuas::ptx
