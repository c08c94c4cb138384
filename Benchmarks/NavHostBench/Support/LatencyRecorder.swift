import Histogram

/// Durations in nanoseconds, with percentiles from HdrHistogram at three significant digits (0.1 % resolution).
struct LatencyRecorder {
    private var histogram = Histogram<UInt64>(
        lowestDiscernibleValue: 1,
        highestTrackableValue: 3_600_000_000_000,
        numberOfSignificantValueDigits: .three
    )

    /// How many durations were recorded.
    var count: Int { Int(histogram.totalCount) }

    /// Records one duration.
    mutating func record(nanoseconds: UInt64) {
        histogram.record(max(nanoseconds, 1))
    }

    /// The duration at `percentile` (0–100), in microseconds.
    func microseconds(at percentile: Double) -> Double {
        Double(histogram.valueAtPercentile(percentile)) / 1000
    }

    /// The duration at `percentile` (0–100), in milliseconds.
    func milliseconds(at percentile: Double) -> Double {
        Double(histogram.valueAtPercentile(percentile)) / 1_000_000
    }

    /// The longest duration recorded, in microseconds.
    var maxMicroseconds: Double { Double(histogram.max) / 1000 }

    /// The mean, in microseconds.
    var meanMicroseconds: Double { histogram.mean / 1000 }
}
