// libFuzzer's entry point for the client-message decoder, compiled together with Core's sources by
// scripts/fuzz-decoder. Any input may be refused; none may trap, and what is accepted must encode
// back to the same message.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecoder(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    guard let message = try? ClientMessage.decode(data) else { return 0 }
    let again = try? ClientMessage.decode(message.encoded())
    if again != message {
        fatalError("\(message) does not survive encoding: \(String(describing: again))")
    }
    return 0
}
