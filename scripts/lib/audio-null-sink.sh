# Sourced by scripts/test: a PulseAudio server with a null sink as the default output and its
# monitor as the default input, so the voice loop's real-device test runs without sound
# hardware (cpal -> ALSA -> the ALSA `pulse` plugin -> PulseAudio). On a machine whose own
# PulseAudio/PipeWire is already running (a desktop) nothing is changed and that test is
# skipped, unless CI is set.

audio_null_sink() {
  if ! command -v pulseaudio >/dev/null 2>&1 || ! command -v pactl >/dev/null 2>&1; then
    echo "audio: pulseaudio not installed; the device test is skipped" >&2
    return 0
  fi
  local started=""
  if ! pactl info >/dev/null 2>&1; then
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
    echo "audio: could not start PulseAudio; the device test is skipped" >&2
    return 0
  fi
  if [ -z "$started" ] && [ -z "${CI:-}" ]; then
    echo "audio: using the running sound server as it is; the device test is skipped" >&2
    return 0
  fi
  pactl list short sinks | grep -q pocket_null ||
    pactl load-module module-null-sink sink_name=pocket_null rate=48000 \
      sink_properties=device.description=PocketNull >/dev/null
  pactl set-default-sink pocket_null
  pactl set-default-source pocket_null.monitor
  export POCKET_AUDIO_TEST=null-sink
}
