import Foundation

/// Collects figures, prints each as a JSON line on stdout as it is measured, and a table
/// on stderr at the end.
final class Report {
    struct Figure: Encodable {
        var workload: String
        var backend: String
        var metric: String
        var value: Double
        var unit: String
        var scale: String
        var parameters: [String: Int]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: DynamicKey.self)
            try container.encode(workload, forKey: DynamicKey("workload"))
            try container.encode(backend, forKey: DynamicKey("backend"))
            try container.encode(metric, forKey: DynamicKey("metric"))
            try container.encode(value, forKey: DynamicKey("value"))
            try container.encode(unit, forKey: DynamicKey("unit"))
            try container.encode(scale, forKey: DynamicKey("scale"))
            for (name, parameter) in parameters {
                try container.encode(parameter, forKey: DynamicKey(name))
            }
        }
    }

    struct DynamicKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    let scale: Scale
    /// A quiet report collects figures without printing them (for set-up runs).
    let quiet: Bool
    private(set) var figures: [Figure] = []
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    init(scale: Scale, quiet: Bool = false) {
        self.scale = scale
        self.quiet = quiet
    }

    /// Records a figure and prints it as one JSON line.
    func record(_ workload: String, _ backend: String, _ metric: String, _ value: Double, unit: String, parameters: [String: Int] = [:]) {
        let figure = Figure(workload: workload, backend: backend, metric: metric, value: value, unit: unit,
                            scale: scale.rawValue, parameters: parameters)
        figures.append(figure)
        if !quiet, let line = try? encoder.encode(figure) {
            FileHandle.standardOutput.write(line + Data("\n".utf8))
        }
    }

    /// Prints every figure as an aligned table on stderr.
    func printTable() {
        let rows = figures.map { figure -> [String] in
            let parameters = figure.parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            return [figure.workload, figure.backend, figure.metric, parameters, Self.format(figure.value), figure.unit]
        }
        let header = ["workload", "backend", "metric", "parameters", "value", "unit"]
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        var text = ""
        for row in [header] + rows {
            text += zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ") + "\n"
        }
        #if DEBUG
        text += "note: this llvs-bench is a debug build, so these figures are a smoke run, not measurements (build it with -c release)\n"
        #endif
        FileHandle.standardError.write(Data(text.utf8))
    }

    private static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(format: abs(value) < 0.01 ? "%.6f" : "%.3f", value)
    }
}
