import Glibc

exit(Bench.run(CommandLine.arguments))
