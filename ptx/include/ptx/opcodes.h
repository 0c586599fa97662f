// Every PTX instruction name of ISA 9.0 (a trailing _ marks a C++ keyword), as one list: the parser
// recognizes all of them; the executor says which forms it runs.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace cnuas::ptx {

// clang-format off
#define CNUAS_PTX_OPCODES(X) \
  X(abs) X(activemask) X(add) X(addc) X(alloca) X(and_) X(applypriority) X(atom) X(bar) \
  X(barrier) X(bfe) X(bfi) X(bfind) X(bmsk) X(bra) X(brev) X(brkpt) X(brx) X(call) X(clz) \
  X(clusterlaunchcontrol) X(cnot) X(copysign) X(cos) X(cp) X(createpolicy) X(cvt) X(cvta) \
  X(discard) X(div) X(dp2a) X(dp4a) X(elect) X(ex2) X(exit) X(fence) X(fma) X(fns) X(getctarank) \
  X(griddepcontrol) X(isspacep) X(istypeof) X(ld) X(ldmatrix) X(ldu) X(lg2) X(lop3) \
  X(mad) X(mad24) X(madc) X(mapa) X(match) X(max) X(mbarrier) X(membar) X(min) X(mma) \
  X(mov) X(movmatrix) X(mul) X(mul24) X(multimem) X(nanosleep) X(neg) X(not_) X(or_) \
  X(pmevent) X(popc) X(prefetch) X(prefetchu) X(prmt) X(rcp) X(red) X(redux) X(rem) \
  X(ret) X(rsqrt) X(sad) X(selp) X(set) X(setmaxnreg) X(setp) X(shf) X(shfl) X(shl) \
  X(shr) X(sin) X(slct) X(sqrt) X(st) X(stackrestore) X(stacksave) X(stmatrix) X(sub) \
  X(subc) X(suld) X(suq) X(sured) X(sust) X(szext) X(tanh) X(tcgen05) X(tensormap) X(testp) \
  X(tex) X(tld4) X(trap) X(txq) X(vabsdiff) X(vabsdiff2) X(vabsdiff4) X(vadd) X(vadd2) \
  X(vadd4) X(vavrg2) X(vavrg4) X(vmad) X(vmax) X(vmax2) X(vmax4) X(vmin) X(vmin2) X(vmin4) \
  X(vote) X(vset) X(vset2) X(vset4) X(vshl) X(vshr) X(vsub) X(vsub2) X(vsub4) X(wgmma) \
  X(wmma) X(xor_)
// clang-format on

enum class Opcode : std::uint16_t {
  Invalid,
#define CNUAS_PTX_ENUM(name) name,
  CNUAS_PTX_OPCODES(CNUAS_PTX_ENUM)
#undef CNUAS_PTX_ENUM
};

std::optional<Opcode> opcode_from_name(std::string_view name);
std::string_view opcode_name(Opcode op);

}  // namespace cnuas::ptx
