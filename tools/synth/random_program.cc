#include "tools/synth/random_program.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "tools/synth/operators.h"
#include "tools/synth/spec_helpers.h"

namespace pteshare::synth {
namespace {

/// splitmix64: fully specified, so a seed means the same program on every
/// machine and standard library (std distributions are not portable).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n).
  int32_t Below(int32_t n) { return static_cast<int32_t>(Next() % static_cast<uint64_t>(n)); }
  /// Uniform in [lo, hi].
  int32_t Between(int32_t lo, int32_t hi) { return lo + Below(hi - lo + 1); }
  bool Percent(int32_t p) { return Below(100) < p; }
  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    return items[static_cast<size_t>(Below(static_cast<int32_t>(items.size())))];
  }

 private:
  uint64_t state_;
};

enum class BufferKind { kAccumulator, kCache };

/// A mutable buffer of the program, the same in every method that has it.
struct BufferDesign {
  std::string name;
  BufferKind kind = BufferKind::kAccumulator;
  std::vector<int32_t> sizes;  // [rows, width] or [seq, heads, head_dim]
  MemoryId memory_id = 1;
  enum class Initial { kNone, kZeros, kRandom } initial = Initial::kNone;
  std::vector<uint8_t> initial_bytes;
  std::vector<bool> in_method;
};

/// A float tensor value a later op may read, with its shape.
struct Operand {
  ValueIndex value = 0;
  std::vector<int32_t> sizes;
  /// False for the few tensors without allocation_info: nothing may alias them.
  bool planned = true;
  int32_t rows() const { return sizes[0]; }
  int32_t cols() const { return sizes[1]; }
};

int32_t Numel(const std::vector<int32_t>& sizes) {
  int32_t n = 1;
  for (int32_t s : sizes) n *= s;
  return n;
}

std::vector<uint8_t> LongBytes(const std::vector<int64_t>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(int64_t));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

/// Writes one method: keeps the pool of readable operands and the counters
/// that make every constant distinct.
class MethodGenerator {
 public:
  MethodGenerator(Rng& rng, uint64_t seed, int32_t arenas, std::vector<BufferDesign>& buffers,
                  size_t method_index, std::vector<BufferNaming>& namings, bool device_arena)
      : rng_(rng),
        seed_(seed),
        arenas_(arenas),
        buffers_(buffers),
        method_index_(method_index),
        namings_(namings),
        device_arena_(device_arena) {}

  MethodSpec Generate(const std::string& name) {
    m_.name = name;
    rows_ = rng_.Between(1, 4);
    const int32_t inputs = rng_.Between(1, 2);
    for (int32_t i = 0; i < inputs; ++i) {
      Operand in = NewActivation({rows_, rng_.Pick(std::vector<int32_t>{4, 8})});
      m_.inputs.push_back(in.value);
      pool_.push_back(in);
    }
    eps_ = m_.Add(Double{1e-5});
    for (size_t b = 0; b < buffers_.size(); ++b) {
      if (buffers_[b].in_method[method_index_]) AddBuffer(b);
    }
    const bool has_loop = rng_.Percent(30);
    const int32_t ops = rng_.Between(3, 9);
    const int32_t loop_at = has_loop ? rng_.Below(ops) : -1;
    for (int32_t i = 0; i < ops; ++i) {
      if (i == loop_at) Loop();
      RandomOp();
    }
    for (const auto& [design, value] : state_) UseBuffer(*design, value);
    ChooseOutputs();
    if (device_arena_) m_.arena_devices.push_back(ArenaDevice{2, DeviceType::CUDA, 0});
    return std::move(m_);
  }

 private:
  // ---- values ---------------------------------------------------------------

  MemoryId RandomArena() { return static_cast<MemoryId>(rng_.Between(1, arenas_)); }

  /// A planned float tensor in a random arena.
  Operand NewActivation(std::vector<int32_t> sizes) {
    Tensor t;
    t.sizes = sizes;
    t.memory = PlanInArena{RandomArena()};
    return Operand{m_.Add(std::move(t)), std::move(sizes)};
  }

  /// An op's result: now and then one the runtime allocates itself (no
  /// allocation_info), which the planners must leave alone.
  Operand NewResult(std::vector<int32_t> sizes) {
    if (!rng_.Percent(5)) return NewActivation(std::move(sizes));
    Tensor t;
    t.sizes = sizes;
    t.memory = NotPlanned{};
    return Operand{m_.Add(std::move(t)), std::move(sizes), false};
  }

  ValueIndex Weight(std::vector<int32_t> sizes, int32_t fan_in) {
    auto bytes = RandomFloatBytes(seed_, next_stream_++, static_cast<size_t>(Numel(sizes)),
                                  1.0f / std::sqrt(static_cast<float>(fan_in)));
    return AddConstant(m_, std::move(sizes), std::move(bytes));
  }

  ValueIndex LongConstant(const std::vector<int64_t>& values) {
    Tensor t;
    t.scalar_type = ScalarType::LONG;
    t.sizes = {static_cast<int32_t>(values.size())};
    t.constant_data = LongBytes(values);
    t.memory = NotPlanned{};
    return m_.Add(std::move(t));
  }

  ValueIndex IntListOf(const std::vector<int32_t>& sizes) {
    IntList list;
    for (int32_t s : sizes) list.items.push_back(AddInt(m_, s));
    return m_.Add(std::move(list));
  }

  /// A static view: another Tensor value over the same bytes, no
  /// instruction linking it to its base (as the exporter emits them).
  Operand View(const Operand& base, std::vector<int32_t> sizes) {
    return Operand{AddAlias(m_, base.value, sizes), sizes};
  }

  void AddBuffer(size_t b) {
    BufferDesign& design = buffers_[b];
    Tensor t;
    t.sizes = design.sizes;
    t.memory = PlanInArena{design.memory_id};
    if (design.initial != BufferDesign::Initial::kNone) t.initial_state = design.initial_bytes;
    const bool unnamed = design.initial != BufferDesign::Initial::kNone && unnamed_buffers_;
    if (!unnamed) t.fully_qualified_name = design.name;
    ValueIndex v = m_.Add(std::move(t));
    if (unnamed) namings_.push_back(BufferNaming{m_.name, v, design.name});
    state_.emplace_back(&design, v);
  }

  // ---- ops ------------------------------------------------------------------

  /// Any operand reshaped and mixed into [rows, cols] by a flatten, a
  /// linear layer and a view_copy: every output element depends on every
  /// input element.
  Operand Project(const Operand& x, int32_t rows, int32_t cols) {
    const int32_t n = Numel(x.sizes);
    Operand flat = NewActivation({1, n});
    CallOut(m_, ops::kViewCopy, {x.value, IntListOf({1, n})}, flat.value);
    Operand mixed = NewActivation({1, rows * cols});
    CallOut(m_, ops::kLinear, {flat.value, Weight({rows * cols, n}, n)}, mixed.value);
    Operand out = NewActivation({rows, cols});
    CallOut(m_, ops::kViewCopy, {mixed.value, IntListOf({rows, cols})}, out.value);
    return out;
  }

  /// A pool operand of `sizes`, or a projection of a random one.
  Operand OperandShaped(const std::vector<int32_t>& sizes) {
    std::vector<Operand> same;
    for (const Operand& o : pool_) {
      if (o.sizes == sizes) same.push_back(o);
    }
    if (!same.empty() && rng_.Percent(70)) return rng_.Pick(same);
    return Project(rng_.Pick(pool_), sizes[0], sizes[1]);
  }

  void RandomOp() {
    const Operand x = rng_.Pick(pool_);
    switch (rng_.Below(12)) {
      case 0:
      case 1: {  // add / mul
        Operand y = OperandShaped(x.sizes);
        Operand out = NewResult(x.sizes);
        if (rng_.Percent(50)) {
          CallAdd(m_, x.value, y.value, out.value);
        } else {
          CallOut(m_, ops::kMul, {x.value, y.value}, out.value);
        }
        pool_.push_back(out);
        break;
      }
      case 2: {  // relu
        Operand out = NewResult(x.sizes);
        CallOut(m_, ops::kRelu, {x.value}, out.value);
        pool_.push_back(out);
        break;
      }
      case 3: {  // linear
        const int32_t features = rng_.Pick(std::vector<int32_t>{4, 8, 12});
        Operand out = NewResult({x.rows(), features});
        CallOut(m_, ops::kLinear, {x.value, Weight({features, x.cols()}, x.cols())}, out.value);
        pool_.push_back(out);
        break;
      }
      case 4: {  // rms_norm
        Operand out = NewResult(x.sizes);
        CallOut(m_, ops::kRmsNorm, {x.value, Weight({x.cols()}, 1), eps_}, out.value);
        pool_.push_back(out);
        break;
      }
      case 5: {  // softmax over the last dim
        Operand out = NewActivation(x.sizes);
        CallOut(m_, ops::kSoftmax, {x.value, AddInt(m_, -1), AddBool(m_, false)}, out.value);
        pool_.push_back(out);
        break;
      }
      case 6:
        Cat(x);
        break;
      case 7: {  // view_copy to [cols, rows]
        Operand out = NewActivation({x.cols(), x.rows()});
        CallOut(m_, ops::kViewCopy, {x.value, IntListOf(out.sizes)}, out.value);
        pool_.push_back(out);
        break;
      }
      case 8:
        InPlaceOrView(x);
        break;
      case 9: {  // embedding with constant indices
        const int32_t vocab = rng_.Between(2, 6);
        std::vector<int64_t> indices(static_cast<size_t>(x.rows()));
        for (int64_t& i : indices) i = rng_.Below(vocab);
        Operand out = NewActivation({x.rows(), x.cols()});
        CallEmbedding(m_, Weight({vocab, x.cols()}, 1), LongConstant(indices), out.value);
        Operand sum = NewActivation(x.sizes);
        CallAdd(m_, out.value, x.value, sum.value);
        pool_.push_back(sum);
        break;
      }
      case 10:
        MoveOrFree(x);
        break;
      default: {  // delegate: out = 1 + x + y
        Operand y = OperandShaped(x.sizes);
        Operand out = NewActivation(x.sizes);
        m_.Emit(DelegateCall{AddDelegate(1), {x.value, y.value, out.value}});
        pool_.push_back(out);
        break;
      }
    }
  }

  void Cat(const Operand& x) {
    const bool along_rows = rng_.Percent(50);
    Operand y = along_rows ? OperandShaped({rng_.Between(1, 3), x.cols()})
                           : OperandShaped({x.rows(), rng_.Pick(std::vector<int32_t>{4, 8})});
    std::vector<ValueIndex> items{x.value, y.value};
    if (rng_.Percent(25)) {  // an empty tensor in the list: planned, zero bytes
      Operand empty = NewActivation(along_rows ? std::vector<int32_t>{0, x.cols()}
                                               : std::vector<int32_t>{x.rows(), 0});
      items.insert(items.begin() + 1, empty.value);
    }
    std::vector<int32_t> sizes = along_rows ? std::vector<int32_t>{x.rows() + y.rows(), x.cols()}
                                            : std::vector<int32_t>{x.rows(), x.cols() + y.cols()};
    ValueIndex list = m_.Add(TensorList{items});
    Operand out = NewActivation(sizes);
    CallOut(m_, ops::kCat, {list, AddInt(m_, along_rows ? 0 : 1)}, out.value);
    pool_.push_back(out);
  }

  /// An in-place add into a fresh activation, or a static view of `x`.
  void InPlaceOrView(const Operand& x) {
    if (rng_.Percent(50)) {
      Operand target = NewActivation(x.sizes);
      CallOut(m_, ops::kRelu, {x.value}, target.value);
      Operand y = OperandShaped(x.sizes);
      Operand result = View(target, x.sizes);  // the in-place result aliases it
      CallAdd(m_, target.value, y.value, result.value);
      pool_.push_back(result);
    } else if (x.planned) {
      pool_.push_back(View(x, {x.cols(), x.rows()}));
    }
  }

  void MoveOrFree(const Operand& x) {
    if (rng_.Percent(70)) {
      Operand from = NewActivation(x.sizes);
      CallOut(m_, ops::kRelu, {x.value}, from.value);
      Operand to = View(from, x.sizes);
      m_.Emit(MoveCall{from.value, to.value});
      pool_.push_back(to);
    } else {
      m_.Emit(FreeCall{x.value});  // a no-op for planned memory
    }
  }

  int32_t AddDelegate(uint8_t limit) {
    m_.delegates.push_back(Delegate{"ReferenceStandIn", {limit}, {}});
    return static_cast<int32_t>(m_.delegates.size() - 1);
  }

  /// counter = 0; do { t = relu(acc); d = 1 + t (delegate, counter++,
  /// done = counter >= limit); acc += d (in place) } while (!done).
  void Loop() {
    ValueIndex counter = AddInt(m_, 0);
    ValueIndex done = AddBool(m_, false);
    m_.Call(ops::kLocalScalarDense, {LongConstant({0}), counter});
    Operand acc;
    std::vector<std::pair<const BufferDesign*, ValueIndex>> accumulators;
    for (const auto& s : state_) {
      if (s.first->kind == BufferKind::kAccumulator) accumulators.push_back(s);
    }
    if (!accumulators.empty() && rng_.Percent(40)) {
      const auto& [design, value] = rng_.Pick(accumulators);
      acc = Operand{value, design->sizes};
    } else {
      const Operand& x = rng_.Pick(pool_);
      acc = NewActivation(x.sizes);
      CallOut(m_, ops::kRelu, {x.value}, acc.value);
    }
    const int32_t body = static_cast<int32_t>(m_.instructions.size());
    Operand t = NewActivation(acc.sizes);
    CallOut(m_, ops::kRelu, {acc.value}, t.value);
    Operand d = NewActivation(acc.sizes);
    m_.Emit(DelegateCall{AddDelegate(static_cast<uint8_t>(rng_.Between(1, 3))),
                         {t.value, d.value, counter, done}});
    Operand updated = View(acc, acc.sizes);
    CallAdd(m_, acc.value, d.value, updated.value);
    m_.Emit(JumpFalseCall{done, body});
    pool_.push_back(updated);
  }

  // ---- state ----------------------------------------------------------------

  void UseBuffer(const BufferDesign& design, ValueIndex buffer) {
    if (design.kind == BufferKind::kAccumulator) {
      // state += f(activations), in place; then read the state back.
      Operand y = OperandShaped(design.sizes);
      Operand updated = View(Operand{buffer, design.sizes}, design.sizes);
      CallAdd(m_, buffer, y.value, updated.value);
      Operand read = View(Operand{buffer, design.sizes}, design.sizes);
      Operand out = NewActivation(design.sizes);
      CallOut(m_, ops::kMul, {read.value, y.value}, out.value);
      pool_.push_back(out);
      return;
    }
    // A KV-style cache [seq, heads, head_dim]: write rows, attend over all.
    const int32_t seq = design.sizes[0], heads = design.sizes[1], dim = heads * design.sizes[2];
    const int32_t steps = rng_.Between(1, std::min(seq, 3));
    const int32_t start = rng_.Below(seq - steps + 1);
    ValueIndex start_pos = AddInt(m_, start);
    if (rng_.Percent(50)) m_.Call(ops::kLocalScalarDense, {LongConstant({start}), start_pos});
    Operand value2d = Project(rng_.Pick(pool_), steps, dim);
    Operand value = NewActivation({steps, heads, design.sizes[2]});
    CallOut(m_, ops::kViewCopy, {value2d.value, IntListOf(value.sizes)}, value.value);
    Operand updated = View(Operand{buffer, design.sizes}, design.sizes);
    m_.Call(ops::kUpdateCache, {value.value, buffer, start_pos, updated.value, updated.value});

    Operand cache2d = View(Operand{buffer, design.sizes}, {seq, dim});
    Operand q = Project(rng_.Pick(pool_), steps, dim);
    Operand scores = NewActivation({heads, steps, seq});
    CallOut(m_, ops::kAttentionScores, {q.value, cache2d.value, start_pos, AddInt(m_, heads)},
            scores.value);
    Operand probs = NewActivation({heads, steps, seq});
    CallOut(m_, ops::kSoftmax, {scores.value, AddInt(m_, -1), AddBool(m_, false)}, probs.value);
    Operand mixed = NewActivation({steps, dim});
    CallOut(m_, ops::kAttentionMix, {probs.value, cache2d.value}, mixed.value);
    pool_.push_back(mixed);
  }

  void ChooseOutputs() {
    const int32_t count = rng_.Between(1, std::min<int32_t>(3, static_cast<int32_t>(pool_.size())));
    for (int32_t i = 0; i < count; ++i) {
      // Prefer recent results: they depend on most of the method.
      const int32_t recent = std::min(4, static_cast<int32_t>(pool_.size()));
      const size_t back = static_cast<size_t>(rng_.Below(recent));
      const ValueIndex v = pool_[pool_.size() - 1 - back].value;
      if (std::find(m_.outputs.begin(), m_.outputs.end(), v) == m_.outputs.end()) {
        m_.outputs.push_back(v);
      }
    }
  }

 public:
  bool unnamed_buffers_ = false;

 private:
  Rng& rng_;
  uint64_t seed_;
  int32_t arenas_;
  std::vector<BufferDesign>& buffers_;
  size_t method_index_;
  std::vector<BufferNaming>& namings_;
  bool device_arena_;
  MethodSpec m_;
  int32_t rows_ = 1;
  ValueIndex eps_ = 0;
  uint64_t next_stream_ = 0;
  std::vector<Operand> pool_;
  std::vector<std::pair<const BufferDesign*, ValueIndex>> state_;
};

std::vector<BufferDesign> DesignBuffers(Rng& rng, uint64_t seed, int32_t methods, int32_t arenas) {
  std::vector<BufferDesign> buffers(static_cast<size_t>(rng.Between(1, 3)));
  for (size_t b = 0; b < buffers.size(); ++b) {
    BufferDesign& d = buffers[b];
    // Random prefixes so that sorted-name order differs from creation order.
    d.name = std::string(1, static_cast<char>('a' + rng.Below(26))) + ".state." + std::to_string(b);
    d.kind = rng.Percent(40) ? BufferKind::kCache : BufferKind::kAccumulator;
    d.sizes = d.kind == BufferKind::kCache
                  ? std::vector<int32_t>{rng.Between(3, 8), rng.Between(1, 2),
                                         rng.Pick(std::vector<int32_t>{2, 4})}
                  : std::vector<int32_t>{rng.Between(1, 4), rng.Pick(std::vector<int32_t>{4, 8})};
    d.memory_id = static_cast<MemoryId>(rng.Between(1, arenas));
    d.initial = static_cast<BufferDesign::Initial>(rng.Below(3));
    const size_t count = static_cast<size_t>(Numel(d.sizes));
    if (d.initial == BufferDesign::Initial::kRandom) {
      d.initial_bytes = RandomFloatBytes(seed, 1000 + b, count, 1.0f);
    } else if (d.initial == BufferDesign::Initial::kZeros) {
      d.initial_bytes.assign(count * sizeof(float), 0);
    }
    d.in_method.assign(static_cast<size_t>(methods), false);
    for (int32_t m = 0; m < methods; ++m) d.in_method[m] = rng.Percent(70);
    // Every buffer in at least one method; the first in at least two.
    d.in_method[static_cast<size_t>(rng.Below(methods))] = true;
    if (b == 0) {
      for (int32_t m = 0; m < std::min(methods, 2); ++m) d.in_method[m] = true;
    }
  }
  return buffers;
}

}  // namespace

Result<RandomProgram> GenerateRandomProgram(uint64_t seed) {
  Rng rng(seed);
  RandomProgram program;
  const int32_t methods = rng.Percent(10) ? 1 : rng.Between(2, 3);
  const int32_t arenas = rng.Between(1, 3);
  const bool device_arena = arenas >= 2 && rng.Percent(30);
  const bool unnamed = rng.Percent(20);
  std::vector<BufferDesign> buffers = DesignBuffers(rng, seed, methods, arenas);
  for (int32_t m = 0; m < methods; ++m) {
    MethodGenerator generator(rng, seed * 31 + static_cast<uint64_t>(m), arenas, buffers,
                              static_cast<size_t>(m), program.namings, device_arena);
    generator.unnamed_buffers_ = unnamed;
    program.spec.methods.push_back(generator.Generate("method" + std::to_string(m)));
  }
  for (const BufferDesign& d : buffers) program.buffer_names.push_back(d.name);
  std::sort(program.buffer_names.begin(), program.buffer_names.end());
  return program;
}

}  // namespace pteshare::synth
