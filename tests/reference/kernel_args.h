// How a reference kernel reads its arguments: by position, each checked for
// its kind and range before use, so a malformed program is an error naming
// the operator and the numbers, never a wild read. Shared by
// reference_kernels.cc and portable_kernels.cc.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rewriter/base/result.h"
#include "tests/reference/reference_kernels.h"
#include "tests/reference/reference_values.h"

namespace pteshare::reference {

/// Reads a kernel's arguments by position, checking kinds and counts so a
/// malformed program gives an error instead of a wild memory access.
class Args {
 public:
  Args(const char* op, std::vector<RuntimeValue>& values, std::span<const int32_t> args)
      : op_(op), values_(values), args_(args) {}

  Status Expect(size_t count) const {
    if (args_.size() == count) return Status::Ok();
    return Fail("takes " + std::to_string(count) + " args, got " + std::to_string(args_.size()));
  }
  Result<TensorRef*> Tensor(size_t i, fb::ScalarType type = fb::ScalarType::FLOAT) {
    Result<RuntimeValue*> v = Value(i, ValueKind::kTensor, "a Tensor");
    if (!v.ok()) return v.error();
    if ((*v)->tensor.scalar_type != type) {
      return Error{Where(i) + " has scalar type " +
                   std::to_string(static_cast<int>((*v)->tensor.scalar_type)) + ", expected " +
                   std::to_string(static_cast<int>(type))};
    }
    return &(*v)->tensor;
  }
  Result<int64_t*> Int(size_t i) {
    Result<RuntimeValue*> v = Value(i, ValueKind::kInt, "an Int");
    if (!v.ok()) return v.error();
    return &(*v)->int_value;
  }
  Result<double> Double(size_t i) {
    Result<RuntimeValue*> v = Value(i, ValueKind::kDouble, "a Double");
    if (!v.ok()) return v.error();
    return (*v)->double_value;
  }
  /// The integers of an IntList (its items are indices of Int values).
  Result<std::vector<int64_t>> IntList(size_t i) {
    Result<RuntimeValue*> v = Value(i, ValueKind::kIntList, "an IntList");
    if (!v.ok()) return v.error();
    std::vector<int64_t> ints;
    for (int64_t item : (*v)->items) {
      if (item < 0 || static_cast<size_t>(item) >= values_.size() ||
          values_[item].kind != ValueKind::kInt) {
        return Error{Where(i) + " item " + std::to_string(item) + " is not an Int value"};
      }
      ints.push_back(values_[item].int_value);
    }
    return ints;
  }
  Result<bool> Bool(size_t i) {
    Result<RuntimeValue*> v = Value(i, ValueKind::kBool, "a Bool");
    if (!v.ok()) return v.error();
    return (*v)->bool_value;
  }
  /// An optional argument left out (a Null value).
  Status Null(size_t i) {
    Result<RuntimeValue*> v = Value(i, ValueKind::kNull, "Null");
    return v.ok() ? Status::Ok() : Status(v.error());
  }
  /// The entries of an OptionalTensorList: a tensor, or nullptr for None
  /// (-1 or the index of a Null value, as the runtime accepts both).
  Result<std::vector<TensorRef*>> OptionalTensorList(size_t i) {
    Result<RuntimeValue*> v = Value(i, ValueKind::kOptionalTensorList, "an OptionalTensorList");
    if (!v.ok()) return v.error();
    std::vector<TensorRef*> tensors;
    for (int64_t item : (*v)->items) {
      if (item == -1) {
        tensors.push_back(nullptr);
        continue;
      }
      if (item < 0 || static_cast<size_t>(item) >= values_.size() ||
          (values_[item].kind != ValueKind::kTensor && values_[item].kind != ValueKind::kNull)) {
        return Error{Where(i) + " item " + std::to_string(item) + " is neither a Tensor nor Null"};
      }
      tensors.push_back(values_[item].kind == ValueKind::kNull ? nullptr : &values_[item].tensor);
    }
    return tensors;
  }
  /// The tensors of a TensorList.
  Result<std::vector<TensorRef*>> TensorList(size_t i) {
    Result<RuntimeValue*> v = Value(i, ValueKind::kTensorList, "a TensorList");
    if (!v.ok()) return v.error();
    std::vector<TensorRef*> tensors;
    for (int64_t item : (*v)->items) {
      if (item < 0 || static_cast<size_t>(item) >= values_.size() ||
          values_[item].kind != ValueKind::kTensor) {
        return Error{Where(i) + " item " + std::to_string(item) + " is not a Tensor value"};
      }
      tensors.push_back(&values_[item].tensor);
    }
    return tensors;
  }
  Error Fail(const std::string& what) const { return Error{std::string(op_) + ": " + what}; }
  Status Check(bool ok, const std::string& what) const {
    return ok ? Status::Ok() : Status(Fail(what));
  }

 private:
  std::string Where(size_t i) const {
    return std::string(op_) + ": arg " + std::to_string(i) + " (value " +
           std::to_string(i < args_.size() ? args_[i] : -1) + ")";
  }
  Result<RuntimeValue*> Value(size_t i, ValueKind kind, const char* what) {
    if (i >= args_.size()) return Error{Where(i) + " is missing"};
    const int32_t index = args_[i];
    if (index < 0 || static_cast<size_t>(index) >= values_.size()) {
      return Error{Where(i) + " is out of range (" + std::to_string(values_.size()) + " values)"};
    }
    if (values_[index].kind != kind) return Error{Where(i) + " is not " + what};
    return &values_[index];
  }

  const char* op_;
  std::vector<RuntimeValue>& values_;
  std::span<const int32_t> args_;
};

// Unwraps a Result into `name`, returning its error from the kernel.
#define PTESHARE_TRY(name, expr)                         \
  auto name##_result = (expr);                           \
  if (!name##_result.ok()) return name##_result.error(); \
  auto name = *name##_result
#define PTESHARE_CHECK(status) \
  if (Status s_ = (status); !s_.ok()) return s_

/// One row of a kernel table: the operator as the program names it.
struct NamedKernel {
  std::string_view name;
  std::string_view overload;
  Kernel kernel;
};

/// The kernel of `name`.`overload` in `table`, or nullptr.
template <size_t N>
Kernel FindIn(const NamedKernel (&table)[N], std::string_view name, std::string_view overload) {
  for (const NamedKernel& k : table) {
    if (k.name == name && k.overload == overload) return k.kernel;
  }
  return nullptr;
}

}  // namespace pteshare::reference
