// The libFuzzer entry point of `navhost-fuzz` (`make fuzz`, docs/fuzzing.md). This file holds nothing else: libFuzzer
// brings its own `main`. The work is in `NavHostFuzzing`, which the test suite runs too.
import NavHostFuzzing

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    VarlinkFuzzing.runOnMainThread(Array(UnsafeBufferPointer(start: data, count: count)))
    return 0
}
