import CompatFeature
import NavHostKit

/// Hands the daemon the Compat feature module.
@_cdecl("navhost_feature_entry")
public func navhostFeatureEntry() -> UnsafeMutableRawPointer {
    FeatureExport.export(CompatFeature())
}
