// cuGetExportTable: the driver's private interfaces, tables of function
// pointers identified by UUID, through which a statically linked CUDA runtime
// (inside cuBLAS, cuDNN, or a program built without -cudart shared) reaches
// the driver. NVIDIA documents neither the UUIDs nor the slots; what each slot
// must do is known from projects that reimplement the driver (ZLUDA's
// dark_api, and others that run CUDA 13's runtime), as docs/cuda-runtime.md
// records. A slot the simulator does not implement is a function that names
// itself once on stderr and returns CUDA_ERROR_NOT_SUPPORTED, never NULL.
#include <pthread.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "driver/driver_internal.h"
#include "driver/md2.h"

using namespace cnuas::cuda;
using namespace cnuas::cuda::driver;

namespace {

using Uuid = std::array<std::uint8_t, 16>;

// What slot 0 of most tables holds: the table's size in bytes.
constexpr std::uintptr_t table_bytes(std::size_t slots) {
  return slots * sizeof(void*);
}

struct TableInfo {
  const char* name;
  Uuid uuid;
};

// The tables served, in the order of kTables (the index is a template argument below).
enum TableId : std::size_t {
  kCudartInterface,
  kToolsTls,
  kRuntimeCallbackHooks,
  kContextLocalStorage,
  kContextChecks,
  kIntegrityCheck,
  kContextIdentity,
  kTableCount
};

constexpr TableInfo kTables[kTableCount] = {
    {"CUDART_INTERFACE",
     {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d,
      0xf9}},
    {"TOOLS_TLS",
     {0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec,
      0xdc}},
    {"TOOLS_RUNTIME_CALLBACK_HOOKS",
     {0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a,
      0x66}},
    {"CONTEXT_LOCAL_STORAGE_INTERFACE_V0301",
     {0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95,
      0x93}},
    {"CONTEXT_CHECKS",
     {0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa,
      0x7e}},
    {"INTEGRITY_CHECK",
     {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1,
      0xf2}},
    {"CONTEXT_IDENTITY",
     {0x21, 0x31, 0x8c, 0x60, 0x97, 0x14, 0x32, 0x48, 0x8c, 0xa6, 0x41, 0xff, 0x73, 0x24, 0xc8,
      0xf2}},
};

std::string uuid_text(const std::uint8_t* u) {
  return fmt::format(
      "{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-"
      "{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
      u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
      u[15]);
}

// A slot nobody has needed yet: it says which one it is. Its arguments are
// unknown; the first six integer registers are shown at debug level (as
// values, never followed), which is how the slots above were worked out.
template <std::size_t Table, std::size_t Slot>
CUresult missing_slot(std::uintptr_t a0, std::uintptr_t a1, std::uintptr_t a2, std::uintptr_t a3,
                      std::uintptr_t a4, std::uintptr_t a5) {
  const std::string name = fmt::format("cuGetExportTable {} {{{}}} slot {}", kTables[Table].name,
                                       uuid_text(kTables[Table].uuid.data()), Slot);
  driver_debug(fmt::format("{} called with {:#x}, {:#x}, {:#x}, {:#x}, {:#x}, {:#x}", name, a0, a1,
                           a2, a3, a4, a5));
  return report_unsupported(name.c_str());
}

// A table of `N` slots, each first filled with its own missing_slot.
template <std::size_t Table, std::size_t N>
struct Slots {
  std::array<const void*, N> slot;
  Slots() : Slots(std::make_index_sequence<N>{}) {}
  template <std::size_t... I>
  explicit Slots(std::index_sequence<I...>)
      : slot{{reinterpret_cast<const void*>(&missing_slot<Table, I>)...}} {}
  template <typename F>
  void set(std::size_t i, F* f) {
    slot[i] = reinterpret_cast<const void*>(f);
  }
  void set_size(std::size_t i, std::size_t bytes) {
    slot[i] = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(bytes));
  }
};

// ---- CUDART_INTERFACE: module registration and primary contexts ----

// `wrapper` is nvcc's wrapper of a fat binary (cuda_abi.h's FatbinWrapper).
CUresult module_from_wrapper(CUmodule* module, const void* wrapper, const void* caller) {
  if (!module || !wrapper) return kInvalidValue;
  return load_library_image(module, static_cast<const ::FatbinWrapper*>(wrapper)->data, caller);
}

// Slot 1: a module from a fat binary wrapper.
CUresult cudart_module_from_wrapper(CUmodule* module, const void* wrapper) {
  return module_from_wrapper(module, wrapper, __builtin_return_address(0));
}

// Slot 6: the same, with arguments (JIT options, it seems) the simulator ignores.
CUresult cudart_module_from_wrapper_ext(CUmodule* module, const void* wrapper, void*, void*,
                                        unsigned) {
  return module_from_wrapper(module, wrapper, __builtin_return_address(0));
}

// Slot 8: a module from the fat binary itself (header magic 0xBA55ED50).
CUresult cudart_module_from_fatbin(const void* fatbin, CUmodule* module, void*, void*, unsigned) {
  if (!module || !fatbin) return kInvalidValue;
  return load_library_image(module, fatbin, __builtin_return_address(0));
}

// Slot 7: called once with one integer after the runtime's first capture
// status query; no reimplementation knows what it tells the driver, and
// ZLUDA's and others' accept it, as this one does.
CUresult cudart_notify(std::size_t) {
  return kSuccess;
}

// Slot 2: the device's primary context, retained.
CUresult cudart_primary_context(CUcontext* context, CUdevice device) {
  return cuDevicePrimaryCtxRetain(context, device);
}

// ---- TOOLS_RUNTIME_CALLBACK_HOOKS: buffers a tool (a profiler) would fill ----

std::array<std::uint8_t, 1024> g_hook_buffer_1{};
std::array<std::uint8_t, 14> g_hook_buffer_2{};

void hooks_buffer_1(void** data, std::size_t* bytes) {
  if (data) *data = g_hook_buffer_1.data();
  if (bytes) *bytes = g_hook_buffer_1.size();
}

void hooks_buffer_2(void** data, std::size_t* bytes) {
  if (data) *data = g_hook_buffer_2.data();
  if (bytes) *bytes = g_hook_buffer_2.size();
}

// Slots 1 and 4: the runtime calls them on its error paths (slot 1 with a
// callback ID, 0x111, and a message in the library); they notify an attached
// tool, and with none attached there is nothing to do.
template <std::size_t Slot>
CUresult hooks_notify(std::uintptr_t a0, std::uintptr_t a1, std::uintptr_t a2, std::uintptr_t a3) {
  driver_debug(
      fmt::format("TOOLS_RUNTIME_CALLBACK_HOOKS slot {} ({:#x}, {:#x}, {:#x}, {:#x}): no "
                  "tool attached",
                  Slot, a0, a1, a2, a3));
  return kSuccess;
}

// ---- TOOLS_TLS: the current context as the driver's tools see it ----

CUresult tools_current_context(CUcontext* context) {
  return cuCtxGetCurrent(context);
}

// ---- CONTEXT_LOCAL_STORAGE: a value per (context, key), the runtime's per-context state ----

using StorageDestructor = void (*)(CUcontext, void*, void*);
struct StoredValue {
  void* value;
  StorageDestructor destructor;
};
// Never destroyed: libraries that load the driver with dlopen delete their
// values from their own destructors, which may run after this library's.
std::map<std::pair<CUcontext, void*>, StoredValue>& context_storage() {
  static auto* storage = new std::map<std::pair<CUcontext, void*>, StoredValue>;
  return *storage;
}

// NULL stands for the current context.
CUcontext storage_context(CUcontext c) {
  if (c) return c;
  CUcontext current = nullptr;
  cuCtxGetCurrent(&current);
  return current;
}

CUresult storage_put(CUcontext context, void* key, void* value, StorageDestructor destructor) {
  std::lock_guard<std::recursive_mutex> guard(Runtime::lock());
  context = storage_context(context);
  if (!context) return kInvalidContext;
  context_storage()[{context, key}] = {value, destructor};
  return kSuccess;
}

CUresult storage_delete(CUcontext context, void* key) {
  std::lock_guard<std::recursive_mutex> guard(Runtime::lock());
  context = storage_context(context);
  if (!context) return kInvalidContext;
  context_storage().erase({context, key});
  return kSuccess;
}

CUresult storage_get(void** value, CUcontext context, void* key) {
  std::lock_guard<std::recursive_mutex> guard(Runtime::lock());
  if (!value) return kInvalidValue;
  *value = nullptr;
  context = storage_context(context);
  if (!context) return kInvalidContext;
  const auto found = context_storage().find({context, key});
  if (found == context_storage().end()) return kInvalidHandle;  // the runtime then puts one
  *value = found->second.value;
  return kSuccess;
}

// ---- CONTEXT_CHECKS ----

// Slot 2: flags of a context (none set) and a detail pointer (none).
CUresult context_check(CUcontext, std::uint32_t* flags, const void** detail) {
  if (flags) *flags = 0;
  if (detail) *detail = nullptr;
  return kSuccess;
}

// Slot 3: a global flag word, never set.
std::uint32_t context_check_global() {
  return 0;
}

// ---- CONTEXT_IDENTITY ----

CUresult context_identity_id(CUcontext context, unsigned long long* id) {
  return cuCtxGetId(context, id);
}

// Slot 51: cuBLASLt asks it, for the current context and a second handle
// (0 in every call seen), for an object it keeps with its kernel registry.
// What the driver's object holds is not known; a zero-filled block per
// context satisfies the library (SCUDA observed the same), and ~0 is refused
// as an invalid handle as the driver refuses it.
CUresult context_identity_object(CUcontext context, std::uintptr_t handle, void** object) {
  if (!object) return kInvalidValue;
  if (handle == ~std::uintptr_t{0}) return kInvalidHandle;
  std::lock_guard<std::recursive_mutex> guard(Runtime::lock());
  context = storage_context(context);
  if (!context) return kInvalidContext;
  static auto* objects = new std::map<CUcontext, std::array<std::uint64_t, 64>>;
  *object = (*objects)[context].data();
  return kSuccess;
}

// Slot 39: asked next, with the context and that object, for one word; zero
// (what SCUDA answers too) lets the library go on.
CUresult context_identity_word(CUcontext, const void* object, std::uint64_t* word) {
  if (!object || !word) return kInvalidValue;
  *word = 0;
  return kSuccess;
}

// ---- INTEGRITY_CHECK: the runtime's check that it talks to a genuine driver ----

CUresult integrity_check(std::uint32_t version, std::uint64_t unix_seconds,
                         std::uint64_t result[2]);

Slots<kCudartInterface, 13>& cudart_interface() {
  static Slots<kCudartInterface, 13> t = [] {
    Slots<kCudartInterface, 13> s;
    s.set_size(0, table_bytes(13));
    s.set(1, &cudart_module_from_wrapper);
    s.set(2, &cudart_primary_context);
    s.set(6, &cudart_module_from_wrapper_ext);
    s.set(7, &cudart_notify);
    s.set(8, &cudart_module_from_fatbin);
    return s;
  }();
  return t;
}

Slots<kIntegrityCheck, 3>& integrity_table() {
  static Slots<kIntegrityCheck, 3> t = [] {
    Slots<kIntegrityCheck, 3> s;
    s.set_size(0, table_bytes(3));
    s.set(1, &integrity_check);
    return s;
  }();
  return t;
}

// The answer is an HMAC-MD2, under a fixed key, of what the runtime can
// check itself: the driver version, the runtime's version argument, process
// and thread, where the two tables and this function lie, the time it passed,
// and each device's UUID and PCI location. Versions ending in 0 or 1 expect
// fixed answers.
CUresult integrity_check(std::uint32_t version, std::uint64_t unix_seconds,
                         std::uint64_t result[2]) {
  if (!result) return kInvalidValue;
  if (version % 10 == 0 || version % 10 == 1) {
    result[0] = version % 10 == 0 ? 0x3341181c03cb675cull : 0x1841181c03cb675cull;
    result[1] = 0x8ed383aa1f4cd1e8ull;
    return kSuccess;
  }
  static constexpr Md2Digest kKey = {0x14, 0x6a, 0xdd, 0xae, 0x53, 0xa9, 0xa7, 0x52,
                                     0xaa, 0x08, 0x41, 0x36, 0x0b, 0xf5, 0x5a, 0x9f};
  struct Inputs {
    std::uint32_t driver_version, version, process, thread;
    const void *cudart_table, *integrity_table, *function;
    std::uint64_t unix_seconds;
  };
  static_assert(sizeof(Inputs) == 48, "laid out without padding");
  int driver_version = 0;
  cuDriverGetVersion(&driver_version);
  const Inputs in{static_cast<std::uint32_t>(driver_version),
                  version,
                  static_cast<std::uint32_t>(::getpid()),
                  static_cast<std::uint32_t>(
                      reinterpret_cast<std::uintptr_t>(reinterpret_cast<void*>(::pthread_self()))),
                  cudart_interface().slot.data(),
                  integrity_table().slot.data(),
                  reinterpret_cast<const void*>(&integrity_check),
                  unix_seconds};
  HmacMd2 mac(kKey);
  mac.add(&in, sizeof in);
  int count = 0;
  if (cuDeviceGetCount(&count) != kSuccess) return kNotInitialized;
  for (int d = 0; d < count; ++d) {
    struct DeviceInputs {
      std::uint8_t uuid[16];
      std::int32_t pci_domain, pci_bus, pci_device;
    } dev{};
    static_assert(sizeof(DeviceInputs) == 28, "laid out without padding");
    cuDeviceGetUuid_v2(dev.uuid, d);
    constexpr int kPciBusId = 33, kPciDeviceId = 34, kPciDomainId = 50;
    cuDeviceGetAttribute(&dev.pci_domain, kPciDomainId, d);
    cuDeviceGetAttribute(&dev.pci_bus, kPciBusId, d);
    cuDeviceGetAttribute(&dev.pci_device, kPciDeviceId, d);
    mac.add(&dev, sizeof dev);
  }
  const Md2Digest digest = mac.finish();
  std::memcpy(result, digest.data(), digest.size());
  return kSuccess;
}

const void* const* table_for(std::size_t id) {
  switch (id) {
    case kCudartInterface:
      return cudart_interface().slot.data();
    case kToolsTls: {
      static Slots<kToolsTls, 4> t = [] {
        Slots<kToolsTls, 4> s;
        s.set_size(0, table_bytes(4));
        s.set(2, &tools_current_context);
        return s;
      }();
      return t.slot.data();
    }
    case kRuntimeCallbackHooks: {
      static Slots<kRuntimeCallbackHooks, 7> t = [] {
        Slots<kRuntimeCallbackHooks, 7> s;
        s.set_size(0, table_bytes(7));
        s.set(1, &hooks_notify<1>);
        s.set(2, &hooks_buffer_1);
        s.set(4, &hooks_notify<4>);
        s.set(6, &hooks_buffer_2);
        return s;
      }();
      return t.slot.data();
    }
    case kContextLocalStorage: {
      // This table has no size in slot 0: the slots start at once.
      static Slots<kContextLocalStorage, 4> t = [] {
        Slots<kContextLocalStorage, 4> s;
        s.set(0, &storage_put);
        s.set(1, &storage_delete);
        s.set(2, &storage_get);
        return s;
      }();
      return t.slot.data();
    }
    case kContextChecks: {
      static Slots<kContextChecks, 4> t = [] {
        Slots<kContextChecks, 4> s;
        s.set_size(0, table_bytes(4));
        s.set(2, &context_check);
        s.set(3, &context_check_global);
        return s;
      }();
      return t.slot.data();
    }
    case kIntegrityCheck:
      return integrity_table().slot.data();
    case kContextIdentity: {
      // 94 slots after the size, as recent drivers serve it: the runtime
      // checks the size before it calls a slot.
      static Slots<kContextIdentity, 95> t = [] {
        Slots<kContextIdentity, 95> s;
        s.set_size(0, table_bytes(95));
        s.set(4, &context_identity_id);
        s.set(39, &context_identity_word);
        s.set(51, &context_identity_object);
        return s;
      }();
      return t.slot.data();
    }
    default:
      return nullptr;
  }
}

}  // namespace

extern "C" {

CUresult cuGetExportTable(const void** table, const CUuuid* id) {
  if (!table || !id) return kInvalidValue;
  *table = nullptr;
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(id);
  for (std::size_t t = 0; t < kTableCount; ++t) {
    if (std::memcmp(kTables[t].uuid.data(), bytes, 16) != 0) continue;
    *table = table_for(t);
    driver_debug(fmt::format("cuGetExportTable {{{}}}: {}", uuid_text(bytes), kTables[t].name));
    return kSuccess;
  }
  // Others (CUDA 13's runtime first asks for f8cff951-2146-8b4e-b9e2-fb469e7c0dd9
  // and carries on without it) are refused as the driver refuses an unknown UUID.
  driver_debug(fmt::format("cuGetExportTable {{{}}}: not provided", uuid_text(bytes)));
  return kInvalidValue;
}

}  // extern "C"
