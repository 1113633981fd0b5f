#include "tests/reference/reference_kernels.h"

#include "tests/reference/kernel_args.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace pteshare::reference {
namespace {

Status Relu(std::vector<RuntimeValue>& values, std::span<const int32_t> args) {
  Args in("aten::relu.out", values, args);
  PTESHARE_CHECK(in.Expect(3));
  PTESHARE_TRY(x, in.Tensor(0));
  PTESHARE_TRY(out, in.Tensor(1));
  PTESHARE_CHECK(in.Check(x->numel() == out->numel(), "operands differ in size"));
  for (uint64_t i = 0; i < out->numel(); ++i) out->f32()[i] = std::max(x->f32()[i], 0.0f);
  return Status::Ok();
}

Status RmsNorm(std::vector<RuntimeValue>& values, std::span<const int32_t> args) {
  Args in("llama::rms_norm.out", values, args);
  PTESHARE_CHECK(in.Expect(5));
  PTESHARE_TRY(x, in.Tensor(0));
  PTESHARE_TRY(w, in.Tensor(1));
  PTESHARE_TRY(eps, in.Double(2));
  PTESHARE_TRY(out, in.Tensor(3));
  PTESHARE_CHECK(in.Check(x->rank() >= 1 && x->numel() == out->numel(), "bad shapes"));
  const uint64_t d = static_cast<uint64_t>(x->dim(-1));
  PTESHARE_CHECK(in.Check(d > 0 && w->numel() == d, "weight size differs from last dim"));
  const uint64_t rows = x->numel() / d;
  for (uint64_t n = 0; n < rows; ++n) {
    const float* row = x->f32() + n * d;
    float sum = 0.0f;
    for (uint64_t i = 0; i < d; ++i) sum += row[i] * row[i];
    const float r = 1.0f / std::sqrt(sum / static_cast<float>(d) + static_cast<float>(eps));
    for (uint64_t i = 0; i < d; ++i) out->f32()[n * d + i] = row[i] * r * w->f32()[i];
  }
  return Status::Ok();
}

Status Linear(std::vector<RuntimeValue>& values, std::span<const int32_t> args) {
  Args in("aten::linear.out", values, args);
  PTESHARE_CHECK(in.Expect(4));
  PTESHARE_TRY(x, in.Tensor(0));
  PTESHARE_TRY(w, in.Tensor(1));
  PTESHARE_TRY(out, in.Tensor(2));
  PTESHARE_CHECK(in.Check(w->rank() == 2 && x->rank() >= 1, "weight must be 2-D"));
  const uint64_t features = static_cast<uint64_t>(w->dim(0));
  const uint64_t k = static_cast<uint64_t>(w->dim(1));
  PTESHARE_CHECK(in.Check(k > 0 && features > 0 && static_cast<uint64_t>(x->dim(-1)) == k &&
                              out->numel() == x->numel() / k * features,
                          "shapes do not match the weight"));
  const uint64_t rows = x->numel() / k;
  for (uint64_t n = 0; n < rows; ++n) {
    for (uint64_t o = 0; o < features; ++o) {
      float sum = 0.0f;
      for (uint64_t i = 0; i < k; ++i) sum += x->f32()[n * k + i] * w->f32()[o * k + i];
      out->f32()[n * features + o] = sum;
    }
  }
  return Status::Ok();
}

Status Cat(std::vector<RuntimeValue>& values, std::span<const int32_t> args) {
  Args in("aten::cat.out", values, args);
  PTESHARE_CHECK(in.Expect(4));
  PTESHARE_TRY(tensors, in.TensorList(0));
  PTESHARE_TRY(dim_value, in.Int(1));
  PTESHARE_TRY(out, in.Tensor(2, fb::ScalarType::FLOAT));
  const int64_t rank = out->rank();
  const int64_t dim = *dim_value < 0 ? *dim_value + rank : *dim_value;
  PTESHARE_CHECK(in.Check(dim >= 0 && dim < rank, "dim out of range"));
  uint64_t outer = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= static_cast<uint64_t>(out->sizes[d]);
  uint64_t total = 0;
  for (const TensorRef* t : tensors) {
    PTESHARE_CHECK(in.Check(t->rank() == rank && t->scalar_type == out->scalar_type,
                            "list tensors differ in rank or type from out"));
    total += t->numel();
  }
  PTESHARE_CHECK(in.Check(total == out->numel(), "list sizes do not add up to out"));
  uint8_t* dst = out->data;
  for (uint64_t o = 0; o < outer; ++o) {
    for (const TensorRef* t : tensors) {
      const uint64_t chunk = t->nbytes() / (outer == 0 ? 1 : outer);
      const uint8_t* src = t->data + o * chunk;
      for (uint64_t b = 0; b < chunk; ++b) *dst++ = src[b];
    }
  }
  return Status::Ok();
}

Status ViewCopy(std::vector<RuntimeValue>& values, std::span<const int32_t> args) {
  Args in("aten::view_copy.out", values, args);
  PTESHARE_CHECK(in.Expect(4));
  PTESHARE_TRY(x, in.Tensor(0));
  PTESHARE_TRY(size, in.IntList(1));
  PTESHARE_TRY(out, in.Tensor(2));
  uint64_t count = 1;
  for (int64_t s : size) count *= static_cast<uint64_t>(s);
  PTESHARE_CHECK(in.Check(count == x->numel() && count == out->numel(), "element counts differ"));
  for (uint64_t i = 0; i < count; ++i) out->f32()[i] = x->f32()[i];
  return Status::Ok();
}

Status LocalScalarDense(std::vector<RuntimeValue>& values, std::span<const int32_t> args) {
  Args in("aten::_local_scalar_dense", values, args);
  PTESHARE_CHECK(in.Expect(2));
  PTESHARE_TRY(x, in.Tensor(0, fb::ScalarType::LONG));
  PTESHARE_TRY(r, in.Int(1));
  PTESHARE_CHECK(in.Check(x->numel() >= 1, "empty tensor"));
  *r = x->i64()[0];
  return Status::Ok();
}

Status UpdateCache(std::vector<RuntimeValue>& values, std::span<const int32_t> args) {
  Args in("llama::update_cache.out", values, args);
  PTESHARE_CHECK(in.Expect(5));
  PTESHARE_TRY(value, in.Tensor(0));
  PTESHARE_TRY(cache, in.Tensor(1));
  PTESHARE_TRY(start, in.Int(2));
  PTESHARE_CHECK(in.Check(value->rank() >= 1 && cache->rank() == value->rank(), "bad ranks"));
  const int64_t steps = value->dim(0), rows = cache->dim(0);
  PTESHARE_CHECK(in.Check(steps > 0 && rows > 0, "empty value or cache"));
  const uint64_t row = value->numel() / static_cast<uint64_t>(steps);
  PTESHARE_CHECK(in.Check(row == cache->numel() / static_cast<uint64_t>(rows), "row sizes differ"));
  if (*start < 0 || *start + steps > rows) {
    return in.Fail("start_pos " + std::to_string(*start) + " + " + std::to_string(steps) +
                   " > cache rows " + std::to_string(rows));
  }
  float* dst = cache->f32() + static_cast<uint64_t>(*start) * row;
  for (uint64_t i = 0; i < value->numel(); ++i) dst[i] = value->f32()[i];
  return Status::Ok();
}

Status AttentionScores(std::vector<RuntimeValue>& values, std::span<const int32_t> args) {
  Args in("llama::attention_scores.out", values, args);
  PTESHARE_CHECK(in.Expect(6));
  PTESHARE_TRY(q, in.Tensor(0));
  PTESHARE_TRY(k, in.Tensor(1));
  PTESHARE_TRY(start, in.Int(2));
  PTESHARE_TRY(heads_value, in.Int(3));
  PTESHARE_TRY(out, in.Tensor(4));
  PTESHARE_CHECK(in.Check(q->rank() == 2 && k->rank() == 2, "q and k_cache must be 2-D"));
  const int64_t t_len = q->dim(0), hd = q->dim(1), s_len = k->dim(0), heads = *heads_value;
  PTESHARE_CHECK(in.Check(heads > 0 && hd % heads == 0 && k->dim(1) == hd &&
                              out->numel() == static_cast<uint64_t>(heads * t_len * s_len),
                          "shapes do not match heads"));
  const int64_t d = hd / heads;
  const float scale = std::sqrt(static_cast<float>(d));
  for (int64_t h = 0; h < heads; ++h) {
    for (int64_t t = 0; t < t_len; ++t) {
      for (int64_t s = 0; s < s_len; ++s) {
        float score = -INFINITY;
        if (s <= *start + t) {
          float sum = 0.0f;
          for (int64_t i = 0; i < d; ++i)
            sum += q->f32()[t * hd + h * d + i] * k->f32()[s * hd + h * d + i];
          score = sum / scale;
        }
        out->f32()[(h * t_len + t) * s_len + s] = score;
      }
    }
  }
  return Status::Ok();
}

Status AttentionMix(std::vector<RuntimeValue>& values, std::span<const int32_t> args) {
  Args in("llama::attention_mix.out", values, args);
  PTESHARE_CHECK(in.Expect(4));
  PTESHARE_TRY(probs, in.Tensor(0));
  PTESHARE_TRY(v, in.Tensor(1));
  PTESHARE_TRY(out, in.Tensor(2));
  PTESHARE_CHECK(in.Check(probs->rank() == 3 && v->rank() == 2 && out->rank() == 2, "bad ranks"));
  const int64_t heads = probs->dim(0), t_len = probs->dim(1), s_len = probs->dim(2);
  const int64_t hd = v->dim(1);
  PTESHARE_CHECK(in.Check(heads > 0 && hd % heads == 0 && v->dim(0) == s_len &&
                              out->dim(0) == t_len && out->dim(1) == hd,
                          "shapes do not match"));
  const int64_t d = hd / heads;
  for (int64_t t = 0; t < t_len; ++t) {
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t i = 0; i < d; ++i) {
        float sum = 0.0f;
        for (int64_t s = 0; s < s_len; ++s) {
          sum += probs->f32()[(h * t_len + t) * s_len + s] * v->f32()[s * hd + h * d + i];
        }
        out->f32()[t * hd + h * d + i] = sum;
      }
    }
  }
  return Status::Ok();
}

Status Convolution(std::vector<RuntimeValue>& values, std::span<const int32_t> args) {
  Args in("aten::convolution.out", values, args);
  PTESHARE_CHECK(in.Expect(11));
  PTESHARE_TRY(x, in.Tensor(0));
  PTESHARE_TRY(w, in.Tensor(1));
  PTESHARE_TRY(stride, in.IntList(3));
  PTESHARE_TRY(padding, in.IntList(4));
  PTESHARE_TRY(dilation, in.IntList(5));
  PTESHARE_TRY(groups, in.Int(8));
  PTESHARE_TRY(out, in.Tensor(9));
  PTESHARE_CHECK(in.Check(stride == std::vector<int64_t>{1, 1} &&
                              dilation == std::vector<int64_t>{1, 1} && *groups == 1 &&
                              padding.size() == 2 && padding[0] == padding[1],
                          "only stride 1, dilation 1, groups 1, square padding"));
  PTESHARE_CHECK(in.Check(x->rank() == 4 && w->rank() == 4 && out->rank() == 4 && x->dim(0) == 1,
                          "x, w, out must be 4-D with batch 1"));
  const int64_t cin = x->dim(1), h = x->dim(2), wd = x->dim(3);
  const int64_t cout = w->dim(0), k = w->dim(2), p = padding[0];
  const int64_t ho = h + 2 * p - k + 1, wo = wd + 2 * p - k + 1;
  PTESHARE_CHECK(in.Check(w->dim(1) == cin && w->dim(3) == k && out->dim(1) == cout &&
                              out->dim(2) == ho && out->dim(3) == wo,
                          "shapes do not match the convolution"));
  for (int64_t o = 0; o < cout; ++o) {
    for (int64_t y = 0; y < ho; ++y) {
      for (int64_t xx = 0; xx < wo; ++xx) {
        float sum = 0.0f;
        for (int64_t c = 0; c < cin; ++c) {
          for (int64_t i = 0; i < k; ++i) {
            for (int64_t j = 0; j < k; ++j) {
              const int64_t sy = y + i - p, sx = xx + j - p;
              if (sy < 0 || sy >= h || sx < 0 || sx >= wd) continue;
              sum += w->f32()[((o * cin + c) * k + i) * k + j] * x->f32()[(c * h + sy) * wd + sx];
            }
          }
        }
        out->f32()[(o * ho + y) * wo + xx] = sum;
      }
    }
  }
  return Status::Ok();
}

constexpr NamedKernel kKernels[] = {
    {"aten::relu", "out", Relu},
    {"llama::rms_norm", "out", RmsNorm},
    {"aten::linear", "out", Linear},
    {"aten::cat", "out", Cat},
    {"aten::view_copy", "out", ViewCopy},
    {"aten::_local_scalar_dense", "", LocalScalarDense},
    {"llama::update_cache", "out", UpdateCache},
    {"llama::attention_scores", "out", AttentionScores},
    {"llama::attention_mix", "out", AttentionMix},
    {"aten::convolution", "out", Convolution},
};

}  // namespace

Kernel FindKernel(std::string_view name, std::string_view overload) {
  if (Kernel kernel = FindIn(kKernels, name, overload)) return kernel;
  return FindPortableKernel(name, overload);
}

Status RunDelegateStandIn(std::span<const uint8_t> processed, std::vector<RuntimeValue>& values,
                          std::span<const int32_t> args) {
  std::vector<TensorRef*> floats;
  int64_t* first_int = nullptr;
  std::vector<bool*> flags;
  for (int32_t index : args) {
    if (index < 0 || static_cast<size_t>(index) >= values.size()) {
      return Error{"delegate: arg value " + std::to_string(index) + " out of range"};
    }
    RuntimeValue& v = values[index];
    if (v.kind == ValueKind::kTensor && v.tensor.scalar_type == fb::ScalarType::FLOAT) {
      floats.push_back(&v.tensor);
    } else if (v.kind == ValueKind::kInt) {
      if (first_int == nullptr) first_int = &v.int_value;
      v.int_value += 1;
    } else if (v.kind == ValueKind::kBool) {
      flags.push_back(&v.bool_value);
    }
  }
  if (!floats.empty()) {
    TensorRef& out = *floats.back();
    for (size_t k = 0; k + 1 < floats.size(); ++k) {
      if (floats[k]->numel() != out.numel()) {
        return Error{"delegate: input of " + std::to_string(floats[k]->numel()) +
                     " elements, output of " + std::to_string(out.numel())};
      }
    }
    for (uint64_t i = 0; i < out.numel(); ++i) {
      float sum = 1.0f;
      if (floats.size() == 1) sum += out.f32()[i];
      for (size_t k = 0; k + 1 < floats.size(); ++k) sum += floats[k]->f32()[i];
      out.f32()[i] = sum;
    }
  }
  const int64_t limit = processed.empty() ? 1 : processed[0];
  for (bool* flag : flags) *flag = first_int == nullptr || *first_int >= limit;
  return Status::Ok();
}

}  // namespace pteshare::reference
