#include "app/commands.hpp"
#include "app/malloc_arenas.hpp"

int main(int argc, char** argv) {
  rmgsort::bound_malloc_arenas();
  return rmgsort::run_command_line(argc, argv);
}
