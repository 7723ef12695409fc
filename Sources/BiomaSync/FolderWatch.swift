import BiomaCore
import BiomaSystem

#if canImport(Glibc)
import Glibc
#endif

/// Which peers' logs changed in a sync folder, from inotify: one descriptor to hand to the
/// process's event loop (`EventLoop.watch(fd:)`), read with `changes()` when it is readable.
/// Nothing is polled: while no file arrives, the descriptor stays quiet.
///
/// It watches `DIR/devices` (a new device's directory) and each device's directory but this
/// device's own (its writes are not news). Syncthing writes a file under a temporary name and
/// renames it into place (`IN_MOVED_TO`); a plain copy or an appending writer ends with
/// `IN_CLOSE_WRITE` or shows as `IN_MODIFY`.
public final class FolderWatch {
    /// The inotify descriptor, for the event loop; closed once, with the watch.
    public var fd: Int32 { inotify.fd }
    private let inotify: OwnedDescriptor
    private let folder: SyncFolder
    private let device: String
    private var devicesWatch: Int32 = -1
    /// inotify watch descriptor → the device whose directory it watches.
    private var watched: [Int32: String] = [:]

    /// Starts watching; a folder without `devices/`, or with a symbolic link there (not
    /// followed, as nothing in the folder is), is an error naming it.
    public init(folder: SyncFolder, device: String) throws(SyncFolderError) {
        self.folder = folder
        self.device = device
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw SyncFolderError("inotify", errno) }
        // The watch's alone from here on. Should the init throw below, Swift destroys the
        // half-made watch (every property is set) and the descriptor with it: closed once.
        inotify = OwnedDescriptor(fd)
        let devices = folder.root + "/devices"
        devicesWatch = inotify_add_watch(fd, devices, UInt32(IN_CREATE | IN_MOVED_TO | IN_ONLYDIR | IN_DONT_FOLLOW))
        guard devicesWatch >= 0 else {
            throw FolderRefusal(devices, code: errno, at: AT_FDCWD, devices, wanted: .directory).error
        }
        for peer in folder.peers(except: device) { add(peer) }
    }

    /// The peers watched now.
    public var peers: [String] { watched.values.sorted() }

    private func add(_ peer: String) {
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MODIFY | IN_CREATE | IN_ONLYDIR | IN_DONT_FOLLOW)
        let wd = inotify_add_watch(fd, folder.directory(of: peer), mask)
        if wd >= 0 { watched[wd] = peer }  // gone again already (or a link, not followed): reading it says so
    }

    /// Reads every pending event: the peers whose files changed, and new peers (now watched
    /// too). After an overflow of the kernel's queue every peer counts as changed.
    public func changes() -> Set<String> {
        var changed: Set<String> = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }  // EAGAIN: all read
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= n {
                let (wd, mask, length, name) = buffer.withUnsafeBytes { raw -> (Int32, UInt32, Int, String) in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let nameStart = offset + MemoryLayout<inotify_event>.size
                    let nameBytes = raw[nameStart..<(nameStart + Int(event.len))].prefix { $0 != 0 }
                    return (event.wd, event.mask, Int(event.len), String(decoding: nameBytes, as: UTF8.self))
                }
                offset += MemoryLayout<inotify_event>.size + length
                if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    for peer in folder.peers(except: device) where !watched.values.contains(peer) { add(peer) }
                    changed.formUnion(watched.values)
                } else if mask & UInt32(IN_IGNORED) != 0 {
                    watched[wd] = nil  // the directory went away
                } else if wd == devicesWatch {
                    if name != device && UUIDText.isValid(name) && !watched.values.contains(name) {
                        add(name)
                        changed.insert(name)  // files may have arrived before the watch did
                    }
                } else if let peer = watched[wd], SyncLog.segmentIndex(name) != nil {
                    changed.insert(peer)
                }
            }
        }
        return changed
    }
}
