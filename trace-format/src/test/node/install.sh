#!/usr/bin/env bash
# Installs DuckDB for node (@duckdb/node-api: its prebuilt binaries come inside the npm packages, no
# other download) for ParquetDuckDbTest, into trace-format/target/duckdb-node (or DEST): never into
# the source tree. Needs node and npm (Debian: apt-get install -y nodejs npm).
#
#   bash trace-format/src/test/node/install.sh [DEST]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dest="${1:-$here/../../../target/duckdb-node}"
if ! command -v npm >/dev/null 2>&1; then
  echo "install.sh: npm is missing (Debian: apt-get install -y nodejs npm)" >&2
  exit 1
fi
mkdir -p "$dest"
# already installed from the same lock file: nothing to do (the build runs this before every test run)
if [ -d "$dest/node_modules/@duckdb/node-api" ] && cmp -s "$here/package-lock.json" "$dest/package-lock.json"; then
  exit 0
fi
cp "$here/package.json" "$here/package-lock.json" "$dest/"
npm ci --prefix "$dest" --no-audit --no-fund --loglevel=error
echo "install.sh: DuckDB for node is in $(cd "$dest" && pwd)/node_modules"
