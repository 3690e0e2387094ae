import Glibc
exit(Daemon.run(CommandLine.arguments))
