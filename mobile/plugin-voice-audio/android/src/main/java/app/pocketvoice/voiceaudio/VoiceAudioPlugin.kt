// The voice-audio plugin on Android: asks for the microphone, puts the audio system in
// voice-communication mode with the loudspeaker (or a headset) as the route, and runs the
// voice streams. Commands are called from Rust (mobile/plugin-voice-audio/src/mobile.rs).
package app.pocketvoice.voiceaudio

import android.Manifest
import android.app.Activity
import android.content.Context
import android.media.AudioDeviceInfo
import android.media.AudioManager
import android.media.AudioTrack
import android.media.audiofx.AcousticEchoCanceler
import android.os.Build
import app.tauri.PermissionState
import app.tauri.annotation.Command
import app.tauri.annotation.Permission
import app.tauri.annotation.PermissionCallback
import app.tauri.annotation.TauriPlugin
import app.tauri.plugin.Invoke
import app.tauri.plugin.JSObject
import app.tauri.plugin.Plugin

private const val MIC = "microphone"

@TauriPlugin(
    permissions = [Permission(strings = [Manifest.permission.RECORD_AUDIO], alias = MIC)]
)
class VoiceAudioPlugin(private val activity: Activity) : Plugin(activity) {
    private val audio = activity.getSystemService(Context.AUDIO_SERVICE) as AudioManager
    private var streams: VoiceStreams? = null
    private var previousMode: Int? = null
    private var playbackRate = 48_000

    /** Permission first (the system asks once), then the communication mode and route. */
    @Command
    fun openSession(invoke: Invoke) {
        if (getPermissionState(MIC) != PermissionState.GRANTED) {
            requestPermissionForAlias(MIC, invoke, "microphonePermission")
            return
        }
        invoke.resolve(open())
    }

    @PermissionCallback
    private fun microphonePermission(invoke: Invoke) {
        if (getPermissionState(MIC) == PermissionState.GRANTED) {
            invoke.resolve(open())
        } else {
            invoke.resolve(info(granted = false))
        }
    }

    private fun open(): JSObject {
        if (previousMode == null) previousMode = audio.mode
        audio.mode = AudioManager.MODE_IN_COMMUNICATION
        chooseRoute()
        playbackRate = AudioTrack.getNativeOutputSampleRate(AudioManager.STREAM_VOICE_CALL)
            .takeIf { it in 8_000..48_000 } ?: 48_000
        return info(granted = true)
    }

    /** A headset if one is connected, else the loudspeaker (not the earpiece). */
    private fun chooseRoute() {
        if (Build.VERSION.SDK_INT >= Build.VERSION_CODES.S) {
            val devices = audio.availableCommunicationDevices
            val preferred = listOf(
                AudioDeviceInfo.TYPE_BLUETOOTH_SCO,
                AudioDeviceInfo.TYPE_WIRED_HEADSET,
                AudioDeviceInfo.TYPE_USB_HEADSET,
                AudioDeviceInfo.TYPE_BUILTIN_SPEAKER,
            )
            for (type in preferred) {
                val device = devices.firstOrNull { it.type == type } ?: continue
                if (audio.setCommunicationDevice(device)) return
            }
        } else {
            @Suppress("DEPRECATION")
            audio.isSpeakerphoneOn = !audio.isWiredHeadsetOn
        }
    }

    private fun routeName(): String {
        if (Build.VERSION.SDK_INT >= Build.VERSION_CODES.S) {
            return when (audio.communicationDevice?.type) {
                AudioDeviceInfo.TYPE_BLUETOOTH_SCO -> "Bluetooth headset"
                AudioDeviceInfo.TYPE_WIRED_HEADSET, AudioDeviceInfo.TYPE_USB_HEADSET -> "Headset"
                AudioDeviceInfo.TYPE_BUILTIN_EARPIECE -> "Earpiece"
                else -> "Speaker"
            }
        }
        @Suppress("DEPRECATION")
        return if (audio.isSpeakerphoneOn) "Speaker" else "Headset"
    }

    private fun info(granted: Boolean): JSObject {
        val o = JSObject()
        o.put("granted", granted)
        o.put("platformStreams", true)
        val aec = streams?.echoCancelling ?: AcousticEchoCanceler.isAvailable()
        o.put("echoCanceller", if (aec) "android-aec" else "app")
        o.put("playbackRate", playbackRate)
        o.put("route", routeName())
        return o
    }

    @Command
    fun startStreams(invoke: Invoke) {
        try {
            streams?.stop()
            streams = VoiceStreams(playbackRate).also { it.start() }
            invoke.resolve(info(granted = true))
        } catch (e: Exception) {
            streams = null
            invoke.reject("cannot start the voice streams: ${e.message}")
        }
    }

    @Command
    fun closeSession(invoke: Invoke) {
        streams?.stop()
        streams = null
        if (Build.VERSION.SDK_INT >= Build.VERSION_CODES.S) audio.clearCommunicationDevice()
        previousMode?.let { audio.mode = it }
        previousMode = null
        invoke.resolve()
    }
}
