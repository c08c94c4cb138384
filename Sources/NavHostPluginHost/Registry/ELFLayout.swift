/// Where an ELF file says its parts are: the program header table, the section header table, each loadable segment
/// and each section with contents. A file cut short (a copy interrupted, a disk that filled up) has a valid header and
/// a valid checksum in a manifest written after it, yet `dlopen` maps pages past its end and the first touch of one
/// kills the process with `SIGBUS`. The registry checks that every part fits the file before `dlopen` sees it.
package struct ELFLayout: Sendable {
    private let bytes: [UInt8]
    private let is64Bit: Bool
    private let littleEndian: Bool

    /// Reads the layout of the ELF file `bytes` (its whole contents); `nil` when they do not start with an ELF header.
    package init?(bytes: [UInt8]) {
        guard let header = ELFHeader(bytes: bytes) else { return nil }
        self.bytes = bytes
        self.is64Bit = header.fileClass == 2
        self.littleEndian = header.byteOrder == 1
    }

    /// What lies past the end of the file, or `nil` when every part fits.
    package var truncation: String? {
        let size = UInt64(bytes.count)
        let headerSize: UInt64 = is64Bit ? 64 : 52
        guard size >= headerSize else { return "the ELF header is cut short (\(size) of \(headerSize) bytes)" }
        let programTable = table(
            offset: is64Bit ? word(at: 32) : UInt64(word32(at: 28)),
            entrySize: UInt64(half(at: is64Bit ? 54 : 42)),
            count: UInt64(half(at: is64Bit ? 56 : 44))
        )
        let sectionTable = table(
            offset: is64Bit ? word(at: 40) : UInt64(word32(at: 32)),
            entrySize: UInt64(half(at: is64Bit ? 58 : 46)),
            count: UInt64(half(at: is64Bit ? 60 : 48))
        )
        for (name, table) in [("program header table", programTable), ("section header table", sectionTable)] {
            guard table.end <= size else {
                return
                    "its \(name) ends at byte \(table.end), past the end of the file (\(size) bytes): the file is truncated"
            }
        }
        // Loadable segments (PT_LOAD: p_offset, p_filesz); sections with contents (not SHT_NULL or SHT_NOBITS:
        // sh_offset, sh_size).
        let segments = Fields(type: 0, offset: is64Bit ? 8 : 4, size: is64Bit ? 32 : 16) { $0 == 1 }
        let sections = Fields(type: 4, offset: is64Bit ? 24 : 16, size: is64Bit ? 32 : 20) { $0 != 0 && $0 != 8 }
        if let problem = entryPastEnd(of: programTable, named: "loadable segment", fields: segments, size: size) {
            return problem
        }
        return entryPastEnd(of: sectionTable, named: "section", fields: sections, size: size)
    }

    /// Where an entry of a program or section header table keeps its type, the start of its bytes in the file and
    /// their length, and which types occupy bytes of the file.
    private struct Fields {
        var type: UInt64
        var offset: UInt64
        var size: UInt64
        var occupiesFile: (UInt32) -> Bool
    }

    /// The first entry of `table` whose bytes lie past the end of the file, said in words.
    private func entryPastEnd(
        of table: (offset: UInt64, entrySize: UInt64, count: UInt64, end: UInt64),
        named name: String,
        fields: Fields,
        size: UInt64
    ) -> String? {
        for index in 0..<table.count {
            let entry = table.offset + index * table.entrySize
            guard fields.occupiesFile(word32(at: entry + fields.type)) else { continue }
            let offset = is64Bit ? word(at: entry + fields.offset) : UInt64(word32(at: entry + fields.offset))
            let length = is64Bit ? word(at: entry + fields.size) : UInt64(word32(at: entry + fields.size))
            let (end, overflow) = offset.addingReportingOverflow(length)
            guard !overflow, end <= size else {
                return
                    "its \(name) \(index) ends at byte \(end), past the end of the file (\(size) bytes): the file is truncated"
            }
        }
        return nil
    }

    // MARK: - Reading fields

    private func table(offset: UInt64, entrySize: UInt64, count: UInt64) -> (
        offset: UInt64, entrySize: UInt64, count: UInt64, end: UInt64
    ) {
        let (length, overflow1) = entrySize.multipliedReportingOverflow(by: count)
        let (end, overflow2) = offset.addingReportingOverflow(length)
        return (offset, entrySize, count, overflow1 || overflow2 ? .max : end)
    }

    private func byte(at offset: UInt64) -> UInt64 {
        offset < UInt64(bytes.count) ? UInt64(bytes[Int(offset)]) : 0
    }

    private func field(at offset: UInt64, width: UInt64) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<width {
            let shift = littleEndian ? index * 8 : (width - 1 - index) * 8
            value |= byte(at: offset + index) << shift
        }
        return value
    }

    private func half(at offset: UInt64) -> UInt16 { UInt16(field(at: offset, width: 2)) }
    private func word32(at offset: UInt64) -> UInt32 { UInt32(field(at: offset, width: 4)) }
    private func word(at offset: UInt64) -> UInt64 { field(at: offset, width: 8) }
}
