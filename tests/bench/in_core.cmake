# The in-core sort's benchmark; included from tests/bench/CMakeLists.txt. scripts/bench_in_core.sh
# drives it on a GPU host. A CUDA source (the baseline launches CUB, which comes with the
# toolkit), so it is built only with CUDA. The CUDA runtime comes through rmgsort::gpu
# (CUDA::cudart_static): linking CUDA::cudart as well would load a second, separate runtime.
if(RMGSORT_WITH_CUDA)
  add_executable(in_core_bench ${CMAKE_CURRENT_LIST_DIR}/in_core_bench.cu)
  target_link_libraries(in_core_bench PRIVATE rmgsort::gpu rmgsort::host rmgsort::generate)
endif()

# What fresh, registered and recycled host memory and tmpfs writes cost (scripts/bench_host_memory.sh).
if(RMGSORT_WITH_CUDA)
  add_executable(host_memory_bench ${CMAKE_CURRENT_LIST_DIR}/host_memory_bench.cu)
  target_link_libraries(host_memory_bench PRIVATE rmgsort::gpu rmgsort::io)
endif()

# Records on the GPUs against one GPU's CUB SortPairs (scripts/bench_records_gpu.sh).
if(RMGSORT_WITH_CUDA)
  add_executable(records_gpu_bench ${CMAKE_CURRENT_LIST_DIR}/records_gpu_bench.cu)
  target_link_libraries(records_gpu_bench PRIVATE rmgsort::sort rmgsort::gpu rmgsort::host rmgsort::io rmgsort::report)
endif()

# Keys larger than the GPUs, host memory to host memory through the rounds (scripts/bench_rounds.sh).
if(RMGSORT_WITH_CUDA)
  add_executable(rounds_bench ${CMAKE_CURRENT_LIST_DIR}/rounds_bench.cu ${CMAKE_CURRENT_LIST_DIR}/rounds_on_gpus_bench.cu)
  target_link_libraries(rounds_bench PRIVATE rmgsort::sort rmgsort::gpu rmgsort::host rmgsort::io rmgsort::report
                                             rmgsort::generate)
endif()
