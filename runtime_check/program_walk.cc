#include "runtime_check/program_walk.h"

#include <stdint.h>

namespace pteshare::runtime_check::core::internal {
namespace {

using flat::Reader;
using flat::Table;

// Field ids are positions in program.fbs; a union takes two (its type,
// then its value).
class Walker {
 public:
  explicit Walker(Reader& reader) : r_(reader) {}

  void Program(const Table& t) {
    Scalar<uint32_t>(t, 0);  // version
    Tables<&Walker::ExecutionPlan>(t, 1);
    Tables<&Walker::Bytes>(t, 2);  // constant_buffer: Buffer
    Tables<&Walker::Bytes>(t, 3);  // backend_delegate_data
    Tables<&Walker::DataSegment>(t, 4);
    SubsegmentOffsets(r_.TableField(t, 5));
    Tables<&Walker::SubsegmentOffsets>(t, 6);
    Tables<&Walker::NamedData>(t, 7);
  }

 private:
  template <typename T>
  void Scalar(const Table& t, int field) {
    (void)r_.Scalar<T>(t, field, T{});
  }
  void String(const Table& t, int field) { (void)r_.StringField(t, field); }
  void Vector(const Table& t, int field, size_t element_size) {
    (void)r_.VectorField(t, field, element_size);
  }
  // The member is a template argument, not a pointer at run time, so that
  // every call is direct: the call graph .ci/stack-depth.py bounds the
  // stack from is then complete, and it has no cycle (the schema has none).
  template <void (Walker::*Walk)(const Table&)>
  void Tables(const Table& t, int field) {
    const flat::Vector items = r_.VectorField(t, field, 4);
    for (uint32_t i = 0; i < items.length && r_.ok(); ++i) (this->*Walk)(r_.TableElement(items, i));
  }

  void Bytes(const Table& t) { Vector(t, 0, 1); }
  void DataSegment(const Table& t) {
    Scalar<uint64_t>(t, 0);
    Scalar<uint64_t>(t, 1);
  }
  void SubsegmentOffsets(const Table& t) {
    Scalar<uint32_t>(t, 0);
    Vector(t, 1, 8);
  }
  void NamedData(const Table& t) {
    String(t, 0);
    Scalar<uint32_t>(t, 1);
  }

  void ExecutionPlan(const Table& t) {
    String(t, 0);
    const Table meta = r_.TableField(t, 1);  // ContainerMetadata
    String(meta, 0);
    String(meta, 1);
    Tables<&Walker::EValue>(t, 2);
    Vector(t, 3, 4);  // inputs
    Vector(t, 4, 4);  // outputs
    Tables<&Walker::Chain>(t, 5);
    Tables<&Walker::Operator>(t, 6);
    Tables<&Walker::BackendDelegate>(t, 7);
    Vector(t, 8, 8);  // non_const_buffer_sizes
    Tables<&Walker::NonConstBufferDevice>(t, 9);
  }
  void Operator(const Table& t) {
    String(t, 0);
    String(t, 1);
  }
  void BackendDelegate(const Table& t) {
    String(t, 0);
    const Table processed = r_.TableField(t, 1);  // BackendDelegateDataReference
    Scalar<int8_t>(processed, 0);
    Scalar<uint32_t>(processed, 1);
    Tables<&Walker::CompileSpec>(t, 2);
  }
  void CompileSpec(const Table& t) {
    String(t, 0);
    Vector(t, 1, 1);
  }
  void NonConstBufferDevice(const Table& t) {
    Scalar<int32_t>(t, 0);
    Scalar<int8_t>(t, 1);
    Scalar<int8_t>(t, 2);
  }

  // KernelTypes: NONE, Null, Int, Bool, Double, Tensor, String, IntList,
  // DoubleList, BoolList, TensorList, OptionalTensorList.
  void EValue(const Table& t) {
    const auto type = r_.Scalar<uint8_t>(t, 0, 0);
    const Table val = r_.TableField(t, 1);
    switch (type) {
      case 2:  // Int
      case 4:  // Double
        Scalar<uint64_t>(val, 0);
        break;
      case 3:  // Bool
        Scalar<uint8_t>(val, 0);
        break;
      case 5:
        Tensor(val);
        break;
      case 6:  // String
        String(val, 0);
        break;
      case 7:  // IntList
      case 8:  // DoubleList
        Vector(val, 0, 8);
        break;
      case 9:  // BoolList
        Vector(val, 0, 1);
        break;
      case 10:  // TensorList
      case 11:  // OptionalTensorList
        Vector(val, 0, 4);
        break;
      default:  // Null, NONE, or a type this schema does not know
        break;
    }
  }
  void Tensor(const Table& t) {
    Scalar<int8_t>(t, 0);    // scalar_type
    Scalar<int32_t>(t, 1);   // storage_offset
    Vector(t, 2, 4);         // sizes
    Vector(t, 3, 1);         // dim_order
    Scalar<uint8_t>(t, 4);   // requires_grad
    Scalar<uint32_t>(t, 5);  // data_buffer_idx
    const Table allocation = r_.TableField(t, 6);
    Scalar<uint32_t>(allocation, 0);
    Scalar<uint32_t>(allocation, 1);
    Scalar<uint32_t>(allocation, 2);
    Scalar<int8_t>(t, 7);  // layout
    Scalar<int8_t>(t, 8);  // shape_dynamism
    const Table extra = r_.TableField(t, 9);
    Scalar<uint64_t>(extra, 0);
    String(extra, 1);
    Scalar<int8_t>(extra, 2);
    Scalar<int8_t>(extra, 3);
    Scalar<int8_t>(extra, 4);
  }

  void Chain(const Table& t) {
    Vector(t, 0, 4);
    Vector(t, 1, 4);
    Tables<&Walker::Instruction>(t, 2);
    Tables<&Walker::FrameList>(t, 3);
  }
  // InstructionArguments: NONE, KernelCall, DelegateCall, MoveCall,
  // JumpFalseCall, FreeCall.
  void Instruction(const Table& t) {
    const auto type = r_.Scalar<uint8_t>(t, 0, 0);
    const Table args = r_.TableField(t, 1);
    switch (type) {
      case 1:  // KernelCall
      case 2:  // DelegateCall
        Scalar<int32_t>(args, 0);
        Vector(args, 1, 4);
        break;
      case 3:  // MoveCall
      case 4:  // JumpFalseCall
        Scalar<int32_t>(args, 0);
        Scalar<int32_t>(args, 1);
        break;
      case 5:  // FreeCall
        Scalar<int32_t>(args, 0);
        break;
      default:
        break;
    }
  }
  void FrameList(const Table& t) { Tables<&Walker::Frame>(t, 0); }
  void Frame(const Table& t) {
    String(t, 0);
    Scalar<int32_t>(t, 1);
    String(t, 2);
    String(t, 3);
  }

  Reader& r_;
};

}  // namespace

void WalkProgram(Reader& reader, const Table& program) { Walker(reader).Program(program); }

}  // namespace pteshare::runtime_check::core::internal
