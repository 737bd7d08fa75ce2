// What fresh host memory costs on the machine at hand, for planning the out-of-core sort's buffers:
// page-locking untouched memory (cudaHostRegister faults it in from one thread), populating it from
// every core first (populate_pages) and registering it then, in one piece or in pieces from several
// threads, populating memory freed a moment ago, and writing a file of the same size to DIR by
// write() from one thread against memcpy into a shared mapping from every core. Every buffer stays
// mapped until the next step's is measured, so that each "fresh" figure is for memory this process
// has never touched; and memory the driver allocates page-locked (cudaHostAlloc) and frees. Prints a
// markdown table.
// Usage: host_memory_bench GIB [DIR]   (DIR: where the write test puts its files, default /dev/shm)
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "io/host_buffer.hpp"

namespace {

void check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  std::fprintf(stderr, "host_memory_bench: %s: %s\n", what, cudaGetErrorString(status));
  std::exit(2);
}

void check_errno(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "host_memory_bench: %s: %s\n", what.c_str(), std::strerror(errno));
  std::exit(2);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

template <class F>
double timed(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return seconds_since(start);
}

// Runs body(begin, end) over [0, bytes) in 256 MiB pieces on `threads` threads.
template <class F>
void in_parallel(std::size_t bytes, unsigned threads, F&& body) {
  constexpr std::size_t kPiece = std::size_t{256} << 20;
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      for (std::size_t begin = next.fetch_add(kPiece); begin < bytes; begin = next.fetch_add(kPiece)) {
        body(begin, std::min(bytes, begin + kPiece));
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
}

struct Row {
  std::string step;
  double seconds;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: host_memory_bench GIB [DIR]\n");
    return 2;
  }
  const std::size_t bytes = std::size_t(std::atof(argv[1]) * double(std::size_t{1} << 30)) / 4096 * 4096;
  const std::string dir = argc > 2 ? argv[2] : "/dev/shm";
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  int devices = 0;
  check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
  for (int d = 0; d < devices; ++d) {  // contexts first: their creation is not what is measured
    check(cudaSetDevice(d), "cudaSetDevice");
    check(cudaFree(nullptr), "cudaFree(nullptr)");
  }
  check(cudaSetDevice(0), "cudaSetDevice");
  std::vector<Row> rows;
  auto reg = [&](rmgsort::HostBuffer& buffer) {
    check(cudaHostRegister(buffer.data(), buffer.capacity(), cudaHostRegisterPortable), "cudaHostRegister");
  };

  rmgsort::HostBuffer populated(bytes);
  rows.push_back({"populate_pages, fresh memory, all cores",
                  timed([&] { rmgsort::populate_pages(populated.data(), bytes, threads); })});
  rows.push_back({"cudaHostRegister, memory populated before", timed([&] { reg(populated); })});

  // The same bytes page-locked as 8 registrations from 8 threads at once (a copy may not span two
  // registrations: the row after the table says whether this machine's driver allows it).
  check(cudaHostUnregister(populated.data()), "cudaHostUnregister");
  constexpr unsigned kPieces = 8;
  const std::size_t piece = (bytes / kPieces + 4095) / 4096 * 4096;
  rows.push_back({"cudaHostRegister in 8 pieces from 8 threads, memory populated before", timed([&] {
                    std::vector<std::thread> registering;
                    for (unsigned p = 0; p < kPieces && p * piece < bytes; ++p)
                      registering.emplace_back([&, p] {
                        check(cudaHostRegister(populated.data() + p * piece, std::min(piece, bytes - p * piece),
                                               cudaHostRegisterPortable),
                              "cudaHostRegister (a piece)");
                      });
                    for (std::thread& thread : registering) thread.join();
                  })});
  std::string spanning = "(one piece only)";
  if (piece < bytes) {
    void* device = nullptr;
    check(cudaMalloc(&device, 2 * 4096), "cudaMalloc");
    const cudaError_t status =
        cudaMemcpy(device, populated.data() + piece - 4096, 2 * 4096, cudaMemcpyHostToDevice);
    spanning = status == cudaSuccess ? "works" : std::string("fails: ") + cudaGetErrorString(status);
    (void)cudaGetLastError();
    check(cudaFree(device), "cudaFree");
  }
  for (unsigned p = 0; p < kPieces && p * piece < bytes; ++p)
    check(cudaHostUnregister(populated.data() + p * piece), "cudaHostUnregister (a piece)");
  reg(populated);

  rmgsort::HostBuffer untouched(bytes);
  rows.push_back({"cudaHostRegister, fresh memory (faults it in itself)", timed([&] { reg(untouched); })});

  rows.push_back({"cudaHostUnregister (both)", timed([&] {
                    check(cudaHostUnregister(populated.data()), "cudaHostUnregister");
                    check(cudaHostUnregister(untouched.data()), "cudaHostUnregister");
                  })});

  // Memory the driver allocates page-locked itself, against registering memory of the process's own.
  void* allocated = nullptr;
  rows.push_back({"cudaHostAlloc (portable)", timed([&] {
                    check(cudaHostAlloc(&allocated, bytes, cudaHostAllocPortable), "cudaHostAlloc");
                  })});
  rows.push_back({"first write of cudaHostAlloc's memory, memset from all cores", timed([&] {
                    in_parallel(bytes, threads, [&](std::size_t b, std::size_t e) {
                      std::memset(static_cast<std::byte*>(allocated) + b, 1, e - b);
                    });
                  })});
  rows.push_back({"cudaFreeHost", timed([&] { check(cudaFreeHost(allocated), "cudaFreeHost"); })});

  rmgsort::HostBuffer touched(bytes);
  rows.push_back({"first touch by memset from all cores, fresh memory", timed([&] {
                    in_parallel(bytes, threads, [&](std::size_t b, std::size_t e) {
                      std::memset(touched.data() + b, 1, e - b);
                    });
                  })});
  populated = rmgsort::HostBuffer();
  untouched = rmgsort::HostBuffer();
  rmgsort::HostBuffer recycled(bytes);
  rows.push_back({"populate_pages, memory freed just before, all cores",
                  timed([&] { rmgsort::populate_pages(recycled.data(), bytes, threads); })});
  recycled = rmgsort::HostBuffer();

  const std::string path = dir + "/host_memory_bench.out";
  rows.push_back({"write() from one thread, 64 MiB calls, to " + dir, timed([&] {
                    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
                    check_errno(fd >= 0, "open " + path);
                    constexpr std::size_t kCall = std::size_t{64} << 20;
                    for (std::size_t done = 0; done < bytes;) {
                      const ssize_t n = ::write(fd, touched.data() + done, std::min(kCall, bytes - done));
                      check_errno(n > 0, "write " + path);
                      done += std::size_t(n);
                    }
                    check_errno(::close(fd) == 0, "close " + path);
                  })});
  ::unlink(path.c_str());
  rows.push_back({"ftruncate + mmap + memcpy from all cores, to " + dir, timed([&] {
                    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
                    check_errno(fd >= 0, "open " + path);
                    check_errno(::ftruncate(fd, off_t(bytes)) == 0, "ftruncate " + path);
                    void* map = ::mmap(nullptr, bytes, PROT_WRITE, MAP_SHARED, fd, 0);
                    check_errno(map != MAP_FAILED, "mmap " + path);
                    in_parallel(bytes, threads, [&](std::size_t b, std::size_t e) {
                      std::memcpy(static_cast<std::byte*>(map) + b, touched.data() + b, e - b);
                    });
                    check_errno(::munmap(map, bytes) == 0, "munmap " + path);
                    check_errno(::close(fd) == 0, "close " + path);
                  })});
  ::unlink(path.c_str());
  rows.push_back({"pwrite from all cores, 256 MiB pieces, to " + dir, timed([&] {
                    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
                    check_errno(fd >= 0, "open " + path);
                    in_parallel(bytes, threads, [&](std::size_t b, std::size_t e) {
                      for (std::size_t done = b; done < e;) {
                        const ssize_t n = ::pwrite(fd, touched.data() + done, e - done, off_t(done));
                        check_errno(n > 0, "pwrite " + path);
                        done += std::size_t(n);
                      }
                    });
                    check_errno(::close(fd) == 0, "close " + path);
                  })});
  ::unlink(path.c_str());

  std::printf("# host memory, %.1f GiB per step, %u threads, %d GPUs\n", double(bytes) / double(1 << 30), threads,
              devices);
  std::printf("| step | seconds | GB/s |\n|---|---|---|\n");
  for (const Row& row : rows) {
    std::printf("| %s | %.3f | %.2f |\n", row.step.c_str(), row.seconds, double(bytes) / row.seconds / 1e9);
  }
  std::printf("\nA copy spanning two registrations: %s\n", spanning.c_str());
  return 0;
}
