/// Who is using the device.
struct Session: Equatable, Sendable {
    /// The signed-in user's ID, like `u1`.
    let userID: String
}
