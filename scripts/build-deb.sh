#!/usr/bin/env bash
# Debian packages of what a build folder holds, with dpkg-deb alone (no debhelper): docs/packaging.md.
#
#   navhost      navhostd, navctl, libNavHostKit.so and the Swift runtime libraries they link, in /usr/lib/navhost
#                (links in /usr/bin); the example plugins; the units, sysusers.d, tmpfiles.d; the configuration
#                /etc/navhost/navhostd.conf (a conffile) when systemd/navhostd.conf exists; man pages; navctl's shell
#                completions; all the docs
#   navhost-sdk  what `make install-sdk-files` adds for feature authors: libNavHostTesting.so, navhost-plugin-tool (its
#                man page and completions) and the module interfaces in /usr/lib/navhost/swift; depends on navhost of
#                the same version
#
# The files are the ones `make install-files` installs from BUILD_DIR (so both ways install the same tree), split in
# two, then made fit for a machine without a Swift toolchain: the Swift runtime libraries the programs and plugins
# link are copied from the toolchain into /usr/lib/navhost/swift-runtime, every run path that names the toolchain
# names that folder instead (patchelf), and everything is stripped. Stripping changes the plugins' bytes, so their
# manifests get the new SHA-256, and `navhost-plugin-tool check` loads them as the daemon would before anything is
# packaged. The version is NavHostKit's (scripts/sdk-releases.sh --current), the dependencies on Debian's libraries
# come from the shlibs files of the packages that hold the libraries the ELF files name (DT_NEEDED).
#
# Usage: scripts/build-deb.sh BUILD_DIR [OUT_DIR]     (OUT_DIR defaults to BUILD_DIR/deb; `make deb`, `make deb-files`)
# DEB_COMPRESSION picks dpkg-deb's compressor: xz by default (Debian's), zstd for `make systemd-e2e`, where xz took
# most of a minute over a debug build's 66 MB and zstd half a second.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${1:?usage: scripts/build-deb.sh BUILD_DIR [OUT_DIR]}
out=${2:-$build_dir/deb}
version=$(scripts/sdk-releases.sh --current)
arch=$(dpkg --print-architecture)
maintainer=${DEB_MAINTAINER:-"NavHost maintainers <$(git config user.email || echo root@localhost)>"}
work=$out/tree
runtime=usr/lib/navhost/swift-runtime
compression=${DEB_COMPRESSION:-xz}

command -v patchelf >/dev/null || { echo "build-deb: patchelf is missing; run make deps" >&2; exit 1; }
for file in navhostd navctl navhost-plugin-tool libNavHostKit.so libNavHostTesting.so plugins/Home/manifest.json \
    man/navhostd.8 man/navctl.1 man/navhostd.conf.5 completions/bash/navctl completions/bash/navhost-plugin-tool; do
    [[ -e $build_dir/$file ]] \
        || { echo "build-deb: $build_dir/$file is missing; run make build, make man and make completions" >&2; exit 1; }
done
# make install-files skips completion scripts older than their program (they may not match its arguments).
for program in navctl navhost-plugin-tool; do
    if [[ $build_dir/$program -nt $build_dir/completions/bash/$program ]]; then
        echo "build-deb: $build_dir/completions/ is older than $program; run scripts/generate-completions.sh $build_dir" >&2
        exit 1
    fi
done
[[ -f systemd/navhostd.conf ]] \
    || echo "build-deb: no systemd/navhostd.conf in the tree; the package has no /etc/navhost/navhostd.conf" >&2
# The folder the programs find the Swift runtime in through their run path: the toolchain's.
toolchain_lib=$(ldd "$build_dir/navhostd" | sed -n 's|^\s*libswiftCore.so => \(/.*\)/libswiftCore.so .*|\1|p')
[[ -d $toolchain_lib ]] || { echo "build-deb: cannot find the Swift runtime navhostd uses" >&2; exit 1; }
# The Swift version of the runtime shipped: a plugin built out of tree must be built with the same
# (navhost-sdk's description names it). The toolchain's own swift, beside the runtime it links.
swift=$toolchain_lib/../../../bin/swift
[[ -x $swift ]] || { echo "build-deb: no swift beside the runtime in $toolchain_lib, to tell its version" >&2; exit 1; }
swift_version=$({ "$swift" --version 2>/dev/null || true; } | sed -n 's/^Swift version \([^ ]*\).*/\1/p')
[[ -n $swift_version ]] || { echo "build-deb: $swift --version names no Swift version" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work/stage" "$out"
rm -f "$out"/navhost*.deb
stage=$(realpath "$work/stage")
main=$work/navhost
sdk=$work/navhost-sdk

# 1. Everything `make install` installs, from BUILD_DIR.
make --no-print-directory install-files DESTDIR="$stage" BUILD_DIR="$build_dir" PREFIX=/usr SYSCONFDIR=/etc >/dev/null
# dpkg, not `make uninstall`, removes a package: the list of plugins for `make uninstall` does not ship.
rm -f "$stage/usr/lib/navhost/installed-plugins"
[[ -f $stage/usr/share/bash-completion/completions/navctl ]] \
    || { echo "build-deb: make install-files installed no completion scripts" >&2; exit 1; }

# 2. The SDK's programs, libraries and interfaces go to navhost-sdk; the rest is navhost, the SDK's documents too:
# docs/sdk.md names them in /usr/share/doc/navhost/docs, where `make install-sdk` puts them.
move() {  # move PATH FROM TO: FROM/PATH becomes TO/PATH
    mkdir -p "$3/$(dirname "$1")"
    mv "$2/$1" "$3/$1"
}
for path in usr/lib/navhost/libNavHostTesting.so usr/lib/navhost/navhost-plugin-tool usr/bin/navhost-plugin-tool \
    usr/lib/navhost/swift usr/share/man/man1/navhost-plugin-tool.1.gz \
    usr/share/bash-completion/completions/navhost-plugin-tool usr/share/zsh/vendor-completions/_navhost-plugin-tool \
    usr/share/fish/vendor_completions.d/navhost-plugin-tool.fish; do
    if [[ -e $stage/$path || -L $stage/$path ]]; then move "$path" "$stage" "$sdk"; fi
done
mv "$stage" "$main"

# 3. The Swift runtime: every library of the toolchain's folder that an ELF file of either package needs, directly
# or through another (ldd lists the whole closure).
is_elf() { [[ -f $1 && ! -L $1 && $(head -c 4 "$1" | od -An -c | tr -d ' ') == '177ELF' ]]; }
elf_files() { find "$@" -type f | while read -r file; do if is_elf "$file"; then echo "$file"; fi; done; }
mapfile -t elfs < <(elf_files "$main" "$sdk")
mkdir -p "$main/$runtime"
for elf in "${elfs[@]}"; do ldd "$elf"; done | awk -v dir="$toolchain_lib/" 'index($3, dir) == 1 { print $3 }' \
    | sort -u | while read -r library; do install -m 0644 "$library" "$main/$runtime/"; done
[[ -f $main/$runtime/libswiftCore.so ]] || { echo "build-deb: no Swift runtime was copied" >&2; exit 1; }

# 4. Run paths, stripping, modes. A run path keeps its $ORIGIN; the toolchain's folder becomes the private copy:
# $ORIGIN/swift-runtime for the files in /usr/lib/navhost, /usr/lib/navhost/swift-runtime for the plugins, which are
# loaded from copies in /var/lib/navhost/plugin-images, where $ORIGIN would not lead back.
mapfile -t elfs < <(elf_files "$main" "$sdk")
for elf in "${elfs[@]}"; do
    strip --strip-unneeded --remove-section=.comment "$elf"
    run_path=$(patchelf --print-rpath "$elf")
    if [[ $run_path == *"$toolchain_lib"* ]]; then
        case $elf in
            */usr/lib/navhost/plugins/*) private=/$runtime ;;
            *) private='$ORIGIN/swift-runtime' ;;
        esac
        patchelf --set-rpath "${run_path//$toolchain_lib/$private}" "$elf"
    fi
    case $elf in
        *.so | *.so.*) chmod 0644 "$elf" ;;
        *) chmod 0755 "$elf" ;;
    esac
done
# What still names the toolchain would fail on a machine without one.
for elf in "${elfs[@]}"; do
    if patchelf --print-rpath "$elf" | grep -q "$toolchain_lib"; then
        echo "build-deb: $elf still names $toolchain_lib" >&2
        exit 1
    fi
done

# 5. The plugins' manifests carry their library's SHA-256: the stripped library's now. Then every plugin is loaded
# through the daemon's registry, checks included, as navhostd will load it.
for manifest in "$main"/usr/lib/navhost/plugins/*/manifest.json; do
    library=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["library"])' "$manifest")
    digest=$(sha256sum "$(dirname "$manifest")/$library" | cut -d' ' -f1)
    sed -i -E "s/(\"sha256\": \")[0-9a-f]+\"/\1$digest\"/" "$manifest"
done
"$build_dir/navhost-plugin-tool" check "$main/usr/lib/navhost/plugins" >"$work/plugin-check.log" 2>&1 \
    || { cat "$work/plugin-check.log" >&2; exit 1; }

# 6. Per package: copyright, changelog, DEBIAN/ (control, md5sums, conffiles, maintainer scripts), then dpkg-deb.
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
date_rfc=$(date -R -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)")
shlibs_depends() {  # shlibs_depends ELF...: the Debian packages holding the libraries these files name, with versions
    local elf soname path package resolved
    for elf; do
        # DT_NEEDED names, each resolved to a path through the same file's ldd (the Swift runtime and
        # libNavHostKit.so are in the packages, and not found here: they are left out).
        resolved=$(ldd "$elf" || true)
        readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | while read -r soname; do
            path=$(awk -v name="$soname" '$1 == name && $3 ~ /^\// { print $3 }' <<<"$resolved")
            [[ -n $path && $path != */navhost/* && $path != "$toolchain_lib"/* && -z $(find "$main/$runtime" \
                -name "$soname") ]] || continue
            echo "$soname $path"
        done
    done | sort -u | while read -r soname path; do
        package=$(dpkg -S "$path" 2>/dev/null || dpkg -S "$(realpath "$path")" 2>/dev/null) \
            || { echo "build-deb: no Debian package holds $path" >&2; exit 1; }
        package=${package%%:*}
        # libjson-c.so.5 -> "libjson-c 5", the key of the line in the package's shlibs file.
        local name=${soname%%.so*} soversion=${soname##*.so.}
        local line
        line=$(cat /var/lib/dpkg/info/"$package".shlibs /var/lib/dpkg/info/"$package":*.shlibs 2>/dev/null \
            | awk -v n="$name" -v v="$soversion" '$1 == n && $2 == v { $1 = ""; $2 = ""; print; exit }')
        echo "${line:-$package}" | sed 's/^ *//'
    done | sort -u | paste -sd, | sed 's/,/, /g'
}
build_package() {  # build_package NAME TREE
    local name=$1 tree=$2 depends
    find "$tree" -type d -exec chmod 0755 {} +
    install -d "$tree/usr/share/doc/$name" "$tree/DEBIAN"
    if [[ $name == navhost ]]; then
        install -m 0644 packaging/debian/copyright "$tree/usr/share/doc/$name/copyright"
        for script in postinst prerm postrm; do
            install -m 0755 "packaging/debian/navhost.$script" "$tree/DEBIAN/$script"
        done
    else
        # The SDK ships no Swift runtime: the copyright file without that stanza.
        sed '/^Files: usr\/lib\/navhost\/swift-runtime/,$d' packaging/debian/copyright \
            >"$tree/usr/share/doc/$name/copyright"
        chmod 0644 "$tree/usr/share/doc/$name/copyright"
    fi
    printf '%s (%s) unstable; urgency=medium\n\n  * Built from NavHost commit %s.\n\n -- %s  %s\n' \
        "$name" "$version" "$commit" "$maintainer" "$date_rfc" | gzip -9n >"$tree/usr/share/doc/$name/changelog.gz"
    chmod 0644 "$tree/usr/share/doc/$name/changelog.gz"
    depends=$(shlibs_depends $(elf_files "$tree"))
    sed -e "s|@VERSION@|$version|g" -e "s|@ARCH@|$arch|g" -e "s|@MAINTAINER@|$maintainer|g" \
        -e "s|@SWIFT_VERSION@|$swift_version|g" \
        -e "s|@SHLIBS_DEPENDS@|$depends|g" \
        -e "s|@INSTALLED_SIZE@|$(du -sk --exclude=DEBIAN "$tree" | cut -f1)|g" \
        "packaging/debian/$name.control.in" >"$tree/DEBIAN/control"
    if [[ -d $tree/etc ]]; then
        (cd "$tree" && find etc -type f | sed 's|^|/|' | sort) >"$tree/DEBIAN/conffiles"
    fi
    (cd "$tree" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$tree/DEBIAN/md5sums"
    chmod 0644 "$tree/DEBIAN"/{control,md5sums} "$tree"/DEBIAN/conffiles 2>/dev/null || true
    dpkg-deb --root-owner-group -Z"$compression" --build "$tree" "$out/${name}_${version}_${arch}.deb" >/dev/null
    echo "build-deb: $out/${name}_${version}_${arch}.deb ($(du -k "$out/${name}_${version}_${arch}.deb" | cut -f1) KiB)"
}
build_package navhost "$main"
build_package navhost-sdk "$sdk"
