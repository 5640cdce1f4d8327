import Foundation
import LLVSCore
import LLVSTesting
import Testing
@testable import LLVSZones

/// `conformance/formats/segments.json` (SPEC.md section 7): version log segments give the
/// records listed (a torn final record none), pack segments the packs listed and the damage
/// said, committing pack segments the version records listed; segments that are not one are
/// refused.
@Suite struct SegmentConformanceTests {
    @Test func segments() throws {
        let directory = try TemporaryDirectory()
        let (valid, invalid) = try ConformanceVectors.formatCases("segments.json")
        for (index, vector) in (valid + invalid).enumerated() {
            let path = directory.url.appendingPathComponent("segment-\(index)").path
            try vector.bytes.write(to: URL(fileURLWithPath: path))
            let isLog = vector.fields["kind"] as? String == "log"
            let isCommits = vector.fields["kind"] as? String == "commits"
            let layout: PackSegment.Layout = vector.fields["layout"] as? String == "zone" ? .zone : .shared
            if vector.errorClass != nil {
                #expect(throws: ZoneError.self, "\(vector.name)") {
                    if isLog {
                        _ = try FileVersionLog.readRecords(path: path, from: 0)
                    } else if isCommits {
                        _ = try PackSegment.scanCommits(path: path, from: 0)
                    } else {
                        _ = try PackSegment.scan(path: path, from: 0, layout: layout, zone: .values)
                    }
                }
                continue
            }
            if isCommits {
                let records = try PackSegment.scanCommits(path: path, from: 0).records
                #expect(try records == (try #require(vector.fields["records"] as? [String])).map(ConformanceVectors.bytes), "\(vector.name)")
            }
            if isLog {
                let records = try FileVersionLog.readRecords(path: path, from: 0).records
                #expect(try records == (try #require(vector.fields["records"] as? [String])).map(ConformanceVectors.bytes), "\(vector.name)")
            } else {
                let expected = try #require(vector.fields["packs"] as? [[String: Any]])
                var found: [[String]] = []
                var damaged = false
                for zone in layout == .shared ? [PackSegment.ZoneTag.values, .maps] : [.values] {
                    let scan = try PackSegment.scan(path: path, from: 0, layout: layout, zone: zone)
                    found += scan.entries.map { ["\(zone.rawValue)", $0.version.rawValue, "\($0.offset)"] }
                    damaged = damaged || scan.damage != nil
                }
                let wanted = expected.map { ["\($0["zone"] as? Int ?? -1)", $0["version"] as? String ?? "", "\($0["offset"] as? Int ?? -1)"] }
                #expect(found.sorted { $0.lexicographicallyPrecedes($1) } == wanted.sorted { $0.lexicographicallyPrecedes($1) }, "\(vector.name)")
                #expect(damaged == vector.fields["damaged"] as? Bool, "\(vector.name)")
            }
        }
    }
}
