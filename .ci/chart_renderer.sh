#!/usr/bin/env bash
# The chart test renders each SVG to PNG with librsvg's rsvg-convert (a renderer browsers and slide tools
# agree with). CMake leaves that test out where rsvg-convert is missing; CI installs it first so it always runs.
set -euo pipefail
if ! command -v rsvg-convert >/dev/null; then
    echo "charts: installing librsvg2-bin (rsvg-convert)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null && apt-get install -y -qq librsvg2-bin >/dev/null
fi
command -v python3 >/dev/null || { echo "FAILED: the chart render test needs python3" >&2; exit 1; }
echo "charts: $(rsvg-convert --version) renders the chart test's SVGs"
