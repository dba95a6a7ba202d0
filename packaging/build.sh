#!/usr/bin/env bash
# Build the one-folder PyInstaller bundle: dist/smartreader/smartreader
#
#   packaging/build.sh
#
# Creates (or reuses) a build virtualenv (.bundle-venv, or $SMARTREADER_BUNDLE_VENV),
# installs this checkout and PyInstaller into it, builds with packaging/smartreader.spec
# and prints the bundle's size. Then try it:  dist/smartreader/smartreader --self-test
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=${SMARTREADER_BUNDLE_VENV:-.bundle-venv}
PYINSTALLER_SPEC=${PYINSTALLER_SPEC:-pyinstaller>=6.10,<7}

if [ ! -x "$VENV/bin/python" ]; then
  echo "creating the build environment in $VENV"
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip
fi
echo "installing smartreader and PyInstaller into $VENV"
"$VENV/bin/python" -m pip install -q "$PYINSTALLER_SPEC" .
# Always the checkout's current code, even when the version number did not change.
"$VENV/bin/python" -m pip install -q --no-deps --force-reinstall .

echo "building the bundle"
start=$(date +%s)
"$VENV/bin/python" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath dist --workpath build/pyinstaller packaging/smartreader.spec
echo "built in $(( $(date +%s) - start )) s"
echo "bundle: dist/smartreader ($(du -sh dist/smartreader | cut -f1))"
echo "check it: dist/smartreader/smartreader --self-test"
