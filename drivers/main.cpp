// The `rsmc` executable: the command line (drivers/cli.hpp) with the built-in models.
#include "drivers/cli.hpp"

int main(int argc, char** argv) { return rsmc::drivers::run_cli(argc, argv); }
