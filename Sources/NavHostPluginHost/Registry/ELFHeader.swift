/// The start of an ELF file's header: enough to tell a shared object for this machine from anything else before
/// `dlopen` sees the file, so a text file named `.so` is reported as such rather than as a `dlerror()` string.
package struct ELFHeader: Sendable, Hashable {
    /// The ELF class: 1 for 32-bit, 2 for 64-bit.
    package var fileClass: UInt8
    /// The byte order: 1 for little-endian, 2 for big-endian.
    package var byteOrder: UInt8
    /// The object type, `e_type`: 2 for an executable, 3 for a shared object (`ET_DYN`).
    package var objectType: UInt16
    /// The machine, `e_machine`: 62 for x86-64, 183 for AArch64.
    package var machine: UInt16

    /// `ET_DYN`, a shared object.
    package static let sharedObjectType: UInt16 = 3

    /// How many bytes ``init(bytes:)`` needs: `e_ident` (16), `e_type` (2), `e_machine` (2).
    package static let prefixLength = 20

    /// Reads the header from the first bytes of a file; `nil` when they are not an ELF header.
    package init?(bytes: [UInt8]) {
        guard bytes.count >= Self.prefixLength, bytes[0..<4] == [0x7f, 0x45, 0x4c, 0x46] else { return nil }
        let fileClass = bytes[4]
        let byteOrder = bytes[5]
        guard fileClass == 1 || fileClass == 2, byteOrder == 1 || byteOrder == 2 else { return nil }
        func half(at offset: Int) -> UInt16 {
            let (low, high) = byteOrder == 1 ? (bytes[offset], bytes[offset + 1]) : (bytes[offset + 1], bytes[offset])
            return UInt16(low) | UInt16(high) << 8
        }
        self.fileClass = fileClass
        self.byteOrder = byteOrder
        self.objectType = half(at: 16)
        self.machine = half(at: 18)
    }

    /// What this process can load: its word size, byte order and machine.
    package static var host: (fileClass: UInt8, byteOrder: UInt8, machine: UInt16?) {
        let fileClass: UInt8 = MemoryLayout<Int>.size == 8 ? 2 : 1
        let byteOrder: UInt8 = 1.littleEndian == 1 ? 1 : 2
        #if arch(x86_64)
            return (fileClass, byteOrder, 62)
        #elseif arch(arm64)
            return (fileClass, byteOrder, 183)
        #else
            return (fileClass, byteOrder, nil)
        #endif
    }

    /// Why this file cannot be loaded here, or `nil` when it is a shared object for this machine.
    package var problem: String? {
        guard objectType == Self.sharedObjectType else {
            return "it is an ELF file of type \(objectType), not a shared object (ET_DYN)"
        }
        let host = Self.host
        guard fileClass == host.fileClass, byteOrder == host.byteOrder else {
            return "it is a \(fileClass == 2 ? 64 : 32)-bit \(byteOrder == 1 ? "little" : "big")-endian ELF file"
        }
        if let machine = host.machine, self.machine != machine {
            return "it is built for ELF machine \(self.machine); this one is \(machine)"
        }
        return nil
    }
}
