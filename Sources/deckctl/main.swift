import Glibc

exit(ControlClient.finish(ControlClient.run(CommandLine.arguments)))
