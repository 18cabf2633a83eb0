#!/usr/bin/env bash
# Build the S3-compatible object store the tests run against (SeaweedFS, Apache-2.0), once, and
# cache the binary under ${XDG_CACHE_HOME:-$HOME/.cache}/hudi-sql/seaweedfs/<version>/weed.
#
# SeaweedFS's go.mod carries replace directives, so `go install …@version` is refused: the module
# is downloaded from the Go module proxy, copied to a writable folder and built there as the main
# module (about 9 minutes on 2 cores, once). When Go or the proxy is unavailable this script still
# exits 0 and leaves UNAVAILABLE (the reason) beside the binary; tests/storage/ then skip with it.
set -uo pipefail

VERSION="${HUDI_SEAWEEDFS_VERSION:-v0.0.0-20261109003541-7506e5f91cd6}"
DIR="${XDG_CACHE_HOME:-$HOME/.cache}/hudi-sql/seaweedfs/$VERSION"
mkdir -p "$DIR"

unavailable() {
    echo "SeaweedFS unavailable: $1" >&2
    printf '%s\n' "$1" >"$DIR/UNAVAILABLE"
    exit 0
}

if [[ -x "$DIR/weed" ]]; then
    echo "SeaweedFS: cached in $DIR"
    exit 0
fi
rm -f "$DIR/UNAVAILABLE"
command -v go >/dev/null || unavailable "no Go toolchain on PATH (needed once to build SeaweedFS $VERSION)"
SRC="$(mktemp -d)"
trap 'chmod -R u+w "$SRC" 2>/dev/null; rm -rf "$SRC"' EXIT
go mod download -json "github.com/seaweedfs/seaweedfs@$VERSION" >"$SRC/download.json" \
    || unavailable "go mod download github.com/seaweedfs/seaweedfs@$VERSION failed"
MOD="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["Dir"])' "$SRC/download.json")"
cp -r "$MOD" "$SRC/w" && chmod -R u+w "$SRC/w"
(cd "$SRC/w" && go build -o "$DIR/weed.part" ./weed) || unavailable "go build of SeaweedFS $VERSION failed"
mv "$DIR/weed.part" "$DIR/weed"
echo "SeaweedFS: built into $DIR"
