# io/ benchmarks; included from tests/bench/CMakeLists.txt. scripts/bench_io.sh drives read_bench.
add_executable(read_bench ${CMAKE_CURRENT_LIST_DIR}/read_bench.cpp)
target_link_libraries(read_bench PRIVATE rmgsort::io)
