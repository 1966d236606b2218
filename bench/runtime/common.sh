# Sourced by the runtime benchmark scripts (run.sh, fold.sh, shapes.sh).

rss() {  # peak RSS in MiB of one run of "$@"
  /usr/bin/time -v "$@" 2>&1 >/dev/null | awk '/Maximum resident/ {printf "%.0f", $6 / 1024}'
}
