#include "printf.h"

#include <cstring>
#include <iostream>
#include <string>

#include "device_runtime.h"

namespace cnuas::ptx {
namespace {

using u64 = std::uint64_t;

// Reads bytes at a generic address from the lane's view of memory.
const std::uint8_t* generic(Ctx& c, unsigned lane, u64 a, u64 n) {
  if (a >= kLocalWindow && a < kLocalWindow + kWindowSize) {
    const u64 off = a - kLocalWindow;
    if (c.w.stack.empty() || off + n > c.s.config->stack_bytes) return nullptr;
    return c.lane_stack(lane) + off;
  }
  if (a >= kSharedWindow && a < kSharedWindow + kWindowSize) {
    const u64 off = a - kSharedWindow;
    return off + n <= c.s.shared.size() ? c.s.shared.data() + off : nullptr;
  }
  return c.s.memory->find(a, n);
}

std::string read_string(Ctx& c, unsigned lane, u64 a, const Instruction& i) {
  std::string s;
  for (;;) {
    const std::uint8_t* p = generic(c, lane, a + s.size(), 1);
    if (!p) c.fault(lane, i, "printf string runs outside memory");
    if (*p == 0) return s;
    s.push_back(static_cast<char>(*p));
    if (s.size() > 1 << 20) c.fault(lane, i, "printf string longer than 1 MiB");
  }
}

std::string format(Ctx& c, unsigned lane, const Instruction& i, const std::string& fmt, u64 args) {
  std::string out;
  u64 offset = 0;
  auto arg = [&](unsigned size) -> u64 {
    offset = (offset + size - 1) / size * size;
    const std::uint8_t* p = generic(c, lane, args + offset, size);
    if (!p) c.fault(lane, i, "printf argument buffer is outside memory");
    u64 v = 0;
    std::memcpy(&v, p, size);
    offset += size;
    return v;
  };
  for (std::size_t k = 0; k < fmt.size(); ++k) {
    if (fmt[k] != '%') {
      out.push_back(fmt[k]);
      continue;
    }
    std::size_t end = k + 1;
    while (end < fmt.size() && std::strchr("-+ #0123456789.*", fmt[end])) ++end;
    std::string length;
    while (end < fmt.size() && std::strchr("hlLqjzt", fmt[end])) length.push_back(fmt[end++]);
    if (end >= fmt.size()) break;
    const char conv = fmt[end];
    std::string spec = fmt.substr(k, end - k - length.size());
    char buf[512];
    if (conv == '%') {
      out.push_back('%');
    } else if (std::strchr("diouxXc", conv)) {
      const bool wide =
          length == "l" || length == "ll" || length == "j" || length == "z" || length == "t";
      const u64 v = arg(wide ? 8 : 4);
      spec += "ll";
      spec.push_back(conv);
      if (conv == 'd' || conv == 'i') {
        const long long s = wide ? static_cast<long long>(v) : static_cast<std::int32_t>(v);
        std::snprintf(buf, sizeof buf, spec.c_str(), s);
      } else if (conv == 'c') {
        std::snprintf(buf, sizeof buf, "%c", static_cast<char>(v));
      } else {
        const unsigned long long u = wide ? v : static_cast<std::uint32_t>(v);
        std::snprintf(buf, sizeof buf, spec.c_str(), u);
      }
      out += buf;
    } else if (std::strchr("fFeEgGaA", conv)) {
      double d;
      const u64 v = arg(8);
      std::memcpy(&d, &v, 8);
      spec.push_back(conv);
      std::snprintf(buf, sizeof buf, spec.c_str(), d);
      out += buf;
    } else if (conv == 's') {
      const u64 p = arg(8);
      spec.push_back('s');
      const std::string s = p ? read_string(c, lane, p, i) : "(null)";
      std::snprintf(buf, sizeof buf, spec.c_str(), s.c_str());
      out += buf;
    } else if (conv == 'p') {
      std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(arg(8)));
      out += buf;
    } else {
      out += fmt.substr(k, end - k + 1);
    }
    k = end;
  }
  return out;
}

void write_return(Ctx& c, const Instruction& call, unsigned lane, u64 value, unsigned bytes) {
  const Operand& rets = call.ops[0];
  if (rets.regs.empty()) return;
  const std::uint32_t at = c.frame.stack_base + call_params_offset(*c.frame.fn) +
                           static_cast<std::uint32_t>(rets.regs[0]);
  std::memcpy(c.lane_stack(lane) + at, &value, bytes);
}

u64 read_arg(Ctx& c, const Instruction& call, unsigned lane, std::size_t k) {
  const Operand& args = call.ops[2];
  if (k >= args.regs.size()) c.fault(lane, call, "builtin called with too few arguments");
  u64 v = 0;
  std::memcpy(&v,
              c.lane_stack(lane) + c.frame.stack_base + call_params_offset(*c.frame.fn) +
                  static_cast<std::uint32_t>(args.regs[k]),
              8);
  return v;
}

}  // namespace

void call_builtin(Ctx& c, const Instruction& call, const Function& callee, std::ostream& out) {
  if (callee.name == "vprintf") {
    each_lane(c.mask, [&](unsigned l) {
      const std::string fmt = read_string(c, l, read_arg(c, call, l, 0), call);
      const std::string text = format(c, l, call, fmt, read_arg(c, call, l, 1));
      out << text;
      write_return(c, call, l, text.size(), 4);
    });
    out.flush();
    return;
  }
  if (callee.name == "malloc") {
    each_lane(c.mask, [&](unsigned l) {
      const u64 n = read_arg(c, call, l, 0);
      write_return(c, call, l, n ? c.s.memory->allocate(n, 16) : 0, 8);
    });
    return;
  }
  if (callee.name == "free") {
    each_lane(c.mask, [&](unsigned l) {
      const u64 p = read_arg(c, call, l, 0);
      if (p == 0) return;
      try {
        c.s.memory->free(p);
      } catch (const std::exception&) {
        c.fault(l, call, "free() of an address malloc() did not return");
      }
    });
    return;
  }
  if (callee.name == "__assertfail") {
    // A failed device assert: every lane that reached it reports as the CUDA
    // runtime does (on stderr, after the device output so far), then the
    // kernel stops with a fault the runtime reads as cudaErrorAssert.
    out.flush();
    std::string expression;
    each_lane(c.mask, [&](unsigned l) {
      expression = read_string(c, l, read_arg(c, call, l, 0), call);
      const std::string file = read_string(c, l, read_arg(c, call, l, 1), call);
      const auto line = static_cast<std::uint32_t>(read_arg(c, call, l, 2));
      const std::string function = read_string(c, l, read_arg(c, call, l, 3), call);
      const Dim3 t = c.s.thread_of(c.w, l), b = c.s.cta;
      std::cerr << file << ":" << line << ": " << function << ": block: [" << b.x << "," << b.y
                << "," << b.z << "], thread: [" << t.x << "," << t.y << "," << t.z
                << "] Assertion `" << expression << "` failed.\n";
    });
    std::cerr.flush();
    c.fault(static_cast<unsigned>(__builtin_ctz(c.mask)), call,
            "device-side assert failed: `" + expression + "`");
  }
  if (callee.name == "cudaGraphSetConditional") {
    // The CUDA runtime's handle is the address of the condition's 32-bit
    // word in device memory; the graph reads it when the conditional node runs.
    each_lane(c.mask, [&](unsigned l) {
      const u64 handle = read_arg(c, call, l, 0);
      const auto value = static_cast<std::uint32_t>(read_arg(c, call, l, 1));
      std::uint8_t* word = c.s.memory->find(handle, 4);
      if (!word) c.fault(l, call, "cudaGraphSetConditional with a handle that no graph created");
      std::memcpy(word, &value, 4);
    });
    return;
  }
  if (call_device_runtime(c, call, callee)) return;
  c.fault(static_cast<unsigned>(__builtin_ctz(c.mask)), call,
          "calls '" + callee.name + "', which has no body in this module");
}

}  // namespace cnuas::ptx
