#include "rewriter/patch/arena_vectors.h"

#include <string>

#include "rewriter/program/program_tables.h"
#include "schema/wire.h"

namespace pteshare {
namespace {

// NonConstBufferDevice as the appended tables store it: the soffset, then
// buffer_idx (int32), device_type and device_index (int8), padded to 4.
constexpr uint16_t kDeviceTableSize = 12;
constexpr uint16_t kBufferIdxAt = 4, kDeviceTypeAt = 8, kDeviceIndexAt = 9;

// Bytes appended from a file offset, with alignment by file offset.
class Appender {
 public:
  explicit Appender(uint64_t start) : start_(start) {}

  uint64_t at() const { return start_ + bytes_.size(); }
  void Pad(uint64_t alignment, uint64_t remainder = 0) {
    while (at() % alignment != remainder) bytes_.push_back(0);
  }
  void U8(uint8_t v) { bytes_.push_back(v); }
  void U16(uint16_t v) { Raw(&v, sizeof v); }
  void U32(uint32_t v) { Raw(&v, sizeof v); }
  void U64(uint64_t v) { Raw(&v, sizeof v); }
  /// Overwrites 4 bytes already appended at file offset `file_offset`.
  void SetU32(uint64_t file_offset, uint32_t v) {
    wire::StoreU32(bytes_.data() + (file_offset - start_), v);
  }
  std::vector<uint8_t> Take() { return std::move(bytes_); }

 private:
  void Raw(const void* p, size_t n) {  // little-endian host (wire.h)
    const auto* b = static_cast<const uint8_t*>(p);
    bytes_.insert(bytes_.end(), b, b + n);
  }
  uint64_t start_;
  std::vector<uint8_t> bytes_;
};

uint64_t OffsetIn(std::span<const uint8_t> file, const void* p) {
  return static_cast<uint64_t>(static_cast<const uint8_t*>(p) - file.data());
}

const uint8_t* FieldAddress(const fb::ExecutionPlan* plan, flatbuffers::voffset_t field) {
  return reinterpret_cast<const flatbuffers::Table*>(plan)->GetAddressOf(field);
}

ByteOverwrite Repoint(uint64_t field_at, uint64_t target) {
  std::vector<uint8_t> bytes(4);
  wire::StoreU32(bytes.data(), static_cast<uint32_t>(target - field_at));
  return {field_at, std::move(bytes)};
}

struct DeviceEntry {
  int32_t buffer_idx = 0;
  int8_t device_type = 0;
  int8_t device_index = 0;
};

}  // namespace

bool GrowsArenas(const ProgramView& view, const MethodPlan& method_plan) {
  return method_plan.arena_sizes_after.size() >
         view.methods[method_plan.method_index].arenas.size();
}

Result<GrownArenaVectors> BuildGrownArenaVectors(std::span<const uint8_t> file,
                                                 const ProgramView& view, const Plan& plan,
                                                 uint64_t start) {
  GrownArenaVectors out;
  Appender append(start);
  std::optional<uint64_t> device_vtable;  // one for every appended device table
  for (const MethodPlan& m : plan.methods) {
    if (!GrowsArenas(view, m)) continue;
    const MethodView& method = view.methods[m.method_index];
    const fb::ExecutionPlan* plan_table = &PlanTable(ProgramTable(file), method);
    const std::string label = "method " + method.name;
    const uint8_t* sizes_field =
        FieldAddress(plan_table, fb::ExecutionPlan::VT_NON_CONST_BUFFER_SIZES);
    const auto* sizes = plan_table->non_const_buffer_sizes();
    if (sizes_field == nullptr || sizes == nullptr || sizes->size() == 0) {
      return Error{label +
                   " stores no non_const_buffer_sizes, so the state arena cannot be "
                   "added to it; use --layout front"};
    }
    // non_const_buffer_sizes: the length at 4 mod 8, so the int64s are on 8.
    append.Pad(8, 4);
    const uint64_t sizes_at = append.at();
    append.U32(static_cast<uint32_t>(m.arena_sizes_after.size() + 1));
    append.U64(static_cast<uint64_t>(sizes->Get(0)));  // entry 0, reserved: kept
    for (uint64_t size : m.arena_sizes_after) append.U64(size);
    out.overwrites.push_back(Repoint(OffsetIn(file, sizes_field), sizes_at));
    ++out.vectors_appended;

    std::vector<DeviceEntry> added;
    for (const FrontRegion& f : plan.fronts) {
      if (f.state_arena && f.memory_id > method.arenas.size() && f.device != DeviceType::kCpu) {
        added.push_back(
            {static_cast<int32_t>(f.memory_id), static_cast<int8_t>(f.device), f.device_index});
      }
    }
    if (added.empty()) continue;
    const uint8_t* devices_field =
        FieldAddress(plan_table, fb::ExecutionPlan::VT_NON_CONST_BUFFER_DEVICE);
    if (devices_field == nullptr) {
      return Error{label + " stores no non_const_buffer_device, so its new arena " +
                   std::to_string(added.front().buffer_idx) +
                   " cannot be marked as on a device; use --layout front"};
    }
    std::vector<DeviceEntry> entries;
    for (const fb::NonConstBufferDevice* d : *plan_table->non_const_buffer_device()) {
      entries.push_back(
          {d->buffer_idx(), static_cast<int8_t>(d->device_type()), d->device_index()});
    }
    entries.insert(entries.end(), added.begin(), added.end());
    if (!device_vtable) {
      append.Pad(4);
      device_vtable = append.at();
      append.U16(10);  // vtable bytes: its size, the table size, three fields
      append.U16(kDeviceTableSize);
      append.U16(kBufferIdxAt);
      append.U16(kDeviceTypeAt);
      append.U16(kDeviceIndexAt);
    }
    append.Pad(4);
    const uint64_t vector_at = append.at();
    append.U32(static_cast<uint32_t>(entries.size()));
    for (size_t k = 0; k < entries.size(); ++k) append.U32(0);  // set below
    for (size_t k = 0; k < entries.size(); ++k) {
      const uint64_t table_at = append.at();  // a multiple of 4: every table is 12 bytes
      append.U32(static_cast<uint32_t>(table_at - *device_vtable));  // soffset: vtable before
      append.U32(static_cast<uint32_t>(entries[k].buffer_idx));
      append.U8(static_cast<uint8_t>(entries[k].device_type));
      append.U8(static_cast<uint8_t>(entries[k].device_index));
      append.U16(0);
      const uint64_t element_at = vector_at + 4 + 4 * k;
      append.SetU32(element_at, static_cast<uint32_t>(table_at - element_at));
    }
    out.overwrites.push_back(Repoint(OffsetIn(file, devices_field), vector_at));
    ++out.vectors_appended;
  }
  out.bytes = append.Take();
  return out;
}

}  // namespace pteshare
