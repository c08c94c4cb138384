import Glibc

extension SystemdNotifier {
    /// One state change for the service manager: one or more `NAME=value` lines of `sd_notify(3)`'s text format.
    ///
    /// Build messages with the static members; ``init(field:value:)`` covers fields this type does not name.
    public struct Message: Sendable, Hashable, CustomStringConvertible {
        // MARK: - Public Properties

        /// The message's lines in the wire format, like `READY=1` or `RELOADING=1\nMONOTONIC_USEC=…`.
        public let description: String

        // MARK: - Initialization

        private init(wireText: String) {
            self.description = wireText
        }

        /// A message of one field.
        ///
        /// - Parameters:
        ///   - field: The field name: upper-case letters, digits and `_`, as `sd_notify(3)` lists them.
        ///   - value: The value; it must not contain a newline.
        /// - Throws: ``SystemdError`` with code ``SystemdError/Code/invalidNotifyMessage`` when either breaks the
        ///   line format.
        public init(field: String, value: String) throws(SystemdError) {
            let validName =
                !field.isEmpty
                && field.utf8.allSatisfy { byte in
                    (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                        || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
                }
            guard validName, !value.utf8.contains(UInt8(ascii: "\n")) else {
                throw SystemdError(
                    code: .invalidNotifyMessage,
                    message: "\(field.debugDescription)=\(value.debugDescription) is not one sd_notify line"
                )
            }
            self.init(wireText: "\(field)=\(value)")
        }

        // MARK: - Lifecycle messages

        /// `READY=1`: start-up (or a reload) finished; the service is serving.
        public static let ready = Message(wireText: "READY=1")

        /// `STOPPING=1`: the service is shutting down.
        public static let stopping = Message(wireText: "STOPPING=1")

        /// `RELOADING=1` with `MONOTONIC_USEC` set to `CLOCK_MONOTONIC` now, evaluated where this is read.
        ///
        /// systemd (v253 and later, with `Type=notify-reload`) uses the timestamp to tell this reload from an older
        /// one; earlier versions ignore it. Send ``ready`` when the reload is done.
        public static var reloading: Message {
            reloading(monotonicMicroseconds: MonotonicClock.nowMicroseconds())
        }

        /// `RELOADING=1` with an explicit `MONOTONIC_USEC`.
        ///
        /// - Parameter monotonicMicroseconds: `CLOCK_MONOTONIC` in microseconds when the reload started.
        public static func reloading(monotonicMicroseconds: UInt64) -> Message {
            Message(wireText: "RELOADING=1\nMONOTONIC_USEC=\(monotonicMicroseconds)")
        }

        // MARK: - Descriptive messages

        /// `STATUS=…`: a line a person reads in `systemctl status`. Newlines become spaces.
        ///
        /// - Parameter text: What the service is doing, like `"Loading plugins (2 of 5)"`.
        public static func status(_ text: String) -> Message {
            let oneLine = String(
                decoding: text.utf8.map { $0 == UInt8(ascii: "\n") ? UInt8(ascii: " ") : $0 },
                as: UTF8.self
            )
            return Message(wireText: "STATUS=\(oneLine)")
        }

        /// `ERRNO=…`: the `errno`-style reason the service is failing.
        ///
        /// - Parameter number: A positive `errno` value.
        public static func errno(_ number: Int32) -> Message {
            Message(wireText: "ERRNO=\(number)")
        }

        /// `MAINPID=…`: another process is now the service's main process.
        ///
        /// - Parameter pid: The new main process.
        public static func mainPID(_ pid: Int32) -> Message {
            Message(wireText: "MAINPID=\(pid)")
        }

        // MARK: - Watchdog and time-out messages

        /// `WATCHDOG=1`: the service is alive; resets the watchdog timer.
        public static let watchdog = Message(wireText: "WATCHDOG=1")

        /// `WATCHDOG=trigger`: asks the service manager to act as if the watchdog timer had expired.
        public static let watchdogTrigger = Message(wireText: "WATCHDOG=trigger")

        /// `WATCHDOG_USEC=…`: changes the watchdog time-out while the service runs.
        ///
        /// - Parameter timeout: The new time-out.
        public static func watchdogTimeout(_ timeout: Duration) -> Message {
            Message(wireText: "WATCHDOG_USEC=\(timeout.wholeMicroseconds)")
        }

        /// `EXTEND_TIMEOUT_USEC=…`: asks for more time to finish starting, reloading or stopping.
        ///
        /// - Parameter extra: How much longer, counted from now.
        public static func extendTimeout(by extra: Duration) -> Message {
            Message(wireText: "EXTEND_TIMEOUT_USEC=\(extra.wholeMicroseconds)")
        }

        // MARK: - Package Functions

        /// The datagram text for `messages`: their lines joined by newlines.
        static func wireText(of messages: [Message]) -> String {
            messages.map(\.description).joined(separator: "\n")
        }
    }
}

// MARK: - Duration

extension Duration {
    /// The duration in whole microseconds, rounded down, never negative.
    var wholeMicroseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000 + UInt64(attoseconds / 1_000_000_000_000)
    }
}
