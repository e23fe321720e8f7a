import Foundation

/// Builds the binary records of the calendar cache: unsigned LEB128 integers, zigzag for signed ones, IEEE 754
/// doubles as their bit pattern (little-endian, so that dates come back exactly), strings as a length and UTF-8.
struct CacheByteWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func unsigned(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func count(_ value: Int) { unsigned(UInt64(max(value, 0))) }

    mutating func signed(_ value: Int64) { unsigned(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

    mutating func double(_ value: Double) {
        var bits = value.bitPattern
        for _ in 0..<8 {
            bytes.append(UInt8(truncatingIfNeeded: bits))
            bits >>= 8
        }
    }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            count(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    /// Appends bytes without a length.
    mutating func raw(_ value: some Sequence<UInt8>) { bytes.append(contentsOf: value) }

    mutating func data(_ value: some Collection<UInt8>) {
        count(value.count)
        bytes.append(contentsOf: value)
    }

    /// A 32-bit big-endian length, for the frames of a file.
    mutating func frameLength(_ value: Int) {
        let length = UInt32(clamping: value)
        bytes += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
    }
}

/// Reads what ``CacheByteWriter`` wrote; any read past the end or a malformed value throws ``Truncated``.
struct CacheByteReader {
    /// The record ended early or holds a value this version cannot read.
    struct Truncated: Error {}

    private let bytes: UnsafeRawBufferPointer
    private(set) var index: Int

    init(_ bytes: UnsafeRawBufferPointer, at index: Int = 0) {
        self.bytes = bytes
        self.index = index
    }

    var isAtEnd: Bool { index >= bytes.count }

    mutating func byte() throws(Truncated) -> UInt8 {
        guard index < bytes.count else { throw Truncated() }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func unsigned() throws(Truncated) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte()
            guard shift < 64 else { throw Truncated() }
            value |= UInt64(next & 0x7F) << shift
            if next < 0x80 { return value }
            shift += 7
        }
    }

    /// A count or length, at most what the record can hold.
    mutating func count() throws(Truncated) -> Int {
        let value = try unsigned()
        guard value <= UInt64(bytes.count) else { throw Truncated() }
        return Int(value)
    }

    mutating func signed() throws(Truncated) -> Int64 {
        let value = try unsigned()
        return Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }

    mutating func double() throws(Truncated) -> Double {
        guard index + 8 <= bytes.count else { throw Truncated() }
        var bits: UInt64 = 0
        for offset in (0..<8).reversed() { bits = bits << 8 | UInt64(bytes[index + offset]) }
        index += 8
        return Double(bitPattern: bits)
    }

    mutating func string() throws(Truncated) -> String {
        let length = try count()
        guard index + length <= bytes.count else { throw Truncated() }
        defer { index += length }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + length)]), as: UTF8.self)
    }

    /// Steps over a string without reading it.
    mutating func skipString() throws(Truncated) {
        let length = try count()
        guard index + length <= bytes.count else { throw Truncated() }
        index += length
    }

    mutating func data() throws(Truncated) -> Data {
        let length = try count()
        guard index + length <= bytes.count else { throw Truncated() }
        defer { index += length }
        return Data(UnsafeRawBufferPointer(rebasing: bytes[index..<(index + length)]))
    }

    mutating func frameLength() throws(Truncated) -> Int {
        guard index + 4 <= bytes.count else { throw Truncated() }
        var value = 0
        for offset in 0..<4 { value = value << 8 | Int(bytes[index + offset]) }
        index += 4
        return value
    }
}
