# Sourced by scripts/setup-system --verify: proves in seconds that what the test command builds,
# links and starts works on this machine, and names the Debian package(s) behind each failure,
# so a gap costs seconds, not a 40-minute CI run.

VERIFY_FAILED=0

# verify_fail <what failed> <package>...: report, naming the packages of the need that are not
# installed (or all of them when dpkg has them all and the check still failed).
verify_fail() {
  local what=$1; shift
  local absent=()
  for p in "$@"; do installed "$p" || absent+=("$p"); done
  if ((${#absent[@]})); then
    echo "verify: FAIL $what: missing package(s): ${absent[*]}" >&2
  else
    echo "verify: FAIL $what: installed but not working: $*" >&2
  fi
  VERIFY_FAILED=1
}

verify_ok() { echo "verify: ok   $1"; }

verify_host_link() {
  local dir=$1
  printf 'fn main() { println!("ok"); }\n' > "$dir/main.rs"
  if rustc --edition 2021 -o "$dir/host" "$dir/main.rs" >"$dir/host.log" 2>&1 &&
    [ "$("$dir/host")" = ok ]; then
    verify_ok "host: link and run a Rust program"
  else
    sed 's/^/  /' "$dir/host.log" | tail -5 >&2
    verify_fail "host: link and run a Rust program" "${BUILD[@]}"
  fi
}

verify_sys_libs() {
  # pkg-config module -> the package that ships its .pc file (the -sys crates ask for these).
  local pairs=(alsa:libasound2-dev webkit2gtk-4.1:libwebkit2gtk-4.1-dev gtk+-3.0:libgtk-3-dev
    libsoup-3.0:libsoup-3.0-dev)
  local pair
  for pair in "${pairs[@]}"; do
    if pkg-config --exists "${pair%%:*}" 2>/dev/null; then
      verify_ok "pkg-config ${pair%%:*}"
    else
      verify_fail "pkg-config ${pair%%:*}" "${pair#*:}" pkg-config
    fi
  done
  # (grep reads all its input: with pipefail, `grep -q` closing early fails the pipe.)
  if ldconfig -p | grep 'libespeak-ng\.so\.1 ' >/dev/null &&
    compgen -G '/usr/lib/*/espeak-ng-data/phontab' >/dev/null; then
    verify_ok "libespeak-ng and its data"
  else
    verify_fail "libespeak-ng and its data" "${ESPEAK[@]}"
  fi
}

verify_aarch64() {
  local dir=$1
  if ! rustc --print target-libdir --target aarch64-unknown-linux-gnu >/dev/null 2>&1 ||
    [ ! -d "$(rustc --print target-libdir --target aarch64-unknown-linux-gnu)" ]; then
    echo "verify: FAIL aarch64: Rust target missing (rustup target add aarch64-unknown-linux-gnu)" >&2
    VERIFY_FAILED=1
    return
  fi
  if rustc --edition 2021 --target aarch64-unknown-linux-gnu -C linker=aarch64-linux-gnu-gcc \
    -o "$dir/arm" "$dir/main.rs" >"$dir/arm.log" 2>&1 &&
    [ "$(qemu-aarch64 -L /usr/aarch64-linux-gnu "$dir/arm" 2>>"$dir/arm.log")" = ok ]; then
    verify_ok "aarch64: link with aarch64-linux-gnu-gcc and run under qemu-aarch64"
  else
    grep -m3 -E 'cannot find|not found|error' "$dir/arm.log" | sed 's/^/  /' >&2
    verify_fail "aarch64: link and run under qemu" "${CROSS[@]}"
  fi
}

verify_xvfb() {
  local dir=$1 d pid up=""
  for d in $(seq 90 120); do [ -e "/tmp/.X11-unix/X$d" ] || [ -e "/tmp/.X$d-lock" ] || break; done
  if command -v Xvfb >/dev/null 2>&1; then
    Xvfb ":$d" -nolisten tcp -screen 0 640x480x24 >"$dir/xvfb.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 50); do
      [ -e "/tmp/.X11-unix/X$d" ] && { up=1; break; }
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  fi
  if [ -n "$up" ]; then verify_ok "Xvfb starts"; else verify_fail "Xvfb starts" xvfb; fi
  if command -v WebKitWebDriver >/dev/null 2>&1; then verify_ok "WebKitWebDriver"
  else verify_fail "WebKitWebDriver" webkit2gtk-driver; fi
  if command -v import >/dev/null 2>&1; then verify_ok "ImageMagick import"
  else verify_fail "ImageMagick import" imagemagick; fi
}

verify_null_sink() {
  . scripts/lib/audio-null-sink.sh
  if CI=true audio_null_sink >/dev/null 2>&1 && pactl list short sinks 2>/dev/null | grep pocket_null >/dev/null &&
    ls /usr/lib/*/alsa-lib/libasound_module_pcm_pulse.so >/dev/null 2>&1; then
    verify_ok "PulseAudio null sink (ALSA -> pulse)"
  else
    verify_fail "PulseAudio null sink (ALSA -> pulse)" "${NULL_SINK[@]}"
  fi
}

verify_clients() {
  local c
  for c in pip:python3-pip npm:npm; do
    if command -v "${c%%:*}" >/dev/null 2>&1 || { [ "${c%%:*}" = pip ] && command -v pip3 >/dev/null 2>&1; }; then
      verify_ok "${c%%:*} (asset fetcher client)"
    else
      verify_fail "${c%%:*} (asset fetcher client)" "${c#*:}"
    fi
  done
}

verify_strace() {
  local dir=$1
  # ptrace must be allowed here (some containers forbid it), not just the binary installed.
  if strace -f -q -e trace=network -o "$dir/strace.txt" true >/dev/null 2>&1 &&
    grep 'exited with 0' "$dir/strace.txt" >/dev/null; then
    verify_ok "strace traces a child's network calls"
  else
    verify_fail "strace traces a child's network calls (is ptrace allowed?)" "${TRACE[@]}"
  fi
}

verify_system() {
  local dir
  dir=$(mktemp -d)
  verify_host_link "$dir"
  verify_sys_libs
  verify_aarch64 "$dir"
  verify_xvfb "$dir"
  verify_null_sink
  verify_clients
  verify_strace "$dir"
  rm -rf "$dir"
  if [ "$VERIFY_FAILED" -ne 0 ]; then
    echo "verify: this machine cannot run the test command; install the packages named above" >&2
    return 1
  fi
}
