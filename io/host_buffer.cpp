#include "io/host_buffer.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <string>
#include <utility>

#include "io/error.hpp"

namespace rmgsort {
namespace {

constexpr std::size_t round_up(std::size_t bytes) {
  return (bytes + HostBuffer::kAlignment - 1) / HostBuffer::kAlignment * HostBuffer::kAlignment;
}

[[noreturn]] void throw_allocation_failure(std::size_t bytes, int err) {
  throw Error("cannot allocate " + std::to_string(bytes) + " bytes of host memory: " + std::strerror(err));
}

// Huge pages cut the page faults of first touch by 512x and the TLB misses of the radix passes. The
// advice is only advice: where THP is off it fails or is ignored, and the buffer works the same.
void advise_huge_pages(void* address, std::size_t bytes) { (void)madvise(address, bytes, MADV_HUGEPAGE); }

}  // namespace

HostBuffer::HostBuffer(std::size_t bytes) : size_(bytes), capacity_(round_up(bytes)) {
  if (bytes > 0 && capacity_ < bytes) throw_allocation_failure(bytes, ENOMEM);  // round_up overflowed
  if (capacity_ == 0) return;
  void* address = mmap(nullptr, capacity_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (address == MAP_FAILED) throw_allocation_failure(bytes, errno);
  data_ = static_cast<std::byte*>(address);
  advise_huge_pages(data_, capacity_);
}

HostBuffer::~HostBuffer() {
  if (data_ != nullptr) munmap(data_, capacity_);
}

HostBuffer::HostBuffer(HostBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      capacity_(std::exchange(other.capacity_, 0)) {}

HostBuffer& HostBuffer::operator=(HostBuffer&& other) noexcept {
  if (this != &other) {
    HostBuffer old(std::move(*this));
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
  }
  return *this;
}

void HostBuffer::grow(std::size_t new_bytes) {
  RMGSORT_EXPECTS(new_bytes >= size_, "HostBuffer::grow cannot shrink");
  const std::size_t new_capacity = round_up(new_bytes);
  if (new_capacity < new_bytes) throw_allocation_failure(new_bytes, ENOMEM);
  if (new_capacity > capacity_) {
    if (data_ == nullptr) {
      *this = HostBuffer(new_bytes);
      return;
    }
    void* address = mremap(data_, capacity_, new_capacity, MREMAP_MAYMOVE);
    if (address == MAP_FAILED) throw_allocation_failure(new_bytes, errno);
    data_ = static_cast<std::byte*>(address);
    capacity_ = new_capacity;
    advise_huge_pages(data_, capacity_);
  }
  size_ = new_bytes;
}

void HostBuffer::shrink(std::size_t new_bytes) {
  RMGSORT_EXPECTS(new_bytes <= size_, "HostBuffer::shrink cannot grow");
  const std::size_t new_capacity = round_up(new_bytes);
  if (new_capacity == 0) {
    *this = HostBuffer();
    return;
  }
  if (new_capacity < capacity_) {
    // Shrinking in place never moves the mapping and cannot fail for lack of memory.
    if (munmap(data_ + new_capacity, capacity_ - new_capacity) == 0) capacity_ = new_capacity;
  }
  size_ = new_bytes;
}

}  // namespace rmgsort
