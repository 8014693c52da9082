#!/bin/sh
# Rebuilds app.min.js and its map from src/ with esbuild (npm), as the debugger tests expect:
#   cd tests/pages/debug && sh build.sh
# The output is committed so the tests need no Node; the tests check the map names the
# original functions and locals (esbuild renames them to one letter).
set -e
cd "$(dirname "$0")"
ESBUILD="${ESBUILD:-npx --yes esbuild@0.28.2}"
$ESBUILD src/app.js --bundle --minify --sourcemap --format=iife --target=es2020 --outfile=app.min.js
