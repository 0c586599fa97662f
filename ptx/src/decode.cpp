#include "decode.h"

#include <cstdio>
#include <map>
#include <set>
#include <vector>

#include "fp8.h"
#include "mma_layout.h"
#include "wgmma_decode.h"

namespace cnuas::ptx {
namespace {

std::vector<std::string> split(const std::string& word) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = word.find('.', start);
    parts.push_back(word.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

const std::map<std::string, Cmp>& comparisons() {
  static const std::map<std::string, Cmp> m{
      {"eq", Cmp::Eq},   {"ne", Cmp::Ne},   {"lt", Cmp::Lt},   {"le", Cmp::Le},   {"gt", Cmp::Gt},
      {"ge", Cmp::Ge},   {"lo", Cmp::Lo},   {"ls", Cmp::Ls},   {"hi", Cmp::Hi},   {"hs", Cmp::Hs},
      {"equ", Cmp::Equ}, {"neu", Cmp::Neu}, {"ltu", Cmp::Ltu}, {"leu", Cmp::Leu}, {"gtu", Cmp::Gtu},
      {"geu", Cmp::Geu}, {"num", Cmp::Num}, {"nan", Cmp::Nan}};
  return m;
}

const std::map<std::string, Round>& roundings() {
  static const std::map<std::string, Round> m{
      {"rn", Round::Rn},   {"rz", Round::Rz},  {"rm", Round::Rm},   {"rp", Round::Rp},
      {"rna", Round::Rna}, {"rs", Round::Rs},  {"rni", Round::Rni}, {"rzi", Round::Rzi},
      {"rmi", Round::Rmi}, {"rpi", Round::Rpi}};
  return m;
}

const std::map<std::string, Mode>& modes() {
  static const std::map<std::string, Mode> m{
      {"add", Mode::Add},   {"min", Mode::Min},   {"max", Mode::Max},   {"inc", Mode::Inc},
      {"dec", Mode::Dec},   {"and", Mode::And},   {"or", Mode::Or},     {"xor", Mode::Xor},
      {"exch", Mode::Exch}, {"cas", Mode::Cas},   {"f4e", Mode::F4e},   {"b4e", Mode::B4e},
      {"rc8", Mode::Rc8},   {"ecl", Mode::Ecl},   {"ecr", Mode::Ecr},   {"rc16", Mode::Rc16},
      {"uni", Mode::Uni},   {"all", Mode::All},   {"any", Mode::Any},   {"ballot", Mode::Ballot},
      {"up", Mode::Up},     {"down", Mode::Down}, {"bfly", Mode::Bfly}, {"idx", Mode::Idx},
      {"l", Mode::L},       {"r", Mode::R},       {"popc", Mode::Popc}};
  return m;
}

const std::map<std::string, Flag>& flags() {
  static const std::map<std::string, Flag> m{
      {"ftz", kFtz},   {"sat", kSat},         {"approx", kApprox},
      {"full", kFull}, {"hi", kHi},           {"lo", kLo},
      {"wide", kWide}, {"uni", kUni},         {"shiftamt", kShiftAmt},
      {"cc", kCc},     {"clamp", kClamp},     {"wrap", kWrap},
      {"NaN", kNaN},   {"aligned", kAligned}, {"sync", kSync},
      {"to", kTo},     {"relu", kRelu},       {"satfinite", kSatFinite}};
  return m;
}

// Qualifiers about caching, ordering and scope: in a functional model that runs
// memory operations one at a time in program order they change nothing.
bool harmless(const std::string& m) {
  static const std::set<std::string> s{"ca",
                                       "cg",
                                       "cs",
                                       "lu",
                                       "cv",
                                       "wb",
                                       "wt",
                                       "nc",
                                       "volatile",
                                       "relaxed",
                                       "acquire",
                                       "release",
                                       "acq_rel",
                                       "sc",
                                       "weak",
                                       "strong",
                                       "cta",
                                       "gpu",
                                       "gl",  // membar.gl: __threadfence()
                                       "sys",
                                       "cluster",
                                       "mmio",
                                       "L1::evict_normal",
                                       "L1::evict_unchanged",
                                       "L1::evict_first",
                                       "L1::evict_last",
                                       "L1::no_allocate",
                                       "L2::evict_normal",
                                       "L2::evict_first",
                                       "L2::evict_last",
                                       "L2::cache_hint",
                                       "L2::64B",
                                       "L2::128B",
                                       "L2::256B",
                                       "level::eviction_priority",
                                       "noftz",
                                       "unified",
                                       "L1",
                                       "L2",
                                       "shared::cta",
                                       "proxy",
                                       "async",
                                       "noinc",
                                       "collector::b128",
                                       "commit_group",
                                       "wait_group",
                                       "wait_all",
                                       "mbarrier_init"};
  return s.count(m) != 0 || m.rfind("L2::", 0) == 0 || m.rfind("L1::", 0) == 0;
}

Space space_word(const std::string& m) {
  if (m == "global") return Space::Global;
  if (m == "shared" || m == "shared::cta") return Space::Shared;
  if (m == "shared::cluster") return Space::SharedCluster;
  if (m == "local") return Space::Local;
  if (m == "const") return Space::Const;
  if (m == "param" || m == "param::entry" || m == "param::func") return Space::Param;
  return Space::None;
}

const std::map<std::string, Mode>& testp_modes() {
  static const std::map<std::string, Mode> m{
      {"finite", Mode::Finite}, {"infinite", Mode::Infinite},
      {"number", Mode::Number}, {"notanumber", Mode::NotANumber},
      {"normal", Mode::Normal}, {"subnormal", Mode::Subnormal}};
  return m;
}

// mbarrier.{init,inval,arrive,arrive_drop,expect_tx,complete_tx,test_wait,try_wait,pending_count}
// with .parity, .expect_tx, .noComplete; cp.async.mbarrier.arrive{.noinc}.
bool mbarrier_word(const std::string& m, Instruction& inst) {
  static const std::map<std::string, Mode> ops{{"init", Mode::MbInit},
                                               {"inval", Mode::MbInval},
                                               {"arrive", Mode::MbArrive},
                                               {"arrive_drop", Mode::MbArriveDrop},
                                               {"test_wait", Mode::MbTestWait},
                                               {"try_wait", Mode::MbTryWait},
                                               {"pending_count", Mode::MbPendingCount},
                                               {"complete_tx", Mode::MbCompleteTx}};
  if (inst.op == Opcode::cp) {
    if (m == "mbarrier") return true;
    if (m == "arrive") {
      inst.mode = Mode::MbArrive;
      return true;
    }
    if (m == "noinc") {
      inst.flags |= kNoInc;
      return true;
    }
    return false;
  }
  if (m == "expect_tx") {
    if (inst.mode == Mode::None)
      inst.mode = Mode::MbExpectTx;
    else
      inst.flags |= kExpectTx;
    return true;
  }
  if (m == "parity") return inst.flags |= kParity, true;
  if (m == "noComplete") return inst.flags |= kNoComplete, true;
  auto f = ops.find(m);
  if (f == ops.end()) return false;
  inst.mode = f->second;
  return true;
}

bool is_sampling(Opcode op) {
  return op == Opcode::tex || op == Opcode::tld4 || op == Opcode::txq || op == Opcode::suld ||
         op == Opcode::sust || op == Opcode::suq;
}

bool sample_word(const std::string& m, Instruction& inst) {
  SampleOp& t = inst.sample;
  static const std::map<std::string, std::pair<int, bool>> geometry{
      {"1d", {1, false}}, {"2d", {2, false}},   {"3d", {3, false}},  {"a1d", {1, true}},
      {"a2d", {2, true}}, {"cube", {2, false}}, {"acube", {2, true}}};
  static const std::map<std::string, SampleOp::Attr> attrs{
      {"width", SampleOp::Attr::Width},
      {"height", SampleOp::Attr::Height},
      {"depth", SampleOp::Attr::Depth},
      {"channel_data_type", SampleOp::Attr::ChannelDataType},
      {"channel_order", SampleOp::Attr::ChannelOrder},
      {"normalized_coords", SampleOp::Attr::NormalizedCoords},
      {"filter_mode", SampleOp::Attr::FilterMode},
      {"addr_mode_0", SampleOp::Attr::AddrMode0},
      {"addr_mode_1", SampleOp::Attr::AddrMode1},
      {"addr_mode_2", SampleOp::Attr::AddrMode2},
      {"array_size", SampleOp::Attr::ArraySize},
      {"num_mipmap_levels", SampleOp::Attr::MipmapLevels},
      {"num_samples", SampleOp::Attr::Samples}};
  if (auto g = geometry.find(m); g != geometry.end()) {
    t.dims = static_cast<std::uint8_t>(g->second.first);
    t.layered = g->second.second;
    t.cube = m == "cube" || m == "acube";
    return true;
  }
  if (auto a = attrs.find(m); a != attrs.end()) return t.attr = a->second, true;
  if (inst.op == Opcode::tld4 && m.size() == 1 &&
      std::string("rgba").find(m[0]) != std::string::npos)
    return t.component = static_cast<std::uint8_t>(std::string("rgba").find(m[0])), true;
  if (m == "b") return t.raw = true, true;
  if (m == "p") return t.raw = false, true;
  if (m == "trap") return t.oob = SampleOp::Oob::Trap, true;
  if (m == "clamp") return t.oob = SampleOp::Oob::Clamp, true;
  if (m == "zero") return t.oob = SampleOp::Oob::Zero, true;
  return false;
}

bool uses_comparison(Opcode op) {
  return op == Opcode::setp || op == Opcode::set || op == Opcode::slct || op == Opcode::vset ||
         op == Opcode::vset2 || op == Opcode::vset4;
}

bool uses_mode(Opcode op) {
  return video_lanes(op) != 0 || op == Opcode::atom || op == Opcode::red || op == Opcode::redux ||
         op == Opcode::prmt || op == Opcode::vote || op == Opcode::shfl || op == Opcode::shf ||
         op == Opcode::bar || op == Opcode::barrier || op == Opcode::multimem;
}

// wmma.load.a.sync.aligned.row.m16n16k16.global.f16,
// wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 (d, c) or .f32.bf16.bf16.f32 (d, a, b, c).
void decode_wmma(const std::vector<std::string>& parts, Instruction& inst) {
  MatrixOp& mx = inst.matrix;
  std::vector<Type> types;
  int layouts = 0;
  for (std::size_t k = 1; k < parts.size(); ++k) {
    const std::string& m = parts[k];
    unsigned mm = 0, nn = 0, kk = 0;
    if (m == "load")
      mx.kind = MatrixOp::Kind::Load;
    else if (m == "store")
      mx.kind = MatrixOp::Kind::Store;
    else if (m == "mma")
      mx.kind = MatrixOp::Kind::Mma;
    else if (m == "a" || m == "b" || m == "c" || m == "d")
      mx.which = m[0];
    else if (m == "row" || m == "col")
      (layouts++ == 0 ? mx.row : mx.b_row) = m == "row";
    else if (std::sscanf(m.c_str(), "m%un%uk%u", &mm, &nn, &kk) == 3) {
      mx.m = static_cast<std::uint16_t>(mm);
      mx.n = static_cast<std::uint16_t>(nn);
      mx.k = static_cast<std::uint16_t>(kk);  // up to k256 (.b1)
    } else if (auto t = type_from_name(m))
      types.push_back(*t);
    else if (Space s = space_word(m); s != Space::None)
      inst.space = s;
    else if (m == "satfinite")
      mx.satfinite = true;
    else if (m == "m8n8" || m == "m16n16" || m == "m16n8") {
      mx.m = static_cast<std::uint8_t>(m == "m8n8" ? 8 : 16);
      mx.n = static_cast<std::uint8_t>(m == "m16n16" ? 16 : 8);
    } else if (m == "x1" || m == "x2" || m == "x4")
      mx.count = static_cast<std::uint8_t>(m[1] - '0');
    else if (m == "trans")
      mx.trans = true;
    else if (m == "sp" || m == "sp::ordered_metadata") {
      mx.sparse = true;
      mx.ordered_metadata = m != "sp";
    } else if (m == "and" || m == "xor")
      mx.bit_op = m == "and" ? MatrixOp::BitOp::And : MatrixOp::BitOp::Xor;
    else if (m == "sync" || m == "aligned" || m == "rn" || m == "popc")
      continue;
    else if (inst.unsupported.empty())
      inst.unsupported = "modifier ." + m + " of " + parts[0];
  }
  if (mx.kind == MatrixOp::Kind::Mma) {
    if (types.size() == 2) {
      mx.d = types[0];
      mx.c = types[1];
      mx.a = mx.b = Type::F16;
    } else if (types.size() == 4) {
      mx.d = types[0];
      mx.a = types[1];
      mx.b = types[2];
      mx.c = types[3];
    }
  } else if (!types.empty()) {
    mx.a = types[0];  // the element type in memory
  }
  inst.type = types.empty() ? Type::None : types.back();
}

}  // namespace

unsigned video_lanes(Opcode op) {
  switch (op) {
    case Opcode::vadd:
    case Opcode::vsub:
    case Opcode::vabsdiff:
    case Opcode::vmin:
    case Opcode::vmax:
    case Opcode::vshl:
    case Opcode::vshr:
    case Opcode::vmad:
    case Opcode::vset:
      return 1;
    case Opcode::vadd2:
    case Opcode::vsub2:
    case Opcode::vavrg2:
    case Opcode::vabsdiff2:
    case Opcode::vmin2:
    case Opcode::vmax2:
    case Opcode::vset2:
      return 2;
    case Opcode::vadd4:
    case Opcode::vsub4:
    case Opcode::vavrg4:
    case Opcode::vabsdiff4:
    case Opcode::vmin4:
    case Opcode::vmax4:
    case Opcode::vset4:
      return 4;
    default:
      return 0;
  }
}

bool decode_opcode(const std::string& word, Instruction& inst) {
  const std::vector<std::string> parts = split(word);
  const auto op = opcode_from_name(parts[0]);
  if (!op) return false;
  inst.op = *op;
  if (is_bulk_form(parts)) {
    decode_bulk(parts, inst);
    return true;
  }
  if (inst.op == Opcode::wmma || inst.op == Opcode::mma || inst.op == Opcode::ldmatrix ||
      inst.op == Opcode::stmatrix || inst.op == Opcode::movmatrix) {
    // The kind first: it decides how the type suffixes are read.
    if (inst.op == Opcode::mma) inst.matrix.kind = MatrixOp::Kind::Mma;
    if (inst.op == Opcode::ldmatrix) inst.matrix.kind = MatrixOp::Kind::Load;
    if (inst.op == Opcode::stmatrix) inst.matrix.kind = MatrixOp::Kind::Store;
    decode_wmma(parts, inst);
    return true;
  }
  if (inst.op == Opcode::wgmma) {
    decode_wgmma(parts, inst);
    return true;
  }
  std::vector<Type> types;
  for (std::size_t k = 1; k < parts.size(); ++k) {
    const std::string& m = parts[k];
    if (auto t = type_from_name(m)) {
      types.push_back(*t);
    } else if (m == "v2" || m == "v4" || m == "v8") {
      inst.vec = static_cast<std::uint8_t>(m[1] - '0');
    } else if (Space s = space_word(m); s != Space::None) {
      inst.space = s;
    } else if (uses_comparison(inst.op) && comparisons().count(m) && inst.cmp == Cmp::None) {
      inst.cmp = comparisons().at(m);
    } else if (uses_comparison(inst.op) && (m == "and" || m == "or" || m == "xor")) {
      inst.flags |= m == "and" ? kAnd : m == "or" ? kOr : kXor;
    } else if (roundings().count(m)) {
      inst.round = roundings().at(m);
    } else if (uses_mode(inst.op) && modes().count(m) && inst.mode == Mode::None) {
      inst.mode = modes().at(m);
    } else if ((inst.op == Opcode::mbarrier || inst.op == Opcode::cp) && mbarrier_word(m, inst)) {
      // mbarrier operation, or cp.async.mbarrier.arrive
    } else if (is_sampling(inst.op) && sample_word(m, inst)) {
      // geometry, component, out-of-range mode or attribute
    } else if (inst.op == Opcode::testp && testp_modes().count(m)) {
      inst.mode = testp_modes().at(m);
    } else if (inst.op == Opcode::match && (m == "any" || m == "all")) {
      inst.mode = m == "any" ? Mode::Any : Mode::All;
    } else if (flags().count(m)) {
      inst.flags |= flags().at(m);
    } else if (inst.op == Opcode::bar && m == "warp") {
      inst.flags |= kSync;  // bar.warp.sync
      inst.mode = Mode::Uni;
    } else if (inst.op == Opcode::barrier && m == "cluster") {
      inst.mode = Mode::ClusterArrive;  // .arrive or .wait follows
    } else if (inst.op == Opcode::barrier && inst.mode == Mode::ClusterArrive &&
               (m == "arrive" || m == "wait")) {
      inst.mode = m == "arrive" ? Mode::ClusterArrive : Mode::ClusterWait;
      if (m == "wait") inst.flags |= kSync;
    } else if ((inst.op == Opcode::bar || inst.op == Opcode::barrier) &&
               (m == "arrive" || m == "red")) {
      inst.flags |= m == "arrive" ? kArrive : kRed;
    } else if (inst.op == Opcode::vmad && (m == "po" || m == "shr7" || m == "shr15")) {
      inst.flags |= m == "po" ? kPlusOne : m == "shr7" ? kShr7 : kShr15;
    } else if (inst.op == Opcode::setmaxnreg && (m == "inc" || m == "dec")) {
      // A register budget hint: PTX registers are virtual here (checked in check_supported).
    } else if (inst.op == Opcode::brx && m == "idx") {
      inst.flags |= kIdx;
    } else if (inst.op == Opcode::cvta && m == "to") {
      inst.flags |= kTo;
    } else if (inst.op == Opcode::griddepcontrol && (m == "wait" || m == "launch_dependents")) {
      // Programmatic dependent launch: launches on a stream run one after
      // another, so the grids a kernel waits for have finished and there is
      // nothing to release early.
    } else if (harmless(m)) {
      // accepted: no functional effect
    } else if (inst.unsupported.empty()) {
      inst.unsupported = "modifier ." + m + " of " + parts[0];
    }
  }
  if (!types.empty()) {
    inst.type = types.back();
    inst.type2 = types.front();
    if (inst.op == Opcode::cvt && types.size() == 2) {
      inst.type = types[0];   // destination
      inst.type2 = types[1];  // source
    }
    if (inst.op == Opcode::set && types.size() == 2) {
      inst.type2 = types[0];  // destination
      inst.type = types[1];   // compared values
    }
  }
  if (video_lanes(inst.op) != 0) {
    // .dtype.atype.btype; vset has no .dtype (its result is unsigned).
    const bool set =
        inst.op == Opcode::vset || inst.op == Opcode::vset2 || inst.op == Opcode::vset4;
    if (set) types.insert(types.begin(), Type::U32);
    auto word_type = [](Type t) { return t == Type::U32 || t == Type::S32; };
    if (types.size() != 3 || !word_type(types[0]) || !word_type(types[1]) || !word_type(types[2])) {
      if (inst.unsupported.empty())
        inst.unsupported = "the typed form " + word + " (video instructions take " +
                           (set ? "two" : "three") + " types, each .u32 or .s32)";
      return true;
    }
    inst.type = types[0];
    inst.type2 = types[1];
    inst.type3 = types[2];
    return true;
  }
  if (types.size() > 2 && inst.unsupported.empty()) inst.unsupported = "the typed form " + word;
  return true;
}

}  // namespace cnuas::ptx

namespace cnuas::ptx {

// The mma shapes and types whose per-lane fragment layouts the engine knows
// (ops_matrix.cpp, mma_layout.cpp), and the 8x8 b16 matrices of
// ldmatrix/stmatrix/movmatrix.
bool architected_layout_known(const Instruction& inst) {
  const MatrixOp& mx = inst.matrix;
  if (inst.op != Opcode::mma)
    return mx.m == 8 && mx.n == 8 && (inst.type == Type::B16 || inst.type == Type::None);
  return mma_form_problem(mx).empty();
}

// The cvt forms with 8-bit float pairs the PTX ISA defines (sm_89+):
// cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.{f32,f16x2} and
// cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2}. Empty when inst is one, else why not.
static std::string fp8_cvt_problem(const Instruction& inst) {
  auto pair = [](Type t) { return t == Type::E4M3x2 || t == Type::E5M2x2; };
  auto scalar = [](Type t) { return t == Type::E4M3 || t == Type::E5M2; };
  if (scalar(inst.type) || scalar(inst.type2))
    return "cvt with a scalar .e4m3/.e5m2 (cvt takes the packed pairs .e4m3x2/.e5m2x2)";
  if (inst.round != Round::Rn) return "an fp8 cvt without .rn (the only rounding it takes)";
  if (pair(inst.type)) {
    if (inst.type2 != Type::F32 && inst.type2 != Type::F16x2)
      return "cvt to ." + std::string(type_name(inst.type)) + " from ." +
             std::string(type_name(inst.type2)) + " (the sources are .f32 pairs and .f16x2)";
    if (!inst.has(kSatFinite))
      return "cvt to ." + std::string(type_name(inst.type)) +
             " without .satfinite (the PTX ISA requires it)";
    return {};
  }
  if (inst.type != Type::F16x2)
    return "cvt from ." + std::string(type_name(inst.type2)) + " to ." +
           std::string(type_name(inst.type)) + " (fp8 pairs convert to .f16x2)";
  if (inst.has(kSatFinite)) return "cvt from an fp8 pair with .satfinite";
  return {};
}

// Operand counts and modifiers of the video instructions (selectors are checked by the parser).
static void check_video(Instruction& inst) {
  if (!inst.unsupported.empty()) return;
  const unsigned lanes = video_lanes(inst.op);
  const bool op2 = inst.mode != Mode::None;
  if (op2 &&
      (lanes == 1 ? inst.mode != Mode::Add && inst.mode != Mode::Min && inst.mode != Mode::Max
                  : inst.mode != Mode::Add)) {
    inst.unsupported =
        "this secondary operation (scalar video instructions take .add, .min or "
        ".max; SIMD ones .add)";
    return;
  }
  if (inst.op == Opcode::vmad) {
    if (inst.nops != 4 || op2)
      inst.unsupported = "this vmad form (vmad takes d, a, b, c and no secondary operation)";
    return;
  }
  const bool merge = inst.nops >= 1 && inst.ops[0].sel_bits != 0;
  if (lanes == 1 && inst.nops == 4 && !op2 && !merge)
    inst.unsupported = "a fourth operand without a secondary operation or destination selector";
  else if (lanes == 1 && inst.nops == 3 && (op2 || merge))
    inst.unsupported = "a secondary operation or destination selector without operand c";
  else if (lanes == 1 && inst.nops != 3 && inst.nops != 4)
    inst.unsupported = "this operand count (scalar video instructions take d, a, b[, c])";
  else if (lanes != 1 && inst.nops != 4)
    inst.unsupported = "this operand count (SIMD video instructions take d, a, b, c)";
  else if (op2 && merge && lanes == 1)
    inst.unsupported = "both a secondary operation and a destination selector";
  else if (inst.has(kSat) && op2 && lanes != 1)
    inst.unsupported = ".sat together with the accumulate operation .add";
  for (unsigned k = 0; k < inst.nops && inst.unsupported.empty(); ++k) {
    const Operand& o = inst.ops[k];
    if (o.kind != Operand::Kind::Reg && o.kind != Operand::Kind::Imm)
      inst.unsupported = "a video operand that is not a register or an immediate";
    else if (o.negate && inst.op != Opcode::vmad)
      inst.unsupported = "a negated operand outside vmad";
  }
  if (inst.unsupported.empty() && inst.ops[0].kind != Operand::Kind::Reg)
    inst.unsupported = "a video destination that is not a register";
}

void check_supported(Instruction& inst) {
  static const std::set<Opcode> implemented{Opcode::abs,
                                            Opcode::activemask,
                                            Opcode::add,
                                            Opcode::addc,
                                            Opcode::and_,
                                            Opcode::applypriority,
                                            Opcode::atom,
                                            Opcode::bar,
                                            Opcode::barrier,
                                            Opcode::bfe,
                                            Opcode::bfi,
                                            Opcode::bfind,
                                            Opcode::bmsk,
                                            Opcode::bra,
                                            Opcode::brev,
                                            Opcode::brkpt,
                                            Opcode::brx,
                                            Opcode::call,
                                            Opcode::clz,
                                            Opcode::cnot,
                                            Opcode::copysign,
                                            Opcode::cos,
                                            Opcode::cp,
                                            Opcode::cvt,
                                            Opcode::cvta,
                                            Opcode::discard,
                                            Opcode::div,
                                            Opcode::dp2a,
                                            Opcode::dp4a,
                                            Opcode::elect,
                                            Opcode::ex2,
                                            Opcode::exit,
                                            Opcode::fence,
                                            Opcode::fma,
                                            Opcode::griddepcontrol,
                                            Opcode::isspacep,
                                            Opcode::ld,
                                            Opcode::ldu,
                                            Opcode::lg2,
                                            Opcode::lop3,
                                            Opcode::mad,
                                            Opcode::mad24,
                                            Opcode::madc,
                                            Opcode::match,
                                            Opcode::max,
                                            Opcode::membar,
                                            Opcode::min,
                                            Opcode::mov,
                                            Opcode::mul,
                                            Opcode::mul24,
                                            Opcode::nanosleep,
                                            Opcode::neg,
                                            Opcode::not_,
                                            Opcode::or_,
                                            Opcode::pmevent,
                                            Opcode::popc,
                                            Opcode::prefetch,
                                            Opcode::prefetchu,
                                            Opcode::prmt,
                                            Opcode::rcp,
                                            Opcode::red,
                                            Opcode::redux,
                                            Opcode::rem,
                                            Opcode::ret,
                                            Opcode::rsqrt,
                                            Opcode::sad,
                                            Opcode::selp,
                                            Opcode::set,
                                            Opcode::setmaxnreg,
                                            Opcode::setp,
                                            Opcode::shf,
                                            Opcode::shfl,
                                            Opcode::shl,
                                            Opcode::shr,
                                            Opcode::sin,
                                            Opcode::slct,
                                            Opcode::sqrt,
                                            Opcode::st,
                                            Opcode::sub,
                                            Opcode::subc,
                                            Opcode::szext,
                                            Opcode::tanh,
                                            Opcode::testp,
                                            Opcode::trap,
                                            Opcode::vote,
                                            Opcode::wmma,
                                            Opcode::mapa,
                                            Opcode::getctarank,
                                            Opcode::mma,
                                            Opcode::wgmma,
                                            Opcode::ldmatrix,
                                            Opcode::stmatrix,
                                            Opcode::movmatrix,
                                            Opcode::mbarrier,
                                            Opcode::tex,
                                            Opcode::tld4,
                                            Opcode::txq,
                                            Opcode::suld,
                                            Opcode::sust,
                                            Opcode::suq,
                                            Opcode::xor_};
  if (video_lanes(inst.op) != 0) {
    check_video(inst);
    return;
  }
  if (!implemented.count(inst.op)) {
    inst.unsupported =
        "the instruction " + std::string(opcode_name(inst.op)) + " is not implemented";
    return;
  }
  if (inst.type == Type::B128) inst.unsupported = "128-bit (.b128) operands are not implemented";
  if (inst.op == Opcode::mma && inst.unsupported.empty())
    if (std::string why = mma_form_problem(inst.matrix); !why.empty()) inst.unsupported = why;
  const auto sub_byte = [](Type t) { return t == Type::S4 || t == Type::U4 || t == Type::B1; };
  if (inst.op != Opcode::mma && (sub_byte(inst.type) || sub_byte(inst.type2)) &&
      inst.unsupported.empty())
    inst.unsupported = std::string(opcode_name(inst.op)) +
                       " on a sub-byte type (.s4, .u4 and .b1 are taken by mma only)";
  const bool fp8_cvt = inst.op == Opcode::cvt && (is_fp8(inst.type) || is_fp8(inst.type2));
  if (fp8_cvt) {
    if (std::string why = fp8_cvt_problem(inst); !why.empty()) inst.unsupported = why;
  } else if (inst.op != Opcode::mma && inst.op != Opcode::wmma &&
             (inst.has(kRelu) || inst.has(kSatFinite))) {
    inst.unsupported = std::string("the modifier .") + (inst.has(kRelu) ? "relu" : "satfinite") +
                       " of " + std::string(opcode_name(inst.op)) +
                       " (implemented on the fp8 cvt forms)";
  } else if (inst.op != Opcode::cvt && inst.op != Opcode::mma && inst.op != Opcode::wmma &&
             is_fp8(inst.type)) {
    inst.unsupported = std::string(opcode_name(inst.op)) + " on ." +
                       std::string(type_name(inst.type)) + " (fp8 is taken by cvt and mma)";
  }
  const bool transcendental = inst.op == Opcode::sin || inst.op == Opcode::cos ||
                              inst.op == Opcode::lg2 || inst.op == Opcode::rsqrt;
  if (transcendental && inst.type != Type::F32 && inst.type != Type::F64)
    inst.unsupported =
        std::string(opcode_name(inst.op)) + " on ." + std::string(type_name(inst.type));
  if ((inst.op == Opcode::div || inst.op == Opcode::rcp || inst.op == Opcode::sqrt) &&
      (inst.type == Type::F16 || inst.type == Type::F16x2 || inst.type == Type::BF16 ||
       inst.type == Type::BF16x2))
    inst.unsupported =
        std::string(opcode_name(inst.op)) + " on ." + std::string(type_name(inst.type));
  if ((inst.op == Opcode::tex || inst.op == Opcode::tld4 || inst.op == Opcode::suld ||
       inst.op == Opcode::sust) &&
      inst.sample.dims == 0)
    inst.unsupported = "this texture geometry (multisample is not implemented)";
  if ((inst.op == Opcode::suld || inst.op == Opcode::sust) && inst.sample.cube)
    inst.unsupported = "a surface with cube geometry (surfCubemap* use .a2d)";
  if ((inst.op == Opcode::suld || inst.op == Opcode::sust) && !inst.sample.raw)
    inst.unsupported = "formatted surface access (.p); raw (.b) is implemented";
  if ((inst.op == Opcode::txq || inst.op == Opcode::suq) &&
      inst.sample.attr == SampleOp::Attr::None)
    inst.unsupported = "a txq/suq attribute";
  if (inst.op == Opcode::setmaxnreg &&
      (inst.nops != 1 || inst.ops[0].kind != Operand::Kind::Imm || inst.ops[0].imm < 24 ||
       inst.ops[0].imm > 256 || inst.ops[0].imm % 8 != 0))
    inst.unsupported =
        "this setmaxnreg (it takes one constant register count, a multiple of 8 from 24 to 256)";
  if (inst.op == Opcode::mbarrier && inst.mode == Mode::None)
    inst.unsupported = "an mbarrier form without an operation";
  if (inst.op == Opcode::cp && inst.mode != Mode::MbArrive && inst.nops >= 1 &&
      inst.ops[0].kind == Operand::Kind::Address && inst.space != Space::Global && !inst.has(kBulk))
    inst.unsupported =
        "cp forms other than cp.async.shared.global and cp.async.bulk between global and shared";
}

}  // namespace cnuas::ptx
