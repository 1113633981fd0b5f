// The aten operators of tools/synth/operators.h that `pte-synth llm` uses,
// with the float32 semantics of ExecuTorch's portable kernels as
// docs/exporter-facts.md records them (accumulation order, where a sum
// starts, an exp computed again rather than kept), so that a fixture's
// outputs are what the stock runtime would compute. Each takes exactly the
// emitter's argument list: the schema's arguments in order, then the
// returns (the out tensor twice).
#include <algorithm>
#include <cmath>
#include <string>

#include "tests/reference/kernel_args.h"
#include "tests/reference/reference_kernels.h"

namespace pteshare::reference {
namespace {

// Whether `t` broadcasts to `out` (numpy rules: sizes aligned from the
// right, each equal or 1).
bool Broadcasts(const TensorRef& t, const TensorRef& out) {
  if (t.rank() > out.rank()) return false;
  for (int64_t d = 1; d <= t.rank(); ++d) {
    const int64_t size = t.dim(-d);
    if (size != 1 && size != out.dim(-d)) return false;
  }
  return true;
}

// The element of `t` that out's row-major element `i` reads, broadcast.
uint64_t BroadcastOffset(const TensorRef& t, const TensorRef& out, uint64_t i) {
  uint64_t offset = 0, stride = 1, rest = i;
  for (int64_t d = 1; d <= out.rank(); ++d) {
    const uint64_t size = static_cast<uint64_t>(out.dim(-d));
    const uint64_t coord = rest % size;
    rest /= size;
    if (d > t.rank()) continue;
    const uint64_t t_size = static_cast<uint64_t>(t.dim(-d));
    if (t_size != 1) offset += coord * stride;
    stride *= t_size;
  }
  return offset;
}

template <typename F>
Status Binary(Args& in, TensorRef* a, TensorRef* b, TensorRef* out, F f) {
  PTESHARE_CHECK(in.Check(Broadcasts(*a, *out) && Broadcasts(*b, *out),
                          "operands do not broadcast to the output"));
  for (uint64_t i = 0; i < out->numel(); ++i) {
    out->f32()[i] =
        f(a->f32()[BroadcastOffset(*a, *out, i)], b->f32()[BroadcastOffset(*b, *out, i)]);
  }
  return Status::Ok();
}

// add.out(self, other, *, alpha=1, out): the Int alpha must be 1.
Status Add(std::vector<RuntimeValue>& values, std::span<const int32_t> args) {
  Args in("aten::add.out", values, args);
  PTESHARE_CHECK(in.Expect(5));
  PTESHARE_TRY(a, in.Tensor(0));
  PTESHARE_TRY(b, in.Tensor(1));
  PTESHARE_TRY(alpha, in.Int(2));
  PTESHARE_TRY(out, in.Tensor(3));
  PTESHARE_CHECK(in.Check(*alpha == 1, "alpha must be 1"));
  return Binary(in, a, b, out, [](float x, float y) { return x + y; });
}

Status Mul(std::vector<RuntimeValue>& values, std::span<const int32_t> args) {
  Args in("aten::mul.out", values, args);
  PTESHARE_CHECK(in.Expect(4));
  PTESHARE_TRY(a, in.Tensor(0));
  PTESHARE_TRY(b, in.Tensor(1));
  PTESHARE_TRY(out, in.Tensor(2));
  return Binary(in, a, b, out, [](float x, float y) { return x * y; });
}

// add.Scalar_out(self, Scalar other, Scalar alpha=1, *, out).
Status AddScalar(std::vector<RuntimeValue>& values, std::span<const int32_t> args) {
  Args in("aten::add.Scalar_out", values, args);
  PTESHARE_CHECK(in.Expect(5));
  PTESHARE_TRY(x, in.Tensor(0));
  PTESHARE_TRY(other, in.Double(1));
  PTESHARE_TRY(alpha, in.Int(2));
  PTESHARE_TRY(out, in.Tensor(3));
  PTESHARE_CHECK(in.Check(*alpha == 1 && x->numel() == out->numel(), "bad alpha or shapes"));
  const float y = static_cast<float>(other);
  for (uint64_t i = 0; i < out->numel(); ++i) out->f32()[i] = x->f32()[i] + y;
  return Status::Ok();
}

Status MulScalar(std::vector<RuntimeValue>& values, std::span<const int32_t> args) {
  Args in("aten::mul.Scalar_out", values, args);
  PTESHARE_CHECK(in.Expect(4));
  PTESHARE_TRY(x, in.Tensor(0));
  PTESHARE_TRY(other, in.Double(1));
  PTESHARE_TRY(out, in.Tensor(2));
  PTESHARE_CHECK(in.Check(x->numel() == out->numel(), "shapes differ"));
  const float y = static_cast<float>(other);
  for (uint64_t i = 0; i < out->numel(); ++i) out->f32()[i] = x->f32()[i] * y;
  return Status::Ok();
}

// The float sqrt, then 1.0 / it in double, narrowed: the portable kernel's
// float instantiation.
Status Rsqrt(std::vector<RuntimeValue>& values, std::span<const int32_t> args) {
  Args in("aten::rsqrt.out", values, args);
  PTESHARE_CHECK(in.Expect(3));
  PTESHARE_TRY(x, in.Tensor(0));
  PTESHARE_TRY(out, in.Tensor(1));
  PTESHARE_CHECK(in.Check(x->numel() == out->numel(), "shapes differ"));
  for (uint64_t i = 0; i < out->numel(); ++i) {
    out->f32()[i] = static_cast<float>(1.0 / std::sqrt(x->f32()[i]));
  }
  return Status::Ok();
}

// out[n, m] = sum over k ascending of a[n, k] * b[k, m], from 0.0f
// (vec_matmul), for each of `batches` blocks.
void MatMul(const float* a, const float* b, float* out, uint64_t batches, uint64_t n, uint64_t k,
            uint64_t m) {
  for (uint64_t batch = 0; batch < batches; ++batch) {
    const float* x = a + batch * n * k;
    const float* y = b + batch * k * m;
    float* z = out + batch * n * m;
    for (uint64_t i = 0; i < n; ++i) {
      for (uint64_t j = 0; j < m; ++j) {
        float sum = 0.0f;
        for (uint64_t p = 0; p < k; ++p) sum += x[i * k + p] * y[p * m + j];
        z[i * m + j] = sum;
      }
    }
  }
}

Status Mm(std::vector<RuntimeValue>& values, std::span<const int32_t> args) {
  Args in("aten::mm.out", values, args);
  PTESHARE_CHECK(in.Expect(4));
  PTESHARE_TRY(a, in.Tensor(0));
  PTESHARE_TRY(b, in.Tensor(1));
  PTESHARE_TRY(out, in.Tensor(2));
  PTESHARE_CHECK(in.Check(a->rank() == 2 && b->rank() == 2 && out->rank() == 2 &&
                              a->dim(1) == b->dim(0) && out->dim(0) == a->dim(0) &&
                              out->dim(1) == b->dim(1),
                          "shapes do not multiply"));
  MatMul(a->f32(), b->f32(), out->f32(), 1, static_cast<uint64_t>(a->dim(0)),
         static_cast<uint64_t>(a->dim(1)), static_cast<uint64_t>(b->dim(1)));
  return Status::Ok();
}

Status Bmm(std::vector<RuntimeValue>& values, std::span<const int32_t> args) {
  Args in("aten::bmm.out", values, args);
  PTESHARE_CHECK(in.Expect(4));
  PTESHARE_TRY(a, in.Tensor(0));
  PTESHARE_TRY(b, in.Tensor(1));
  PTESHARE_TRY(out, in.Tensor(2));
  PTESHARE_CHECK(in.Check(a->rank() == 3 && b->rank() == 3 && out->rank() == 3 &&
                              a->dim(0) == b->dim(0) && out->dim(0) == a->dim(0) &&
                              a->dim(2) == b->dim(1) && out->dim(1) == a->dim(1) &&
                              out->dim(2) == b->dim(2),
                          "shapes do not multiply"));
  MatMul(a->f32(), b->f32(), out->f32(), static_cast<uint64_t>(a->dim(0)),
         static_cast<uint64_t>(a->dim(1)), static_cast<uint64_t>(a->dim(2)),
         static_cast<uint64_t>(b->dim(2)));
  return Status::Ok();
}

Status PermuteCopy(std::vector<RuntimeValue>& values, std::span<const int32_t> args) {
  Args in("aten::permute_copy.out", values, args);
  PTESHARE_CHECK(in.Expect(4));
  PTESHARE_TRY(x, in.Tensor(0));
  PTESHARE_TRY(dims, in.IntList(1));
  PTESHARE_TRY(out, in.Tensor(2));
  const int64_t rank = x->rank();
  PTESHARE_CHECK(in.Check(static_cast<int64_t>(dims.size()) == rank && out->rank() == rank,
                          "dims must name every dimension"));
  std::vector<uint64_t> stride(static_cast<size_t>(rank), 1);  // x's row-major strides
  for (int64_t d = rank - 2; d >= 0; --d) stride[d] = stride[d + 1] * x->sizes[d + 1];
  for (int64_t d = 0; d < rank; ++d) {
    PTESHARE_CHECK(in.Check(dims[d] >= 0 && dims[d] < rank && out->sizes[d] == x->sizes[dims[d]],
                            "out's sizes are not x's permuted"));
  }
  for (uint64_t i = 0; i < out->numel(); ++i) {
    uint64_t rest = i, from = 0;
    for (int64_t d = rank - 1; d >= 0; --d) {
      const uint64_t size = static_cast<uint64_t>(out->sizes[d]);
      from += (rest % size) * stride[dims[d]];
      rest /= size;
    }
    out->f32()[i] = x->f32()[from];
  }
  return Status::Ok();
}

// The one index tensor on dim 0 both index ops take here: its rows,
// negative ones wrapped, each checked against `rows`.
Result<std::vector<uint64_t>> IndexRows(Args& in, const std::vector<TensorRef*>& indices,
                                        int64_t rows) {
  if (indices.size() != 1 || indices[0] == nullptr ||
      indices[0]->scalar_type != fb::ScalarType::LONG || indices[0]->rank() != 1) {
    return in.Fail("only one int64 index tensor, on dim 0");
  }
  std::vector<uint64_t> out;
  for (uint64_t t = 0; t < indices[0]->numel(); ++t) {
    int64_t row = indices[0]->i64()[t];
    if (row < 0) row += rows;
    if (row < 0 || row >= rows) {
      return in.Fail("index " + std::to_string(indices[0]->i64()[t]) + " outside " +
                     std::to_string(rows) + " rows");
    }
    out.push_back(static_cast<uint64_t>(row));
  }
  return out;
}

// index_put.out(self, indices, values, accumulate=False, *, out): out =
// self (not copied where out is self, a cache updated in place), then
// row idx[t] = values[t] in t order.
Status IndexPut(std::vector<RuntimeValue>& values, std::span<const int32_t> args) {
  Args in("aten::index_put.out", values, args);
  PTESHARE_CHECK(in.Expect(6));
  PTESHARE_TRY(self, in.Tensor(0));
  PTESHARE_TRY(indices, in.OptionalTensorList(1));
  PTESHARE_TRY(put, in.Tensor(2));
  PTESHARE_TRY(accumulate, in.Bool(3));
  PTESHARE_TRY(out, in.Tensor(4));
  PTESHARE_CHECK(in.Check(!accumulate, "accumulate must be false"));
  PTESHARE_CHECK(
      in.Check(self->rank() >= 1 && out->sizes == self->sizes, "out is not self's shape"));
  PTESHARE_TRY(rows, IndexRows(in, indices, self->dim(0)));
  const uint64_t row_size = self->numel() / static_cast<uint64_t>(self->dim(0));
  PTESHARE_CHECK(in.Check(put->numel() == rows.size() * row_size, "values are not one row each"));
  if (out->data != self->data) {
    for (uint64_t i = 0; i < self->numel(); ++i) out->f32()[i] = self->f32()[i];
  }
  for (size_t t = 0; t < rows.size(); ++t) {
    for (uint64_t i = 0; i < row_size; ++i) {
      out->f32()[rows[t] * row_size + i] = put->f32()[t * row_size + i];
    }
  }
  return Status::Ok();
}

// index.Tensor_out(self, indices, *, out): out[t] = self[idx[t]].
Status IndexTensor(std::vector<RuntimeValue>& values, std::span<const int32_t> args) {
  Args in("aten::index.Tensor_out", values, args);
  PTESHARE_CHECK(in.Expect(4));
  PTESHARE_TRY(self, in.Tensor(0));
  PTESHARE_TRY(indices, in.OptionalTensorList(1));
  PTESHARE_TRY(out, in.Tensor(2));
  PTESHARE_CHECK(in.Check(self->rank() >= 1, "self has no rows"));
  PTESHARE_TRY(rows, IndexRows(in, indices, self->dim(0)));
  const uint64_t row_size = self->numel() / static_cast<uint64_t>(self->dim(0));
  PTESHARE_CHECK(in.Check(out->numel() == rows.size() * row_size, "out is not one row each"));
  for (size_t t = 0; t < rows.size(); ++t) {
    for (uint64_t i = 0; i < row_size; ++i) {
      out->f32()[t * row_size + i] = self->f32()[rows[t] * row_size + i];
    }
  }
  return Status::Ok();
}

// embedding.out(weight, indices, padding_idx=-1, scale_grad_by_freq=False,
// sparse=False, *, out): the last three are ignored, as the kernel does.
Status Embedding(std::vector<RuntimeValue>& values, std::span<const int32_t> args) {
  Args in("aten::embedding.out", values, args);
  PTESHARE_CHECK(in.Expect(7));
  PTESHARE_TRY(weight, in.Tensor(0));
  PTESHARE_TRY(indices, in.Tensor(1, fb::ScalarType::LONG));
  PTESHARE_TRY(padding_idx, in.Int(2));
  PTESHARE_TRY(scale_grad_by_freq, in.Bool(3));
  PTESHARE_TRY(sparse, in.Bool(4));
  PTESHARE_TRY(out, in.Tensor(5));
  (void)padding_idx;
  (void)scale_grad_by_freq;
  (void)sparse;
  PTESHARE_CHECK(in.Check(weight->rank() == 2, "weight must be 2-D"));
  const int64_t vocab = weight->dim(0);
  const uint64_t d = static_cast<uint64_t>(weight->dim(1));
  PTESHARE_CHECK(in.Check(out->numel() == indices->numel() * d, "out size differs"));
  for (uint64_t n = 0; n < indices->numel(); ++n) {
    const int64_t row = indices->i64()[n];
    if (row < 0 || row >= vocab) {
      return in.Fail("index " + std::to_string(row) + " at " + std::to_string(n) + " outside [0, " +
                     std::to_string(vocab) + ")");
    }
    for (uint64_t i = 0; i < d; ++i) out->f32()[n * d + i] = weight->f32()[row * d + i];
  }
  return Status::Ok();
}

// Three passes per row, as the portable kernel: the max from element 0, the
// sum of exp from exp(x0 - max), then each exp computed again over the sum.
Status Softmax(std::vector<RuntimeValue>& values, std::span<const int32_t> args) {
  Args in("aten::_softmax.out", values, args);
  PTESHARE_CHECK(in.Expect(5));
  PTESHARE_TRY(x, in.Tensor(0));
  PTESHARE_TRY(dim, in.Int(1));
  PTESHARE_TRY(half_to_float, in.Bool(2));
  PTESHARE_TRY(out, in.Tensor(3));
  PTESHARE_CHECK(in.Check(!half_to_float, "half_to_float must be false"));
  PTESHARE_CHECK(in.Check(*dim == -1 || *dim == x->rank() - 1, "only the last dim"));
  PTESHARE_CHECK(in.Check(x->rank() >= 1 && x->numel() == out->numel(), "bad shapes"));
  const uint64_t n = static_cast<uint64_t>(x->dim(-1));
  const uint64_t rows = n == 0 ? 0 : x->numel() / n;
  for (uint64_t r = 0; r < rows; ++r) {
    const float* row = x->f32() + r * n;
    float* dst = out->f32() + r * n;
    float m = row[0];
    for (uint64_t i = 1; i < n; ++i) m = std::max(m, row[i]);
    if (m == -INFINITY) return in.Fail("row " + std::to_string(r) + " is all -INFINITY");
    float sum = std::exp(row[0] - m);
    for (uint64_t i = 1; i < n; ++i) sum += std::exp(row[i] - m);
    for (uint64_t i = 0; i < n; ++i) dst[i] = std::exp(row[i] - m) / sum;
  }
  return Status::Ok();
}

// mean.out(self, dims, keepdim, dtype=None, *, out) over trailing dims
// (dims [2, 3] of [1, C, H, W], or [-1]): the sum from the first reduced
// element, the rest added in order, over (float)count.
Status MeanDim(std::vector<RuntimeValue>& values, std::span<const int32_t> args) {
  Args in("aten::mean.out", values, args);
  PTESHARE_CHECK(in.Expect(6));
  PTESHARE_TRY(x, in.Tensor(0));
  PTESHARE_TRY(dims, in.IntList(1));
  PTESHARE_TRY(keepdim, in.Bool(2));
  PTESHARE_CHECK(in.Null(3));
  PTESHARE_TRY(out, in.Tensor(4));
  (void)keepdim;  // the out tensor's shape says it; the elements are the same
  const int64_t rank = x->rank();
  std::vector<int64_t> reduced;
  for (int64_t d : dims) reduced.push_back(d < 0 ? d + rank : d);
  std::sort(reduced.begin(), reduced.end());
  uint64_t count = 1;
  for (size_t k = 0; k < reduced.size(); ++k) {
    PTESHARE_CHECK(in.Check(reduced[k] == rank - static_cast<int64_t>(reduced.size() - k),
                            "only trailing dims are reduced here"));
    count *= static_cast<uint64_t>(x->dim(reduced[k]));
  }
  PTESHARE_CHECK(in.Check(count > 0 && out->numel() * count == x->numel(), "bad shapes"));
  for (uint64_t o = 0; o < out->numel(); ++o) {
    const float* group = x->f32() + o * count;
    float sum = group[0];
    for (uint64_t i = 1; i < count; ++i) sum += group[i];
    out->f32()[o] = sum / static_cast<float>(count);
  }
  return Status::Ok();
}

constexpr NamedKernel kPortableKernels[] = {
    {"aten::add", "out", Add},
    {"aten::mul", "out", Mul},
    {"aten::add", "Scalar_out", AddScalar},
    {"aten::mul", "Scalar_out", MulScalar},
    {"aten::rsqrt", "out", Rsqrt},
    {"aten::mm", "out", Mm},
    {"aten::bmm", "out", Bmm},
    {"aten::permute_copy", "out", PermuteCopy},
    {"aten::index_put", "out", IndexPut},
    {"aten::index", "Tensor_out", IndexTensor},
    {"aten::embedding", "out", Embedding},
    {"aten::_softmax", "out", Softmax},
    {"aten::mean", "out", MeanDim},
};

}  // namespace

Kernel FindPortableKernel(std::string_view name, std::string_view overload) {
  return FindIn(kPortableKernels, name, overload);
}

}  // namespace pteshare::reference
