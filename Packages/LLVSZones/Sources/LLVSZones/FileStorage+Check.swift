import Foundation

extension FileStorage {
    /// Reads every file of the store at `root` and returns what is damaged: each pack (in
    /// a shared or zone pack segment or, in a store of format 1, a file of its own) is decoded and checked
    /// against its SHA-256 (packs no version refers to included), and each pack segment and
    /// version log segment must end with a whole record.
    /// Readers ignore an incomplete or failing final record (a write cut short by a crash,
    /// whose version was never acknowledged); a full check reports it, because damage to a
    /// segment's last record looks the same and would otherwise lose that version silently.
    ///
    /// - Complexity: One read of every file of the store.
    static func checkStoredBytes(root: URL) -> [StorageDamage] {
        var damage: [StorageDamage] = []
        let fileManager = FileManager.default
        for zone in ["values", "maps"] {
            let zoneURL = root.appendingPathComponent(zone, isDirectory: true)
            let shards = (try? fileManager.contentsOfDirectory(atPath: zoneURL.path)) ?? []
            for shard in shards.sorted() {
                let shardURL = zoneURL.appendingPathComponent(shard, isDirectory: true)
                let names = (try? fileManager.contentsOfDirectory(atPath: shardURL.path)) ?? []
                for name in names.sorted() where name.hasSuffix(".pack") {
                    let path = shardURL.appendingPathComponent(name).path
                    guard let bytes = fileManager.contents(atPath: path) else {
                        damage.append(StorageDamage(reason: "\(path) cannot be read"))
                        continue
                    }
                    do {
                        _ = try PackFile(decoding: bytes, path: path)
                    } catch {
                        damage.append(StorageDamage(reason: "\(error)"))
                    }
                }
            }
        }
        let segmentDirectories = ["values", "maps"].map {
            root.appendingPathComponent($0, isDirectory: true).appendingPathComponent(PackSegment.directoryName, isDirectory: true)
        } + [root.appendingPathComponent(PackSegment.sharedDirectoryName, isDirectory: true)]
        for segmentsURL in segmentDirectories {
            let names = (try? fileManager.contentsOfDirectory(atPath: segmentsURL.path)) ?? []
            for name in names.sorted() where PackSegment.isSegmentName(name) {
                let path = segmentsURL.appendingPathComponent(name).path
                guard let bytes = fileManager.contents(atPath: path) else {
                    damage.append(StorageDamage(reason: "\(path) cannot be read"))
                    continue
                }
                damage += PackSegment.check(bytes, path: path)
            }
        }
        let logURL = root.appendingPathComponent("versions", isDirectory: true)
        let segments = (try? fileManager.contentsOfDirectory(atPath: logURL.path)) ?? []
        for name in segments.sorted() where name.hasSuffix(".log") {
            let path = logURL.appendingPathComponent(name).path
            do {
                guard let bytes = fileManager.contents(atPath: path) else {
                    throw ZoneError.io(operation: "read", path: path, reason: "cannot open for reading")
                }
                guard !bytes.isEmpty else { continue }
                _ = try FileVersionLog.parseCompleteSegment(bytes, path: path)
            } catch {
                damage.append(StorageDamage(reason: "\(error) (a write cut short by a crash leaves this too; "
                                                + "the version it carried is not in the store)"))
            }
        }
        return damage
    }
}
