// User objects (cudaUserObjectCreate): a program's resource with a reference
// count shared by the program and the graphs that retain it; the destructor
// runs when the last reference goes. An executable graph's references go when
// it is destroyed and its last launch has run (engine/graph_exec.cpp).
#pragma once

#include <map>
#include <memory>

#include "cuda_abi.h"

namespace cnuas::cuda {

struct UserObject {
  void* ptr = nullptr;
  cudaHostFn_t destroy = nullptr;
  unsigned long long refs = 0;
};

class UserObjects {
 public:
  static UserObjects& get();
  UserObject* create(void* ptr, cudaHostFn_t destroy, unsigned refs);
  bool exists(const void* o) const {
    return objects_.count(static_cast<const UserObject*>(o)) != 0;
  }
  void retain(UserObject* o, unsigned count) { o->refs += count; }
  // Drops references; false when there are fewer than `count`.
  bool release(UserObject* o, unsigned count);

 private:
  std::map<const UserObject*, std::unique_ptr<UserObject>> objects_;
};

}  // namespace cnuas::cuda
