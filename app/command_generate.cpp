// rmgsort generate: keys are generated chunk by chunk in parallel while the previous chunk is
// being written, so files larger than memory come out at the disk's speed.
#include <array>

#include "app/commands.hpp"
#include "app/whole_keys.hpp"
#include "report/size_parse.hpp"
#include "generate/generate.hpp"
#include "core/error.hpp"
#include "io/host_buffer.hpp"
#include "io/output_file.hpp"
#include "io/standard_descriptors.hpp"
#include "io/uring_writer.hpp"

namespace rmgsort {
namespace {

// 64 MiB per chunk: many times the oneTBB grain, and two of them fit any machine.
constexpr std::uint64_t kGenerateChunkBytes = std::uint64_t{64} << 20;

}  // namespace

int run_generate(const GenerateOptions& options) {
  if (!options.layout.is_bare_key())  // (interim: the record paths land command by command)
    throw Error("records (--record-size, --key-offset, bytes:N keys) are not supported by this command yet");
  const std::size_t width = key_width(options.type);
  const std::uint64_t count = options.count ? *options.count : whole_keys("--size", *options.size, options.type);
  if (count > UINT64_MAX / width) throw Error("--count: " + std::to_string(count) + " keys do not fit in 64-bit sizes");
  validate_distribution(options.distribution, options.type);

  if (options.output == "-" && hold_closed_standard_descriptors().output)
    throw Error("standard output is closed: nowhere to write the keys; use -o FILE");
  refuse_closed_standard_descriptor(options.output, "-o " + options.output);
  OutputFile output = OutputFile::create(options.output);
  const std::string output_name = output.is_stdout() ? std::string("standard output") : output.path();
  Progress progress(progress_mode_beside_keys(options.progress, options.output == "-"));
  progress.phase("generating " + output_name, count * width);

  // Two buffers: one is written while the other is filled.
  const std::uint64_t keys_per_chunk = kGenerateChunkBytes / width;
  const std::uint64_t buffer_bytes = std::min<std::uint64_t>(count, keys_per_chunk) * width;
  std::array<HostBuffer, 2> buffers{HostBuffer(buffer_bytes), HostBuffer(buffer_bytes)};
  ChunkWriter writer(output.fd(), output_name);
  std::size_t current = 0;
  for (std::uint64_t first = 0; first < count; first += keys_per_chunk) {
    const std::uint64_t n = std::min(keys_per_chunk, count - first);
    std::byte* chunk = buffers[current].data();
    visit_key_type(options.type, [&]<class T>(T) {
      generate_keys(reinterpret_cast<T*>(chunk), first, n, count, options.distribution, options.seed);
    });
    writer.append(std::span<const std::byte>(chunk, n * width));  // returns once the other buffer is free
    progress.advance(n * width);
    current ^= 1;
  }
  writer.finish();
  output.commit();
  progress.finish();
  return kExitOk;
}

}  // namespace rmgsort
