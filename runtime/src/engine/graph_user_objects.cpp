#include "engine/graph_user_objects.h"

namespace cnuas::cuda {

// Never destroyed: graphs may be destroyed by static destructors after exit.
UserObjects& UserObjects::get() {
  static UserObjects* objects = new UserObjects();
  return *objects;
}

UserObject* UserObjects::create(void* ptr, cudaHostFn_t destroy, unsigned refs) {
  auto o = std::make_unique<UserObject>();
  o->ptr = ptr;
  o->destroy = destroy;
  o->refs = refs;
  UserObject* raw = o.get();
  objects_[raw] = std::move(o);
  return raw;
}

bool UserObjects::release(UserObject* o, unsigned count) {
  if (o->refs < count) return false;
  o->refs -= count;
  if (o->refs == 0) {
    const cudaHostFn_t destroy = o->destroy;
    void* ptr = o->ptr;
    objects_.erase(o);
    if (destroy) destroy(ptr);
  }
  return true;
}

}  // namespace cnuas::cuda
