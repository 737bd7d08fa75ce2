// Owning handles for device memory, streams and events: every call checked, every release in the
// destructor (errors there are ignored: a destructor must not throw, and the run is failing anyway).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

#include "gpu/cuda_check.hpp"

namespace rmgsort {

// Makes `device` current for the scope and restores the previous one.
class ScopedDevice {
 public:
  explicit ScopedDevice(int device) {
    RMGSORT_CUDA_TRY(cudaGetDevice(&previous_));
    RMGSORT_CUDA_TRY(cudaSetDevice(device));
  }
  ~ScopedDevice() { (void)cudaSetDevice(previous_); }
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_ = 0;
};

// Memory from a CUDA allocator, released by the matching free function (cudaFree, cudaFreeHost).
class CudaMemory {
 public:
  CudaMemory() = default;
  ~CudaMemory() {
    if (data_) (void)free_(data_);
  }
  CudaMemory(CudaMemory&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)), free_(other.free_) {}
  CudaMemory& operator=(CudaMemory&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(bytes_, other.bytes_);
    std::swap(free_, other.free_);
    return *this;
  }
  template <class T = std::byte>
  [[nodiscard]] T* as() const {
    return static_cast<T*>(data_);
  }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }

 protected:
  using FreeFunction = cudaError_t (*)(void*);
  explicit CudaMemory(FreeFunction free) : free_(free) {}
  // Takes the result of an allocation of `bytes`; a failure throws Error("WHERE: cannot allocate...").
  void adopt(cudaError_t status, void* data, std::size_t bytes, const std::string& where, const std::string& what) {
    if (status != cudaSuccess) {
      (void)cudaGetLastError();
      throw Error(where + ": cannot allocate " + std::to_string(bytes) + " bytes for " + what + ": " +
                  cudaGetErrorString(status));
    }
    data_ = data;
    bytes_ = bytes;
  }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  FreeFunction free_ = nullptr;
};

class DeviceBuffer : public CudaMemory {
 public:
  DeviceBuffer() = default;
  // Allocates on the current device; an out-of-memory error names `what` and the device.
  DeviceBuffer(std::size_t bytes, const std::string& what) : CudaMemory(&cudaFree) {
    if (bytes == 0) return;
    void* data = nullptr;
    const cudaError_t status = cudaMalloc(&data, bytes);
    int device = -1;
    (void)cudaGetDevice(&device);
    adopt(status, data, bytes, "GPU " + std::to_string(device), what);
  }
};

class Stream {
 public:
  Stream() { RMGSORT_CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() {
    if (stream_) (void)cudaStreamDestroy(stream_);
  }
  Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  Stream& operator=(Stream&& other) noexcept {
    std::swap(stream_, other.stream_);
    return *this;
  }
  [[nodiscard]] cudaStream_t get() const { return stream_; }
  void synchronize() const { RMGSORT_CUDA_TRY(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  Event() { RMGSORT_CUDA_TRY(cudaEventCreate(&event_)); }
  ~Event() {
    if (event_) (void)cudaEventDestroy(event_);
  }
  Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  Event& operator=(Event&& other) noexcept {
    std::swap(event_, other.event_);
    return *this;
  }
  [[nodiscard]] cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream) const { RMGSORT_CUDA_TRY(cudaEventRecord(event_, stream)); }
  // Milliseconds from `start` to this event (both complete).
  [[nodiscard]] float since(const Event& start) const {
    float ms = 0;
    RMGSORT_CUDA_TRY(cudaEventElapsedTime(&ms, start.event_, event_));
    return ms;
  }

 private:
  cudaEvent_t event_ = nullptr;
};

// Page-locked host memory from cudaHostAlloc (portable to every device).
class PinnedHostBuffer : public CudaMemory {
 public:
  PinnedHostBuffer() = default;
  explicit PinnedHostBuffer(std::size_t bytes) : CudaMemory(&cudaFreeHost) {
    if (bytes == 0) return;
    void* data = nullptr;
    // Allocate before adopt(): its arguments are evaluated in no fixed order, and `data` must be
    // read after cudaHostAlloc wrote it.
    const cudaError_t status = cudaHostAlloc(&data, bytes, cudaHostAllocPortable);
    adopt(status, data, bytes, "host", "pinned host memory");
  }
};

}  // namespace rmgsort
