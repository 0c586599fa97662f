#include "instrument.h"

#include <algorithm>
#include <fstream>

#include <fmt/format.h>

#include "core/kernel/errors.h"
#include "register_log.h"

namespace cnuas::debugger {
namespace {

// The instructions that put register `reg` (of `type`) into %cdd1 as 64 bits.
std::string value_to_64(const std::string& reg, ptx::Type type, std::uint32_t line) {
  using ptx::Type;
  if (type == Type::Pred) return fmt::format("selp.u64 %cdd1, 1, 0, {};\n", reg);
  switch (ptx::type_bits(type)) {
    case 8:
      return fmt::format("cvt.u64.u8 %cdd1, {};\n", reg);
    case 16:
      return fmt::format("mov.b16 %cdh0, {};\ncvt.u64.u16 %cdd1, %cdh0;\n", reg);
    case 32:
      return fmt::format("mov.b32 %cdw5, {};\ncvt.u64.u32 %cdd1, %cdw5;\n", reg);
    case 64:
      return fmt::format("mov.b64 %cdd1, {};\n", reg);
    default:
      throw InputError(
          fmt::format("PTX line {}: register {} is {} bits wide; the instrumented "
                      "log stores registers of 1 to 64 bits",
                      line, reg, ptx::type_bits(type)));
  }
}

// The block that appends (thread, site, value) to the log when the
// instruction ran (its guard held).
std::string log_block(const ptx::Instruction& inst, const ptx::Function& fn, std::int32_t reg,
                      std::size_t site) {
  const ptx::Register& r = fn.registers[static_cast<std::size_t>(reg)];
  std::string guard, unguard;
  if (inst.guard >= 0) {
    const std::string& g = fn.registers[static_cast<std::size_t>(inst.guard)].name;
    guard = fmt::format("@{}{} ", inst.guard_negated ? "!" : "", g);
    unguard = fmt::format("@{}{} ", inst.guard_negated ? "" : "!", g);
  }
  std::string b = "{ // cnuas debug: log " + r.name + "\n";
  b += ".reg .pred %cdp;\n.reg .b16 %cdh<1>;\n.reg .b32 %cdw<6>;\n.reg .b64 %cdd<4>;\n";
  // The global linear thread index, as `debug trace` numbers threads.
  b += "mov.u32 %cdw0, %tid.x;\nmov.u32 %cdw1, %tid.y;\nmov.u32 %cdw2, %tid.z;\n"
       "mov.u32 %cdw3, %ntid.x;\nmov.u32 %cdw4, %ntid.y;\n"
       "mad.lo.u32 %cdw2, %cdw2, %cdw4, %cdw1;\nmad.lo.u32 %cdw0, %cdw2, %cdw3, %cdw0;\n"
       "mul.lo.u32 %cdw3, %cdw3, %cdw4;\nmov.u32 %cdw4, %ntid.z;\n"
       "mul.lo.u32 %cdw3, %cdw3, %cdw4;\n"
       "mov.u32 %cdw1, %ctaid.z;\nmov.u32 %cdw2, %nctaid.y;\nmov.u32 %cdw4, %ctaid.y;\n"
       "mad.lo.u32 %cdw1, %cdw1, %cdw2, %cdw4;\n"
       "mov.u32 %cdw2, %nctaid.x;\nmov.u32 %cdw4, %ctaid.x;\n"
       "mad.lo.u32 %cdw1, %cdw1, %cdw2, %cdw4;\n"
       "mul.wide.u32 %cdd3, %cdw1, %cdw3;\ncvt.u64.u32 %cdd2, %cdw0;\n"
       "add.u64 %cdd3, %cdd3, %cdd2;\n";
  b += value_to_64(r.name, r.type, inst.line);
  b += guard + "atom.global.add.u64 %cdd2, [cnuas_dbg_count], 1;\n";
  b += "ld.global.u64 %cdd0, [cnuas_dbg_capacity];\nsetp.lt.u64 %cdp, %cdd2, %cdd0;\n";
  if (!unguard.empty()) b += unguard + "setp.ne.u32 %cdp, 0, 0;\n";
  b += "ld.global.u64 %cdd0, [cnuas_dbg_log];\nmad.lo.u64 %cdd0, %cdd2, 24, %cdd0;\n";
  b += "@%cdp st.global.u64 [%cdd0], %cdd3;\n";
  b += fmt::format("mov.u64 %cdd2, {};\n", site);
  b += "@%cdp st.global.u64 [%cdd0+8], %cdd2;\n@%cdp st.global.u64 [%cdd0+16], %cdd1;\n}\n";
  return b;
}

std::string c_string(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    if (ch == '"' || ch == '\\')
      out += '\\', out += ch;
    else if (static_cast<unsigned char>(ch) < 0x20 || static_cast<unsigned char>(ch) >= 0x7f)
      out += fmt::format("\\{:03o}", static_cast<unsigned char>(ch));
    else
      out += ch;
  }
  return out + "\"";
}

}  // namespace

InstrumentedModule instrument_ptx(const std::string& text, const ptx::Module& module) {
  std::vector<std::size_t> line_start{0};
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') line_start.push_back(i + 1);
  InstrumentedModule out;
  std::vector<std::pair<std::size_t, std::string>> inserts;  // after offset, text
  for (const ptx::Function& fn : module.functions) {
    if (!fn.defined) continue;
    for (const ptx::Instruction& inst : fn.code) {
      const std::vector<std::int32_t> regs = written_registers(inst);
      if (regs.empty()) continue;
      if (inst.line == 0 || inst.line > line_start.size())
        throw InternalError(
            fmt::format("instrument: no source line {} for '{}'", inst.line, inst.text));
      const std::size_t start = line_start[inst.line - 1] + (inst.column ? inst.column - 1 : 0);
      const std::size_t end = text.find(';', start);
      if (end == std::string::npos)
        throw InternalError(fmt::format("instrument: no ';' after line {}", inst.line));
      std::string blocks = "\n";
      for (const std::int32_t r : regs) {
        const ptx::Register& reg = fn.registers[static_cast<std::size_t>(r)];
        blocks += log_block(inst, fn, r, out.sites.size());
        const unsigned bits = reg.type == ptx::Type::Pred ? 1 : ptx::type_bits(reg.type);
        out.sites.push_back(
            {inst.line, reg.name, bits >= 64 ? ~0ull : (1ull << bits) - 1, inst.text});
      }
      inserts.push_back({end + 1, blocks});
    }
  }
  // The log's variables, after the module header (.version, .target, .address_size).
  std::size_t header_end = 0;
  for (const char* directive : {".version", ".target", ".address_size"}) {
    const std::size_t at = text.find(directive);
    if (at == std::string::npos) continue;
    const std::size_t eol = text.find('\n', at);
    header_end = std::max(header_end, eol == std::string::npos ? text.size() : eol + 1);
  }
  inserts.push_back({header_end,
                     "// cnuas debug instrument: the register-write log (thread, site, value)\n"
                     ".global .align 8 .u64 cnuas_dbg_log;\n"
                     ".global .align 8 .u64 cnuas_dbg_count;\n"
                     ".global .align 8 .u64 cnuas_dbg_capacity;\n"});
  std::stable_sort(inserts.begin(), inserts.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::size_t at = 0;
  for (const auto& [offset, insert] : inserts) {
    out.ptx.append(text, at, offset - at);
    out.ptx += insert;
    at = offset;
  }
  out.ptx.append(text, at, std::string::npos);
  return out;
}

void write_program_inputs(const Capture& c, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  const auto u64 = [&](std::uint64_t v) { out.write(reinterpret_cast<const char*>(&v), 8); };
  const auto bytes = [&](const std::vector<std::uint8_t>& v) {
    u64(v.size());
    out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size()));
  };
  bytes(c.params);
  u64(c.buffers.size());
  for (const CapturedBuffer& b : c.buffers) {
    u64(b.base);
    bytes(b.before);
  }
  u64(c.variables.size());
  for (const CapturedVariable& v : c.variables) {
    u64(v.name.size());
    out.write(v.name.data(), static_cast<std::streamsize>(v.name.size()));
    bytes(v.before);
  }
  out.close();
  if (!out) throw InputError(fmt::format("cannot write '{}'", path));
}

std::string replay_program(const Capture& c, const std::vector<LogSite>& sites,
                           std::uint64_t log_capacity) {
  std::string table;
  for (const LogSite& s : sites)
    table += fmt::format("    {{{}u, {}, 0x{:x}ull, {}}},\n", s.line, c_string(s.reg), s.mask,
                         c_string(s.text));
  std::string src = R"(// Generated by `cnuas debug instrument`: replays launch #@OCCURRENCE@ of
// @KERNEL@ with the instrumented PTX beside it and writes every register write
// the kernel made, one line each, thread by thread (the format of `cnuas debug trace`).
// Build: nvcc -o replay replay.cu -L/usr/local/cuda/lib64/stubs -lcuda
// Run:   ./replay DIR LOG   (DIR holds instrumented.ptx and inputs.bin)
#include <cuda.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

struct Site {
  unsigned line;
  const char* reg;
  unsigned long long mask;
  const char* text;
};
const Site kSites[] = {
@SITES@    {0u, "", 0ull, ""}};
const char* const kKernel = @KERNEL_STRING@;
const unsigned kGrid[3] = {@GRID@}, kBlock[3] = {@BLOCK@};
const unsigned kSharedBytes = @SHARED@, kStackBytes = @STACK@;
const unsigned long long kCapacity = @CAPACITY@ull;  // log records; argv[3] overrides

struct Record {
  unsigned long long thread, site, value;
};

void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* name = nullptr;
  cuGetErrorName(r, &name);
  std::fprintf(stderr, "replay: %s failed: %s\n", what, name ? name : "unknown error");
  std::exit(1);
}
#define CHECK(call) check((call), #call)

std::vector<char> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
    std::exit(2);
  }
  return std::vector<char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

struct Input {
  const char* at;
  const char* end;
  unsigned long long u64() {
    unsigned long long v = 0;
    if (end - at < 8) bad();
    std::memcpy(&v, at, 8);
    at += 8;
    return v;
  }
  std::vector<unsigned char> bytes() {
    const unsigned long long n = u64();
    if (static_cast<unsigned long long>(end - at) < n) bad();
    std::vector<unsigned char> v(at, at + n);
    at += n;
    return v;
  }
  static void bad() {
    std::fprintf(stderr, "replay: inputs.bin is truncated\n");
    std::exit(2);
  }
};

struct Buffer {
  unsigned long long base;
  std::vector<unsigned char> bytes;
  CUdeviceptr placed = 0;
};

// The buffers at the addresses they had when captured (so that address values
// in the log agree with the simulator's), one reservation per run of pages.
bool place_at_captured(std::vector<Buffer>& buffers) {
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  size_t page = 0;
  CHECK(cuMemGetAllocationGranularity(&page, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  size_t i = 0;
  while (i < buffers.size()) {
    const unsigned long long first = buffers[i].base / page * page;
    unsigned long long end = buffers[i].base + buffers[i].bytes.size();
    size_t j = i + 1;
    while (j < buffers.size() && buffers[j].base / page * page <= (end + page - 1) / page * page) {
      end = std::max(end, buffers[j].base + buffers[j].bytes.size());
      ++j;
    }
    const size_t bytes = (end - first + page - 1) / page * page;
    CUdeviceptr got = 0;
    if (cuMemAddressReserve(&got, bytes, page, first, 0) != CUDA_SUCCESS) return false;
    if (got != first) {
      cuMemAddressFree(got, bytes);
      return false;
    }
    CUmemGenericAllocationHandle handle;
    CHECK(cuMemCreate(&handle, bytes, &prop, 0));
    CHECK(cuMemMap(got, bytes, 0, handle, 0));
    CUmemAccessDesc access = {};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CHECK(cuMemSetAccess(got, bytes, &access, 1));
    for (size_t k = i; k < j; ++k) buffers[k].placed = buffers[k].base;
    i = j;
  }
  return true;
}

// Elsewhere: pointers in the parameters and the buffers are moved along.
void place_elsewhere(std::vector<Buffer>& buffers, std::vector<unsigned char>& params) {
  for (Buffer& b : buffers)
    if (!b.placed) CHECK(cuMemAlloc(&b.placed, b.bytes.size()));
  const auto relocate = [&](std::vector<unsigned char>& data) {
    for (size_t at = 0; at + 8 <= data.size(); at += 8) {
      unsigned long long word;
      std::memcpy(&word, &data[at], 8);
      for (const Buffer& b : buffers)
        if (word >= b.base && word < b.base + b.bytes.size()) {
          word = word - b.base + b.placed;
          std::memcpy(&data[at], &word, 8);
          break;
        }
    }
  };
  relocate(params);
  for (Buffer& b : buffers) relocate(b.bytes);
  std::fprintf(stderr,
               "replay: the captured addresses are taken here; buffers moved, so address values "
               "in the log differ from the simulator's\n");
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  const char* log_path = argc > 2 ? argv[2] : "gpu.log";
  const unsigned long long capacity = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : kCapacity;
  std::vector<char> ptx = read_file(dir + "/instrumented.ptx");
  ptx.push_back('\0');
  const std::vector<char> inputs = read_file(dir + "/inputs.bin");
  Input in{inputs.data(), inputs.data() + inputs.size()};
  std::vector<unsigned char> params = in.bytes();
  std::vector<Buffer> buffers(in.u64());
  for (Buffer& b : buffers) {
    b.base = in.u64();
    b.bytes = in.bytes();
  }
  const unsigned long long variable_count = in.u64();
  std::vector<std::pair<std::string, std::vector<unsigned char>>> variables;
  for (unsigned long long v = 0; v < variable_count; ++v) {
    const unsigned long long n = in.u64();
    if (static_cast<unsigned long long>(in.end - in.at) < n) Input::bad();
    std::string name(in.at, in.at + n);
    in.at += n;
    variables.push_back({name, in.bytes()});
  }

  CHECK(cuInit(0));
  CUdevice device;
  CHECK(cuDeviceGet(&device, 0));
  CUcontext context;
  CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CHECK(cuCtxSetCurrent(context));
  // Before the module loads, so that its variables do not take the addresses.
  if (!place_at_captured(buffers)) place_elsewhere(buffers, params);
  for (const Buffer& b : buffers) CHECK(cuMemcpyHtoD(b.placed, b.bytes.data(), b.bytes.size()));
  CUmodule module;
  CHECK(cuModuleLoadData(&module, ptx.data()));
  CUfunction kernel;
  CHECK(cuModuleGetFunction(&kernel, module, kKernel));
  for (const auto& [name, bytes] : variables) {
    CUdeviceptr at;
    size_t size;
    CHECK(cuModuleGetGlobal(&at, &size, module, name.c_str()));
    if (!bytes.empty()) CHECK(cuMemcpyHtoD(at, bytes.data(), std::min(size, bytes.size())));
  }
  CUdeviceptr log;
  CHECK(cuMemAlloc(&log, capacity * sizeof(Record)));
  const unsigned long long zero = 0;
  const char* names[3] = {"cnuas_dbg_log", "cnuas_dbg_count", "cnuas_dbg_capacity"};
  const unsigned long long values[3] = {static_cast<unsigned long long>(log), zero, capacity};
  for (int k = 0; k < 3; ++k) {
    CUdeviceptr at;
    size_t size;
    CHECK(cuModuleGetGlobal(&at, &size, module, names[k]));
    CHECK(cuMemcpyHtoD(at, &values[k], 8));
  }
  if (kStackBytes > 1024) CHECK(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, kStackBytes));
  if (kSharedBytes > 48 * 1024)
    CHECK(cuFuncSetAttribute(kernel, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             static_cast<int>(kSharedBytes)));
  size_t param_bytes = params.size();
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, params.data(), CU_LAUNCH_PARAM_BUFFER_SIZE,
                   &param_bytes, CU_LAUNCH_PARAM_END};
  CHECK(cuLaunchKernel(kernel, kGrid[0], kGrid[1], kGrid[2], kBlock[0], kBlock[1], kBlock[2],
                       kSharedBytes, nullptr, nullptr, params.empty() ? nullptr : extra));
  CHECK(cuCtxSynchronize());
  unsigned long long count = 0;
  {
    CUdeviceptr at;
    size_t size;
    CHECK(cuModuleGetGlobal(&at, &size, module, "cnuas_dbg_count"));
    CHECK(cuMemcpyDtoH(&count, at, 8));
  }
  if (count > capacity) {
    std::fprintf(stderr, "replay: the kernel wrote %llu registers, the log holds %llu; run again "
                 "with %llu as the third argument\n", count, capacity, count);
    return 1;
  }
  std::vector<Record> records(count);
  if (count) CHECK(cuMemcpyDtoH(records.data(), log, count * sizeof(Record)));
  // Each thread's records are in its program order (its atomic increments are).
  std::stable_sort(records.begin(), records.end(),
                   [](const Record& a, const Record& b) { return a.thread < b.thread; });
  FILE* out = std::fopen(log_path, "w");
  if (!out) {
    std::fprintf(stderr, "replay: cannot write %s\n", log_path);
    return 2;
  }
  std::fprintf(out, "# cnuas register-write log 1: kernel %s grid (%u,%u,%u) block (%u,%u,%u)\n",
               kKernel, kGrid[0], kGrid[1], kGrid[2], kBlock[0], kBlock[1], kBlock[2]);
  const unsigned long long per_cta =
      static_cast<unsigned long long>(kBlock[0]) * kBlock[1] * kBlock[2];
  const unsigned long long sites = sizeof kSites / sizeof kSites[0] - 1;
  for (const Record& r : records) {
    if (r.site >= sites) {
      std::fprintf(stderr, "replay: a log record names site %llu of %llu\n", r.site, sites);
      return 1;
    }
    const Site& s = kSites[r.site];
    const unsigned long long cta = r.thread / per_cta, t = r.thread % per_cta;
    std::fprintf(out, "%llu cta=(%llu,%llu,%llu) tid=(%llu,%llu,%llu) line=%u %s=0x%llx | %s\n",
                 r.thread, cta % kGrid[0], cta / kGrid[0] % kGrid[1], cta / kGrid[0] / kGrid[1],
                 t % kBlock[0], t / kBlock[0] % kBlock[1], t / kBlock[0] / kBlock[1], s.line,
                 s.reg, r.value & s.mask, s.text);
  }
  std::fclose(out);
  std::fprintf(stderr, "replay: %llu register writes logged to %s\n", count, log_path);
  return 0;
}
)";
  const auto put = [&](const std::string& key, const std::string& value) {
    for (std::size_t at; (at = src.find(key)) != std::string::npos;)
      src.replace(at, key.size(), value);
  };
  put("@SITES@", table);
  put("@KERNEL_STRING@", c_string(c.kernel));
  put("@KERNEL@", c.kernel);
  put("@OCCURRENCE@", std::to_string(c.occurrence));
  put("@GRID@", fmt::format("{}, {}, {}", c.grid[0], c.grid[1], c.grid[2]));
  put("@BLOCK@", fmt::format("{}, {}, {}", c.block[0], c.block[1], c.block[2]));
  put("@SHARED@", std::to_string(c.dynamic_shared_bytes));
  put("@STACK@", std::to_string(c.stack_bytes));
  put("@CAPACITY@", std::to_string(log_capacity));
  return src;
}

}  // namespace cnuas::debugger
