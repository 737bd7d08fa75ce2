// read_bench FILE [options]: reads FILE with read_file into a fresh HostBuffer and prints the rate.
// scripts/bench_io.sh compares it with cat and dd on the same file in the same run.
//
//   --threads N      reader threads (0: read_file's default)
//   --depth N        requests in flight per thread
//   --block-kib N    bytes per request, in KiB
//   --direct MODE    automatic | prefer | never
//   --repeat N       read N times (a fresh buffer each time), report each and the best
//   --prefault       touch the buffer before timing (separates page-fault cost from read cost)
//   --chunk-mib N    also read FILE through a ChunkReader in N MiB chunks, XOR-summing each chunk
//                    (the work `rmgsort check` does), and report that
//   --ahead N        ChunkReader chunks read ahead
//   --write PATH     afterwards, write the buffer to PATH with write_file and report that too
//   --write-chunk-mib N  write through a ChunkWriter in N MiB appends (write-behind) instead
//   --no-preallocate write without reserving the size first (WriteOptions::preallocate = false)
//   --csv            one machine-readable line per run: op,seconds,GB/s,direct_bytes,threads
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/error.hpp"
#include "io/host_buffer.hpp"
#include "io/input_file.hpp"
#include "io/uring_reader.hpp"
#include "io/uring_writer.hpp"

namespace {

struct Arguments {
  std::string file;
  std::string write_path;
  rmgsort::ReadOptions read;
  rmgsort::WriteOptions write;
  std::size_t write_chunk_bytes = 0;
  std::size_t read_chunk_bytes = 0;
  rmgsort::ChunkReaderOptions chunk;
  int repeat = 1;
  bool prefault = false;
  bool csv = false;
};

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: read_bench FILE [--threads N] [--depth N] [--block-kib N] "
               "[--direct automatic|prefer|never] [--repeat N] [--prefault] [--chunk-mib N] [--ahead N] "
               "[--write PATH] [--write-chunk-mib N] "
               "[--no-preallocate] "
               "[--csv]\n");
  std::exit(2);
}

Arguments parse(int argc, char** argv) {
  Arguments args;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage();
      return argv[++i];
    };
    if (flag == "--threads") {
      args.read.threads = static_cast<unsigned>(std::stoul(value()));
    } else if (flag == "--depth") {
      args.read.queue_depth = args.write.queue_depth = static_cast<unsigned>(std::stoul(value()));
    } else if (flag == "--block-kib") {
      args.read.block_bytes = args.write.block_bytes = std::stoul(value()) * 1024;
    } else if (flag == "--direct") {
      const std::string mode = value();
      if (mode == "automatic")
        args.read.direct = rmgsort::DirectIo::automatic;
      else if (mode == "prefer")
        args.read.direct = rmgsort::DirectIo::prefer;
      else if (mode == "never")
        args.read.direct = rmgsort::DirectIo::never;
      else
        usage();
      args.write.direct = args.read.direct != rmgsort::DirectIo::never;
      args.chunk.direct = args.read.direct;
    } else if (flag == "--repeat") {
      args.repeat = std::stoi(value());
    } else if (flag == "--prefault") {
      args.prefault = true;
    } else if (flag == "--write") {
      args.write_path = value();
    } else if (flag == "--chunk-mib") {
      args.read_chunk_bytes = std::stoul(value()) << 20;
    } else if (flag == "--ahead") {
      args.chunk.chunks_ahead = static_cast<unsigned>(std::stoul(value()));
    } else if (flag == "--write-chunk-mib") {
      args.write_chunk_bytes = std::stoul(value()) << 20;
    } else if (flag == "--no-preallocate") {
      args.write.preallocate = false;
    } else if (flag == "--csv") {
      args.csv = true;
    } else if (args.file.empty() && flag[0] != '-') {
      args.file = flag;
    } else {
      usage();
    }
  }
  if (args.file.empty()) usage();
  return args;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void report(const Arguments& args, const char* op, std::uint64_t bytes, double seconds, std::uint64_t direct_bytes,
            unsigned threads) {
  const double rate = static_cast<double>(bytes) / seconds / 1e9;
  if (args.csv) {
    std::printf("%s,%.4f,%.3f,%llu,%u\n", op, seconds, rate, static_cast<unsigned long long>(direct_bytes), threads);
  } else {
    std::printf("%-6s %llu bytes in %.4f s = %.3f GB/s (O_DIRECT %llu bytes, %u threads)\n", op,
                static_cast<unsigned long long>(bytes), seconds, rate, static_cast<unsigned long long>(direct_bytes),
                threads);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Arguments args = parse(argc, argv);
  try {
    const rmgsort::InputFile input = rmgsort::open_input(args.file);
    if (!input.regular) throw rmgsort::Error(input.display_name() + ": read_bench needs a regular file");
    double best = 0;
    rmgsort::HostBuffer kept;
    for (int run = 0; run < args.repeat; ++run) {
      rmgsort::HostBuffer buffer(input.size);
      if (args.prefault) std::memset(buffer.data(), 0, buffer.capacity());
      const auto start = std::chrono::steady_clock::now();
      const rmgsort::ReadStats stats = rmgsort::read_file(input, buffer.data(), input.size, args.read);
      const double seconds = seconds_since(start);
      report(args, "read", input.size, seconds, stats.direct_bytes, stats.threads);
      if (best == 0 || seconds < best) best = seconds;
      kept = std::move(buffer);  // unmapping the previous buffer is outside the timed region
    }
    if (args.repeat > 1 && !args.csv) {
      std::printf("best   %.4f s = %.3f GB/s\n", best, static_cast<double>(input.size) / best / 1e9);
    }
    if (args.read_chunk_bytes > 0) {
      const auto start = std::chrono::steady_clock::now();
      rmgsort::ChunkReader reader(input, args.read_chunk_bytes, args.chunk);
      std::uint64_t sum = 0;
      for (auto chunk = reader.next(); !chunk.empty(); chunk = reader.next()) {
        const auto* words = reinterpret_cast<const std::uint64_t*>(chunk.data());
        for (std::size_t i = 0; i < chunk.size() / 8; ++i) sum ^= words[i];
      }
      const double seconds = seconds_since(start);
      report(args, "chunks", input.size, seconds, reader.direct_bytes(), 1);
      if (sum == 42) std::printf(" ");  // keeps the loop
    }
    if (!args.write_path.empty()) {
      const int fd = open(args.write_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd < 0) rmgsort::throw_errno(args.write_path, "cannot open for writing");
      const auto start = std::chrono::steady_clock::now();
      rmgsort::WriteStats stats;
      if (args.write_chunk_bytes == 0) {
        stats = rmgsort::write_file(fd, args.write_path, kept.data(), input.size, args.write);
      } else {
        rmgsort::ChunkWriter writer(fd, args.write_path, args.write, input.size);
        for (std::uint64_t at = 0; at < input.size; at += args.write_chunk_bytes) {
          writer.append({kept.data() + at, std::min<std::uint64_t>(args.write_chunk_bytes, input.size - at)});
        }
        stats = writer.finish();
      }
      const double seconds = seconds_since(start);
      close(fd);
      report(args, "write", input.size, seconds, stats.direct_bytes, 1);
      if (!args.csv) std::printf("       %llu resubmissions\n", static_cast<unsigned long long>(stats.resubmissions));
    }
  } catch (const rmgsort::Error& error) {
    std::fprintf(stderr, "read_bench: %s\n", error.what());
    return 2;
  }
  return 0;
}
