// Page-aligned host memory for whole inputs and outputs: a plain anonymous mmap, so that the GPU layer
// can cudaHostRegister it and O_DIRECT can read into it.
#pragma once

#include <cstddef>
#include <span>

namespace rmgsort {

class HostBuffer {
 public:
  // O_DIRECT transfers whole 4096-byte blocks, so the capacity is always a multiple of this: a direct
  // read of a file's last partial block lands inside the buffer.
  static constexpr std::size_t kAlignment = 4096;

  HostBuffer() noexcept = default;
  // Maps round_up(bytes, 4096) bytes of zeroed, not yet touched memory (0 maps nothing: data() is
  // nullptr). Throws rmgsort::Error("cannot allocate N bytes of host memory: ...") on failure.
  explicit HostBuffer(std::size_t bytes);
  ~HostBuffer();

  HostBuffer(HostBuffer&& other) noexcept;
  HostBuffer& operator=(HostBuffer&& other) noexcept;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  [[nodiscard]] std::byte* data() noexcept { return data_; }
  [[nodiscard]] const std::byte* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  [[nodiscard]] std::span<std::byte> bytes() noexcept { return {data_, size_}; }
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return {data_, size_}; }

  template <class T>
  [[nodiscard]] T* as() noexcept {
    return reinterpret_cast<T*>(data_);
  }
  template <class T>
  [[nodiscard]] const T* as() const noexcept {
    return reinterpret_cast<const T*>(data_);
  }

  // Makes size() == new_bytes >= size(), keeping the contents. The memory may move (mremap), so
  // pointers into the buffer are invalid afterwards, and so is a cudaHostRegister of it.
  void grow(std::size_t new_bytes);
  // Makes size() == new_bytes <= size() and returns the memory past round_up(new_bytes, 4096).
  void shrink(std::size_t new_bytes);

 private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

// Backs every page of [data, data + bytes) with memory now, from `threads` threads at once, keeping
// the contents. A fresh buffer's first touch is otherwise taken one page fault at a time by whoever
// touches it first; when that is cudaHostRegister, the kernel pins the pages from one thread, which
// on GPU hosts whose memory is a virtual machine's (memory that grows as it is touched) ran at 2.8 GB/s: 23 s for 64 GB.
// Memory that cannot be had ends the process as any first touch would (SIGBUS or the OOM killer).
void populate_pages(std::byte* data, std::size_t bytes, unsigned threads);

}  // namespace rmgsort
