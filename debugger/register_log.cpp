#include "register_log.h"

#include <fmt/format.h>

#include "core/kernel/errors.h"

namespace cnuas::debugger {

std::vector<std::int32_t> written_registers(const ptx::Instruction& inst) {
  using ptx::Opcode;
  switch (inst.op) {
    case Opcode::st:
    case Opcode::red:
    case Opcode::sured:
    case Opcode::sust:
    case Opcode::stmatrix:
    case Opcode::bar:
    case Opcode::barrier:
    case Opcode::bra:
    case Opcode::brx:
    case Opcode::call:
    case Opcode::ret:
    case Opcode::exit:
    case Opcode::wgmma:
    case Opcode::tcgen05:
    case Opcode::tensormap:
    case Opcode::cp:
    case Opcode::multimem:
    case Opcode::stackrestore:
      return {};
    default:
      break;
  }
  if (inst.op == Opcode::wmma && inst.matrix.kind == ptx::MatrixOp::Kind::Store) return {};
  const ptx::Operand& d = inst.ops[0];
  std::vector<std::int32_t> regs;
  if (inst.nops == 0) return regs;
  if (d.kind == ptx::Operand::Kind::Reg) {
    regs.push_back(d.reg);
    if (d.reg2 >= 0) regs.push_back(d.reg2);
  } else if (d.kind == ptx::Operand::Kind::Vector) {
    for (const std::int32_t r : d.regs)
      if (r >= 0) regs.push_back(r);
  }
  return regs;
}

std::uint64_t logged_value(ptx::Type type, std::uint64_t raw) {
  if (type == ptx::Type::Pred) return raw != 0 ? 1 : 0;
  return ptx::truncate(raw, ptx::type_bits(type));
}

ThreadFilter::ThreadFilter(const std::string& text) {
  if (text.empty()) return;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = text.find(',', at);
    const std::string part = text.substr(at, comma == std::string::npos ? comma : comma - at);
    const std::size_t dash = part.find('-');
    try {
      std::size_t used = 0;
      const std::uint64_t first = std::stoull(part.substr(0, dash), &used);
      if (used != part.substr(0, dash).size()) throw std::invalid_argument(part);
      std::uint64_t last = first;
      if (dash != std::string::npos) {
        last = std::stoull(part.substr(dash + 1), &used);
        if (used != part.size() - dash - 1) throw std::invalid_argument(part);
      }
      if (last < first) throw std::invalid_argument(part);
      ranges_.push_back({first, last});
    } catch (const std::exception&) {
      throw InputError(fmt::format(
          "--threads '{}': '{}' is no thread range; accepted: N, A-B (A <= B) and comma lists "
          "of them, N a global linear thread index",
          text, part));
    }
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
}

bool ThreadFilter::contains(std::uint64_t thread) const {
  if (ranges_.empty()) return true;
  for (const auto& [first, last] : ranges_)
    if (thread >= first && thread <= last) return true;
  return false;
}

std::string log_header(const std::string& kernel, const std::uint32_t grid[3],
                       const std::uint32_t block[3]) {
  return fmt::format("# cnuas register-write log 1: kernel {} grid ({},{},{}) block ({},{},{})\n",
                     kernel, grid[0], grid[1], grid[2], block[0], block[1], block[2]);
}

std::string log_line(std::uint64_t thread, const std::uint32_t grid[3],
                     const std::uint32_t block[3], std::uint32_t ptx_line, const std::string& reg,
                     std::uint64_t value, const std::string& text) {
  const std::uint64_t per_cta = std::uint64_t{block[0]} * block[1] * block[2];
  const std::uint64_t cta = thread / per_cta, t = thread % per_cta;
  return fmt::format("{} cta=({},{},{}) tid=({},{},{}) line={} {}=0x{:x} | {}\n", thread,
                     cta % grid[0], cta / grid[0] % grid[1], cta / grid[0] / grid[1], t % block[0],
                     t / block[0] % block[1], t / block[0] / block[1], ptx_line, reg, value, text);
}

RegisterTracer::RegisterTracer(const std::uint32_t grid[3], const std::uint32_t block[3],
                               ThreadFilter filter)
    : filter_(std::move(filter)) {
  for (int k = 0; k < 3; ++k) grid_[k] = grid[k], block_[k] = block[k];
}

void RegisterTracer::executed(ptx::Dim3 cta, std::uint32_t warp, std::uint32_t active,
                              const ptx::Function& fn, const ptx::Instruction& inst,
                              const std::uint64_t* regs) {
  const std::vector<std::int32_t> written = written_registers(inst);
  if (written.empty()) return;
  const std::uint64_t per_cta = std::uint64_t{block_[0]} * block_[1] * block_[2];
  const std::uint64_t first =
      ((std::uint64_t{cta.z} * grid_[1] + cta.y) * grid_[0] + cta.x) * per_cta + warp * 32ull;
  for (unsigned lane = 0; lane < 32; ++lane) {
    if (!(active >> lane & 1u) || !filter_.contains(first + lane)) continue;
    std::vector<Write>& log = threads_[first + lane];
    for (const std::int32_t r : written) {
      const ptx::Type type = fn.registers[static_cast<std::size_t>(r)].type;
      log.push_back(
          {&inst, &fn, r, logged_value(type, regs[static_cast<std::size_t>(r) * 32 + lane])});
      ++writes_;
    }
  }
}

void RegisterTracer::write(std::ostream& out, const std::string& kernel) const {
  out << log_header(kernel, grid_, block_);
  for (const auto& [thread, log] : threads_)
    for (const Write& w : log)
      out << log_line(thread, grid_, block_, w.inst->line,
                      w.fn->registers[static_cast<std::size_t>(w.reg)].name, w.value, w.inst->text);
}

}  // namespace cnuas::debugger
