#include "engine/checkpoint.h"

#include <xxhash.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "core/kernel/errors.h"
#include "engine/timeline.h"
#include "gpu/kernel_names.h"
#include "ptx/host_backing.h"
#include "run/program_settings.h"

namespace cnuas::cuda {
namespace {

using Key = Checkpoints::Key;
constexpr Key kUntouched{0, 1};  // a chunk never touched reads as zeros

Key digest(XXH3_state_t* s) {
  const XXH128_hash_t h = XXH3_128bits_digest(s);
  return {h.high64, h.low64};
}

struct HashState {
  HashState() : s(XXH3_createState()) { XXH3_128bits_reset(s); }
  ~HashState() { XXH3_freeState(s); }
  HashState(const HashState&) = delete;
  HashState& operator=(const HashState&) = delete;
  template <class T>
  void value(const T& v) {
    XXH3_128bits_update(s, &v, sizeof v);
  }
  void bytes(const void* p, std::size_t n) { XXH3_128bits_update(s, p, n); }
  XXH3_state_t* s;
};

// The program: the bytes of its executable.
Key program_hash() {
  std::ifstream in("/proc/self/exe", std::ios::binary);
  HashState h;
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    h.bytes(buffer.data(), static_cast<std::size_t>(in.gcount()));
  }
  return digest(h.s);
}

std::vector<std::string> program_arguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  for (std::string a; std::getline(in, a, '\0');) args.push_back(a);
  return args;
}

// Everything about a launch besides memory that its outcome depends on.
Key launch_signature(const ptx::LoadedModule& module, const std::string& kernel, int device,
                     const ptx::LaunchConfig& c) {
  HashState h;
  h.value(module.serial());
  h.bytes(kernel.data(), kernel.size());
  h.value(device);
  for (const ptx::Dim3& d : {c.grid, c.block, c.cluster}) {
    h.value(d.x);
    h.value(d.y);
    h.value(d.z);
  }
  h.value(c.dynamic_shared_bytes);
  h.value(c.params.size());
  h.bytes(c.params.data(), c.params.size());
  h.value(c.cooperative);
  return digest(h.s);
}

void write_key(CheckpointWriter& w, const Key& k) {
  w.u64(k.first);
  w.u64(k.second);
}

Key read_key(CheckpointReader& r) {
  const std::uint64_t high = r.u64();
  return {high, r.u64()};
}

void write_dims(CheckpointWriter& w, const WorkDims& dims) {
  std::uint32_t n = 0;
  for (unsigned d = 0; d < static_cast<unsigned>(WorkDim::kCount); ++d)
    n += dims.has(static_cast<WorkDim>(d));
  w.u32(n);
  for (unsigned d = 0; d < static_cast<unsigned>(WorkDim::kCount); ++d)
    if (dims.has(static_cast<WorkDim>(d))) {
      w.u32(d);
      w.u64(dims.get(static_cast<WorkDim>(d)));
    }
}

WorkDims read_dims(CheckpointReader& r) {
  WorkDims dims;
  const std::uint32_t n = r.u32();
  if (n > static_cast<unsigned>(WorkDim::kCount))
    throw CheckpointFileError(
        fmt::format("checkpoint '{}' is damaged: {} work dimensions", r.path(), n));
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t d = r.u32();
    if (d >= static_cast<unsigned>(WorkDim::kCount))
      throw CheckpointFileError(
          fmt::format("checkpoint '{}' is damaged: work dimension {}", r.path(), d));
    dims.set(static_cast<WorkDim>(d), r.u64());
  }
  return dims;
}

// A launch as messages name it: its index and demangled kernel.
std::string launch_name(std::uint64_t index, const std::string& kernel) {
  return fmt::format("launch {} ({})", index, gpu::demangled(kernel));
}

}  // namespace

std::unique_ptr<Checkpoints> Checkpoints::from_settings(const ProgramSettings& s,
                                                        ptx::DeviceMemory& memory,
                                                        std::ostringstream& printf_out) {
  if (s.checkpoint_dir.empty() && s.resume_dir.empty()) return nullptr;
  const bool record = !s.checkpoint_dir.empty();
  std::unique_ptr<Checkpoints> c(
      new Checkpoints(record ? Mode::Record : Mode::Resume, memory, printf_out));
  c->dir_ = record ? s.checkpoint_dir : s.resume_dir;
  c->file_ = (std::filesystem::path(c->dir_) / kCheckpointFileName).string();
  try {
    if (record) {
      c->target_index_ = s.checkpoint_at.index;
      c->target_name_ = s.checkpoint_at.kernel;
      c->target_occurrence_ = s.checkpoint_at.occurrence;
      c->target_cta_ = s.checkpoint_at.cta;
      c->stop_ = s.checkpoint_stop;
      std::error_code ec;
      std::filesystem::create_directories(c->dir_, ec);
      if (ec)
        throw InputError(
            fmt::format("cannot create checkpoint directory '{}': {}", c->dir_, ec.message()));
      c->writer_ = std::make_unique<CheckpointWriter>(c->file_);
      CheckpointWriter& w = *c->writer_;
      w.bytes("PROG", 4);
      w.text(std::filesystem::read_symlink("/proc/self/exe", ec).string());
      write_key(w, program_hash());
      const std::vector<std::string> args = program_arguments();
      w.u32(static_cast<std::uint32_t>(args.size()));
      for (const std::string& a : args) w.text(a);
    } else {
      c->index_file();
      c->reader_ = std::make_unique<CheckpointReader>(c->file_);
      c->reader_->tag("PROG");
      c->reader_->text();
      read_key(*c->reader_);
      for (std::uint32_t n = c->reader_->u32(); n > 0; --n) c->reader_->text();
    }
  } catch (const CheckpointFileError& e) {
    throw InputError(fmt::format("--resume: {}", e.what()));
  }
  return c;
}

Checkpoints::Checkpoints(Mode mode, ptx::DeviceMemory& memory, std::ostringstream& printf_out)
    : mode_(mode), memory_(memory), printf_(printf_out) {}

Checkpoints::~Checkpoints() = default;

// Every mapped piece (one 2 MiB chunk of device memory, or up to 2 MiB of
// adopted host memory) with a hash of its bytes; untouched chunks are known
// zeros and neither read nor committed.
Checkpoints::Snapshot Checkpoints::snapshot() const {
  Snapshot s;
  memory_.for_each_mapping([&](std::uint64_t device, std::uint8_t* host, std::uint64_t size) {
    for (std::uint64_t off = 0; off < size;) {
      const ptx::host_backing::Chunk c = ptx::host_backing::chunk_at(host + off);
      std::uint64_t bytes = std::min<std::uint64_t>(ptx::kDevicePage, size - off);
      if (c.state != ptx::host_backing::ChunkState::NotReserved)
        bytes = std::min<std::uint64_t>(bytes, c.start + c.bytes - (host + off));
      if (c.state == ptx::host_backing::ChunkState::Scratch)
        refuse(
            "device memory went past the host-memory limit (--host-memory-limit): what the "
            "program wrote there is lost, so no checkpoint is made or resumed");
      Piece p{device + off, host + off, bytes, c.state != ptx::host_backing::ChunkState::Untouched,
              kUntouched};
      if (p.touched) {
        const XXH128_hash_t h = XXH3_128bits(p.host, p.bytes);
        p.hash = {h.high64, h.low64};
      }
      s.pieces.push_back(p);
      off += bytes;
    }
  });
  HashState all;
  for (const Piece& p : s.pieces) {
    all.value(p.device);
    all.value(p.bytes);
    all.value(p.hash.first);
    all.value(p.hash.second);
  }
  s.state = digest(all.s);
  return s;
}

// --checkpoint-at as given (for messages), or --resume DIR when resuming.
std::string Checkpoints::target_text() const {
  if (mode_ == Mode::Resume) return "--resume " + dir_;
  std::string t = target_index_ ? std::to_string(*target_index_)
                                : fmt::format("{}#{}", target_name_, target_occurrence_);
  if (target_cta_) t += ":" + std::to_string(*target_cta_);
  return "--checkpoint-at " + t;
}

bool Checkpoints::is_target(const std::string& kernel) {
  if (target_index_) return launches_ == *target_index_;
  const std::string plain = gpu::demangled(kernel);
  if (kernel != target_name_ && plain != target_name_ &&
      plain.substr(0, plain.find('(')) != target_name_)
    return false;
  return ++occurrences_ == target_occurrence_;
}

bool Checkpoints::before_launch(const ptx::LoadedModule& module, const std::string& kernel,
                                int device, ptx::LaunchConfig& config, Command& c) {
  Record now{kernel,
             static_cast<std::uint32_t>(device),
             launch_signature(module, kernel, device, config),
             {}};
  if (mode_ == Mode::Resume) {
    if (resumed_) return false;
    if (launches_ < records_.size()) return skip(now, c);
    restore(now, c);
    if (target_inside_.present) {
      check_inside(module, kernel, config);
      // Every saved CTA must be one of this launch's: refused here, not as a fault mid-kernel.
      std::ostringstream unused;
      ptx::Executor probe(memory_, unused);
      for (const std::vector<std::uint8_t>& saved : target_inside_.grid.resident) {
        if (saved.empty()) continue;
        try {
          probe.restore_cta(module, kernel, config, saved);
        } catch (const std::invalid_argument& e) {
          refuse(fmt::format("--resume {}: {}", dir_, e.what()));
        }
      }
      printf_ << target_inside_.printed;
      config.grid_resume = &target_inside_.grid;
    }
    return false;
  }
  if (written_) return false;
  if (pending_) faulted_ = true;  // the previous launch never came back
  const bool target = is_target(kernel);
  Snapshot before = snapshot();
  now.state = before.state;
  if (target) {
    if (faulted_)
      refuse(
          fmt::format("a kernel launch before {} faulted; no checkpoint is written after a "
                      "fault",
                      launch_name(launches_, kernel)));
    if (target_cta_) {
      // The checkpoint is written from inside the launch, when the executor
      // reaches the CTA; memory is then the launch's, mid-way.
      check_inside(module, kernel, config);
      const std::size_t printed_before = printf_.str().size();
      grid_request_.cta = *target_cta_;
      const ptx::LaunchConfig* launch = &config;
      grid_request_.take = [this, now, &c, printed_before, launch](const ptx::GridSnapshot& grid) {
        const ptx::DeviceLaunches* children = launch->device_launches;
        if (children && (!children->work.empty() || !children->pending.empty()))
          refuse(fmt::format(
              "{}: CTAs of {} before it launched kernels from the device "
              "(dynamic parallelism), which a checkpoint inside a kernel does not hold; "
              "checkpoint at the launch itself (drop :CTA) or at CTA 0",
              target_text(), launch_name(launches_ - 1, now.kernel)));
        Inside inside{true, *target_cta_, grid, {}};
        const std::string out = printf_.str();
        if (out.size() >= printed_before) inside.printed = out.substr(printed_before);
        grid_pending_ = false;
        write_checkpoint(now, launches_ - 1, snapshot(), c, inside);
      };
      config.grid_checkpoint = &grid_request_;
      grid_pending_ = true;
    } else {
      write_checkpoint(now, launches_, before, c, Inside{});
    }
    written_ = true;
    ++launches_;
    return false;
  }
  pending_ = now;
  pending_before_ = std::move(before);
  pending_printf_ = printf_.str().size();
  ++launches_;
  return false;
}

void Checkpoints::after_launch(Command& c) {
  if (mode_ == Mode::Record && grid_pending_)
    refuse(fmt::format(
        "{}: launch {} ran in performance mode, which takes no checkpoint inside a kernel; run "
        "it functionally (--gpu-mode functional, or --gpu-kernel-modes KERNEL=functional)",
        target_text(), launches_ - 1));
  if (mode_ != Mode::Record || !pending_) return;
  const Record record = *std::exchange(pending_, std::nullopt);
  const Snapshot after = snapshot();
  std::map<std::uint64_t, const Piece*> before;
  for (const Piece& p : pending_before_.pieces) before[p.device] = &p;
  std::vector<const Piece*> changed;
  for (const Piece& p : after.pieces) {
    auto b = before.find(p.device);
    if (b == before.end() || b->second->bytes != p.bytes || b->second->hash != p.hash)
      if (p.touched) changed.push_back(&p);
  }
  const std::string out = printf_.str();
  CheckpointWriter& w = *writer_;
  w.bytes("LNCH", 4);
  w.text(record.kernel);
  w.u32(record.device);
  write_key(w, record.signature);
  write_key(w, record.state);
  write_dims(w, c.dims);
  w.text(out.size() >= pending_printf_ ? out.substr(pending_printf_) : std::string());
  w.u64(changed.size());
  for (const Piece* p : changed) {
    w.u64(p->device);
    w.u64(p->bytes);
    w.bytes(p->host, p->bytes);
  }
  pending_before_ = {};
}

void Checkpoints::write_checkpoint(const Record& at, std::uint64_t index, const Snapshot& memory,
                                   const Command& c, const Inside& inside) {
  const std::vector<CheckpointAllocation> table =
      allocations ? allocations() : std::vector<CheckpointAllocation>{};
  const auto start = std::chrono::steady_clock::now();
  CheckpointWriter& w = *writer_;
  std::uint64_t image_bytes = 0;
  try {
    w.bytes("MEMS", 4);
    w.u64(index);
    w.text(at.kernel);
    w.u32(at.device);
    write_key(w, at.signature);
    write_key(w, at.state);
    w.u64(c.submit_ps);
    w.u64(table.size());
    for (const CheckpointAllocation& a : table) {
      w.u64(a.base);
      w.u64(a.bytes);
      w.u32(a.device);
      w.u32(a.kind);
    }
    std::uint64_t touched = 0;
    for (const Piece& p : memory.pieces) touched += p.touched;
    w.u64(touched);
    for (const Piece& p : memory.pieces)
      if (p.touched) {
        w.u64(p.device);
        w.u64(p.bytes);
        w.bytes(p.host, p.bytes);
        image_bytes += p.bytes;
      }
    w.bytes("CTAS", 4);
    w.u32(inside.present ? 1 : 0);
    if (inside.present) {
      w.u64(inside.cta);
      w.u64(inside.grid.next_cta);
      w.text(inside.printed);
      w.u64(inside.grid.resident.size());
      for (const std::vector<std::uint8_t>& cta : inside.grid.resident) {
        w.u64(cta.size());
        w.bytes(cta.data(), cta.size());
      }
    }
    w.bytes("END!", 4);
    const std::uint64_t file_bytes = w.finish();
    writer_.reset();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::size_t resident = 0;
    for (const std::vector<std::uint8_t>& cta : inside.grid.resident) resident += !cta.empty();
    const std::string where =
        inside.present
            ? fmt::format(", inside it before CTA {} (next CTA to begin: {}; {} CTA(s) resident)",
                          inside.cta, inside.grid.next_cta, resident)
            : "";
    std::cerr << fmt::format(
        "cnuas: checkpoint written at {}{}: {} ({} launch(es) before it; {:.1f} MiB of device "
        "memory in {:.2f} s; the file has {:.1f} MiB)\n",
        launch_name(index, at.kernel), where, file_, index, image_bytes / 1048576.0, seconds,
        file_bytes / 1048576.0);
  } catch (const CheckpointFileError& e) {
    refuse(e.what());
  }
  if (stop_) {
    // What the program printed so far is kept; its outputs would describe a
    // run cut short, so none are written.
    std::fflush(stdout);
    std::cerr << "cnuas: the program ends at the checkpoint (--checkpoint-stop)\n" << std::flush;
    std::_Exit(0);
  }
}

void Checkpoints::index_file() {
  CheckpointReader r(file_);
  r.tag("PROG");
  const std::string binary = r.text();
  const Key program = read_key(r);
  const std::uint32_t argc = r.u32();
  std::vector<std::string> args;
  for (std::uint32_t i = 0; i < argc && i < 4096; ++i) args.push_back(r.text());
  if (argc >= 4096)
    throw CheckpointFileError(fmt::format("checkpoint '{}' is damaged: {} arguments", file_, argc));
  if (program != program_hash()) {
    std::string recorded;
    for (const std::string& a : args) recorded += (recorded.empty() ? "" : " ") + a;
    throw InputError(fmt::format(
        "--resume {}: the checkpoint was written by another program ('{}', run as '{}'); this "
        "executable's bytes differ, so its launches cannot be skipped",
        dir_, binary, recorded.substr(0, 200)));
  }
  for (;;) {
    char tag[4];
    r.bytes(tag, 4);
    if (std::string(tag, 4) == "MEMS") break;
    if (std::string(tag, 4) != "LNCH")
      throw CheckpointFileError(
          fmt::format("checkpoint '{}' is damaged: a record of unknown type", file_));
    Record rec;
    rec.kernel = r.text();
    rec.device = r.u32();
    rec.signature = read_key(r);
    rec.state = read_key(r);
    read_dims(r);
    r.text(std::uint64_t{1} << 31);
    for (std::uint64_t n = r.u64(); n > 0; --n) {
      r.u64();
      const std::uint64_t bytes = r.u64();
      if (bytes > ptx::kDevicePage)
        throw CheckpointFileError(
            fmt::format("checkpoint '{}' is damaged: a piece of {} bytes", file_, bytes));
      r.skip(bytes);
    }
    records_.push_back(std::move(rec));
  }
  if (r.u64() != records_.size())
    throw CheckpointFileError(
        fmt::format("checkpoint '{}' is damaged: its launch count disagrees", file_));
  target_.kernel = r.text();
  target_.device = r.u32();
  target_.signature = read_key(r);
  target_.state = read_key(r);
  target_submit_ps_ = r.u64();
  for (std::uint64_t n = r.u64(); n > 0; --n) {
    r.u64();
    r.u64();
    r.u32();
    r.u32();
  }
  for (std::uint64_t n = r.u64(); n > 0; --n) {
    r.u64();
    const std::uint64_t bytes = r.u64();
    if (bytes > ptx::kDevicePage)
      throw CheckpointFileError(
          fmt::format("checkpoint '{}' is damaged: a piece of {} bytes", file_, bytes));
    r.skip(bytes);
  }
  if (r.version() >= 2) target_inside_ = read_inside(r);
  r.tag("END!");
  r.end();
}

Checkpoints::Inside Checkpoints::read_inside(CheckpointReader& r) const {
  r.tag("CTAS");
  Inside inside;
  const std::uint32_t kind = r.u32();
  if (kind > 1)
    throw CheckpointFileError(
        fmt::format("checkpoint '{}' is damaged: a CTAS record of kind {}", file_, kind));
  inside.present = kind == 1;
  if (!inside.present) return inside;
  inside.cta = r.u64();
  inside.grid.next_cta = r.u64();
  inside.printed = r.text(std::uint64_t{1} << 31);
  const std::uint64_t slots = r.u64();
  if (slots > (std::uint64_t{1} << 24))
    throw CheckpointFileError(
        fmt::format("checkpoint '{}' is damaged: {} resident CTAs", file_, slots));
  for (std::uint64_t i = 0; i < slots; ++i) {
    const std::uint64_t bytes = r.u64();
    if (bytes > (std::uint64_t{1} << 30))  // far above any CTA's registers, stacks and shared
      throw CheckpointFileError(
          fmt::format("checkpoint '{}' is damaged: a CTA state of {} bytes", file_, bytes));
    std::vector<std::uint8_t> cta(bytes);
    r.bytes(cta.data(), cta.size());
    inside.grid.resident.push_back(std::move(cta));
  }
  return inside;
}

// A checkpoint inside a launch needs a grid of single CTAs, the CTA in it.
void Checkpoints::check_inside(const ptx::LoadedModule& module, const std::string& kernel,
                               const ptx::LaunchConfig& config) {
  const std::uint64_t cta = mode_ == Mode::Record ? *target_cta_ : target_inside_.cta;
  const std::string at = launch_name(launches_, kernel);
  const ptx::Function* f = module.module().find(kernel);
  const bool clustered = config.cluster.count() > 1 ||
                         (f && f->cluster_dims[0] * f->cluster_dims[1] * f->cluster_dims[2] > 1);
  const ptx::Dim3 g = config.grid;
  if (cta >= g.count())
    refuse(fmt::format(
        "{}: {} has a grid of {}x{}x{} = {} CTAs; accepted: a CTA index "
        "from 0 to {} (x + y*{} + z*{})",
        target_text(), at, g.x, g.y, g.z, g.count(), g.count() - 1, g.x, std::uint64_t{g.x} * g.y));
  if (config.cooperative)
    refuse(
        fmt::format("{}: {} is a cooperative launch, whose CTAs all begin at once: no "
                    "CTA begins inside it; checkpoint at the launch itself (drop :CTA)",
                    target_text(), at));
  if (clustered)
    refuse(fmt::format(
        "{}: {} runs in thread-block clusters; a checkpoint inside a "
        "kernel supports grids of single CTAs; checkpoint at the launch itself (drop :CTA)",
        target_text(), at));
}

// Device memory now, refused unless its hash is the one recorded before this launch.
Checkpoints::Snapshot Checkpoints::memory_as_recorded(const Record& now,
                                                      const Key& recorded) const {
  Snapshot before = snapshot();
  if (before.state != recorded)
    refuse(fmt::format(
        "--resume {}: device memory before {} differs from the checkpoint's: the program's "
        "inputs differ from the run that wrote it",
        dir_, launch_name(launches_, now.kernel)));
  return before;
}

bool Checkpoints::skip(const Record& now, Command& c) {
  const Record& rec = records_[launches_];
  if (now.kernel != rec.kernel || now.device != rec.device || now.signature != rec.signature)
    refuse(fmt::format(
        "--resume {}: {} does not match the checkpoint's {} on device {}: the program's launch "
        "sequence differs (other arguments or inputs?); resume with the arguments the checkpoint "
        "was written with",
        dir_, launch_name(launches_, now.kernel) + " on device " + std::to_string(now.device),
        launch_name(launches_, rec.kernel), rec.device));
  const Snapshot before = memory_as_recorded(now, rec.state);
  std::map<std::uint64_t, const Piece*> pieces;
  for (const Piece& p : before.pieces) pieces[p.device] = &p;
  try {
    CheckpointReader& r = *reader_;
    r.tag("LNCH");
    r.text();
    r.u32();
    read_key(r);
    read_key(r);
    c.dims = read_dims(r);
    printf_ << r.text(std::uint64_t{1} << 31);
    for (std::uint64_t n = r.u64(); n > 0; --n) {
      const std::uint64_t device = r.u64(), bytes = r.u64();
      auto p = pieces.find(device);
      if (p == pieces.end() || p->second->bytes != bytes)
        refuse(fmt::format(
            "--resume {}: {} wrote device memory at {:#x} that this run has not mapped: the "
            "program's allocations differ from the run that wrote the checkpoint",
            dir_, launch_name(launches_, now.kernel), device));
      r.bytes(p->second->host, bytes);
    }
  } catch (const CheckpointFileError& e) {
    refuse(e.what());
  }
  c.model_timed = false;
  ++launches_;
  return true;
}

void Checkpoints::restore(const Record& now, const Command& c) {
  if (now.kernel != target_.kernel || now.device != target_.device ||
      now.signature != target_.signature)
    refuse(fmt::format(
        "--resume {}: {} does not match the launch the checkpoint was written at, {}: the "
        "program's launch sequence differs",
        dir_, launch_name(launches_, now.kernel), launch_name(launches_, target_.kernel)));
  const Snapshot before = memory_as_recorded(now, target_.state);
  // The memory image: what the skipped launches and the program's own copies
  // left, checked above; written back so that the run continues from the file.
  std::map<std::uint64_t, const Piece*> pieces;
  for (const Piece& p : before.pieces) pieces[p.device] = &p;
  try {
    CheckpointReader& r = *reader_;
    r.tag("MEMS");
    r.u64();
    r.text();
    r.u32();
    read_key(r);
    read_key(r);
    r.u64();
    for (std::uint64_t n = r.u64(); n > 0; --n) {
      r.u64();
      r.u64();
      r.u32();
      r.u32();
    }
    for (std::uint64_t n = r.u64(); n > 0; --n) {
      const std::uint64_t device = r.u64(), bytes = r.u64();
      auto p = pieces.find(device);
      if (p == pieces.end() || p->second->bytes != bytes)
        refuse(fmt::format(
            "--resume {}: the checkpoint holds device memory at {:#x} that this run has not "
            "mapped",
            dir_, device));
      r.bytes(p->second->host, bytes);
    }
    if (r.version() >= 2) read_inside(r);
    r.tag("END!");
    r.end();
  } catch (const CheckpointFileError& e) {
    refuse(e.what());
  }
  reader_.reset();
  resumed_ = true;
  std::size_t resident = 0;
  for (const std::vector<std::uint8_t>& cta : target_inside_.grid.resident)
    resident += !cta.empty();
  const std::string where =
      target_inside_.present
          ? fmt::format(
                " inside it, before CTA {} (next CTA to begin: {}; {} CTA(s) resident "
                "restored)",
                target_inside_.cta, target_inside_.grid.next_cta, resident)
          : "";
  std::cerr << fmt::format(
      "cnuas: resumed from {} at {}{}: {} launch(es) skipped; simulated time {} ps at its "
      "submission (the checkpoint's: {} ps)\n",
      file_, launch_name(launches_, now.kernel), where, launches_, c.submit_ps, target_submit_ps_);
  ++launches_;
}

void Checkpoints::finish() {
  if (mode_ == Mode::Record && grid_pending_)
    refuse(fmt::format(
        "{}: the checkpoint's launch ended (a fault?) before CTA {} began; no checkpoint was "
        "written",
        target_text(), *target_cta_));
  if (mode_ == Mode::Record && !written_)
    refuse(fmt::format(
        "--checkpoint-at {}: the program ended after {} kernel launch(es) without reaching it; "
        "no checkpoint was written",
        target_index_ ? std::to_string(*target_index_)
                      : fmt::format("{}#{}", target_name_, target_occurrence_),
        launches_));
  if (mode_ == Mode::Resume && !resumed_)
    refuse(fmt::format(
        "--resume {}: the program ended after {} kernel launch(es), before the checkpoint's "
        "launch {}: its launch sequence differs from the run that wrote it",
        dir_, launches_, records_.size()));
}

// A mismatch found while the program runs: the run cannot go on as the
// checkpoint describes, and unwinding through the simulation is no option.
void Checkpoints::refuse(const std::string& why) const {
  std::fflush(stdout);
  std::cerr << "cnuas: " << why << "\n" << std::flush;
  std::_Exit(2);
}

}  // namespace cnuas::cuda
