import DeckIsolation

PluginHostServer.main(Array(CommandLine.arguments.dropFirst()))
