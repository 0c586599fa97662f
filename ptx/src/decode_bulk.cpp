// The bulk copy family of sm_90: cp.async.bulk{.tensor,.prefetch}, cp.reduce.async.bulk{.tensor}
// and cp.async.bulk.{commit,wait}_group, decoded into Instruction::bulk.
#include <cstdio>

#include "decode.h"

namespace cnuas::ptx {

bool is_bulk_form(const std::vector<std::string>& parts) {
  if (parts.size() < 3 || parts[0] != "cp") return false;
  if (parts[1] == "async") return parts[2] == "bulk";
  return parts[1] == "reduce" && parts.size() > 3 && parts[2] == "async" && parts[3] == "bulk";
}

void decode_bulk(const std::vector<std::string>& parts, Instruction& inst) {
  BulkOp& b = inst.bulk;
  b.kind = BulkOp::Kind::Copy;
  inst.flags |= kBulk;
  bool tensor = false;
  unsigned spaces = 0;
  auto reject = [&](const std::string& why) {
    if (inst.unsupported.empty()) inst.unsupported = why;
  };
  const bool reduce = parts[1] == "reduce";
  for (std::size_t k = reduce ? 4 : 3; k < parts.size(); ++k) {
    const std::string& m = parts[k];
    unsigned d = 0;
    char tail = 0;
    if (m == "tensor") {
      tensor = true;
    } else if (std::sscanf(m.c_str(), "%ud%c", &d, &tail) == 1 && m.size() == 2 && d >= 1 &&
               d <= 5) {
      b.dims = static_cast<std::uint8_t>(d);
    } else if (m == "prefetch") {
      b.kind = BulkOp::Kind::Prefetch;
    } else if (m == "commit_group") {
      b.kind = BulkOp::Kind::CommitGroup;
    } else if (m == "wait_group") {
      b.kind = BulkOp::Kind::WaitGroup;
    } else if (m == "global" || m == "shared::cluster" || m == "shared::cta" || m == "shared") {
      const Space s = m == "global"            ? Space::Global
                      : m == "shared::cluster" ? Space::SharedCluster
                                               : Space::Shared;
      (spaces++ == 0 && b.kind != BulkOp::Kind::Prefetch ? b.dst : b.src) = s;
    } else if (m == "tile") {
      b.im2col = false;
    } else if (m == "im2col") {
      b.im2col = true;
    } else if (m == "mbarrier::complete_tx::bytes") {
      b.mbarrier = true;
    } else if (m == "multicast::cluster") {
      b.multicast = true;
    } else if (m == "L2::cache_hint") {
      b.cache_hint = true;
    } else if (m == "bulk_group" || m == "read" || m == "L2" || m == "noftz") {
      // bulk_group: completion by wait_group; .read: the sources may be reused; .L2: the
      // prefetch target; .noftz: the f16/bf16 add keeps subnormals (as the engine's add does)
    } else if (reduce && (m == "add" || m == "min" || m == "max" || m == "inc" || m == "dec" ||
                          m == "and" || m == "or" || m == "xor")) {
      b.reduce = m == "add"   ? Mode::Add
                 : m == "min" ? Mode::Min
                 : m == "max" ? Mode::Max
                 : m == "inc" ? Mode::Inc
                 : m == "dec" ? Mode::Dec
                 : m == "and" ? Mode::And
                 : m == "or"  ? Mode::Or
                              : Mode::Xor;
    } else if (auto t = type_from_name(m)) {
      inst.type = *t;
    } else {
      reject("modifier ." + m + " of " +
             std::string(reduce ? "cp.reduce.async.bulk" : "cp.async.bulk") +
             " (implemented: .tensor .1d-.5d .tile .im2col .prefetch .multicast::cluster "
             ".mbarrier::complete_tx::bytes .bulk_group .L2::cache_hint)");
    }
  }
  if (tensor && b.dims == 0) reject("cp.async.bulk.tensor without a dimension (.1d to .5d)");
  if (!tensor) b.dims = 0;
  if (b.im2col && b.dims < 3) reject(".im2col with fewer than 3 dimensions");
  if (reduce && b.reduce == Mode::None)
    reject("cp.reduce.async.bulk without a reduction operation");
  if (reduce && !tensor && inst.type == Type::None)
    reject("cp.reduce.async.bulk without an element type");
  if (b.kind == BulkOp::Kind::Copy) {
    const bool to_global = b.dst == Space::Global;
    if (b.src == Space::None || b.dst == Space::None)
      reject("a bulk copy without its destination and source spaces");
    else if (to_global ? b.src != Space::Shared
                       : !(b.src == Space::Global || b.src == Space::Shared))
      reject("a bulk copy from this source space");
    else if (b.src == Space::Shared && !to_global && b.dst != Space::SharedCluster)
      reject("a bulk copy from shared::cta to shared::cta (the destination is shared::cluster)");
    else if (!to_global && !b.mbarrier)
      reject("a bulk copy into shared memory without .mbarrier::complete_tx::bytes");
    else if (b.multicast && (to_global || b.src != Space::Global))
      reject(".multicast::cluster on a copy that is not from global to shared::cluster");
    else if (tensor && reduce && !to_global)
      reject("a tensor reduction into shared memory (it reduces into global)");
    else if (tensor && !to_global && b.src != Space::Global)
      reject("a tensor copy between shared memories");
  }
}

}  // namespace cnuas::ptx
