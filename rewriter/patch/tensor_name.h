// TensorName: a name the patcher stores in a tensor's extra_tensor_info
// (--write-names). Its own header because both the patch set's maker
// (patcher.h, public) and the table copier (name_patch.h, internal) take it.
#pragma once

#include <cstdint>
#include <string>

namespace pteshare {

/// A name to store in a tensor's extra_tensor_info.
struct TensorName {
  uint32_t method_index = 0;
  uint32_t value_index = 0;
  std::string name;
};

}  // namespace pteshare
