// The Rust half of the audio data plane (mobile/plugin-voice-audio/src/bridge.rs), called per
// audio block over JNI. The app's native library is already loaded by the Tauri activity.
package app.pocketvoice.voiceaudio

object NativeAudio {
    /** Hands `len` captured mono samples at `rate` Hz to the voice loop. */
    @JvmStatic external fun onCapture(samples: FloatArray, len: Int, rate: Int)

    /** Fills `out[0 until len]` with the assistant's voice (silence when it has none). */
    @JvmStatic external fun fillPlayback(out: FloatArray, len: Int): Int
}
