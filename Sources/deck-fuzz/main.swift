import DeckFuzz
#if DECK_FUZZ
import CFuzzer
#endif
import Glibc

/// `deck-fuzz`: libFuzzer's driver over the `FuzzTarget` named by DECK_FUZZ_TARGET, in a
/// -sanitize=fuzzer build (`make fuzz`). The test suite runs the saved corpus through the same
/// targets without it.
nonisolated(unsafe) var selected = FuzzTarget.rpc

/// libFuzzer's entry point: one input through the selected target.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    selected.run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

#if DECK_FUZZ
let name = getenv("DECK_FUZZ_TARGET").map { String(cString: $0) } ?? ""
guard let target = FuzzTarget(rawValue: name) else {
    print("set DECK_FUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))")
    exit(2)
}
selected = target
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOneInput))
#else
print("deck-fuzz: built without -sanitize=fuzzer; run `make fuzz` (the test suite runs the corpus)")
exit(2)
#endif
