// ProgramTables: the part of a program the checker looks at, copied out of
// the flatbuffer by program_reader.h (its own bounds-checked reader, no
// FlatBuffers library) so that every rule works on plain, already checked
// values. Absent fields read as FlatBuffers reads them: 0, empty, or
// `has_...` false.
#ifndef PTESHARE_RUNTIME_CHECK_PROGRAM_TABLES_H_
#define PTESHARE_RUNTIME_CHECK_PROGRAM_TABLES_H_

#include <cstdint>
#include <string>
#include <vector>

namespace pteshare::runtime_check::internal {

struct TensorTable {
  int8_t scalar_type = 0;
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  uint32_t data_buffer_idx = 0;
  /// allocation_info: present for a tensor the memory plan places.
  bool has_allocation = false;
  uint32_t memory_id = 0;
  uint64_t memory_offset = 0;  // high << 32 | low
  int8_t shape_dynamism = 0;
  /// extra_tensor_info.fully_qualified_name; empty when absent.
  std::string name;

  bool operator==(const TensorTable& o) const {
    return scalar_type == o.scalar_type && sizes == o.sizes && dim_order == o.dim_order &&
           data_buffer_idx == o.data_buffer_idx && has_allocation == o.has_allocation &&
           memory_id == o.memory_id && memory_offset == o.memory_offset &&
           shape_dynamism == o.shape_dynamism && name == o.name;
  }
};

enum class ValueKind : uint8_t { kOther, kTensor, kTensorList };

struct ValueTable {
  ValueKind kind = ValueKind::kOther;
  TensorTable tensor;          // kTensor
  std::vector<int32_t> items;  // kTensorList (also OptionalTensorList)

  bool operator==(const ValueTable& o) const {
    return kind == o.kind && tensor == o.tensor && items == o.items;
  }
};

enum class InstructionKind : uint8_t {
  kOther,  // no arguments, or a kind that names no value
  kKernelCall,
  kDelegateCall,
  kMoveCall,
  kJumpFalseCall,
  kFreeCall,
};

struct InstructionTable {
  InstructionKind kind = InstructionKind::kOther;
  std::vector<int32_t> args;  // KernelCall, DelegateCall
  /// MoveCall: move_from, move_to; JumpFalseCall: cond_value_index;
  /// FreeCall: value_index (in `first`).
  int32_t first = 0;
  int32_t second = 0;

  bool operator==(const InstructionTable& o) const {
    return kind == o.kind && args == o.args && first == o.first && second == o.second;
  }
};

/// An arena off the CPU (non_const_buffer_device): memory_id `buffer_idx`.
struct BufferDeviceTable {
  int32_t buffer_idx = 0;
  int8_t device_type = 0;  // 0: CPU
  int8_t device_index = 0;

  bool operator==(const BufferDeviceTable& o) const {
    return buffer_idx == o.buffer_idx && device_type == o.device_type &&
           device_index == o.device_index;
  }
};

struct MethodTables {
  bool has_name = false;
  std::string name;
  std::vector<ValueTable> values;
  std::vector<int32_t> inputs;
  /// Every instruction of every chain, chain after chain.
  std::vector<InstructionTable> instructions;
  std::vector<int64_t> non_const_buffer_sizes;
  std::vector<BufferDeviceTable> non_const_buffer_device;

  bool operator==(const MethodTables& o) const {
    return has_name == o.has_name && name == o.name && values == o.values && inputs == o.inputs &&
           instructions == o.instructions && non_const_buffer_sizes == o.non_const_buffer_sizes &&
           non_const_buffer_device == o.non_const_buffer_device;
  }
};

struct ProgramTables {
  std::vector<MethodTables> methods;

  bool operator==(const ProgramTables& o) const { return methods == o.methods; }
};

}  // namespace pteshare::runtime_check::internal

#endif  // PTESHARE_RUNTIME_CHECK_PROGRAM_TABLES_H_
