# Sourced by scripts/test (and setup-system --verify): a PulseAudio server with a null sink as
# the default output and its monitor as the default input, so the voice loop's real-device test
# runs without sound hardware (cpal -> ALSA -> the ALSA `pulse` plugin -> PulseAudio).
# Idempotent: a server that already has our sink is reused. On a machine whose own
# PulseAudio/PipeWire is already running (a desktop) nothing is changed and that test is
# skipped, unless CI is set. In CI (CI=true) a sink that cannot be had is an error (return 1):
# the device test must run there, never pass by skipping.

audio_null_sink() {
  local why=""
  if ! command -v pulseaudio >/dev/null 2>&1 || ! command -v pactl >/dev/null 2>&1; then
    why="pulseaudio not installed"
  else
    [ -S /var/run/pulse/native ] && ! pactl info >/dev/null 2>&1 &&
      export PULSE_SERVER=unix:/var/run/pulse/native
    local started=""
    if ! pactl info >/dev/null 2>&1; then
      unset PULSE_SERVER
      # As root PulseAudio warns but runs per-user; fall back to a system instance.
      if ! pulseaudio -D --exit-idle-time=-1 --log-target=syslog 2>/dev/null; then
        pulseaudio --system -D --disallow-exit --exit-idle-time=-1 --log-target=syslog \
          --load="module-native-protocol-unix auth-anonymous=1" 2>/dev/null || true
        export PULSE_SERVER=unix:/var/run/pulse/native
      fi
      for _ in $(seq 1 50); do pactl info >/dev/null 2>&1 && break; sleep 0.1; done
      started=1
    fi
    if ! pactl info >/dev/null 2>&1; then
      why="could not start PulseAudio"
    elif [ -z "$started" ] && [ -z "${CI:-}" ] && ! pactl list short sinks | grep pocket_null >/dev/null; then
      echo "audio: using the running sound server as it is; the device test is skipped" >&2
      return 0
    fi
  fi
  if [ -n "$why" ]; then
    if [ "${CI:-}" = true ]; then
      echo "audio: $why; in CI the device test must run" >&2
      return 1
    fi
    echo "audio: $why; the device test is skipped" >&2
    return 0
  fi
  pactl list short sinks | grep pocket_null >/dev/null ||
    pactl load-module module-null-sink sink_name=pocket_null rate=48000 \
      sink_properties=device.description=PocketNull >/dev/null
  pactl set-default-sink pocket_null
  pactl set-default-source pocket_null.monitor
  export POCKET_AUDIO_TEST=null-sink
}
