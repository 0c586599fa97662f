// The decoded form of a PTX module. Parsing turns text into these structures
// once; execution reads only enums, indices and integers, never strings.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ptx/opcodes.h"
#include "ptx/types.h"

namespace cnuas::ptx {

enum class Space : std::uint8_t {
  None,
  Global,
  Shared,
  SharedCta,
  SharedCluster,
  Local,
  Const,
  Param,
  Generic
};

enum class Cmp : std::uint8_t {
  None,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  Lo,
  Ls,
  Hi,
  Hs,
  Equ,
  Neu,
  Ltu,
  Leu,
  Gtu,
  Geu,
  Num,
  Nan,
};

enum class Round : std::uint8_t { None, Rn, Rz, Rm, Rp, Rna, Rs, Rni, Rzi, Rmi, Rpi };

// Modifier flags an instruction may carry.
enum Flag : std::uint64_t {
  kFtz = 1ull << 0,
  kSat = 1ull << 1,
  kApprox = 1ull << 2,
  kFull = 1ull << 3,
  kHi = 1ull << 4,
  kLo = 1ull << 5,
  kWide = 1ull << 6,
  kUni = 1ull << 7,
  kShiftAmt = 1ull << 8,
  kCc = 1ull << 9,
  kClamp = 1ull << 10,
  kWrap = 1ull << 11,
  kNaN = 1ull << 12,
  kAligned = 1ull << 13,
  kSync = 1ull << 14,
  kAll = 1ull << 15,
  kAny = 1ull << 16,
  kBallot = 1ull << 17,
  kUp = 1ull << 18,
  kDown = 1ull << 19,
  kBfly = 1ull << 20,
  kIdx = 1ull << 21,
  kArrive = 1ull << 22,
  kRed = 1ull << 23,
  kTo = 1ull << 24,
  kPopc = 1ull << 25,
  kAnd = 1ull << 26,
  kOr = 1ull << 27,
  kXor = 1ull << 28,
  kEqMode = 1ull << 29,
  kReverse = 1ull << 30,
  kParity = 1ull << 31,
  kExpectTx = 1ull << 32,
  kNoInc = 1ull << 33,
  kNoComplete = 1ull << 34,
  kBulk = 1ull << 35,       // the cp.async.bulk family (Instruction::bulk says which form)
  kPlusOne = 1ull << 37,    // vmad.po
  kShr7 = 1ull << 38,       // vmad.shr7
  kShr15 = 1ull << 39,      // vmad.shr15
  kRelu = 1ull << 40,       // cvt .relu (the fp8 forms)
  kSatFinite = 1ull << 41,  // cvt .satfinite (the fp8 forms)
};

// What an atom/red instruction does, and a few other one-of-many modes.
enum class Mode : std::uint8_t {
  None,
  Add,
  Min,
  Max,
  Inc,
  Dec,
  And,
  Or,
  Xor,
  Exch,
  Cas,  // atom/red
  F4e,
  B4e,
  Rc8,
  Ecl,
  Ecr,
  Rc16,  // prmt
  Uni,
  All,
  Any,
  Ballot,  // vote
  Up,
  Down,
  Bfly,
  Idx,  // shfl
  L,
  R,     // shf
  Popc,  // bar.red
  Finite,
  Infinite,
  Number,
  NotANumber,
  Normal,
  Subnormal,  // testp
  MbInit,
  MbInval,
  MbArrive,
  MbArriveDrop,
  MbExpectTx,
  MbCompleteTx,
  MbTestWait,
  MbTryWait,
  MbPendingCount,  // mbarrier
  ClusterArrive,
  ClusterWait,  // barrier.cluster
};

enum class SpecialReg : std::uint8_t {
  Tid,
  Ntid,
  Ctaid,
  Nctaid,
  Laneid,
  Warpid,
  Nwarpid,
  Smid,
  Nsmid,
  Gridid,
  LanemaskEq,
  LanemaskLe,
  LanemaskLt,
  LanemaskGe,
  LanemaskGt,
  Clock,
  Clock64,
  Globaltimer,
  DynamicSmemSize,
  TotalSmemSize,
  ClusterCtaid,
  ClusterNctaid,
  ClusterCtarank,
  ClusterNctarank,
  Clusterid,
  Nclusterid,
  IsExplicitCluster,
  Envreg,
};

// Where a named symbol lives once the module is laid out.
enum class SymbolKind : std::uint8_t {
  Global,
  Const,
  Shared,
  Local,
  KernelParam,
  FuncParam,
  CallParam,
  Function
};

struct Operand {
  // Texture: [handle reg, {coordinate regs}] (reg2: an optional sampler register).
  enum class Kind : std::uint8_t {
    None,
    Reg,
    Imm,
    Special,
    Address,
    Vector,
    Label,
    Symbol,
    Sink,
    Texture
  };
  Kind kind = Kind::None;
  SymbolKind symbol_kind = SymbolKind::Global;
  SpecialReg special = SpecialReg::Tid;
  std::uint8_t component = 0;  // .x .y .z for special registers
  std::int32_t reg = -1;       // Reg, or the base register of an Address
  std::int32_t reg2 = -1;      // second destination of "a|p" pairs
  std::int64_t imm = 0;        // Imm bits, Address offset, Label target pc
  std::int64_t symbol = 0;     // resolved symbol value (address, offset, function index)
  bool has_symbol = false;
  std::vector<std::int32_t> regs;  // Vector elements (-1 = sink)
  // Video instructions: a register's byte/half selector or destination mask (r.b3210, r.h1):
  // element width in bits (0: none), how many digits, and digit k (k = 0 the rightmost) in
  // nibble k. `negate` is vmad's -a.
  std::uint8_t sel_bits = 0;
  std::uint8_t sel_count = 0;
  std::uint16_t sel_digits = 0;
  bool negate = false;
  unsigned sel_digit(unsigned k) const { return (sel_digits >> (4 * k)) & 0xf; }
};

// A warp-wide matrix operation (wmma, mma, ldmatrix, stmatrix, movmatrix):
// what it does, its shape and types.
struct MatrixOp {
  // Fence, Commit and Wait: wgmma.fence, wgmma.commit_group, wgmma.wait_group.
  enum class Kind : std::uint8_t { None, Load, Store, Mma, Fence, Commit, Wait };
  Kind kind = Kind::None;
  char which = 0;                     // load/store: 'a', 'b', 'c' or 'd'
  std::uint16_t m = 0, n = 0, k = 0;  // wgmma: n up to 256, the b1 forms k256
  bool row = true;                    // load/store layout; for mma the layout of A
  bool b_row = true;                  // for mma: the layout of B
  bool satfinite = false;
  std::uint8_t count = 1;  // ldmatrix/stmatrix: .x1 .x2 .x4
  bool trans = false;      // ldmatrix/stmatrix/movmatrix .trans
  Type a = Type::None, b = Type::None, c = Type::None, d = Type::None;
  // wgmma: the immediate operands (imm-scale-a/b as +1 or -1, imm-trans-b; imm-trans-a is
  // `trans`), and the sparse form (wgmma .sp: metadata and selector in ops[4], ops[5];
  // mma .sp: in ops[4], ops[5] after d, a, b, c).
  std::int8_t scale_a = 1, scale_b = 1;
  bool trans_b = false;
  bool sparse = false;
  bool ordered_metadata = false;  // mma.sp::ordered_metadata
  // The .b1 mma forms: how a bit of A meets a bit of B before the population count.
  enum class BitOp : std::uint8_t { None, And, Xor };
  BitOp bit_op = BitOp::None;
};

// A texture or surface instruction: geometry, which component tld4 gathers,
// what an out-of-range surface coordinate does, which attribute txq/suq reads.
struct SampleOp {
  enum class Oob : std::uint8_t { Trap, Clamp, Zero };
  enum class Attr : std::uint8_t {
    None,
    Width,
    Height,
    Depth,
    ChannelDataType,
    ChannelOrder,
    NormalizedCoords,
    FilterMode,
    AddrMode0,
    AddrMode1,
    AddrMode2,
    ArraySize,
    MipmapLevels,
    Samples,
  };
  std::uint8_t dims = 0;  // 1, 2 or 3 (2 for cube maps: a face is a 2D layer)
  bool layered = false;
  bool cube = false;           // tex.cube / tex.acube: a direction vector selects the face
  std::uint8_t component = 0;  // tld4: 0 r, 1 g, 2 b, 3 a
  bool raw = true;             // suld/sust .b (raw bytes) rather than .p
  Oob oob = Oob::Trap;
  Attr attr = Attr::None;
};

// A bulk copy (cp.async.bulk*, cp.reduce.async.bulk*): its direction, tensor form and
// completion (decode_bulk.cpp; run by ops_bulk_copy.cpp).
struct BulkOp {
  enum class Kind : std::uint8_t { None, Copy, Prefetch, CommitGroup, WaitGroup };
  Kind kind = Kind::None;
  Space dst = Space::None, src = Space::None;
  std::uint8_t dims = 0;  // tensor forms: 1-5; 0 for plain bulk copies
  bool im2col = false;
  bool mbarrier = false;  // .mbarrier::complete_tx::bytes (else .bulk_group)
  bool multicast = false;
  bool cache_hint = false;  // .L2::cache_hint: a trailing policy operand
  Mode reduce = Mode::None;
};

// The frequent instruction forms whose handler the engine picks by this tag
// instead of by its generic dispatch (ptx/src/fast_paths.h); None for all others.
enum class FastForm : std::uint8_t {
  None,
  AddU32,
  SubU32,
  AddAny,
  SubAny,
  MulLoU32,
  MulWideS32,
  MulWideU32,
  MadLoU32,
  ShlU32,
  And,
  Or,
  Xor,
  Mov32,
  Mov64,
  SetpInt,
  ShrU32,
  ShrS32,
  Selp32,
  Selp64,
  Load1,
  Load2,
  Load4,
  Load8,
  Store1,
  Store2,
  Store4,
  Store8,
  AddF32,
  SubF32,
  MulF32,
  FmaF32,
  SinF32,
  CosF32,
  Ex2F32,
  Lg2F32,
  SqrtF32,
  CvtF32U32,
  CvtF32S32,
  SetpF32,
  MinF32,
  MaxF32,
  Count
};

struct Instruction {
  Opcode op = Opcode::Invalid;
  // Set by the parser (fast_paths.h), None whenever `unsupported` is set.
  // Next to op and guard: the warp loop reads these three first.
  FastForm fast = FastForm::None;
  Type type = Type::None;   // the instruction type (last type suffix for most)
  Type type2 = Type::None;  // the other type (cvt source, setp/set destination ...)
  Type type3 = Type::None;  // video instructions: .dtype in type, .atype in type2, .btype here
  Space space = Space::None;
  Cmp cmp = Cmp::None;
  Round round = Round::None;
  Mode mode = Mode::None;
  std::uint8_t vec = 1;
  std::uint8_t nops = 0;
  std::int32_t guard = -1;  // predicate register, or -1
  bool guard_negated = false;
  std::uint64_t flags = 0;
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  std::uint32_t reconverge = 0;  // for branches: the immediate post-dominator pc
  Operand ops[6];
  MatrixOp matrix;          // wmma only
  SampleOp sample;          // tex, tld4, txq, suld, sust, suq
  BulkOp bulk;              // cp.async.bulk*, cp.reduce.async.bulk*
  std::string text;         // the source statement, for error messages only
  std::string unsupported;  // why this form cannot run; empty when it can
  bool has(Flag f) const { return (flags & f) != 0; }
};

// The value of a function's address (mov.u64 %rd, f; a vtable entry): outside any memory the
// engine allocates, 16 bytes per function, so an indirect call can map it back to the function.
constexpr std::uint64_t kFunctionAddressBase = 0xfc00000000000000ull;
constexpr std::uint64_t function_address(std::size_t index) {
  return kFunctionAddressBase + 16 * static_cast<std::uint64_t>(index);
}

struct Register {
  std::string name;
  Type type = Type::None;
};

struct Param {
  std::string name;
  Type type = Type::None;
  std::uint32_t offset = 0;  // in the kernel parameter buffer or the function's param frame
  std::uint32_t size = 0;
  std::uint32_t align = 1;
};

// A .shared symbol's value with this bit set is an offset in its kernel's own
// region (Function::entry_shared_base), not in the module's.
constexpr std::int64_t kEntrySharedBit = std::int64_t{1} << 40;

struct Function {
  std::string name;
  bool is_entry = false;
  bool defined = false;  // has a body (not just a prototype)
  std::vector<Param> params;
  std::vector<Param> returns;
  std::vector<Register> registers;
  std::vector<Instruction> code;
  std::uint32_t param_bytes = 0;       // kernel parameter buffer size
  std::uint32_t call_param_bytes = 0;  // scratch for .param declared in the body (call args)
  std::uint32_t local_bytes = 0;       // this function's frame of .local variables
  // Registers a thread may read before writing them, which each new CTA must
  // find zeroed (register_init.h); until the parser has found them, all.
  std::vector<std::uint32_t> zeroed_registers;
  bool zeroed_registers_known = false;
  std::uint32_t static_shared_bytes = 0;     // module .shared and this kernel's own
  std::uint32_t entry_shared_bytes = 0;      // a kernel's own .shared (declared in its body)
  std::uint32_t entry_shared_base = 0;       // where that region starts in the CTA's shared memory
  std::uint32_t max_threads[3] = {0, 0, 0};  // .maxntid / .reqntid
  bool threads_required = false;
  std::uint32_t cluster_dims[3] = {1, 1, 1};  // .reqnctapercluster
  std::uint32_t line = 0;
};

struct Variable {
  std::string name;
  Space space = Space::None;
  Type type = Type::None;
  std::uint64_t size = 0;  // bytes; 0 for an unsized extern array
  std::uint32_t align = 1;
  std::vector<std::uint8_t> init;  // initial bytes (zeros when none given)
  bool is_extern = false;
  std::uint32_t offset = 0;  // shared: offset in the CTA's static shared area
  std::uint32_t line = 0;
  // Initializers that name other symbols (generic(var) or var): byte offset -> symbol.
  std::vector<std::pair<std::uint64_t, std::string>> address_init;
};

struct Unsupported {
  std::string function;
  std::uint32_t line = 0;
  std::string text;
  std::string reason;
};

class Module {
 public:
  // Parses PTX text; throws ParseError naming file:line:col and the text.
  static std::shared_ptr<const Module> parse(const std::string& text, const std::string& file);

  std::string file;
  std::string version;
  std::string target;
  unsigned address_size = 64;
  std::vector<Function> functions;
  std::vector<Variable> variables;  // module-scope .global/.const/.shared
  std::map<std::string, std::size_t> function_index;

  const Function* find(const std::string& name) const;
  std::vector<Unsupported> unsupported() const;
};

}  // namespace cnuas::ptx
