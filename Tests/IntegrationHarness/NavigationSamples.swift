package import NavHostJSON

/// Replies of `io.navhost.Navigation` in their wire form, shaped like the example plugins' screens, for tests that
/// script a service.
package enum NavigationSamples {
    // MARK: - Screens

    /// The root: `s1`, `home.main`.
    package static let home: JSONValue = [
        "id": "s1", "route": "home.main", "parameters": [:], "presentation": "push",
        "state": ["greeting": "Welcome", "entries": ["products.list", "profile.user", "settings.main"]],
    ]

    /// `s2`, `products.list`, filtered by "lamp".
    package static let productList: JSONValue = [
        "id": "s2", "route": "products.list", "parameters": [:], "presentation": "push",
        "state": [
            "status": "loaded",
            "value": [
                "filter": "lamp",
                "products": [
                    [
                        "id": "p4", "name": "Lava Lamp \"Ada\"", "category": "Lighting", "price": "€49.00",
                        "isInStock": true,
                    ]
                ],
                "matchCount": 1,
                "totalCount": 6,
            ],
        ],
    ]

    /// `s3`, `products.detail` for `p3`, still loading.
    package static let productDetail: JSONValue = [
        "id": "s3", "route": "products.detail", "parameters": ["productID": "p3"], "presentation": "push",
        "state": ["status": "loading"],
    ]

    /// `s4`, `settings.main`, shown modally.
    package static let settings: JSONValue = [
        "id": "s4", "route": "settings.main", "parameters": [:], "presentation": "modal",
        "state": ["status": "loaded", "value": ["theme": "dark", "notifications": true, "language": "en"]],
    ]

    // MARK: - Sessions

    /// A `Snapshot` of session `main`.
    package static func snapshot(revision: Int64, stack: [JSONValue], session: String = "main") -> JSONValue {
        ["session": .string(session), "revision": .int(revision), "stack": .array(stack)]
    }

    /// The `Stack` reply for `main` with home and the product list.
    package static let stackReply: JSONObject = ["snapshot": snapshot(revision: 4, stack: [home, productList])]

    // MARK: - Catalog

    /// The `Routes` reply.
    package static let routesReply: JSONObject = [
        "routes": [
            [
                "route": "home.main", "feature": "Home", "parameters": [],
                "intents": ["onTappedProducts", "onTappedProfile", "onTappedSettings"],
                "summary": "The root screen.",
            ],
            [
                "route": "products.detail", "feature": "Products", "parameters": ["productID"],
                "intents": ["onTappedRetry", "onTappedSeller"], "summary": "One product and its seller.",
            ],
        ]
    ]

    /// The `io.navhost.Plugins.List` reply: one plugin loaded by hand from another folder, one quarantined, one
    /// loaded whose folder is gone but which Home needs, one unloaded by hand, and a copy of the one Home needs in
    /// another folder, refused as it has that name.
    package static let pluginsReply: JSONObject = [
        "plugins": [
            [
                "name": "Products", "version": "1.0.0", "state": "loaded",
                "path": "/var/lib/navhost/plugin-images/Products-1.so", "sdkVersion": "1.0.0",
                "routes": ["products.list", "products.detail"], "folder": "/opt/shop/Products", "loadedByHand": true,
            ],
            [
                "name": "Weather", "version": "0.3.0", "state": "quarantined",
                "path": "/usr/lib/navhost/plugins/Weather/libWeatherFeature.so", "routes": ["weather.today"],
                "quarantine": ["code": "sdkMismatch", "message": "built against NavHostKit 2.0.0; the host has 1.0.0"],
            ],
            [
                "name": "Settings", "version": "1.0.0", "state": "loaded",
                "path": "/var/lib/navhost/plugin-images/Settings-1.so", "sdkVersion": "2.2.0",
                "routes": ["settings.main"],
                "removalRefused": ["neededBy": ["Home"], "rootOf": [], "message": "needed by Home"],
                "folder": "/usr/lib/navhost/plugins/Settings",
            ],
            [
                "name": "Orders", "version": "1.2.0", "state": "removed",
                "path": "/usr/lib/navhost/plugins/Orders", "sdkVersion": "2.2.0", "routes": ["orders.list"],
                "unloadedByHand": true, "folder": "/usr/lib/navhost/plugins/Orders",
            ],
            [
                "name": "Settings", "version": "1.1.0", "state": "quarantined",
                "path": "/usr/lib/navhost/plugins/Settings-new/libSettingsFeature.so", "routes": ["settings.main"],
                "quarantine": [
                    "code": "duplicateName",
                    "message": "a plugin named Settings is already loaded, from /usr/lib/navhost/plugins/Settings",
                ],
                "folder": "/usr/lib/navhost/plugins/Settings-new",
            ],
        ]
    ]

    // MARK: - Plugins

    /// `Products` as `io.navhost.Plugins.Load` returns it.
    package static let productsPlugin: JSONValue = [
        "name": "Products", "version": "1.0.0", "state": "loaded",
        "path": "/usr/lib/navhost/plugins/Products/libProductsFeature.so", "sdkVersion": "1.0.0",
        "routes": ["products.list", "products.detail"],
    ]

    /// `Products` after a reload to 1.1.0, from its private copy, as `io.navhost.Plugins.Reload` returns it.
    package static let reloadedProductsPlugin: JSONValue = [
        "name": "Products", "version": "1.1.0", "state": "loaded",
        "path": "/var/lib/navhost/plugin-images/Products-2.so", "sdkVersion": "1.0.0",
        "routes": ["products.list", "products.detail"],
    ]

    /// `io.navhost.Plugins.Watch` replies: the plugins, one event of each kind, the plugins coalesced.
    package static let pluginWatchReplies: [JSONObject] = [
        pluginsReply,
        [
            "event": [
                "kind": "reloaded", "name": "Products", "version": "1.1.0", "previousVersion": "1.0.0",
                "path": "/var/lib/navhost/plugin-images/Products-2.so",
            ]
        ],
        ["event": ["kind": "removed", "name": "Weather", "folder": "/usr/lib/navhost/plugins/Weather"]],
        [
            "event": [
                "kind": "loaded", "name": "Orders", "version": "0.1.0",
                "path": "/usr/lib/navhost/plugins/Orders/libOrdersFeature.so",
            ]
        ],
        [
            "event": [
                "kind": "failed", "name": "Products", "version": "1.2.0",
                "folder": "/usr/lib/navhost/plugins/Products",
                "reason": ["code": "checksumMismatch", "message": "the library's SHA-256 does not match the manifest"],
            ]
        ],
        [
            "event": [
                "kind": "checked", "name": "Products", "version": "1.1.0",
                "folder": "/usr/lib/navhost/plugins/Products",
            ]
        ],
        ["plugins": [reloadedProductsPlugin], "coalesced": true],
    ]
}
