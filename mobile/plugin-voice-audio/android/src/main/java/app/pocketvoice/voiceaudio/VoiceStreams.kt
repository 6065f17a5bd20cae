// Capture and playback on Android's voice-communication path: AudioRecord on the
// VOICE_COMMUNICATION source with the platform AcousticEchoCanceler (and NoiseSuppressor), and
// AudioTrack with USAGE_VOICE_COMMUNICATION, so the canceller has the assistant's voice as its
// reference. Two threads move 10-20 ms blocks between them and Rust.
package app.pocketvoice.voiceaudio

import android.media.AudioAttributes
import android.media.AudioFormat
import android.media.AudioRecord
import android.media.AudioTrack
import android.media.MediaRecorder
import android.media.audiofx.AcousticEchoCanceler
import android.media.audiofx.NoiseSuppressor
import android.os.Build
import android.os.Process

internal class VoiceStreams(private val playbackRate: Int) {
    /** The voice loop's rate: no conversion needed on the capture side. */
    val captureRate = 16_000

    private val record: AudioRecord
    private val track: AudioTrack
    private var aec: AcousticEchoCanceler? = null
    private var ns: NoiseSuppressor? = null

    @Volatile private var running = false
    private var captureThread: Thread? = null
    private var playbackThread: Thread? = null

    /** Whether the platform echo canceller is attached and enabled. */
    val echoCancelling: Boolean
        get() = aec?.enabled == true

    init {
        val inFormat = AudioFormat.Builder()
            .setEncoding(AudioFormat.ENCODING_PCM_FLOAT)
            .setSampleRate(captureRate)
            .setChannelMask(AudioFormat.CHANNEL_IN_MONO)
            .build()
        val minIn = AudioRecord.getMinBufferSize(
            captureRate, AudioFormat.CHANNEL_IN_MONO, AudioFormat.ENCODING_PCM_FLOAT
        )
        record = AudioRecord.Builder()
            .setAudioSource(MediaRecorder.AudioSource.VOICE_COMMUNICATION)
            .setAudioFormat(inFormat)
            .setBufferSizeInBytes(maxOf(minIn, captureRate / 10 * 4)) // >= 100 ms
            .build()
        if (record.state != AudioRecord.STATE_INITIALIZED) {
            record.release()
            throw IllegalStateException("the microphone could not be opened")
        }
        if (AcousticEchoCanceler.isAvailable()) {
            aec = AcousticEchoCanceler.create(record.audioSessionId)?.also { it.enabled = true }
        }
        if (NoiseSuppressor.isAvailable()) {
            ns = NoiseSuppressor.create(record.audioSessionId)?.also { it.enabled = true }
        }

        val outFormat = AudioFormat.Builder()
            .setEncoding(AudioFormat.ENCODING_PCM_FLOAT)
            .setSampleRate(playbackRate)
            .setChannelMask(AudioFormat.CHANNEL_OUT_MONO)
            .build()
        val attributes = AudioAttributes.Builder()
            .setUsage(AudioAttributes.USAGE_VOICE_COMMUNICATION)
            .setContentType(AudioAttributes.CONTENT_TYPE_SPEECH)
            .build()
        val minOut = AudioTrack.getMinBufferSize(
            playbackRate, AudioFormat.CHANNEL_OUT_MONO, AudioFormat.ENCODING_PCM_FLOAT
        )
        val builder = AudioTrack.Builder()
            .setAudioAttributes(attributes)
            .setAudioFormat(outFormat)
            .setTransferMode(AudioTrack.MODE_STREAM)
            .setBufferSizeInBytes(maxOf(minOut, playbackRate / 25 * 4)) // >= 40 ms
        if (Build.VERSION.SDK_INT >= Build.VERSION_CODES.O) {
            builder.setPerformanceMode(AudioTrack.PERFORMANCE_MODE_LOW_LATENCY)
        }
        track = builder.build()
        if (track.state != AudioTrack.STATE_INITIALIZED) {
            track.release()
            aec?.release()
            ns?.release()
            record.release()
            throw IllegalStateException("the speaker could not be opened")
        }
    }

    fun start() {
        running = true
        record.startRecording()
        track.play()
        captureThread = Thread({ captureLoop() }, "pocket-voice-capture").also { it.start() }
        playbackThread = Thread({ playbackLoop() }, "pocket-voice-playback").also { it.start() }
    }

    private fun captureLoop() {
        Process.setThreadPriority(Process.THREAD_PRIORITY_URGENT_AUDIO)
        val block = FloatArray(captureRate / 50) // 20 ms
        while (running) {
            val n = record.read(block, 0, block.size, AudioRecord.READ_BLOCKING)
            if (n > 0) {
                NativeAudio.onCapture(block, n, captureRate)
            } else if (n < 0) {
                break // ERROR_DEAD_OBJECT etc.: the device went away
            }
        }
    }

    private fun playbackLoop() {
        Process.setThreadPriority(Process.THREAD_PRIORITY_URGENT_AUDIO)
        val block = FloatArray(playbackRate / 100) // 10 ms
        while (running) {
            NativeAudio.fillPlayback(block, block.size)
            if (track.write(block, 0, block.size, AudioTrack.WRITE_BLOCKING) < 0) break
        }
    }

    fun stop() {
        running = false
        // stop() wakes a blocked read/write, so the threads can end.
        runCatching { record.stop() }
        runCatching { track.pause(); track.flush() }
        captureThread?.join(500)
        playbackThread?.join(500)
        release()
    }

    private fun release() {
        aec?.release()
        ns?.release()
        record.release()
        track.release()
    }
}
