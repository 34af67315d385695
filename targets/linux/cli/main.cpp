// focal: the command-line tool. `focal COMMAND --help` describes each command; the
// commands themselves are in the focal_cli library (cli/dispatch.cpp).
#include "cli/commands.h"

int main(int argc, char** argv) { return focal::cli::run_cli(argc, argv); }
