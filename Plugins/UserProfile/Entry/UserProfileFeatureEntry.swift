// The UserProfile plugin's C entry point. It lives in a target of its own because every plugin exports the same
// symbol: the feature target is also linked into the one test binary, beside the other plugins.
import NavHostKit
import UserProfileFeature

/// Hands the daemon the UserProfile feature module (see `FeatureExport`).
@_cdecl("navhost_feature_entry")
public func navhostFeatureEntry() -> UnsafeMutableRawPointer {
    FeatureExport.export(makeUserProfileFeature())
}
