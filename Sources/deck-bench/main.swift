import DeckBase
import Glibc

let status = Bench.run(CommandLine.arguments)
// Figures lost to a full disk are no run to record.
if let reason = StandardDescriptors.flushOutput() {
    printError("deck-bench: cannot write the output: \(reason)")
    exit(status == 0 ? 1 : status)
}
exit(status)
