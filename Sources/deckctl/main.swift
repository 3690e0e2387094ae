import Glibc

exit(ControlClient.run(CommandLine.arguments))
