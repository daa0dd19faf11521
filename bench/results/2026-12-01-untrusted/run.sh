#!/usr/bin/env bash
# The device calls of 2026-12-01 (issue 45, unreliable challengers probed): the Sun & Luo
# framework, main before (sg-base: a18b37b, the plans of 46edc29) and the change (sg-new) on
# the H200 host's CPU, one thread each, 15 lanes: the same run as 2026-12-01-resume/run.sh
# (WHAT=std|heavy, OUT, STEP; .device-bin carried), with these binaries in .device-bin.
exec bash "$(dirname "$0")/../2026-12-01-resume/run.sh" "$@"
