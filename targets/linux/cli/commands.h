// The focal command-line tool's subcommands. Each takes the arguments after its name
// and returns the process exit code: 0 success, 1 failure, 2 bad usage.
#pragma once

namespace focal {
namespace cli {

int inspect_command(int argc, char** argv);
int verify_command(int argc, char** argv);
int run_command(int argc, char** argv);
int convert_command(int argc, char** argv);
int generate_command(int argc, char** argv);
int attention_command(int argc, char** argv);
int bench_command(int argc, char** argv);
int plan_command(int argc, char** argv);
int tokenize_command(int argc, char** argv);
int chat_command(int argc, char** argv);
int serve_command(int argc, char** argv);  // host builds with cpp-httplib (FOCAL_HAVE_SERVE)

// The whole tool: argv[0] is the program's name, argv[1] the command. Returns the exit
// code, as the commands do; exceptions from the standard library become exit code 1.
int run_cli(int argc, char** argv);

}  // namespace cli
}  // namespace focal
