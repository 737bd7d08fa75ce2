#include "app/commands.hpp"

int main(int argc, char** argv) { return rmgsort::run_command_line(argc, argv); }
