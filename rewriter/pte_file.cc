#include "rewriter/pte_file.h"

#include <boost/interprocess/file_mapping.hpp>
#include <boost/interprocess/mapped_region.hpp>
#include <system_error>

namespace pteshare {
namespace bip = boost::interprocess;
namespace fs = std::filesystem;

PteFile::PteFile(PteFile&&) noexcept = default;
PteFile& PteFile::operator=(PteFile&&) noexcept = default;
PteFile::~PteFile() = default;

Result<PteFile> PteFile::Open(const fs::path& path, Mode mode) {
  std::error_code ec;
  fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) return Error{"cannot open: no such file"};
  if (fs::is_directory(status)) return Error{"is a directory, not a .pte file"};
  if (!fs::is_regular_file(status)) return Error{"is not a regular file"};
  uintmax_t size = fs::file_size(path, ec);
  if (ec) return Error{"cannot read the file size: " + ec.message()};

  PteFile file;
  file.path_ = path;
  file.mode_ = mode;
  if (size == 0) {
    // Nothing to map (a zero-length mapping is an error); let the layout
    // reader say what is wrong with an empty file.
    const fb::Program* ignored = nullptr;
    return ReadPteLayout({}, &ignored).error();
  }
  const bip::mode_t access = mode == Mode::kReadWrite ? bip::read_write : bip::read_only;
  try {
    file.mapping_ = std::make_unique<bip::file_mapping>(path.c_str(), access);
    file.region_ =
        std::make_unique<bip::mapped_region>(*file.mapping_, access, 0, static_cast<size_t>(size));
  } catch (const bip::interprocess_exception& e) {
    return Error{std::string("cannot map the file: ") + e.what()};
  }
  file.data_ = static_cast<uint8_t*>(file.region_->get_address());
  file.size_ = file.region_->get_size();
  // Only the flatbuffer is read; tell the kernel not to read ahead into the
  // segments.
  file.region_->advise(bip::mapped_region::advice_random);

  Result<PteLayout> layout = ReadPteLayout(file.bytes(), &file.program_);
  if (!layout.ok()) return layout.error();
  file.layout_ = std::move(layout).value();
  return file;
}

std::span<uint8_t> PteFile::mutable_bytes() {
  if (mode_ != Mode::kReadWrite) return {};
  return {data_, size_};
}

Status PteFile::Flush() {
  if (mode_ != Mode::kReadWrite || !region_) return Status::Ok();
  if (!region_->flush(0, 0, /*async=*/false)) return Error{"msync of the mapping failed"};
  return Status::Ok();
}

}  // namespace pteshare
