import CZlib

/// A small PNG encoder for the menu's colour dots: 8-bit RGBA, no interlace, filter 0 on
/// every row, the image data deflated by zlib and every chunk's CRC from zlib's `crc32`.
public enum PNG {
    /// `rgba`: width × height × 4 bytes, rows top to bottom, not premultiplied.
    public static func encode(width: Int, height: Int, rgba: [UInt8]) -> [UInt8] {
        precondition(width > 0 && height > 0 && rgba.count == width * height * 4)
        var raw = [UInt8]()
        raw.reserveCapacity((width * 4 + 1) * height)
        for y in 0..<height {
            raw.append(0)
            raw.append(contentsOf: rgba[(y * width * 4)..<((y + 1) * width * 4)])
        }
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header = [UInt8]()
        header += bigEndian(UInt32(width))
        header += bigEndian(UInt32(height))
        header += [8, 6, 0, 0, 0]
        chunk("IHDR", header, into: &out)
        chunk("IDAT", deflate(raw), into: &out)
        chunk("IEND", [], into: &out)
        return out
    }

    /// A colour dot (the tray's project rows): a disk of `colour` on transparency.
    public static func dot(_ colour: RGB, size: Int = 16) -> [UInt8] {
        let pixmap = TrayIcon(mark: .project(colour)).draw(size: size)
        var rgba = [UInt8](repeating: 0, count: size * size * 4)
        for i in 0..<(size * size) {
            rgba[i * 4] = pixmap.argb[i * 4 + 1]
            rgba[i * 4 + 1] = pixmap.argb[i * 4 + 2]
            rgba[i * 4 + 2] = pixmap.argb[i * 4 + 3]
            rgba[i * 4 + 3] = pixmap.argb[i * 4]
        }
        return encode(width: size, height: size, rgba: rgba)
    }

    static func deflate(_ data: [UInt8]) -> [UInt8] {
        var length = compressBound(uLong(data.count))
        var out = [UInt8](repeating: 0, count: Int(length))
        let status = out.withUnsafeMutableBufferPointer { o in
            data.withUnsafeBufferPointer { i in compress2(o.baseAddress, &length, i.baseAddress, uLong(data.count), 9) }
        }
        precondition(status == Z_OK, "zlib compress2 failed: \(status)")
        return Array(out[0..<Int(length)])
    }

    static func chunk(_ type: String, _ body: [UInt8], into out: inout [UInt8]) {
        let typeBytes = Array(type.utf8)
        out += bigEndian(UInt32(body.count))
        let typed = typeBytes + body
        out += typed
        let crc = typed.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
        out += bigEndian(UInt32(crc))
    }

    static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
}
