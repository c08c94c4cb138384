internal import Synchronization

/// A process-wide counter that lives in the one loaded copy of NavHostKit.
///
/// It exists so that a test, or an operator with a debugger, can prove that the daemon and its plugins share one
/// image of the SDK: a change made through a plugin is seen by the host and the other way round. If a plugin
/// carried a private copy of the SDK, each side would see only its own counter.
public enum SDKImageProbe {
    private static let counter = Mutex<Int>(0)

    /// The counter's current value.
    public static var value: Int { counter.withLock { $0 } }

    /// Adds one to the counter and returns the new value.
    @discardableResult
    public static func increment() -> Int {
        counter.withLock { value in
            value += 1
            return value
        }
    }
}
