#!/usr/bin/env bash
# The device calls of 2026-12-02 (issue 45, a default plan whose estimate is a floor): the
# Sun & Luo framework, main before (sg-base: 3dffe11c, whose plans e9451deb keeps) and the
# change (sg-new) on the H200 host's CPU, one thread each, 15 lanes: the same run as
# 2026-12-01-resume/run.sh (WHAT=std|heavy, OUT, STEP; .device-bin carried), with these
# binaries in .device-bin.
exec bash "$(dirname "$0")/../2026-12-01-resume/run.sh" "$@"
